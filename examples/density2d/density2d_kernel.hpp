// The work of the density2d example: an N x N grid of cells on Swartz §5's
// domain [0, 20]^2, cell (i, j) costing units(i, j) ≈ K·(x + y) (rho = C·(x + y)
// at its centre) units of real floating-point work, and the exact checks that
// every cell was done once.
#pragma once

#include <cstdint>
#include <vector>

namespace density2d {

/// Swartz §5's domain: x_max = y_max = 20.
inline constexpr double kSide = 20;

/// Work units of cell (i, j) on an n x n grid: round(k·(x + y)) at its centre.
std::int64_t units(std::int64_t i, std::int64_t j, std::int64_t n, double k);

/// All cells' units, x fastest (index i + n·j): the per-cell weights a code
/// that knows its cost would give the partitioner.
std::vector<double> unit_grid(std::int64_t n, double k);

/// What a rank did: cells, units and an order-free hash of the cells.
struct Tally {
  std::int64_t cells = 0;
  std::int64_t units = 0;
  std::uint64_t hash = 0;  ///< XOR of mix(i + n·j) over the cells done
  double sink = 0;         ///< the kernel's result, so it is not optimised away
};

/// Does the work of cells [i0, i1) x [j0, j1): each unit is a few dependent
/// floating-point operations.
Tally work(std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1, std::int64_t n,
           double k);

/// The tally of the whole grid without the work (the reference for the check).
Tally reference(std::int64_t n, double k);

}  // namespace density2d
