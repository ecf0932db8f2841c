// python/tests/mpi_reference.cpp — the C++ side of test_balancer.py's
// same-plans test: BlockBalancer and GridBalancer on fixed loads under
// mpiexec, every plan's distribution printed as JSON by rank 0, so that the
// Python balancers can be run on the same loads and compared exactly.
// Usage: mpiexec -n R isocost_python_mpi_reference OUT.json
#include <mpi.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/mpi/block_balancer.hpp"
#include "isocost/mpi/grid_balancer.hpp"

namespace {

using json = nlohmann::json;
namespace mpi = isocost::mpi;

// The settings test_balancer.py passes as a dict: every step a check, a
// global plan, fixed costs of deciding and moving (reproducible decisions).
template <class O>
O reproducible() {
  O o;
  o.pipeline.trigger.every = 1;
  o.pipeline.monitor.window = 1;
  o.pipeline.policy = mpi::BalancePolicy::global;
  o.pipeline.decision_seconds = 0.0;
  o.pipeline.comm = isocost::CommModel{.latency = 0.0, .per_byte = 0.0};
  return o;
}

// Element i costs 1 + i·(1 + step)/N: a ramp that steepens.
double element_cost(std::int64_t i, int step, std::int64_t n) {
  return 1 + static_cast<double>(i) * (1 + step) / static_cast<double>(n);
}

json block_run(MPI_Comm comm, bool costs) {
  const std::int64_t n = 1000;
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  mpi::BlockBalancer b(comm, mpi::BlockDistribution::uniform(n, size),
                       reproducible<mpi::BlockBalancerOptions>());
  json plans = json::array();
  for (int step = 0; step < 5; ++step) {
    std::vector<double> c;
    for (std::int64_t i = b.local_begin(); i < b.local_begin() + b.local_count(); ++i)
      c.push_back(element_cost(i, step, n));
    double load = 0;
    for (double x : c) load += x;
    b.record_step(load);
    if (costs) b.set_costs(c);
    b.maybe_rebalance();
    plans.push_back(b.distribution().offsets);
  }
  return plans;
}

json grid_run(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const isocost::GridShape shape{2, {24, 16, 1}};
  mpi::GridBalancer b(comm, shape, isocost::decompose_uniform(shape, {{size}, {0}}),
                      reproducible<mpi::GridBalancerOptions>());
  json plans = json::array();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  for (int step = 0; step < 5; ++step) {
    const auto& box = b.boxes().boxes[static_cast<std::size_t>(rank)];
    double load = 0;  // cell (i, j) costs 1 + i + 2j
    for (std::int64_t j = box.lo[1]; j < box.hi[1]; ++j)
      for (std::int64_t i = box.lo[0]; i < box.hi[0]; ++i) load += 1.0 + i + 2.0 * j;
    b.record_step(load);
    b.maybe_rebalance();
    json boxes = json::array();
    for (const auto& x : b.boxes().boxes) boxes.push_back({x.lo, x.hi});
    plans.push_back(boxes);
  }
  return plans;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const json out = {{"block_loads", block_run(MPI_COMM_WORLD, false)},
                    {"block_costs", block_run(MPI_COMM_WORLD, true)},
                    {"grid_loads", grid_run(MPI_COMM_WORLD)}};
  if (rank == 0 && argc > 1) std::ofstream(argv[1]) << out.dump() << "\n";
  MPI_Finalize();
  return 0;
}
