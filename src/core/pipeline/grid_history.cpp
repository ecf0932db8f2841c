// Iterative proportional fitting of a grid's per-cell costs to the per-part
// loads of several rounds (grid_history.hpp).
#include "core/pipeline/grid_history.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost::detail {

namespace {

// The grid cut along every part boundary of every round: each part of each
// round is a block of these atoms, and the current round's estimate is
// constant on each (the current boundaries are among the lines), so fitting
// atom masses is fitting the cells, in O(atoms) instead of O(cells).
struct Atoms {
  std::array<std::vector<std::int64_t>, 3> lines;  // sorted, unique, 0 … cells
  std::vector<double> mass;                        // x fastest

  std::size_t n(int a) const { return lines[static_cast<std::size_t>(a)].size() - 1; }
  // The atoms [lo, hi) that part `p` covers along axis a.
  std::pair<std::size_t, std::size_t> span(const Part& p, int a, int dims) const {
    const auto& l = lines[static_cast<std::size_t>(a)];
    if (a >= dims) return {0, 1};
    const auto at = [&](std::int64_t v) {
      return static_cast<std::size_t>(std::lower_bound(l.begin(), l.end(), v) - l.begin());
    };
    return {at(p.cell_lo[static_cast<std::size_t>(a)]), at(p.cell_hi[static_cast<std::size_t>(a)])};
  }
  template <class F>
  void for_atoms(const Part& p, int dims, F&& f) const {
    const auto [x0, x1] = span(p, 0, dims);
    const auto [y0, y1] = span(p, 1, dims);
    const auto [z0, z1] = span(p, 2, dims);
    for (std::size_t k = z0; k < z1; ++k)
      for (std::size_t j = y0; j < y1; ++j)
        for (std::size_t i = x0; i < x1; ++i) f(i + n(0) * (j + n(1) * k));
  }
};

// One round's parts with the speed-1 cost each must sum to.
struct Constraint {
  const Decomposition* parts;
  std::vector<double> cost;
};

// Scales every part of `c` to its cost; returns Σ |sum − cost| before.
double project(const Atoms& atoms, int dims, const Constraint& c, std::vector<double>& mass) {
  double miss = 0;
  for (std::size_t r = 0; r < c.parts->parts.size(); ++r) {
    const Part& p = c.parts->parts[r];
    double sum = 0;
    std::size_t n = 0;
    atoms.for_atoms(p, dims, [&](std::size_t i) { sum += mass[i], ++n; });
    if (n == 0) continue;
    miss += std::abs(sum - c.cost[r]);
    if (sum > 0) {
      const double f = c.cost[r] / sum;
      atoms.for_atoms(p, dims, [&](std::size_t i) { mass[i] *= f; });
    } else {  // nothing there yet: the cost spread over the part's atoms
      const double each = c.cost[r] / static_cast<double>(n);
      atoms.for_atoms(p, dims, [&](std::size_t i) { mass[i] = each; });
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
  // The atoms of the current parts and of every round's.
  const int dims = shape.dims;
  Atoms atoms;
  for (int a = 0; a < 3; ++a) {
    auto& l = atoms.lines[static_cast<std::size_t>(a)];
    const std::int64_t n = a < dims ? shape.cells[static_cast<std::size_t>(a)] : 1;
    l = {0, n};
    if (a >= dims) continue;
    const auto add = [&](const Decomposition& d) {
      for (const Part& p : d.parts)
        for (const std::int64_t v :
             {p.cell_lo[static_cast<std::size_t>(a)], p.cell_hi[static_cast<std::size_t>(a)]})
          l.push_back(std::clamp<std::int64_t>(v, 0, n));  // out of range: refused below
    };
    add(current);
    for (const GridRound& h : history) add(h.parts);
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
  }
  // Every round must tile the grid: each atom covered by exactly one part
  // (O(atoms) per round, and atoms <= cells).
  std::vector<int> cover(atoms.n(0) * atoms.n(1) * atoms.n(2));
  for (std::size_t k = 0; k < history.size(); ++k) {
    const auto where = "rebalance_grid: history round " + std::to_string(k);
    for (std::size_t r = 0; r < history[k].parts.parts.size(); ++r) {
      const Part& p = history[k].parts.parts[r];
      for (int a = 0; a < dims; ++a) {
        const auto ax = static_cast<std::size_t>(a);
        if (p.cell_lo[ax] < 0 || p.cell_lo[ax] > p.cell_hi[ax] || p.cell_hi[ax] > shape.cells[ax])
          throw Error(detail::expected_got(
              where + ": cells of part " + std::to_string(r) + " along axis " + std::to_string(a),
              "a range within [0, " + std::to_string(shape.cells[ax]) + "]",
              "[" + std::to_string(p.cell_lo[ax]) + ", " + std::to_string(p.cell_hi[ax]) + ")"));
      }
    }
    std::fill(cover.begin(), cover.end(), 0);
    for (const Part& p : history[k].parts.parts)
      atoms.for_atoms(p, dims, [&](std::size_t i) { ++cover[i]; });
    for (std::size_t i = 0; i < cover.size(); ++i)
      if (cover[i] != 1) {
        const std::size_t x = i % atoms.n(0), y = i / atoms.n(0) % atoms.n(1),
                          z = i / (atoms.n(0) * atoms.n(1));
        std::string cell = std::to_string(atoms.lines[0][x]);
        if (dims > 1) cell += ", " + std::to_string(atoms.lines[1][y]);
        if (dims > 2) cell += ", " + std::to_string(atoms.lines[2][z]);
        throw Error(where + " does not tile the grid: " +
                    detail::expected_got("parts holding cell (" + cell + ")", "1",
                                         std::to_string(cover[i])));
      }
  }
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
  const std::int64_t nx = shape.cells[0], ny = dims > 1 ? shape.cells[1] : 1;
  const auto cell = [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    return static_cast<std::size_t>(i + nx * (j + ny * k));
  };
  std::vector<double> start(atoms.n(0) * atoms.n(1) * atoms.n(2));
  for (std::size_t k = 0; k < atoms.n(2); ++k)
    for (std::size_t j = 0; j < atoms.n(1); ++j)
      for (std::size_t i = 0; i < atoms.n(0); ++i) {
        const auto& L = atoms.lines;
        const double volume = static_cast<double>(
            (L[0][i + 1] - L[0][i]) * (L[1][j + 1] - L[1][j]) * (L[2][k + 1] - L[2][k]));
        start[i + atoms.n(0) * (j + atoms.n(1) * k)] =
            cells[cell(L[0][i], L[1][j], L[2][k])] * volume;
      }
  // Drop the oldest rounds until every kept one is met within the tolerance.
  for (std::size_t first = 0; first < rounds.size(); ++first) {
    std::vector<double> mass = start;
    // Sweeps until the rounds agree to a part in 10⁶ of the total (a static
    // load's rounds are consistent, and IPF converges to them), at most 200.
    for (int sweep = 0; sweep < 200; ++sweep) {
      double miss = 0;
      for (std::size_t k = first; k < rounds.size(); ++k)
        miss += project(atoms, dims, rounds[k], mass);
      miss += project(atoms, dims, now, mass);
      if (miss <= 1e-6 * total) break;
    }
    bool consistent = true;
    for (std::size_t k = first; k < rounds.size() && consistent; ++k) {
      std::vector<double> probe = mass;
      consistent = project(atoms, dims, rounds[k], probe) <= tolerance * total;
    }
    if (!consistent) continue;
    // Back to cells: each atom's mass spread evenly over its cells.
    const auto& L = atoms.lines;
    for (std::size_t k = 0; k < atoms.n(2); ++k)
      for (std::size_t j = 0; j < atoms.n(1); ++j)
        for (std::size_t i = 0; i < atoms.n(0); ++i) {
          const double volume = static_cast<double>(
              (L[0][i + 1] - L[0][i]) * (L[1][j + 1] - L[1][j]) * (L[2][k + 1] - L[2][k]));
          const double each = mass[i + atoms.n(0) * (j + atoms.n(1) * k)] / volume;
          for (std::int64_t z = L[2][k]; z < L[2][k + 1]; ++z)
            for (std::int64_t y = L[1][j]; y < L[1][j + 1]; ++y)
              for (std::int64_t x = L[0][i]; x < L[0][i + 1]; ++x) cells[cell(x, y, z)] = each;
        }
    use.rounds_used = static_cast<int>(rounds.size() - first);
    use.rounds_dropped = static_cast<int>(history.size()) - use.rounds_used;
    return use;
  }
  use.rounds_dropped = static_cast<int>(history.size());
  return use;
}

}  // namespace isocost::detail
