// core/shared/: shared with the mpi layer — the core's internals other layers use, not users.
// not part of the public API. Shared by decompose.cpp, process_grid_choice.cpp and the mpi layer's
// decompose_grid.cpp. Internal.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/error.hpp"

namespace isocost::detail {

/// Two decompositions give every part the same cells (the grid balancer's
/// history and learn_speeds() of a grid compare rounds by it).
inline bool same_cells(const Decomposition& a, const Decomposition& b) {
  if (a.parts.size() != b.parts.size()) return false;
  for (std::size_t r = 0; r < a.parts.size(); ++r)
    if (a.parts[r].cell_lo != b.parts[r].cell_lo || a.parts[r].cell_hi != b.parts[r].cell_hi)
      return false;
  return true;
}

/// A process grid whose parts cannot have the required widths:
/// choose_process_grid() skips such candidates; any other error is a real
/// failure and propagates.
struct DoesNotFit : Error {
  using Error::Error;
};

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

/// Grid line k of `cells` equal cells along axis `axis` of `box`, the ends
/// exact (Density::grid_line() and the grid rebalances' part boxes).
inline double grid_line(const Box& box, std::int64_t cells, int axis, std::int64_t k) {
  if (k == cells) return box.hi[axis];
  return box.lo[axis] + box.width(axis) * static_cast<double>(k) / static_cast<double>(cells);
}

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
