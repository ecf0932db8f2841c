// Issue #11, MPI faults: a bad input on one rank reaches every rank. For every
// collective entry point of the mpi layer, a fault is injected on exactly one
// rank — the first, the middle and the last in turn — and every rank must
// throw the same isocost::Error naming that rank, then still be in step (one
// more collective). A hang shows up as the CTest timeout. CTest runs this at
// 1, 2, 3, 5, 7 and 8 ranks; the 1-D entry points run with N = 3 elements
// (more ranks than elements from 5 ranks on) and with N = 4P + 1.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "faults_support.hpp"
#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/mpi/block_balancer.hpp"
#include "isocost/mpi/diffusion.hpp"
#include "isocost/mpi/exchange.hpp"
#include "isocost/mpi/grid_balancer.hpp"
#include "isocost/mpi/migrate.hpp"
#include "isocost/mpi/redistribute.hpp"
#include "isocost/mpi/samples.hpp"
#include "isocost/mpi/task_balancer.hpp"
#include "mpi_test_support.hpp"

namespace {

using isocost::mpi::BlockBalancer;
using isocost::mpi::BlockBalancerOptions;
using isocost::mpi::BlockDistribution;
using isocost::mpi::BlockPlan;
using isocost::mpi::BoxDistribution;
using isocost::mpi::GridBalancer;
using isocost::mpi::GridBalancerOptions;
using isocost::testing::all_on_last;
using isocost::testing::block_options;
using isocost::testing::error_of;
using isocost::testing::expect_agreed_error;
using isocost::testing::faulty_ranks;
using isocost::testing::first_check;
using isocost::testing::quiet_pipeline;
using isocost::testing::rank_of;
using isocost::testing::size_of;
using i64 = std::int64_t;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One collective entry point: `call(faulty)` runs it on every rank, with the
// fault injected where `faulty` is true. The agreed message must contain
// "rank b: " + part (b the faulty rank). `same_input`: the fault is an input
// that must be equal on every rank, so with rank 0 faulty every other rank is
// the one that differs from rank 0's — run only with a faulty rank > 0.
struct EntryPoint {
  std::string name;
  std::string part;
  std::function<void(bool faulty)> call;
  bool same_input = false;
  bool needs_two_ranks = false;
  /// Whether the fault can happen on rank b (default: on every rank).
  std::function<bool(int b)> applies = {};
};

void run_table(const std::vector<EntryPoint>& table) {
  const int P = size_of();
  for (const auto& e : table) {
    if (e.needs_two_ranks && P < 2) continue;
    for (const int bad : faulty_ranks()) {
      if ((e.same_input && bad == 0) || (e.applies && !e.applies(bad))) continue;
      SCOPED_TRACE(e.name + ", fault on rank " + std::to_string(bad) + " of " + std::to_string(P));
      const std::string msg = error_of([&] { e.call(rank_of() == bad); });
      expect_agreed_error(msg, "rank " + std::to_string(bad) + ": ");
      isocost::testing::expect_has(msg, e.part);
    }
  }
}

std::vector<double> local_values(const BlockDistribution& d) {
  std::vector<double> v;
  for (i64 i = d.begin(rank_of()); i < d.end(rank_of()); ++i) v.push_back(static_cast<double>(i));
  return v;
}

// A 2-D grid of (2P + 1) x 2 cells in P row slabs.
struct Grid {
  isocost::GridShape shape;
  isocost::Decomposition start;
  Grid() {
    const int P = size_of();
    shape.dims = 2;
    shape.cells = {2 * P + 1, 2, 1};
    const auto n = static_cast<std::size_t>(shape.cells[0] * shape.cells[1]);
    start = isocost::decompose(isocost::grid_density(std::vector<double>(n, 1.0), shape),
                               {{P}, {0}}, isocost::Speeds::uniform(P));
  }
};

GridBalancerOptions grid_options() {
  GridBalancerOptions o;
  o.pipeline = quiet_pipeline();
  return o;
}

// The entry points over 1-D blocks of n elements.
std::vector<EntryPoint> block_entry_points(i64 n) {
  const int P = size_of();
  const auto uniform = BlockDistribution::uniform(n, P);
  const auto shifted = all_on_last(n, P);
  std::vector<EntryPoint> t;
  t.push_back({"redistribute (blocks)", "local data has", [=](bool faulty) {
                 auto local = local_values(uniform);
                 if (faulty) local.push_back(-1);
                 isocost::mpi::redistribute(MPI_COMM_WORLD, uniform, shifted, local);
               }});
  t.push_back({"redistribute_into (aliased output)", "shares storage",
               [=](bool faulty) {
                 auto local = local_values(uniform);
                 local.reserve(local.size() + 1);  // never empty capacity
                 std::vector<double> other;
                 isocost::mpi::redistribute_into(MPI_COMM_WORLD, uniform, shifted, local,
                                                 faulty ? local : other);
               },
               false, false,
               // Empty local data share no storage with anything.
               [=](int b) { return uniform.count(b) > 0; }});
  t.push_back(
      {"redistribute_arrays", "the arrays' lengths: expected equal lengths", [=](bool faulty) {
         auto a = local_values(uniform);
         std::vector<int> b(a.size() + (faulty ? 1 : 0));
         isocost::mpi::redistribute_arrays(MPI_COMM_WORLD, uniform, shifted, {}, a, b);
       }});
  t.push_back({"exchange (destinations)", "'s destination: expected a rank in", [=](bool faulty) {
                 auto a = local_values(uniform);
                 std::vector<int> to(a.size(), P - 1);
                 if (faulty) to.push_back(P);
                 if (faulty) a.push_back(0);
                 isocost::mpi::exchange(MPI_COMM_WORLD, to, {}, a);
               }});
  t.push_back({"exchange (block keys)", "'s key: expected", [=](bool faulty) {
                 std::vector<i64> keys{0};
                 if (faulty) keys.push_back(n);
                 std::vector<double> a(keys.size(), 1.0);
                 isocost::mpi::exchange(MPI_COMM_WORLD, uniform, keys, a);
               }});
  t.push_back({"exchange (block distribution differs)", "the distribution not equal to rank 0's",
               [=](bool faulty) {
                 std::vector<i64> keys;
                 std::vector<double> a;
                 isocost::mpi::exchange(MPI_COMM_WORLD, faulty ? shifted : uniform, keys, a);
               },
               true, true});
  t.push_back({"exchange (block distribution of other parts)", "parts, expected", [=](bool faulty) {
                 std::vector<i64> keys;
                 std::vector<double> a;
                 isocost::mpi::exchange(MPI_COMM_WORLD,
                                        faulty ? BlockDistribution::uniform(n, P + 1) : uniform,
                                        keys, a);
               }});
  t.push_back({"BlockBalancer()", "distribution: ", [=](bool faulty) {
                 BlockDistribution d = uniform;
                 if (faulty) d.offsets.back() = -1;
                 BlockBalancer b(MPI_COMM_WORLD, d, block_options());
               }});
  t.push_back({"BlockBalancer::decide (costs)", "set_costs() gave", [=](bool faulty) {
                 BlockBalancer b(MPI_COMM_WORLD, uniform, block_options());
                 for (int s = 0; s < 2; ++s) {
                   // An element too many, NaN, on the faulty rank.
                   std::vector<double> c(static_cast<std::size_t>(b.local_count()), 1.0);
                   if (faulty) c.push_back(kNaN);
                   b.set_costs(c);
                   b.record_step(1.0);
                   b.decide();
                 }
               }});
  t.push_back({"BlockBalancer::decide (bytes per element)", "bytes per element", [=](bool faulty) {
                 BlockBalancer b(MPI_COMM_WORLD, uniform, block_options());
                 for (int s = 0; s < 2; ++s) {
                   b.record_step(1.0);
                   b.decide(faulty ? -1.0 : 8.0);
                 }
               }});
  t.push_back({"BlockBalancer::decide (open step)", "inside an open step", [=](bool faulty) {
                 // Every rank at step 2 (a check step); the faulty one has
                 // step 3 open.
                 BlockBalancer b(MPI_COMM_WORLD, uniform, block_options());
                 b.record_step(1.0);
                 b.decide();
                 b.record_step(1.0);
                 if (faulty) {
                   auto scope = b.step();
                   b.decide();
                 } else {
                   b.decide();
                 }
               }});
  t.push_back({"BlockBalancer::maybe_rebalance", "holds", [=](bool faulty) {
                 BlockBalancer b(MPI_COMM_WORLD, uniform, block_options());
                 auto a = local_values(uniform);
                 if (faulty) a.push_back(0);
                 for (int s = 0; s < 2; ++s) {
                   b.record_step(1.0);
                   b.maybe_rebalance(a);
                 }
               }});
  t.push_back({"BlockBalancer::apply (arrays of unequal lengths)",
               "the arrays' lengths: expected equal lengths",
               [=](bool faulty) {
                 BlockBalancer b(MPI_COMM_WORLD, shifted, block_options());
                 const BlockPlan plan = first_check(b);
                 ASSERT_TRUE(plan.moves());
                 auto a = local_values(shifted);
                 std::vector<float> c(a.size() + (faulty ? 1 : 0));
                 b.apply(plan, a, c);
               },
               false, true});
  t.push_back({"BlockBalancer::apply (a stale plan)", "the plan is not the latest",
               [=](bool faulty) {
                 BlockBalancer b(MPI_COMM_WORLD, shifted, block_options());
                 const BlockPlan plan = first_check(b);
                 ASSERT_TRUE(plan.moves());
                 BlockPlan stale = plan;
                 stale.step -= 2;
                 auto a = local_values(shifted);
                 b.apply(faulty ? stale : plan, a);
               },
               false, true});
  t.push_back({"BlockBalancer::apply (a plan that moves nothing)", "the plan is not the latest",
               [=](bool faulty) {
                 BlockBalancer b(MPI_COMM_WORLD, shifted, block_options());
                 const BlockPlan plan = first_check(b);
                 ASSERT_TRUE(plan.moves());
                 BlockPlan none = plan;
                 none.action = isocost::Strategy::none;
                 b.apply(faulty ? none : plan);
               },
               false, true});
  t.push_back({"BlockBalancer::apply (callbacks)", "empty callbacks",
               [=](bool faulty) {
                 BlockBalancer b(MPI_COMM_WORLD, shifted, block_options());
                 const BlockPlan plan = first_check(b);
                 ASSERT_TRUE(plan.moves());
                 isocost::testing::TaskStore store;
                 auto cb = store.callbacks();
                 if (faulty) cb.unpack = nullptr;
                 b.apply(plan, cb);
               },
               false, true});
  t.push_back({"BlockBalancer::exchange", "'s key: expected", [=](bool faulty) {
                 BlockBalancer b(MPI_COMM_WORLD, uniform, block_options());
                 std::vector<i64> keys{n - 1};
                 if (faulty) keys.push_back(-1);
                 std::vector<float> a(keys.size());
                 b.exchange(keys, a);
               }});
  return t;
}

TEST(MpiFaults, BlockEntryPointsWithFewerElementsThanRanks) { run_table(block_entry_points(3)); }

TEST(MpiFaults, BlockEntryPoints) { run_table(block_entry_points(4 * size_of() + 1)); }

TEST(MpiFaults, GridAndBoxEntryPoints) {
  const int P = size_of();
  const Grid g;
  const auto boxes = BoxDistribution::from_decomposition(g.start);
  std::vector<EntryPoint> t;
  t.push_back({"redistribute (boxes)", "local data has", [&](bool faulty) {
                 std::vector<double> local(static_cast<std::size_t>(boxes.count(rank_of())) +
                                           (faulty ? 1 : 0));
                 isocost::mpi::redistribute(MPI_COMM_WORLD, boxes, boxes, local);
               }});
  t.push_back({"exchange (cell keys)", "'s key: expected", [&](bool faulty) {
                 std::vector<i64> keys{0};
                 if (faulty) keys.push_back(boxes.size());
                 std::vector<double> a(keys.size());
                 isocost::mpi::exchange(MPI_COMM_WORLD, boxes, keys, a);
               }});
  t.push_back({"GridBalancer()", "options.", [&](bool faulty) {
                 GridBalancerOptions o = grid_options();
                 if (faulty) o.pipeline.steps_ahead = 0;
                 GridBalancer b(MPI_COMM_WORLD, g.shape, g.start, o);
               }});
  t.push_back({"GridBalancer::decide (costs)", "set_costs() gave", [&](bool faulty) {
                 GridBalancer b(MPI_COMM_WORLD, g.shape, g.start, grid_options());
                 for (int s = 0; s < 2; ++s) {
                   b.set_costs(std::vector<double>(
                       static_cast<std::size_t>(b.local_count()) + (faulty ? 1 : 0), 1.0));
                   b.record_step(1.0);
                   b.decide();
                 }
               }});
  t.push_back({"GridBalancer::decide (bytes per cell)", "bytes per element", [&](bool faulty) {
                 GridBalancer b(MPI_COMM_WORLD, g.shape, g.start, grid_options());
                 for (int s = 0; s < 2; ++s) {
                   b.record_step(1.0);
                   b.decide(faulty ? kNaN : 8.0);
                 }
               }});
  t.push_back({"GridBalancer::maybe_rebalance", "holds", [&](bool faulty) {
                 GridBalancer b(MPI_COMM_WORLD, g.shape, g.start, grid_options());
                 std::vector<double> a(static_cast<std::size_t>(b.local_count()) +
                                       (faulty ? 2 : 0));
                 for (int s = 0; s < 2; ++s) {
                   b.record_step(1.0);
                   b.maybe_rebalance(a);
                 }
               }});
  t.push_back({"GridBalancer::apply (a stale plan)", "the plan is not the latest",
               [&](bool faulty) {
                 GridBalancer b(MPI_COMM_WORLD, g.shape, g.start, grid_options());
                 isocost::mpi::GridPlan plan;
                 for (int s = 0; s < 2; ++s) {
                   // Rank 0's cells cost 10, the others' 1: the plan moves cells.
                   b.set_costs(std::vector<double>(static_cast<std::size_t>(b.local_count()),
                                                   rank_of() == 0 ? 10.0 : 1.0));
                   b.record_step(rank_of() == 0 ? 10.0 : 1.0);
                   plan = b.decide();
                 }
                 ASSERT_TRUE(plan.moves());
                 auto stale = plan;
                 stale.step += 1;
                 std::vector<double> a(static_cast<std::size_t>(b.local_count()));
                 b.apply(faulty ? stale : plan, a);
               },
               false, true});
  t.push_back({"GridBalancer::exchange", "'s key: expected", [&](bool faulty) {
                 GridBalancer b(MPI_COMM_WORLD, g.shape, g.start, grid_options());
                 std::vector<i64> keys{faulty ? -5 : 0};
                 std::vector<double> a(1);
                 b.exchange(keys, a);
               }});
  t.push_back({"mesh_communicator", "dims", [&](bool faulty) {
                 MPI_Comm cart =
                     isocost::mpi::mesh_communicator(MPI_COMM_WORLD, {faulty ? P + 1 : P}, false);
                 MPI_Comm_free(&cart);
               }});
  t.push_back({"diffuse", "load", [&](bool faulty) {
                 MPI_Comm cart = isocost::mpi::mesh_communicator(MPI_COMM_WORLD, {P}, false);
                 const std::string msg = error_of(
                     [&] { isocost::mpi::diffuse(cart, faulty ? -1.0 : 1.0 + rank_of()); });
                 MPI_Comm_free(&cart);
                 if (!msg.empty()) throw isocost::Error(msg);
               }});
  t.push_back({"gather_samples", "range", [&](bool faulty) {
                 isocost::mpi::gather_samples(MPI_COMM_WORLD, faulty ? 2.0 : 0.0, 1.0, 1.0);
               }});
  t.push_back({"gather_times", "time", [&](bool faulty) {
                 isocost::mpi::gather_times(MPI_COMM_WORLD, faulty ? kNaN : 1.0);
               }});
  t.push_back({"calibrate_speeds", "calibration time", [&](bool faulty) {
                 isocost::mpi::calibrate_speeds(MPI_COMM_WORLD, faulty ? 0.0 : 1.0);
               }});
  t.push_back({"gather_load_stats", "time", [&](bool faulty) {
                 isocost::mpi::gather_load_stats(MPI_COMM_WORLD, faulty ? -1.0 : 1.0);
               }});
  t.push_back({"balance_tasks (a task load)", "load: expected a finite number >= 0, got nan",
               [&](bool faulty) {
                 std::vector<isocost::Task> tasks{{rank_of(), faulty ? kNaN : 1.0, false}};
                 isocost::testing::TaskStore store;
                 store.items[rank_of()] = "x";
                 isocost::mpi::balance_tasks(MPI_COMM_WORLD, isocost::mesh_graph({P}, false), tasks,
                                             store.callbacks());
               }});
  t.push_back({"balance_tasks (a task id held twice)", "twice", [&](bool faulty) {
                 std::vector<isocost::Task> tasks{{rank_of(), 1.0, false}};
                 if (faulty) tasks.push_back({rank_of(), 1.0, false});
                 isocost::testing::TaskStore store;
                 store.items[rank_of()] = "x";
                 isocost::mpi::balance_tasks(MPI_COMM_WORLD, isocost::mesh_graph({P}, false), tasks,
                                             store.callbacks());
               }});
  t.push_back({"migrate (a held id twice)", "twice", [&](bool faulty) {
                 std::vector<i64> held{rank_of()};
                 if (faulty) held.push_back(rank_of());
                 isocost::testing::TaskStore store;
                 std::vector<isocost::TaskMove> moves;
                 isocost::mpi::migrate(MPI_COMM_WORLD, held, moves, store.callbacks());
               }});
  t.push_back(
      {"migrate (a move from a rank that does not hold it)", "does not hold it", [&](bool faulty) {
         // Every rank lists the same move of id 1000 from the faulty
         // rank (learnt with one reduction), which does not hold it.
         int from = faulty ? rank_of() : -1, agreed = -1;
         MPI_Allreduce(&from, &agreed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
         const std::vector<isocost::TaskMove> moves{{1000, agreed, (agreed + 1) % P, 0.0}};
         isocost::testing::TaskStore store;
         isocost::mpi::migrate(MPI_COMM_WORLD, store.ids(), moves, store.callbacks());
       }});
  run_table(t);
}

}  // namespace
