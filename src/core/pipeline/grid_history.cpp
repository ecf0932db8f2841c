// Iterative proportional fitting of a grid's per-cell costs to the per-part
// loads of several rounds (grid_history.hpp).
#include "pipeline/grid_history.hpp"

#include <cmath>
#include <cstdint>
#include <numeric>

namespace isocost::pipeline {

namespace {

// One round's parts with the speed-1 cost each must sum to.
struct Constraint {
  const Decomposition* parts;
  std::vector<double> cost;
};

template <class F>
void for_cells(const GridShape& shape, const Part& p, F&& f) {
  const std::int64_t nx = shape.cells[0], ny = shape.dims > 1 ? shape.cells[1] : 1;
  const std::int64_t lo[3] = {p.cell_lo[0], shape.dims > 1 ? p.cell_lo[1] : 0,
                              shape.dims > 2 ? p.cell_lo[2] : 0};
  const std::int64_t hi[3] = {p.cell_hi[0], shape.dims > 1 ? p.cell_hi[1] : 1,
                              shape.dims > 2 ? p.cell_hi[2] : 1};
  for (std::int64_t k = lo[2]; k < hi[2]; ++k)
    for (std::int64_t j = lo[1]; j < hi[1]; ++j)
      for (std::int64_t i = lo[0]; i < hi[0]; ++i)
        f(static_cast<std::size_t>(i + nx * (j + ny * k)));
}

// Scales every part of `c` to its cost; returns Σ |sum − cost| before.
double project(const GridShape& shape, const Constraint& c, std::vector<double>& cells) {
  double miss = 0;
  for (std::size_t r = 0; r < c.parts->parts.size(); ++r) {
    const Part& p = c.parts->parts[r];
    double sum = 0;
    std::int64_t n = 0;
    for_cells(shape, p, [&](std::size_t i) { sum += cells[i], ++n; });
    if (n == 0) continue;
    miss += std::abs(sum - c.cost[r]);
    if (sum > 0) {
      const double f = c.cost[r] / sum;
      for_cells(shape, p, [&](std::size_t i) { cells[i] *= f; });
    } else {
      const double each = c.cost[r] / static_cast<double>(n);
      for_cells(shape, p, [&](std::size_t i) { cells[i] = each; });
    }
  }
  return miss;
}

}  // namespace

GridHistoryUse refine_with_history(const GridShape& shape, const Decomposition& current,
                                   std::span<const double> loads, const Speeds& speeds,
                                   std::span<const GridRound> history, double tolerance,
                                   std::vector<double>& cells) {
  GridHistoryUse use;
  if (history.empty()) return use;
  Constraint now{&current, {}};
  for (std::size_t r = 0; r < loads.size(); ++r)
    now.cost.push_back(loads[r] * speeds.speed(static_cast<int>(r)));
  const double total = std::accumulate(now.cost.begin(), now.cost.end(), 0.0);
  if (!(total > 0)) return use;
  std::vector<Constraint> rounds;  // oldest first
  for (const GridRound& h : history) {
    Constraint c{&h.parts, {}};
    for (std::size_t r = 0; r < h.loads.size(); ++r)
      c.cost.push_back(h.loads[r] * speeds.speed(static_cast<int>(r)));
    const double t = std::accumulate(c.cost.begin(), c.cost.end(), 0.0);
    if (!(t > 0)) continue;  // an idle round says nothing about the shape
    for (double& v : c.cost) v *= total / t;
    rounds.push_back(std::move(c));
  }
  const std::vector<double> start = cells;
  // Drop the oldest rounds until every kept one is met within the tolerance.
  for (std::size_t first = 0; first < rounds.size(); ++first) {
    cells = start;
    std::vector<double> miss(rounds.size(), 0.0);
    // Sweeps until the rounds agree to a part in 10⁶ of the total (a static
    // load's rounds are consistent, and IPF converges to them), at most 64.
    for (int sweep = 0; sweep < 64; ++sweep) {
      double miss = 0;
      for (std::size_t k = first; k < rounds.size(); ++k) miss += project(shape, rounds[k], cells);
      miss += project(shape, now, cells);
      if (miss <= 1e-6 * total) break;
    }
    bool consistent = true;
    for (std::size_t k = first; k < rounds.size() && consistent; ++k) {
      std::vector<double> probe = cells;
      consistent = project(shape, rounds[k], probe) <= tolerance * total;
    }
    if (consistent) {
      use.rounds_used = static_cast<int>(rounds.size() - first);
      use.rounds_dropped = static_cast<int>(history.size()) - use.rounds_used;
      return use;
    }
  }
  cells = start;
  use.rounds_dropped = static_cast<int>(history.size());
  return use;
}

}  // namespace isocost::pipeline
