// Shared by decompose.cpp, process_grid_choice.cpp and the mpi layer's
// decompose_grid.cpp. Internal.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/error.hpp"

namespace isocost::detail {

/// A process grid whose parts cannot have the required widths:
/// choose_process_grid() skips such candidates; any other error is a real
/// failure and propagates.
struct DoesNotFit : Error {
  using Error::Error;
};

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
/// but the last holds more than B·s_j − w_max), else total/s_min; a last
/// probe at B* gives the latest split. False if even total/s_min fails.
template <class Probe>
bool search_bottleneck(double total, double w_max, std::span<const double> s, Probe& probe) {
  const double s_sum = std::accumulate(s.begin(), s.end(), 0.0);
  const double s_min = *std::min_element(s.begin(), s.end());
  const auto m = static_cast<double>(s.size());
  double lo = total / s_sum * (1 - 1e-15);
  double hi = std::min(total / s_min, (total + (m - 1) * w_max) / s_sum) * (1 + 1e-12);
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

/// The ranks in one slab of `level` of `grid` (the product of the deeper
/// levels' counts), and the m slabs' capacities (their ranks' speeds) for a
/// piece whose first rank is `first_rank`.
int ranks_per_slab(const ProcessGrid& grid, std::size_t level);
std::vector<double> slab_capacities(const ProcessGrid& grid, std::size_t level,
                                    const Speeds& speeds, int first_rank);

/// One level's grid-line cuts of a piece: bottleneck_cuts() of its marginal
/// prefix sums (`prefix`, one more than the piece's cells along `axis`) into
/// slabs of capacities `capacity`, each at least max(1, ⌈min_width / cell⌉)
/// cells (a rank with no cells is not a partition). Cuts are relative to the
/// piece. Throws DoesNotFit, naming the axis, when the slabs cannot fit.
std::vector<std::int64_t> grid_slab_cuts(std::span<const double> prefix,
                                         std::span<const double> capacity, double min_width,
                                         double cell, int axis);

/// A part's volume and surface from its box (faces on `domain`'s boundary
/// are not shared with another part), and its time cost / speed.
void finish_part(Part& part, const Box& domain, double speed);

/// A decomposition's predicted_le, max_time and cut_surface from its parts.
void summarise(Decomposition& d);

/// choose_process_grid()'s rule (decompose.hpp) over any way to decompose a
/// candidate, so that mpi::choose_process_grid() chooses what the serial one
/// does: a balanced candidate (heaviest part within kBalanced of `ideal` =
/// total/S) with the smallest cut surface, then the first; if none is
/// balanced, the smallest heaviest part (ties within kTie), then the smallest
/// cut surface, then the first. Candidates are tried in order of cut surface,
/// known before decomposing, so the first balanced one ends the search;
/// `bound(c)` (a lower bound on candidate c's heaviest part, or −∞) lets a
/// candidate that cannot win be skipped: every skip is one the exhaustive
/// rule could not choose. `decompose(c)` may throw DoesNotFit (skipped).
template <class Bound, class Decompose>
Decomposition choose_among(const std::vector<ProcessGrid>& candidates, const Box& box, double ideal,
                           int ranks, Bound bound, Decompose decompose) {
  constexpr double kBalanced = 1e-9, kTie = 1e-12;
  std::vector<double> surface(candidates.size());
  std::vector<std::size_t> order(candidates.size());
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    surface[c] = candidates[c].cut_surface(box);
    order[c] = c;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return surface[a] < surface[b]; });
  const double balanced_limit = ideal * (1 + kBalanced);
  // The evaluated candidates that the rule may still choose, by index.
  std::vector<std::pair<std::size_t, Decomposition>> kept;
  double lightest = std::numeric_limits<double>::infinity();  // the smallest heaviest part
  std::string last_error;
  for (const std::size_t c : order) {
    const double b = bound(c);
    if (b > balanced_limit && b > lightest * (1 + kTie)) continue;
    Decomposition d;
    try {
      d = decompose(c);
    } catch (const DoesNotFit& e) {
      last_error = e.what();
      continue;
    }
    if (d.max_time <= balanced_limit) {
      kept.clear();
      kept.emplace_back(c, std::move(d));
      break;  // every later candidate has at least its surface, or comes later
    }
    lightest = std::min(lightest, d.max_time);
    kept.emplace_back(c, std::move(d));
    kept.erase(
        std::remove_if(kept.begin(), kept.end(),
                       [&](const auto& k) { return k.second.max_time > lightest * (1 + kTie); }),
        kept.end());
  }
  if (kept.empty())
    throw Error("no process grid for " + std::to_string(ranks) +
                " ranks honours the minimum widths: " + last_error);
  auto best = kept.begin();
  for (auto it = kept.begin(); it != kept.end(); ++it)
    if (surface[it->first] < surface[best->first] ||
        (surface[it->first] == surface[best->first] && it->first < best->first))
      best = it;
  return std::move(best->second);
}

}  // namespace isocost::detail
