#include "isocost/partition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/model/cut_internal.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/limits.hpp"
#include "isocost/metrics.hpp"

namespace isocost {

using detail::exact;

// ---------------------------------------------------------------------------
Speeds Speeds::uniform(int ranks) {
  if (ranks < 1)
    throw Error(detail::expected_got("ranks", "an integer >= 1", std::to_string(ranks)));
  Speeds s;
  s.ranks_ = ranks;
  return s;
}

Speeds Speeds::from_values(std::vector<double> speeds) {
  if (speeds.empty()) throw Error("speeds: expected at least one speed, got none");
  if (speeds.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error("speeds: too many ranks (" + std::to_string(speeds.size()) + ")");
  Speeds s;
  s.ranks_ = static_cast<int>(speeds.size());
  s.prefix_.resize(speeds.size() + 1);
  long double sum = 0;
  for (std::size_t k = 0; k < speeds.size(); ++k) {
    if (!std::isfinite(speeds[k]) || !(speeds[k] > 0))
      throw Error(detail::expected_got("speeds: speed of rank " + std::to_string(k),
                                       "a finite number > 0", exact(speeds[k])));
    sum += speeds[k];
    s.prefix_[k + 1] = static_cast<double>(sum);
  }
  s.speeds_ = std::move(speeds);
  return s;
}

Speeds Speeds::from_node_types(const std::vector<NodeType>& types) {
  if (types.empty()) throw Error("node types: expected at least one type, got none");
  std::vector<double> speeds;
  for (std::size_t j = 0; j < types.size(); ++j) {
    const auto& t = types[j];
    if (t.count < 1)
      throw Error(detail::expected_got("node type " + std::to_string(j + 1) + ": count",
                                       "an integer >= 1", std::to_string(t.count)));
    if (!std::isfinite(t.time_ratio) || !(t.time_ratio > 0))
      throw Error(detail::expected_got("node type " + std::to_string(j + 1) + ": time ratio R",
                                       "a finite number > 0", exact(t.time_ratio)));
    // Bounded before the speeds are allocated (limits.hpp).
    const auto total = static_cast<std::int64_t>(speeds.size()) + t.count;
    if (total > kMaxParts)
      throw Error("node types: " + above_limit(total, kMaxParts, "ranks") + " in total");
    // R_j = time on type 1 / time on type j (Swartz §4), so speed_j = R_j.
    speeds.insert(speeds.end(), static_cast<std::size_t>(t.count), t.time_ratio);
  }
  return from_values(std::move(speeds));
}

Speeds Speeds::from_times(std::span<const double> seconds) {
  if (seconds.empty()) throw Error("speeds from times: expected at least one time, got none");
  double slowest = 0;
  for (std::size_t k = 0; k < seconds.size(); ++k) {
    if (!std::isfinite(seconds[k]) || !(seconds[k] > 0))
      throw Error(detail::expected_got("speeds from times: time of rank " + std::to_string(k),
                                       "a finite time > 0", exact(seconds[k]) + " s"));
    slowest = std::max(slowest, seconds[k]);
  }
  std::vector<double> speeds(seconds.size());
  for (std::size_t k = 0; k < seconds.size(); ++k) speeds[k] = slowest / seconds[k];
  return from_values(std::move(speeds));
}

double Speeds::speed(int rank) const {
  if (rank < 0 || rank >= ranks_)
    throw Error("rank " + std::to_string(rank) + " is outside [0, " + std::to_string(ranks_) + ")");
  return is_uniform() ? 1.0 : speeds_[static_cast<std::size_t>(rank)];
}

double Speeds::total() const noexcept { return is_uniform() ? ranks_ : prefix_.back(); }

double Speeds::fraction_before(int i) const {
  if (i < 0 || i > ranks_)
    throw Error("rank boundary " + std::to_string(i) + " is outside [0, " + std::to_string(ranks_) +
                "]");
  if (i == ranks_) return 1.0;
  return is_uniform() ? static_cast<double>(i) / ranks_ : prefix_[i] / prefix_.back();
}

std::vector<double> Speeds::values() const {
  return is_uniform() ? std::vector<double>(static_cast<std::size_t>(ranks_), 1.0) : speeds_;
}

// ---------------------------------------------------------------------------
namespace {

void check_integer_domain(const CostModel& model, const PartitionOptions& options) {
  if (!options.integer || model.is_discrete()) return;
  constexpr double limit = 9007199254740992.0;  // 2^53: integers stay exact
  for (double v : {model.lo(), model.hi()})
    if (v != std::floor(v) || std::abs(v) > limit)
      throw Error(detail::expected_got("integer partition: the domain ends",
                                       "integers with |x| <= 2^53", exact(v)));
}

// Integer boundary for a continuous cut: of floor(x) and floor(x) + 1 (within
// [floor_at, hi]) the one whose t is closest to the target, ties to the smaller.
struct Rounded {
  double b;
  double t;  // t(b)
};
Rounded round_cut(const CostModel& model, double x, double target, double floor_at) {
  const auto& m = model.impl();
  const double f = std::max(std::floor(x), floor_at);
  const double c = std::min(f + 1, model.hi());
  const double tf = m.cost(f);
  if (c <= f) return {f, tf};
  const double tc = m.cost(c);
  return std::abs(tc - target) < std::abs(tf - target) ? Rounded{c, tc} : Rounded{f, tf};
}

// Below this share of the work a rank's range cannot be resolved in double
// precision: t is only known to about ε·TT, so the rank's cost would carry a
// relative error of ε/share. An error, not a silently empty rank.
constexpr double kMinShare = 1e-12;

void check_share(const CostModel& model, const Speeds& speeds, int rank) {
  if (model.is_discrete()) return;  // integer cuts by prefix sums: always ordered
  const double share = speeds.speed(rank) / speeds.total();
  if (!(share >= kMinShare))
    throw Error("rank " + std::to_string(rank) + " (speed " + exact(speeds.speed(rank)) +
                ") owns a share of " + exact(share) + " of the work, below " + exact(kMinShare) +
                ": its range cannot be resolved in double precision");
}

// The cost tolerance of cut i is relative to the smaller of the two parts it
// separates, so every part's cost is within 2·cost_tolerance of its target
// whatever P and the speeds.
double cut_scale(const CostModel& model, const Speeds& speeds, int i) {
  return model.total() * std::min(speeds.speed(i - 1), speeds.speed(i)) / speeds.total();
}

CutSummary end_summary(double x, double target, const CutOptions& options) {
  CutSummary s;
  s.x = x;
  s.target = target;
  s.requested = s.used = options.method;
  s.termination = CutTermination::exact;
  return s;
}

double target_of(const CostModel& model, const Speeds& speeds, int i) {
  return model.total() * speeds.fraction_before(i);
}

void check_initial_cuts(const PartitionOptions& options, int P) {
  const auto& g = options.initial_cuts;
  if (g.empty()) return;
  if (g.size() != static_cast<std::size_t>(P) + 1)
    throw Error("initial_cuts: expected " + std::to_string(P + 1) + " values (P + 1), got " +
                std::to_string(g.size()));
}

CutOptions with_guess(const PartitionOptions& options, int i) {
  CutOptions opt = options.cut;
  if (!options.initial_cuts.empty()) opt.initial_guess = options.initial_cuts[i];
  return opt;
}

CutSummary independent_cut(const CostModel& model, const Speeds& speeds, int i,
                           const PartitionOptions& options) {
  const double target = target_of(model, speeds, i);
  if (i == 0) return end_summary(model.lo(), 0.0, options.cut);
  if (i == speeds.ranks()) return end_summary(model.hi(), model.total(), options.cut);
  return detail::solve_cut_known(model, target, model.lo(), -target, model.hi(),
                                 model.total() - target, with_guess(options, i),
                                 cut_scale(model, speeds, i));
}

}  // namespace

RankRange rank_range(const CostModel& model, int rank, const Speeds& speeds,
                     const PartitionOptions& options) {
  options.validate();
  check_integer_domain(model, options);
  const int P = speeds.ranks();
  if (rank < 0 || rank >= P)
    throw Error("rank " + std::to_string(rank) + " is outside [0, " + std::to_string(P) + ")");
  check_share(model, speeds, rank);
  check_initial_cuts(options, P);
  RankRange r;
  r.rank = rank;
  r.lower = independent_cut(model, speeds, rank, options);
  r.upper = independent_cut(model, speeds, rank + 1, options);
  double t_lo = r.lower.target + r.lower.residual, t_hi = r.upper.target + r.upper.residual;
  r.lo = r.lower.x;
  r.hi = r.upper.x;
  if (options.integer && !model.is_discrete()) {
    const auto a = round_cut(model, r.lo, r.lower.target, model.lo());
    const auto b = round_cut(model, r.hi, r.upper.target, model.lo());
    r.lo = a.b;
    r.hi = b.b;
    t_lo = a.t;
    t_hi = b.t;
  }
  r.cost = t_hi - t_lo;
  r.time = r.cost / speeds.speed(rank);
  return r;
}

Partition partition(const CostModel& model, const Speeds& speeds, const PartitionOptions& options) {
  options.validate();
  check_integer_domain(model, options);
  const int P = speeds.ranks();
  if (P > kMaxParts) throw Error("partition: " + above_limit(P, kMaxParts, "parts"));
  for (int i = 0; i < (speeds.is_uniform() ? 0 : P); ++i) check_share(model, speeds, i);
  check_initial_cuts(options, P);
  const double TT = model.total();
  Partition part;
  part.total_cost = TT;
  part.speed_total = speeds.total();
  part.integer = options.integer || model.is_discrete();
  part.options = options;
  part.cuts.resize(static_cast<std::size_t>(P) + 1);
  part.summaries.resize(static_cast<std::size_t>(P) + 1);
  std::vector<double> t_at(static_cast<std::size_t>(P) + 1);  // t(cut) as evaluated

  part.summaries[0] = end_summary(model.lo(), 0.0, options.cut);
  part.summaries[P] = end_summary(model.hi(), TT, options.cut);
  for (int i = 1; i < P; ++i) {
    const double target = target_of(model, speeds, i);
    CutSummary s;
    if (!options.warm_start) {
      s = independent_cut(model, speeds, i, options);
    } else {
      // Bracket by the previous cut, whose t is known, and extrapolate the guess
      // from the previous two cuts in proportion to their targets.
      const CutSummary& prev = part.summaries[i - 1];
      const double a = prev.x, fa = prev.target + prev.residual - target;
      if (fa >= 0) {
        s = prev;
        s.target = target;
        s.residual = fa;
        s.iterations = s.evaluations = s.bisection_steps = 0;
        s.fallback = CutFallback::none;
        // The verdict is this target's: a boundary that met the previous
        // target exactly may miss this one, and one that missed it may meet it.
        if (s.termination == CutTermination::exact ||
            s.termination == CutTermination::nearest_integer)
          s.termination = detail::placed_termination(fa, CutTermination::nearest_integer);
      } else {
        CutOptions opt = with_guess(options, i);
        if (i >= 2 && options.initial_cuts.empty()) {
          const CutSummary& pp = part.summaries[i - 2];
          const double step = (prev.x - pp.x) * (target - prev.target) / (prev.target - pp.target);
          opt.initial_guess = prev.x + step;
          if (i >= 3) {
            // x as a quadratic in the target through the last three cuts: on a
            // smooth model its error is O(h^3) instead of O(h^2), which saves
            // Newton about one of its three or four evaluations per cut.
            const CutSummary& p3 = part.summaries[i - 3];
            const double t0 = p3.target, t1 = pp.target, t2 = prev.target;
            const double d01 = (pp.x - p3.x) / (t1 - t0), d12 = (prev.x - pp.x) / (t2 - t1);
            const double d012 = (d12 - d01) / (t2 - t0);
            const double q = prev.x + (target - t2) * (d12 + d012 * (target - t1));
            if (std::isfinite(q) && q > prev.x) opt.initial_guess = q;
          }
        }
        s = detail::solve_cut_known(model, target, a, fa, model.hi(), TT - target, opt,
                                    cut_scale(model, speeds, i));
      }
    }
    part.summaries[i] = s;
  }

  double floor_at = model.lo();
  for (int i = 0; i <= P; ++i) {
    const CutSummary& s = part.summaries[i];
    part.cuts[i] = s.x;
    t_at[i] = s.target + s.residual;
    part.max_abs_residual = std::max(part.max_abs_residual, std::abs(s.residual));
    part.max_iterations = std::max(part.max_iterations, s.iterations);
    if (s.fallback != CutFallback::none) ++part.fallbacks;
    if (s.termination == CutTermination::failed)
      part.termination = Termination::failed;
    else if (!s.converged() && part.termination == Termination::converged)
      part.termination = Termination::iteration_limit;
    if (options.integer && !model.is_discrete() && i > 0 && i < P) {
      const auto r = round_cut(model, s.x, s.target, floor_at);
      part.cuts[i] = r.b;
      t_at[i] = r.t;
    }
    if (i > 0 && part.cuts[i] < part.cuts[i - 1])
      throw Error("cuts " + std::to_string(i - 1) + " and " + std::to_string(i) +
                  " came out in decreasing order (" + exact(part.cuts[i - 1]) + " > " +
                  exact(part.cuts[i]) +
                  "): independent solves (warm_start = false) that did not converge are not "
                  "ordered; raise max_iterations or use warm_start");
    floor_at = part.cuts[i];
  }

  part.cost.resize(static_cast<std::size_t>(P));
  part.time.resize(static_cast<std::size_t>(P));
  for (int i = 0; i < P; ++i) {
    part.cost[i] = t_at[i + 1] - t_at[i];
    part.time[i] = part.cost[i] / speeds.speed(i);
  }
  part.predicted_le = load_stats(part.time).le;
  return part;
}

Partition partition_from_cuts(std::span<const std::int64_t> cuts, std::span<const double> t_at_cuts,
                              const Speeds& speeds, CutTermination placed,
                              const PartitionOptions& options, double lo) {
  const char* what = "partition_from_cuts: ";
  options.validate();
  const int P = speeds.ranks();
  if (P > kMaxParts) throw Error(what + above_limit(P, kMaxParts, "parts"));
  const auto n = static_cast<std::size_t>(P) + 1;
  if (cuts.size() != n || t_at_cuts.size() != n)
    throw Error(what + std::string("expected P + 1 = ") + std::to_string(n) +
                " cuts and values for " + std::to_string(P) + " ranks, got " +
                std::to_string(cuts.size()) + " cuts and " + std::to_string(t_at_cuts.size()) +
                " values");
  if (placed != CutTermination::nearest_integer && placed != CutTermination::optimum)
    throw Error(what + std::string("expected the cuts placed as nearest_integer or optimum, got ") +
                std::string(to_string(placed)));
  if (t_at_cuts[0] != 0)
    throw Error(detail::expected_got(what + std::string("t at the first cut"),
                                     "0 (t counts from lo)", exact(t_at_cuts[0])));
  for (std::size_t i = 1; i < n; ++i) {
    if (cuts[i] < cuts[i - 1])
      throw Error(detail::expected_got(what + std::string("cut ") + std::to_string(i),
                                       "a value >= " + std::to_string(cuts[i - 1]) + " (cut " +
                                           std::to_string(i - 1) + "; nondecreasing cuts)",
                                       std::to_string(cuts[i])));
    if (!std::isfinite(t_at_cuts[i]) || t_at_cuts[i] < t_at_cuts[i - 1])
      throw Error(detail::expected_got(what + std::string("t at cut ") + std::to_string(i),
                                       "a finite value >= " + exact(t_at_cuts[i - 1]) +
                                           " (t at cut " + std::to_string(i - 1) + ")",
                                       exact(t_at_cuts[i])));
  }
  const double TT = t_at_cuts[n - 1];
  Partition part;
  part.total_cost = TT;
  part.speed_total = speeds.total();
  part.integer = true;
  part.options = options;
  part.cuts.resize(n);
  part.summaries.resize(n);
  part.cost.resize(n - 1);
  part.time.resize(n - 1);
  for (int i = 0; i <= P; ++i) {
    const auto u = static_cast<std::size_t>(i);
    part.cuts[u] = lo + static_cast<double>(cuts[u]);
    // Not a root find: the cut is a cell boundary with its target and the
    // residual there (iterations, evaluations and fallback stay 0 / none).
    CutSummary& c = part.summaries[u];
    c.x = part.cuts[u];
    c.target = TT * speeds.fraction_before(i);
    c.residual = t_at_cuts[u] - c.target;
    c.requested = c.used = CutMethod::binary_search;
    c.termination = detail::placed_termination(c.residual, placed);
    part.max_abs_residual = std::max(part.max_abs_residual, std::abs(c.residual));
    if (i < P) {
      part.cost[u] = t_at_cuts[u + 1] - t_at_cuts[u];
      part.time[u] = part.cost[u] / speeds.speed(i);
    }
  }
  part.predicted_le = load_stats(part.time).le;
  return part;
}

std::string Partition::brief_report() const {
  return std::to_string(ranks()) + " ranks, total cost " + exact(total_cost) + ", predicted L_E " +
         detail::fixed_digits(predicted_le, 8) + " %, max |residual| " +
         exact(max_abs_residual / total_cost) + " of TT, max iterations " +
         std::to_string(max_iterations) +
         (converged() ? ", all cuts converged" : ", NOT all cuts converged");
}

std::string Partition::full_report() const {
  std::string s = brief_report() + "\n";
  s += "max |t(x_i) - target_i| = " + exact(max_abs_residual) + " (" +
       exact(max_abs_residual / total_cost) + " of TT), max iterations " +
       std::to_string(max_iterations) + ", fallbacks " + std::to_string(fallbacks) +
       (integer ? ", integer cuts" : "") + "\n";
  for (std::size_t i = 0; i < summaries.size(); ++i)
    if (!summaries[i].converged())
      s += "cut " + std::to_string(i) + ": " + summaries[i].brief_report() + "\n";
  return s;
}

}  // namespace isocost
