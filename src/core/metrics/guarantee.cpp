// The balance interval timings guarantee for a partition (guarantee.hpp).
#include "isocost/guarantee.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <tuple>

#include "core/data/merge_internal.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/merge.hpp"

namespace isocost {

using detail::exact;

std::string BalanceGuarantee::brief_report() const {
  const auto g = [](double v) { return detail::fixed_digits(v, 4); };
  std::ostringstream out;
  out << "guaranteed L_E " << (covered ? g(le_lo) : std::string("-inf")) << " to " << g(le_hi)
      << " % (whatever the cost inside each timed interval";
  if (noise > 0) out << ", each timing within ±" << g(100 * noise) << " %";
  out << ")";
  if (!covered) out << "; a part reaches beyond the timed span, whose cost is unknown";
  if (!limiting.empty()) {
    out << "; limited by part " << limiting_part << ", which splits";
    for (const auto& [a, b] : limiting)
      out << " [" << detail::fixed_digits(a, 6) << ", " << detail::fixed_digits(b, 6) << "]";
  }
  if (coarse_cuts > 0)
    out << "; " << coarse_cuts << (coarse_cuts == 1 ? " cut falls" : " cuts fall") << " inside ["
        << detail::fixed_digits(coarse_lo, 6) << ", " << detail::fixed_digits(coarse_hi, 6)
        << "], which holds " << g(coarse_shares) << " parts' shares of the cost";
  return out.str();
}

namespace {

// One run's intervals in order, with prefix sums of their timings.
struct Run {
  std::vector<double> lo, hi, t;  // t[k] = Σ dt of intervals before k
  bool whole = false;             // tiles the span of all runs without a gap

  // Σ dt of the intervals inside [a, b], and of those meeting (a, b).
  double covered(double a, double b) const {
    const auto i = std::lower_bound(lo.begin(), lo.end(), a) - lo.begin();
    const auto j = std::upper_bound(hi.begin(), hi.end(), b) - hi.begin();
    return j > i ? t[static_cast<std::size_t>(j)] - t[static_cast<std::size_t>(i)] : 0.0;
  }
  double touched(double a, double b) const {
    const auto i = std::upper_bound(hi.begin(), hi.end(), a) - hi.begin();
    const auto j = std::lower_bound(lo.begin(), lo.end(), b) - lo.begin();
    return j > i ? t[static_cast<std::size_t>(j)] - t[static_cast<std::size_t>(i)] : 0.0;
  }
  // The interval ends around c: the last end <= c and the first >= c.
  std::pair<double, double> bracket(double c) const {
    const auto i = std::upper_bound(hi.begin(), hi.end(), c) - hi.begin();
    if (static_cast<std::size_t>(i) >= hi.size()) return {hi.back(), hi.back()};
    const double l = lo[static_cast<std::size_t>(i)];
    return l <= c ? std::pair{l, hi[static_cast<std::size_t>(i)]} : std::pair{c, c};
  }
};

std::vector<Run> make_runs(std::span<const Samples> runs, double& span_lo, double& span_hi) {
  span_lo = std::numeric_limits<double>::infinity();
  span_hi = -span_lo;
  for (const Samples& s : runs) {
    span_lo = std::min(span_lo, s.lo());
    span_hi = std::max(span_hi, s.hi());
  }
  std::vector<Run> out;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const std::vector<IntervalSample> v = detail::run_intervals(runs[k], k, "guaranteed_balance");
    Run r;
    r.t.push_back(0);
    for (const IntervalSample& iv : v) {
      r.lo.push_back(iv.lo);
      r.hi.push_back(iv.hi);
      r.t.push_back(r.t.back() + iv.dt);
    }
    r.whole = r.lo.front() == span_lo && r.hi.back() == span_hi;
    for (std::size_t j = 1; j < v.size() && r.whole; ++j) r.whole = r.lo[j] == r.hi[j - 1];
    out.push_back(std::move(r));
  }
  if (std::none_of(out.begin(), out.end(), [](const Run& r) { return r.whole; }))
    throw Error("guaranteed_balance: no run times the whole span [" + exact(span_lo) + ", " +
                exact(span_hi) + "] without a gap; its total cost is unknown");
  return out;
}

}  // namespace

BalanceGuarantee guaranteed_balance(const Samples& samples, std::span<const double> cuts,
                                    const Speeds& speeds, double noise) {
  const std::vector<Samples> runs = split_runs(samples);
  return guaranteed_balance(runs, cuts, speeds, noise);
}

