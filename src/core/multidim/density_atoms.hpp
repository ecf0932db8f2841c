// core/multidim/density_atoms.hpp — a gridded density held as blocks of
// equal cells (internal): rebalance_grid_global()'s estimate from per-part
// loads, which is constant on the blocks every round's part boundaries cut.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "isocost/density.hpp"

namespace isocost::detail {

/// A grid cut into blocks ("atoms") along lines on each axis; every cell of
/// an atom costs the same.
struct AtomGrid {
  /// Per axis: sorted, unique cell indices from 0 to the cells along it
  /// ({0, 1} beyond the grid's dims).
  std::array<std::vector<std::int64_t>, kMaxDims> lines;
  /// Per atom, x fastest: the cost of one of its cells (>= 0, finite).
  std::vector<double> rho;

  std::size_t count(int axis) const { return lines[static_cast<std::size_t>(axis)].size() - 1; }
  std::size_t atoms() const { return count(0) * count(1) * count(2); }
  /// Cells in atom (i, j, k).
  double volume(std::size_t i, std::size_t j, std::size_t k) const {
    return static_cast<double>((lines[0][i + 1] - lines[0][i]) * (lines[1][j + 1] - lines[1][j]) *
                               (lines[2][k + 1] - lines[2][k]));
  }
};

/// The grid density of `shape` over `box` whose every cell costs its atom's
/// rho: the masses of grid_density() of every cell's cost, in O(atoms + the
/// cells along each axis) memory and time. Throws Error for a total that is
/// not finite and > 0.
Density atom_density(const GridShape& shape, const Box& box, const AtomGrid& atoms);

}  // namespace isocost::detail
