// The process grid chosen from a grid the ranks hold in boxes
// (mpi/decompose_grid.hpp): the serial rule, each candidate decomposed by
// decompose_grid().
#include <limits>

#include "core/shared/decompose_internal.hpp"
#include "isocost/mpi/decompose_grid.hpp"
#include "mpi/agreement.hpp"

namespace isocost::mpi {

Decomposition choose_process_grid(MPI_Comm comm, const GridShape& shape,
                                  const std::array<std::int64_t, kMaxDims>& lo,
                                  const std::array<std::int64_t, kMaxDims>& hi,
                                  std::span<const double> weights, const Speeds& speeds,
                                  const DecomposeOptions& options) {
  detail::check_comm(comm, "choose_process_grid");
  detail::Same same[] = {detail::same_speeds(speeds)};
  detail::agree(comm, "choose_process_grid", "", same);
  const auto candidates = candidate_process_grids(speeds.ranks(), shape.dims);
  Box box;
  box.dims = shape.dims;
  for (int a = 0; a < shape.dims; ++a) box.hi[a] = static_cast<double>(shape.cells[a]);
  // The ideal time needs the total before the first decomposition: the
  // first candidate's own (decompose_grid() reduces it) is not known yet, so
  // one reduction of the local sums.
  double local = 0, total = 0;
  for (const double w : weights) local += w;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  return isocost::detail::choose_among(
      candidates, box, total / speeds.total(), speeds.ranks(),
      [](std::size_t) { return -std::numeric_limits<double>::infinity(); },
      [&](std::size_t c) {
        return decompose_grid(comm, shape, lo, hi, weights, candidates[c], speeds, options);
      });
}

}  // namespace isocost::mpi