BalanceGuarantee guaranteed_balance(std::span<const Samples> samples_of_runs,
                                    std::span<const double> cuts, const Speeds& speeds,
                                    double noise) {
  if (!(noise >= 0 && noise < 1))
    throw Error(
        detail::expected_got("guaranteed_balance: noise", "a fraction in [0, 1)", exact(noise)));
  if (cuts.size() < 2)
    throw Error("guaranteed_balance: " + std::to_string(cuts.size()) +
                " cuts; expected at least 2 (one part)");
  for (std::size_t k = 0; k < cuts.size(); ++k)
    if (!std::isfinite(cuts[k]) || (k > 0 && cuts[k] < cuts[k - 1]))
      throw Error(detail::expected_got("guaranteed_balance: cut " + std::to_string(k),
                                       "a finite value, nondecreasing", exact(cuts[k])));
  const std::size_t P = cuts.size() - 1;
  if (static_cast<std::size_t>(speeds.ranks()) != P)
    throw Error("guaranteed_balance: " + std::to_string(speeds.ranks()) + " speeds for " +
                std::to_string(P) + " parts");
  if (samples_of_runs.empty()) throw Error("guaranteed_balance: no runs");
  double span_lo = 0, span_hi = 0;
  const std::vector<Run> runs = make_runs(samples_of_runs, span_lo, span_hi);
  // Each run bounds every part on its own; the bounds of all runs together
  // are the tightest of each: lower bounds from any run, upper bounds (and
  // the total) from the runs that time the whole span.
  const auto bounds = [&](double a, double b) {
    double lo = 0, hi = std::numeric_limits<double>::infinity();
    for (const Run& r : runs) {
      lo = std::max(lo, r.covered(a, b) * (1 - noise));
      if (r.whole) hi = std::min(hi, r.touched(a, b) * (1 + noise));
    }
    return std::pair{lo, std::max(lo, hi)};  // runs off by more than the noise: no range
  };
  // The narrowest interval any run's ends put around c, and its cost.
  const auto bracket = [&](double c) {
    double a = span_lo, b = span_hi;
    for (const Run& r : runs) {
      const auto [l, h] = r.bracket(c);
      a = std::max(a, l);
      b = std::min(b, h);
    }
    double cost = std::numeric_limits<double>::infinity();
    for (const Run& r : runs)
      if (r.whole) cost = std::min(cost, r.touched(a, b));
    return std::tuple{a, b, cost};
  };
  double total_lo = 0, total_hi = std::numeric_limits<double>::infinity();
  for (const Run& r : runs)
    if (r.whole) {
      total_lo = std::max(total_lo, r.t.back() * (1 - noise));
      total_hi = std::min(total_hi, r.t.back() * (1 + noise));
    }
  total_hi = std::max(total_hi, total_lo);
  BalanceGuarantee g;
  g.noise = noise;
  double max_lo = 0, max_hi = 0;
  double s_max = 0, s_min = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < P; ++k) {
    const double s = speeds.speed(static_cast<int>(k));
    s_max = std::max(s_max, s);
    s_min = std::min(s_min, s);
    const double a = cuts[k], b = cuts[k + 1];
    if (!(b > a)) continue;  // an empty part costs nothing
    if (a < span_lo || b > span_hi) g.covered = false;
    const auto [lo, hi] = bounds(a, b);
    if (lo / s > max_lo) max_lo = lo / s;
    if (hi / s > max_hi) {
      max_hi = hi / s;
      g.limiting_part = static_cast<int>(k);
    }
  }
  // T_avg = Σ_k cost_k/s_k / P, Σ_k cost_k = T: between T/(P·s_max) and T/(P·s_min).
  const double mean_lo = total_lo / (static_cast<double>(P) * s_max);
  const double mean_hi = total_hi / (static_cast<double>(P) * s_min);
  g.t_max_lo = std::max(max_lo, mean_lo);
  g.t_max_hi = max_hi;
  g.le_lo = g.covered ? 100 * (2 - max_hi / mean_lo) : -std::numeric_limits<double>::infinity();
  g.le_hi = std::min(100.0, 100 * (2 - g.t_max_lo / mean_hi));
  if (g.limiting_part >= 0) {
    const auto k = static_cast<std::size_t>(g.limiting_part);
    for (const double c : {cuts[k], cuts[k + 1]})
      if (c > span_lo && c < span_hi) {
        const auto [a, b, cost] = bracket(c);
        if (a < c && c < b) g.limiting.emplace_back(a, b);
      }
  }
  // The heaviest bracket holding more than a share with a cut inside.
  const double share = total_lo / (1 - noise) / static_cast<double>(P);
  for (std::size_t k = 1; k < P; ++k) {
    const double c = cuts[k];
    if (!(c > span_lo && c < span_hi)) continue;
    const auto [a, b, d] = bracket(c);
    if (!(a < c && c < b) || !(d > share)) continue;
    if (g.coarse_cuts > 0 && a == g.coarse_lo) {
      ++g.coarse_cuts;
    } else if (d / share > g.coarse_shares) {
      g.coarse_lo = a;
      g.coarse_hi = b;
      g.coarse_shares = d / share;
      g.coarse_cuts = 1;
    }
  }
  return g;
}

}  // namespace isocost
