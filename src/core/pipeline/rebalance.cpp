// New 1-D block distributions from measured loads: global (interpolated or
// modelled cumulative cost, Swartz §2), from per-element weights, and by
// diffusion on the chain of ranks with boundary shifts (shift.hpp).
#include "isocost/rebalance.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <sstream>

#include "core/pipeline/cumulative_points.hpp"
#include "core/pipeline/newest.hpp"
#include "core/pipeline/phase_weightings.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/metrics.hpp"
#include "isocost/partition.hpp"

namespace isocost {

using detail::exact;

static_assert(
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(PlanMethod::phases),
                                              BlockRebalanceOptions>,
                   PhaseRebalanceOptions>,
    "BlockRebalanceOptions' alternatives are in PlanMethod's order");
static_assert(
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(PlanMethod::diffusion),
                                              BlockRebalanceOptions>,
                   DiffusiveRebalanceOptions>,
    "BlockRebalanceOptions' alternatives are in PlanMethod's order");

std::string_view to_string(PlanMethod method) {
  switch (method) {
    case PlanMethod::none:
      return "none";
    case PlanMethod::global:
      return "global";
    case PlanMethod::phases:
      return "phases";
    case PlanMethod::weights:
      return "weights";
    case PlanMethod::diffusion:
      return "diffusion";
  }
  return "?";
}

std::string BlockRebalance::brief_report() const {
  std::ostringstream out;
  out << to_string(method()) << ": " << offsets.size() - 1 << " ranks, imbalance "
      << exact(measured_imbalance) << " measured -> " << exact(predicted_imbalance)
      << " predicted; " << elements_moved << " elements change owner (at most "
      << max_elements_received << " into one rank)"
      << (history_used > 0 ? "; " + std::to_string(history_used) + " earlier rounds merged" : "")
      << (history_dropped > 0 ? "; " + std::to_string(history_dropped) + " drifted rounds left out"
                              : "")
      << (forecast ? "; offsets forecast for the coming interval" : "")
      << (converged() ? "" : " (NOT converged)");
  return out.str();
}

void validate_block_offsets(std::span<const std::int64_t> o) {
  if (o.size() < 2)
    throw Error("block distribution: expected at least 2 offsets (one rank), got " +
                std::to_string(o.size()));
  if (o[0] != 0)
    throw Error(detail::expected_got("block distribution: offset 0", "0", std::to_string(o[0])));
  for (std::size_t k = 1; k < o.size(); ++k)
    if (o[k] < o[k - 1])
      throw Error(detail::expected_got("block distribution: offset " + std::to_string(k),
                                       "a value >= " + std::to_string(o[k - 1]) + " (offset " +
                                           std::to_string(k - 1) + "; nondecreasing offsets)",
                                       std::to_string(o[k])));
}

std::pair<std::int64_t, std::int64_t> block_elements_moved(std::span<const std::int64_t> from,
                                                           std::span<const std::int64_t> to) {
  validate_block_offsets(from);
  validate_block_offsets(to);
  if (from.size() != to.size() || from.back() != to.back())
    throw Error("block distribution: " + std::to_string(from.size() - 1) + " ranks and " +
                std::to_string(from.back()) + " elements before, " + std::to_string(to.size() - 1) +
                " and " + std::to_string(to.back()) + " after; expected the same");
  std::int64_t moved = 0, most = 0;
  for (std::size_t r = 0; r + 1 < to.size(); ++r) {
    const std::int64_t kept =
        std::max<std::int64_t>(0, std::min(from[r + 1], to[r + 1]) - std::max(from[r], to[r]));
    const std::int64_t received = (to[r + 1] - to[r]) - kept;
    moved += received;  // every element that changes owner is received once
    most = std::max(most, received);
  }
  return {moved, most};
}

namespace {

void check_speeds(const Speeds& speeds, std::size_t P) {
  if (static_cast<std::size_t>(speeds.ranks()) != P)
    throw Error("rebalance: " + std::to_string(speeds.ranks()) + " speeds for " +
                std::to_string(P) + " ranks");
}

// The rebalance to the integer cuts of `p` from the current offsets: the
// new distribution, its predictions and what moving to it costs.
BlockRebalance to_rebalance(const Partition& p, std::span<const std::int64_t> offsets) {
  BlockRebalance out;
  out.offsets.resize(offsets.size());
  for (std::size_t k = 0; k < offsets.size(); ++k)
    out.offsets[k] = static_cast<std::int64_t>(std::llround(p.cuts[k]));
  out.offsets.front() = 0;
  out.offsets.back() = offsets.back();
  out.predicted_time = p.time;
  out.predicted_imbalance = imbalance(out.predicted_time);
  out.termination = p.termination;
  std::tie(out.elements_moved, out.max_elements_received) =
      block_elements_moved(offsets, out.offsets);
  return out;
}

// Cuts `model` into P integer ranges, warm-started from the current offsets.
BlockRebalance cut_model(const CostModel& model, const Speeds& speeds,
                         std::span<const std::int64_t> offsets, const CutOptions& cut) {
  PartitionOptions po;
  po.cut = cut;
  po.integer = true;
  po.initial_cuts.assign(offsets.begin(), offsets.end());
  return to_rebalance(partition(model, speeds, po), offsets);
}

// The interpolated cumulative cost of the current round, with the points of
// earlier rounds (rebalance_global()'s history) merged in; with `edges`, the
// density's edges located among them (GlobalRebalanceOptions::edges).
CostModel cumulative_model(std::span<const std::int64_t> offsets, std::span<const double> loads,
                           const Speeds& speeds, Interpolation interpolation,
                           std::span<const BlockRound> history = {}, double tolerance = 0,
                           detail::Accumulated* used = nullptr, bool edges = false) {
  detail::Accumulated a = detail::accumulate_rounds(offsets, loads, speeds, history, tolerance);
  // Boost's pchip and makima need 4 points; fewer ranges are interpolated
  // linearly, which is the only monotone choice through 2–3 points anyway.
  Interpolation how = a.x.size() < 4 ? Interpolation::linear : interpolation;
  if (edges && a.rounds_used > 0 && how == Interpolation::pchip) {
    detail::edge_points(a.x, a.t);
    how = Interpolation::linear;
  }
  if (used) {
    used->rounds_used = a.rounds_used;
    used->rounds_dropped = a.rounds_dropped;
  }
  return tabulated_model(std::move(a.x), std::move(a.t), how);
}

}  // namespace

BlockRebalance rebalance_global(std::span<const std::int64_t> offsets,
                                std::span<const double> loads, const Speeds& speeds,
                                const GlobalRebalanceOptions& options,
                                std::span<const BlockRound> history) {
  options.validate();
  validate_block_offsets(offsets);
  const std::size_t P = offsets.size() - 1;
  check_loads(loads, "rebalance", P);
  check_speeds(speeds, P);
  const double measured = imbalance(loads);
  if (offsets.back() == 0 || P == 1) {  // nothing to cut
    BlockRebalance out;
    out.options = options;
    out.offsets.assign(offsets.begin(), offsets.end());
    out.predicted_time.assign(loads.begin(), loads.end());
    out.predicted_imbalance = out.measured_imbalance = measured;
    return out;
  }
  std::optional<CostModel> model;
  detail::Accumulated used;
  if (options.model) {
    std::vector<double> cuts(offsets.begin(), offsets.end());
    model = options.model(samples_from_partition(cuts, loads, &speeds));
    if (model->lo() > 0 || model->hi() < static_cast<double>(offsets.back()))
      throw Error("rebalance: the model's domain [" + exact(model->lo()) + ", " +
                  exact(model->hi()) + "] does not cover the elements [0, " +
                  std::to_string(offsets.back()) + "]");
  } else {
    for (std::size_t k = 0; k < history.size(); ++k) {
      const BlockRound& h = history[k];
      validate_block_offsets(h.offsets);
      if (h.offsets.size() != offsets.size() || h.offsets.back() != offsets.back())
        throw Error(detail::expected_got(
            "rebalance: history round " + std::to_string(k),
            std::to_string(P) + " ranks and " + std::to_string(offsets.back()) + " elements",
            std::to_string(h.offsets.size() - 1) + " ranks and " +
                std::to_string(h.offsets.back()) + " elements"));
      if (h.loads.size() != P)
        throw Error("rebalance: history round " + std::to_string(k) + " has " +
                    std::to_string(h.loads.size()) + " loads for " + std::to_string(P) + " ranks");
      for (double v : h.loads)
        if (!(v >= 0) || !std::isfinite(v))
          throw Error(
              detail::expected_got("rebalance: a load of history round " + std::to_string(k),
                                   "a finite number >= 0", exact(v)));
    }
    model = cumulative_model(offsets, loads, speeds, options.interpolation,
                             detail::newest(history, options.history), options.history_tolerance,
                             &used, options.edges);
  }
  BlockRebalance out = cut_model(*model, speeds, offsets, options.cut);
  out.options = options;
  out.measured_imbalance = measured;
  out.history_used = used.rounds_used;
  out.history_dropped = used.rounds_dropped;
  return out;
}

BlockRebalance rebalance_phases(std::span<const std::int64_t> offsets,
                                std::span<const double> phase_loads, const Speeds& speeds,
                                const PhaseRebalanceOptions& options) {
  options.validate();
  validate_block_offsets(offsets);
  const std::size_t P = offsets.size() - 1;
  if (phase_loads.empty() || phase_loads.size() % P != 0)
    throw Error("rebalance: " + std::to_string(phase_loads.size()) + " phase loads for " +
                std::to_string(P) + " ranks; expected a whole number of phases per rank");
  const std::size_t F = phase_loads.size() / P;
  check_speeds(speeds, P);
  GlobalRebalanceOptions global;
  global.interpolation = options.interpolation;
  global.cut = options.cut;
  std::vector<double> total(P, 0.0), phase_total(F, 0.0);
  for (std::size_t r = 0; r < P; ++r)
    for (std::size_t p = 0; p < F; ++p) {
      const double v = phase_loads[r * F + p];
      if (!(v >= 0) || !std::isfinite(v))
        throw Error(detail::expected_got(
            "rebalance: load of rank " + std::to_string(r) + " in phase " + std::to_string(p),
            "a finite number >= 0", exact(v)));
      total[r] += v;
      phase_total[p] += v;
    }
  check_loads(total, "rebalance", P);
  // Per phase: its loads and, where it has any, its cumulative model.
  std::vector<std::vector<double>> loads(F, std::vector<double>(P));
  std::vector<std::optional<CostModel>> models(F);
  double measured_sync = 0;
  for (std::size_t p = 0; p < F; ++p) {
    for (std::size_t r = 0; r < P; ++r) loads[p][r] = phase_loads[r * F + p];
    measured_sync += *std::max_element(loads[p].begin(), loads[p].end());
    if (phase_total[p] > 0 && offsets.back() > 0)
      models[p] = cumulative_model(offsets, loads[p], speeds, options.interpolation);
  }
  // Candidate weightings (see the header), evaluated by their predicted
  // phase-synchronised time.
  const std::vector<std::vector<double>> candidates = detail::phase_weightings(phase_total);
  std::optional<BlockRebalance> best;
  for (const auto& w : candidates) {
    std::vector<double> mixed(P, 0.0);
    for (std::size_t r = 0; r < P; ++r)
      for (std::size_t p = 0; p < F; ++p) mixed[r] += w[p] * loads[p][r];
    if (!(std::accumulate(mixed.begin(), mixed.end(), 0.0) > 0)) continue;
    BlockRebalance c = rebalance_global(offsets, mixed, speeds, global);
    c.options = options;
    c.phase_weights = w;
    c.measured_imbalance = imbalance(total);
    c.measured_synchronised = measured_sync;
    c.predicted_time.assign(P, 0.0);
    c.predicted_synchronised = 0;
    for (std::size_t p = 0; p < F; ++p) {
      double worst = 0;
      for (std::size_t r = 0; r < P; ++r) {
        double time = 0;
        if (models[p] && c.offsets[r + 1] > c.offsets[r])
          time = models[p]->cost(static_cast<double>(c.offsets[r]),
                                 static_cast<double>(c.offsets[r + 1])) /
                 speeds.speed(static_cast<int>(r));
        else if (!models[p] || offsets.back() == 0)
          time = loads[p][r];  // nothing to cut: the measurement stands
        c.predicted_time[r] += time;
        worst = std::max(worst, time);
      }
      c.predicted_synchronised += worst;
    }
    c.predicted_imbalance = imbalance(c.predicted_time);
    if (!best || c.predicted_synchronised < best->predicted_synchronised) best = std::move(c);
  }
  return *best;
}

BlockRebalance rebalance_weights(std::span<const std::int64_t> offsets,
                                 std::span<const double> element_loads, const Speeds& speeds,
                                 const WeightsRebalanceOptions& options) {
  options.validate();
  validate_block_offsets(offsets);
  const std::size_t P = offsets.size() - 1;
  if (static_cast<std::int64_t>(element_loads.size()) != offsets.back())
    throw Error("rebalance: " + std::to_string(element_loads.size()) +
                " element loads for a distribution of " + std::to_string(offsets.back()) +
                " elements");
  check_speeds(speeds, P);
  // The measured imbalance of the current ranges, in time (cost / speed).
  std::vector<double> now(P, 0.0);
  for (std::size_t r = 0; r < P; ++r) {
    double s = 0;
    for (std::int64_t k = offsets[r]; k < offsets[r + 1]; ++k) s += element_loads[k];
    now[r] = s / speeds.speed(static_cast<int>(r));
  }
  const CostModel model =
      discrete_model(std::vector<double>(element_loads.begin(), element_loads.end()));
  // The exact chains-on-chains optimum (every rank at least one element
  // where there are enough), or the cuts nearest the cost shares.
  BlockRebalance out = options.optimal && offsets.back() > 0
                           ? to_rebalance(partition_optimal(model, speeds), offsets)
                           : cut_model(model, speeds, offsets, CutOptions{});
  out.options = options;
  out.measured_imbalance = imbalance(now);
  return out;
}

BlockRebalance rebalance_diffusive(std::span<const std::int64_t> offsets,
                                   std::span<const double> loads,
                                   const DiffusiveRebalanceOptions& options,
                                   std::span<const double> element_costs) {
  options.validate();
  validate_block_offsets(offsets);
  const std::size_t P = offsets.size() - 1;
  const double total = check_loads(loads, "rebalance", P);
  BlockRebalance out;
  out.options = options;
  out.measured_imbalance = imbalance(loads);
  const std::int64_t N = offsets.back();
  if (N == 0 || P == 1) {
    out.offsets.assign(offsets.begin(), offsets.end());
    out.predicted_time.assign(loads.begin(), loads.end());
    out.predicted_imbalance = out.measured_imbalance;
    return out;
  }
  // The element index is the model (t(x) = x), or the code's own per-element
  // costs; shift_cuts() rescales each old range by its measured load.
  if (!element_costs.empty() && static_cast<std::int64_t>(element_costs.size()) != N)
    throw Error("rebalance: " + std::to_string(element_costs.size()) +
                " element costs for a distribution of " + std::to_string(N) + " elements");
  const CostModel model =
      element_costs.empty()
          ? power_model(1, 1, 0, 0, static_cast<double>(N))
          : discrete_model(std::vector<double>(element_costs.begin(), element_costs.end()));
  const std::vector<double> cuts(offsets.begin(), offsets.end());
  const ChainShift chain = diffuse_and_shift(model, cuts, loads, options.diffusion, options.shift);
  out.diffusion = chain.diffusion;
  const ShiftResult& s = chain.shift;
  out.offsets.resize(P + 1);
  out.offsets[0] = 0;
  for (std::size_t k = 1; k < P; ++k)
    out.offsets[k] = std::clamp<std::int64_t>(std::llround(s.cuts[k]), out.offsets[k - 1], N);
  out.offsets[P] = N;
  // Predicted loads of the rounded ranges under the same load-corrected
  // model: L(x) = Λ_r + t(o_r, x)/ratio_r inside old range r (shift.hpp),
  // ratio_r = cost_r/load_r, or TT/total for an empty or idle range.
  auto t = [&](std::int64_t a, std::int64_t b) {
    return model.cost(static_cast<double>(a), static_cast<double>(b));
  };
  std::vector<double> lambda(P + 1, 0.0), ratio(P);
  for (std::size_t r = 0; r < P; ++r) {
    const double cost = t(offsets[r], offsets[r + 1]);
    ratio[r] = cost > 0 && loads[r] > 0 ? cost / loads[r] : model.total() / total;
    lambda[r + 1] = lambda[r] + cost / ratio[r];
  }
  auto L = [&](std::int64_t x) {
    const auto it = std::upper_bound(offsets.begin(), offsets.end(), x);
    std::size_t r = static_cast<std::size_t>(it - offsets.begin());
    r = r == 0 ? 0 : std::min(r - 1, P - 1);
    return lambda[r] + t(offsets[r], x) / ratio[r];
  };
  out.predicted_time.resize(P);
  for (std::size_t r = 0; r < P; ++r)
    out.predicted_time[r] = L(out.offsets[r + 1]) - L(out.offsets[r]);
  out.predicted_imbalance = imbalance(out.predicted_time);
  out.termination = chain.converged() ? Termination::converged : Termination::iteration_limit;
  std::tie(out.elements_moved, out.max_elements_received) =
      block_elements_moved(offsets, out.offsets);
  return out;
}

}  // namespace isocost
