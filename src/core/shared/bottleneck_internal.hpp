// core/shared/: shared with the mpi layer — the core's internals other layers use, not users.
// The chains-on-chains search shared by bottleneck_cuts() (bottleneck.cpp),
// the grid choice's bounds (multidim/process_grid_choice.cpp) and the mpi
// layer's pipelined optimum (mpi/partition_weights_optimal.cpp). Internal.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

namespace isocost::detail {

/// max_j (P[cuts[j+1]] − P[cuts[j]]) / s[j]: the heaviest part of a split of
/// the prefix sums P into parts of capacities s.
double bottleneck_of(std::span<const double> P, std::span<const double> s,
                     const std::vector<std::int64_t>& cuts);

/// A probe's outcome: ok, and `value`, the bottleneck of the split it holds
/// if ok, else a bound below which every B fails too (the smallest B at
/// which the greedy split would change, Pınar & Aykanat's exact bisection,
/// JPDC 64 (2004) 974; B itself where the probe cannot tell).
struct ProbeResult {
  bool ok;
  double value;
};

/// bottleneck_cuts()'s search for the smallest feasible bottleneck B*, over
/// any probe, so that the serial solver and mpi::partition_weights()'s
/// pipelined one make the same probes and keep the same split. `probe` has
/// ProbeResult probe(double B) (can the cells be split with cost_j <= B·s_j?
/// on success it holds that split) and void keep() (the held split becomes
/// the best). Bisection on B whose bounds move to attained values: hi to the
/// held split's bottleneck, lo to the failure bound, so with integer costs
/// it ends once hi − lo < 1, after about log2(w_max / s) probes. It starts
/// from hi = (total + (m − 1)·w_max)/S, feasible for the greedy (each part
/// but the last holds more than B·s_j − w_max), or `attained`, the
/// bottleneck of any split (the caller's, when w_max would cost a pass over
/// the cells: pass w_max = total), whichever is lower, else total/s_min; a last
/// probe at B* gives the latest split. False if even total/s_min fails.
template <class Probe>
bool search_bottleneck(double total, double w_max, std::span<const double> s, Probe& probe,
                       double attained = std::numeric_limits<double>::infinity()) {
  const double s_sum = std::accumulate(s.begin(), s.end(), 0.0);
  const double s_min = *std::min_element(s.begin(), s.end());
  const auto m = static_cast<double>(s.size());
  double lo = total / s_sum * (1 - 1e-15);
  double hi = std::min({total / s_min, (total + (m - 1) * w_max) / s_sum, attained}) * (1 + 1e-12);
  ProbeResult r = probe.probe(hi);
  if (!r.ok) r = probe.probe(hi = total / s_min * (1 + 1e-15));
  if (!r.ok) return false;
  probe.keep();
  double kept_at = hi;
  // The bisection's hi is the least B that passed or a held split's
  // bottleneck, whichever is lower: (P[b] − P[a])/s_j may round above the
  // B its parts passed at (P[b] <= P[a] + B·s_j). best is the least such
  // bottleneck: the optimum, where the last probe takes the latest split.
  double best = r.value;
  hi = std::min(r.value, hi);
  for (int it = 0; it < 200 && lo < hi && (hi - lo) > 1e-15 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    r = probe.probe(mid);
    if (r.ok) {
      probe.keep();
      kept_at = mid;
      best = std::min(best, r.value);
      hi = std::min(r.value, mid);
    } else {
      lo = std::max(mid, r.value);
    }
  }
  // The split at B* itself: the latest boundaries among the optimal splits.
  if (kept_at != best && probe.probe(best).ok) probe.keep();
  return true;
}

}  // namespace isocost::detail
