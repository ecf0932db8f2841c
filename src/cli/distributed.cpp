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
  // Each part's cost: this rank's cells of it, summed (compensated), then
  // one reduction of P sums.
  std::vector<double> local(static_cast<std::size_t>(P), 0.0), cost(local.size(), 0.0);
  const std::int64_t end = slice.first + static_cast<std::int64_t>(slice.weights.size());
  int k = 0;
  for (std::int64_t c = slice.first; c < end;) {
    while (wp.cuts[static_cast<std::size_t>(k) + 1] <= c) ++k;
    const std::int64_t stop = std::min(end, wp.cuts[static_cast<std::size_t>(k) + 1]);
    double sum = 0, carry = 0;  // Kahan
    for (; c < stop; ++c) {
      const double y = slice.weights[static_cast<std::size_t>(c - slice.first)] - carry;
      const double t = sum + y;
      carry = (t - sum) - y;
      sum = t;
    }
    local[static_cast<std::size_t>(k)] = sum;
  }
  MPI_Allreduce(local.data(), cost.data(), P, MPI_DOUBLE, MPI_SUM, comm);

  DistributedCut out;
  out.cells = wp.cells;
  Partition& part = out.part;
  part.integer = true;
  part.total_cost = wp.total;
  part.speed_total = speeds.total();
  part.cost = cost;
  part.time.resize(cost.size());
  part.cuts.resize(static_cast<std::size_t>(P) + 1);
  part.summaries.resize(part.cuts.size());
  double before = 0, speed_before = 0;  // t(c_k) and S_{<k}
  for (int i = 0; i <= P; ++i) {
    const auto u = static_cast<std::size_t>(i);
    part.cuts[u] = static_cast<double>(wp.cuts[u]);
    CutSummary& s = part.summaries[u];
    s.x = part.cuts[u];
    s.target = i == P ? wp.total : wp.total * speed_before / part.speed_total;
    s.residual = (i == P ? wp.total : before) - s.target;
    s.used = s.requested = CutMethod::binary_search;
    s.termination = s.residual == 0 ? CutTermination::exact : CutTermination::nearest_integer;
    if (i == 0 || i == P) s.residual = 0, s.termination = CutTermination::exact;
    part.max_abs_residual = std::max(part.max_abs_residual, std::abs(s.residual));
    if (i < P) {
      part.time[u] = cost[u] / speeds.speed(i);
      before += cost[u];
      speed_before += speeds.speed(i);
    }
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
