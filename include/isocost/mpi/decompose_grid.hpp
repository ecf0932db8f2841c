// isocost/mpi/decompose_grid.hpp — rows/slabs, jagged and recursive-section
// decompositions of a grid of per-cell weights that no single rank holds.
// Each rank holds a box of the global grid; at every level of the process
// grid each piece's marginal along the level's axis is reduced
// across the ranks (one MPI_Allreduce a level, all pieces together) and cut
// at the grid lines that minimise its heaviest slab, as decompose() does
// serially (bottleneck_cuts(), every part at least one cell and min_width
// wide).
//
//   isocost::GridShape shape{2, {4096, 4096, 1}};
//   std::array<std::int64_t, 3> lo = …, hi = …;       // this rank's cells [lo, hi)
//   auto d = isocost::mpi::decompose_grid(comm, shape, lo, hi, my_weights,
//                                         {{16, 16}, {0, 1}}, isocost::Speeds::uniform(256));
//   // d.parts[r].cell_lo / cell_hi; move the cells with redistribute.hpp
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <span>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"

namespace isocost::mpi {

/// decompose() of grid_density() of the global weights (cell units: the box
/// [0, cells[a]] on each axis), computed from the boxes the ranks hold. This
/// rank holds the cells [lo[a], hi[a]) of `shape` (an empty box is allowed)
/// and `weights` for them, x fastest within the box; the boxes of all ranks
/// must tile the grid (checked: inside it, their cells add up to the
/// grid's, and each cell is held once, by a fingerprint: mpi/tiling.hpp). Per rank: O(local cells)
/// work and O(pieces × cells along the level's axis) memory a level. Every rank returns the same
/// Decomposition, equal cut for cut to the serial one whenever the sums are exact (e.g. integer
/// weights); otherwise a cut may differ where two grid lines give the same heaviest slab within
/// rounding.
///
/// Collective over `comm`. `shape`, `process_grid`, `speeds` (P =
/// process_grid.ranks(), which may differ from the communicator's size) and
/// `options` must be the same on every rank (compared). Throws the same Error
/// on every rank for a box outside the grid or weights of the wrong count
/// (naming the rank), a negative or non-finite weight, boxes that do not add
/// up to the grid, an all-zero grid, parts that do not fit their minimum
/// width, or invalid or differing inputs.
Decomposition decompose_grid(MPI_Comm comm, const GridShape& shape,
                             const std::array<std::int64_t, kMaxDims>& lo,
                             const std::array<std::int64_t, kMaxDims>& hi,
                             std::span<const double> weights, const ProcessGrid& process_grid,
                             const Speeds& speeds, const DecomposeOptions& options = {});

/// choose_process_grid() of grid_density() of the global weights, from the
/// boxes the ranks hold (as decompose_grid()): the same candidate, chosen by
/// the same rule, each candidate decomposed by decompose_grid() (no pruning
/// by a first-level bound: every candidate costs its levels' reductions
/// until a balanced one ends the search). P = speeds.ranks(). Collective
/// over `comm`; `shape`, `speeds` and `options` must be the same on every
/// rank (compared). Throws as decompose_grid(), and the same Error on every
/// rank when no candidate honours the minimum widths.
Decomposition choose_process_grid(MPI_Comm comm, const GridShape& shape,
                                  const std::array<std::int64_t, kMaxDims>& lo,
                                  const std::array<std::int64_t, kMaxDims>& hi,
                                  std::span<const double> weights, const Speeds& speeds,
                                  const DecomposeOptions& options = {});

/// Replaces `d`'s part costs (and times, total and summary) by each part's
/// weight summed from the boxes the ranks hold so that the layout does not
/// matter: each rank's compensated sums (Neumaier) added across the ranks
/// as double-doubles, then rounded once, which gives the same doubles at
/// every rank count and starting layout unless a sum lies within about
/// 10⁻³⁰ of a rounding boundary. decompose_grid()'s own costs are
/// differences of reduced marginals, whose last digits depend on how the
/// cells were split among the ranks. One pass over the local cells and one
/// reduction of 2·P doubles. Collective over `comm`; `d` (e.g. from
/// decompose_grid()), `shape` and `speeds` must be the same on every rank
/// (as decompose_grid() returns them); the boxes as for decompose_grid().
void sum_part_costs(MPI_Comm comm, const GridShape& shape,
                    const std::array<std::int64_t, kMaxDims>& lo,
                    const std::array<std::int64_t, kMaxDims>& hi, std::span<const double> weights,
                    const Speeds& speeds, Decomposition& d);

}  // namespace isocost::mpi
