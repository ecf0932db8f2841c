// Iterative proportional fitting of a grid's per-cell costs to the per-part
// loads of several rounds (grid_history.hpp), on the atoms every round's
// part boundaries cut the grid into.
#include "core/pipeline/grid_history.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>

#include "core/shared/proportional_fit.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost::detail {

namespace {

// The atoms [lo, hi) that part `p` covers along axis a.
std::pair<std::size_t, std::size_t> span(const AtomGrid& g, const Part& p, int a, int dims) {
  const auto& l = g.lines[static_cast<std::size_t>(a)];
  if (a >= dims) return {0, 1};
  const auto at = [&](std::int64_t v) {
    return static_cast<std::size_t>(std::lower_bound(l.begin(), l.end(), v) - l.begin());
  };
  return {at(p.cell_lo[static_cast<std::size_t>(a)]), at(p.cell_hi[static_cast<std::size_t>(a)])};
}

// f(atom index) for every atom of part `p`, x fastest.
template <class F>
void for_atoms(const AtomGrid& g, const Part& p, int dims, F&& f) {
  const auto [x0, x1] = span(g, p, 0, dims);
  const auto [y0, y1] = span(g, p, 1, dims);
  const auto [z0, z1] = span(g, p, 2, dims);
  for (std::size_t k = z0; k < z1; ++k)
    for (std::size_t j = y0; j < y1; ++j)
      for (std::size_t i = x0; i < x1; ++i) f(i + g.count(0) * (j + g.count(1) * k));
}

// The cell at the low corner of atom i, as "(x, y, z)" up to `dims`.
std::string atom_cell(const AtomGrid& g, std::size_t i, int dims) {
  const std::size_t x = i % g.count(0), y = i / g.count(0) % g.count(1),
                    z = i / (g.count(0) * g.count(1));
  std::string cell = "(" + std::to_string(g.lines[0][x]);
  if (dims > 1) cell += ", " + std::to_string(g.lines[1][y]);
  if (dims > 2) cell += ", " + std::to_string(g.lines[2][z]);
  return cell + ")";
}

// One round's parts with the speed-1 cost each must sum to.
struct Constraint {
  const Decomposition* parts;
  std::vector<double> cost;
};

// Scales every part of `c` to its cost; returns Σ |sum − cost| before.
double project(const AtomGrid& g, int dims, const Constraint& c, std::vector<double>& mass) {
  return project_groups(
      c.parts->parts.size(), [&](std::size_t r) { return c.cost[r]; },
      [&](std::size_t r, auto&& f) { for_atoms(g, c.parts->parts[r], dims, f); }, mass);
}

}  // namespace

GridAtoms grid_atoms(const GridShape& shape, const Decomposition& current,
                     std::span<const GridRound> history) {
  const int dims = shape.dims;
  GridAtoms out;
  AtomGrid& g = out.grid;
  for (int a = 0; a < 3; ++a) {
    auto& l = g.lines[static_cast<std::size_t>(a)];
    const std::int64_t n = a < dims ? shape.cells[static_cast<std::size_t>(a)] : 1;
    l = {0, n};
    if (a >= dims) continue;
    const auto add = [&](const Decomposition& d) {
      for (const Part& p : d.parts)
        for (const std::int64_t v :
             {p.cell_lo[static_cast<std::size_t>(a)], p.cell_hi[static_cast<std::size_t>(a)]})
          l.push_back(std::clamp<std::int64_t>(v, 0, n));  // out of range: refused later
    };
    add(current);
    for (const GridRound& h : history) add(h.parts);
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
  }
  // The current parts tile the grid: every atom held once. The first
  // conflict in rank order, atoms x fastest, is at the atom's low corner: the
  // first cell a scan of the cells would meet.
  out.owner.assign(g.atoms(), -1);
  for (std::size_t r = 0; r < current.parts.size(); ++r)
    for_atoms(g, current.parts[r], dims, [&](std::size_t i) {
      if (out.owner[i] >= 0)
        throw Error("rebalance_grid: parts " + std::to_string(out.owner[i]) + " and " +
                    std::to_string(r) + " both hold cell " + atom_cell(g, i, dims) +
                    "; expected parts that tile the grid");
      out.owner[i] = static_cast<int>(r);
    });
  for (std::size_t i = 0; i < out.owner.size(); ++i)
    if (out.owner[i] < 0)
      throw Error("rebalance_grid: cell " + atom_cell(g, i, dims) +
                  " belongs to no part; expected parts that tile the grid");
  return out;
}

GridHistoryUse refine_with_history(const GridShape& shape, const Decomposition& current,
                                   std::span<const double> loads, const Speeds& speeds,
                                   std::span<const GridRound> history, double tolerance,
                                   std::span<const double> per_cell, GridAtoms& atoms) {
  GridHistoryUse use;
  const int dims = shape.dims;
  AtomGrid& g = atoms.grid;
  g.rho.resize(g.atoms());
  for (std::size_t i = 0; i < g.rho.size(); ++i)
    g.rho[i] = per_cell[static_cast<std::size_t>(atoms.owner[i])];
  if (history.empty()) return use;
  // Every round must tile the grid: each atom covered by exactly one part.
  std::vector<int> cover(g.atoms());
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
      for_atoms(g, p, dims, [&](std::size_t i) { ++cover[i]; });
    for (std::size_t i = 0; i < cover.size(); ++i)
      if (cover[i] != 1)
        throw Error(where + " does not tile the grid: " +
                    detail::expected_got("parts holding cell " + atom_cell(g, i, dims), "1",
                                         std::to_string(cover[i])));
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
  // Atom masses: the cost of each atom's cells.
  std::vector<double> start(g.atoms());
  for (std::size_t k = 0; k < g.count(2); ++k)
    for (std::size_t j = 0; j < g.count(1); ++j)
      for (std::size_t i = 0; i < g.count(0); ++i) {
        const std::size_t at = i + g.count(0) * (j + g.count(1) * k);
        start[at] = g.rho[at] * g.volume(i, j, k);
      }
  // The current round is the newest block: its sums hold exactly. Sweeps
  // until the rounds agree to a part in 10⁶ of the total (a static load's
  // rounds are consistent, and IPF converges to them); an older round missed
  // by more than the tolerance has drifted and is dropped with the older.
  rounds.push_back(std::move(now));
  std::vector<double> mass;
  const ProportionalFit fitted = proportional_fit(
      [&](std::size_t, std::vector<double>& m) { m = start; }, rounds.size(),
      [&](std::size_t k, std::vector<double>& m) { return project(g, dims, rounds[k], m); }, total,
      tolerance, mass);
  // Back to a cost per cell: each atom's mass spread evenly over its cells.
  for (std::size_t k = 0; k < g.count(2); ++k)
    for (std::size_t j = 0; j < g.count(1); ++j)
      for (std::size_t i = 0; i < g.count(0); ++i) {
        const std::size_t at = i + g.count(0) * (j + g.count(1) * k);
        g.rho[at] = mass[at] / g.volume(i, j, k);
      }
  use.rounds_used = static_cast<int>(rounds.size() - 1 - fitted.first);
  use.rounds_dropped = static_cast<int>(history.size()) - use.rounds_used;
  return use;
}

}  // namespace isocost::detail
