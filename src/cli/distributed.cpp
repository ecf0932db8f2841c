// The forms of the command that run on every rank (distributed.hpp).
#include "distributed.hpp"

#include <cmath>

#include "isocost/error.hpp"
#include "isocost/metrics.hpp"
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
  const int P = speeds.ranks();
  DistributedCut out;
  out.cells = wp.cells;
  Partition& part = out.part;
  part.integer = true;
  part.total_cost = wp.total;
  part.speed_total = speeds.total();
  part.time = wp.time;
  part.cost.resize(part.time.size());
  part.cuts.resize(static_cast<std::size_t>(P) + 1);
  part.summaries.resize(part.cuts.size());
  for (int i = 0; i <= P; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (i < P) part.cost[u] = wp.prefix[u + 1] - wp.prefix[u];
    part.cuts[u] = static_cast<double>(wp.cuts[u]);
    // Each cut is the exact nearest cell boundary (or the optimum's), not a
    // root find: its summary keeps the target and the residual there.
    CutSummary& s = part.summaries[u];
    s.x = part.cuts[u];
    s.target = i == P ? wp.total : wp.total * speeds.fraction_before(i);
    s.residual = i == 0 || i == P ? 0 : wp.prefix[u] - s.target;
    s.used = s.requested = CutMethod::binary_search;
    s.termination = s.residual == 0 ? CutTermination::exact
                    : optimal       ? CutTermination::optimum
                                    : CutTermination::nearest_integer;
    part.max_abs_residual = std::max(part.max_abs_residual, std::abs(s.residual));
  }
  part.predicted_le = load_stats(part.time).le;
  return out;
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
