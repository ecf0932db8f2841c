// Particles on a 1-D domain (Watts §4.1): [0, 1) is 1000 cells in blocks over
// the ranks; 9000 particles (x, v, id: a struct of arrays) start in a clump
// on rank 0's cells and drift right. Each step they move, exchange() sends
// those that left their owner's cells to the new owner, and the BlockBalancer,
// given particles per cell as costs, moves the cells (with their field arrays)
// when the load drifts. Exits 1 if a particle is lost or the efficiency after
// balancing is below 0.9.   Run: mpiexec -n 3 ./particles_exchange
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "isocost/mpi/block_balancer.hpp"
#include "isocost/mpi/samples.hpp"

namespace {

const std::int64_t kCells = 1000, kParticles = 9000;

std::int64_t cell_of(double x) { return static_cast<std::int64_t>(x * kCells) % kCells; }

// T_avg / T_max of the particle counts: what the ranks' step times would show.
double efficiency(std::size_t particles) {
  return isocost::mpi::gather_load_stats(MPI_COMM_WORLD, static_cast<double>(particles)).efficiency;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  bool ok = false;
  {  // the balancer must be destroyed before MPI_Finalize
    isocost::mpi::BlockBalancerOptions options;
    options.pipeline.trigger.every = 5;                      // check every 5 steps
    options.pipeline.monitor.window = 1;                     // on the latest step's load
    options.pipeline.comm = isocost::CommModel{1e-5, 1e-9};  // no measuring at start-up
    options.pipeline.policy = isocost::mpi::BalancePolicy::global;
    isocost::mpi::BlockBalancer b(MPI_COMM_WORLD,
                                  isocost::mpi::BlockDistribution::uniform(kCells, P), options);

    // Per-cell data the code owns (moved by apply()) and particles (moved by exchange()).
    std::vector<double> field(static_cast<std::size_t>(b.local_count()), 1.0);
    std::vector<std::int64_t> cell_id;
    for (auto i = b.distribution().begin(rank); i < b.distribution().end(rank); ++i)
      cell_id.push_back(i);
    std::vector<double> x, v;
    std::vector<std::int64_t> id, key;  // key: the cell a particle is in
    std::mt19937 rng(7);                // every rank draws the same sequence ...
    std::uniform_real_distribution<double> pos(0.02, 0.3), vel(0.0005, 0.0015);
    for (std::int64_t k = 0; k < kParticles; ++k) {
      const double xk = pos(rng), vk = vel(rng);
      if (k % P != rank) continue;  // ... and creates every P-th particle
      x.push_back(xk);
      v.push_back(vk);
      id.push_back(k);
      key.push_back(cell_of(xk));
    }
    b.exchange(key, x, v, id);  // to the owners of their cells
    const double eff_start = efficiency(x.size());
    double eff_after = eff_start;  // until the first rebalance

    for (int step = 0; step < 40; ++step) {
      for (std::size_t k = 0; k < x.size(); ++k) {  // push, wrapping around
        x[k] = std::fmod(x[k] + v[k], 1.0);
        key[k] = cell_of(x[k]);
      }
      b.exchange(key, x, v, id);
      // The step's load, modelled as 1 µs per particle so that the run is reproducible
      // (a real code times its push instead: `auto scope = b.step();`), and the
      // cost of each cell, which the global plan is cut on.
      std::vector<double> per_cell(static_cast<std::size_t>(b.local_count()), 0.0);
      for (std::int64_t c : key)
        per_cell[static_cast<std::size_t>(c - b.distribution().begin(rank))] += 1;
      b.set_costs(per_cell);
      b.record_step(1e-6 * static_cast<double>(x.size()));

      // Collective: the same plan on every rank; it moves data only when it pays.
      const isocost::mpi::BlockPlan plan = b.decide(sizeof(double) + sizeof(std::int64_t));
      if (!plan.moves()) continue;
      b.apply(plan, field, cell_id);  // the cells' arrays go to their new owners ...
      b.exchange(key, x, v, id);      // ... and so do the particles in those cells
      eff_after = efficiency(x.size());
      if (rank == 0)
        std::printf("step %2d: efficiency %.3f -> %.3f, %lld cells moved%s\n", step + 1,
                    plan.check.efficiency, eff_after,
                    static_cast<long long>(plan.rebalance.elements_moved),
                    plan.used_costs ? " (planned on particles per cell)" : "");
    }

    // Conservation: every particle once, each on the owner of its cell, cells in order.
    std::int64_t local[3] = {static_cast<std::int64_t>(x.size()), 0, 0}, global[3] = {0, 0, 0};
    for (std::size_t k = 0; k < x.size(); ++k) {
      local[1] += id[k];
      local[2] += b.distribution().owner(key[k]) != rank;
    }
    for (std::size_t c = 0; c < cell_id.size(); ++c)
      local[2] += cell_id[c] != b.distribution().begin(rank) + static_cast<std::int64_t>(c);
    MPI_Allreduce(local, global, 3, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    ok = global[0] == kParticles && global[1] == kParticles * (kParticles - 1) / 2 &&
         global[2] == 0 && eff_after >= 0.9;
    if (rank == 0) {
      std::printf("efficiency at the start %.3f, after the last rebalance %.3f\n", eff_start,
                  eff_after);
      std::printf("particles %lld (expected %lld), id sum %lld, misplaced %lld: %s\n",
                  static_cast<long long>(global[0]), static_cast<long long>(kParticles),
                  static_cast<long long>(global[1]), static_cast<long long>(global[2]),
                  ok ? "ok" : "FAIL");
    }
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
