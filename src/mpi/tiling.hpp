// mpi/tiling.hpp — whether the ranks' boxes tile a grid, checked in O(log n)
// per rank and one reduction (internal to isocost::mpi).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>

#include "isocost/density.hpp"  // kMaxDims

namespace isocost::mpi::detail {

/// "" when the boxes [lo, hi) the ranks hold cover each cell of the grid
/// [0, cells) exactly once, otherwise why not. Boxes must lie inside the grid
/// (checked before). Collective over `comm`; every rank returns the same text.
///
/// Counting cells catches gaps and excess, not an overlap that leaves a hole
/// of the same size. So each cell (i, j, k) is also given the fingerprint
/// x^i·y^j·z^k mod the prime 2^61 − 1, and the boxes' fingerprints, summed
/// over the ranks, must equal the grid's. A box's sum is a product of three
/// geometric series, O(log n) to compute. Boxes that cover some cell other
/// than once differ from the grid by a nonzero polynomial of degree < n_x +
/// n_y + n_z in (x, y, z), which vanishes at our fixed point with probability
/// about (n_x + n_y + n_z)/2^61 for a pattern unrelated to it (Schwartz–Zippel).
std::string check_tiling(MPI_Comm comm, const std::array<std::int64_t, kMaxDims>& cells,
                         const std::array<std::int64_t, kMaxDims>& lo,
                         const std::array<std::int64_t, kMaxDims>& hi);

}  // namespace isocost::mpi::detail
