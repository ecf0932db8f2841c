// The forms of the command that run on every rank (distributed.hpp).
#include "distributed.hpp"

#include "isocost/error.hpp"
#include "mpi_world.hpp"

#if ISOCOST_CLI_MPI
#include "isocost/mpi/decompose_grid.hpp"
#include "isocost/mpi/files.hpp"
#include "isocost/mpi/partition_weights.hpp"
#endif

namespace isocost::cli {

#if ISOCOST_CLI_MPI

DistributedCut distributed_cut(const std::string& path, const Speeds& speeds, bool optimal) {
  const MPI_Comm comm = world();
  const mpi::WeightsSlice slice = mpi::read_weights(comm, path);
  mpi::WeightsPartitionOptions options;
  options.all_cuts = true;
  options.optimal = optimal;
  const mpi::WeightsPartition wp = [&] {
    try {
      return mpi::partition_weights(comm, slice.weights, speeds, options);
    } catch (const Error& e) {
      throw Error(path + ": " + e.what());
    }
  }();
  return {mpi::to_partition(wp, speeds), wp.cells};
}

Decomposition distributed_decompose(const std::string& path, const GridShape& shape,
                                    const std::optional<ProcessGrid>& grid, const Speeds& speeds,
                                    const DecomposeOptions& options, double& total) {
  const MPI_Comm comm = world();
  const mpi::GridBox box = mpi::read_grid(comm, path, shape);
  Decomposition d = grid ? mpi::decompose_grid(comm, box.shape, box.lo, box.hi, box.weights, *grid,
                                               speeds, options)
                         : mpi::choose_process_grid(comm, box.shape, box.lo, box.hi, box.weights,
                                                    speeds, options);
  // Totals and shares that every rank count prints alike (the parts are
  // already the same whatever the layout; the marginals' last digits not).
  mpi::sum_part_costs(comm, box.shape, box.lo, box.hi, box.weights, speeds, d);
  total = d.total_cost;
  return d;
}

#else

DistributedCut distributed_cut(const std::string&, const Speeds&, bool) {
  throw Error("this isocost was built without MPI (ISOCOST_BUILD_MPI=OFF)");
}

Decomposition distributed_decompose(const std::string&, const GridShape&,
                                    const std::optional<ProcessGrid>&, const Speeds&,
                                    const DecomposeOptions&, double&) {
  throw Error("this isocost was built without MPI (ISOCOST_BUILD_MPI=OFF)");
}

#endif

}  // namespace isocost::cli
