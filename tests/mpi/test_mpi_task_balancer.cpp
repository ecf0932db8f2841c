// isocost/mpi/task_balancer.hpp under mpiexec -n N (CTest runs N = 1, 2, 3, 4,
// 8). Each rank keeps its tasks' state (string payloads) in a map that the
// callbacks pack, unpack and free. Expected plans are computed here from the
// serial diffuse() and select_tasks() on the test's own copy of every rank's
// tasks, and the re-plan after a failure from the test's own bookkeeping
// (apply the completed moves, mark the failed tasks immobile, plan again).
// Where each task ends is checked by gathering the ids the maps hold.
// Comparisons that could stop a rank early come after the last collective of
// a case (a deadlock would show up as the CTest timeout).
#include "isocost/mpi/task_balancer.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <new>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "isocost/diffusion.hpp"
#include "isocost/error.hpp"
#include "isocost/monitor.hpp"
#include "isocost/tasks.hpp"

#include "mpi_test_support.hpp"

namespace {

using isocost::testing::error_of;
using isocost::testing::expect_agreed_error;
using isocost::testing::expect_has;
using isocost::testing::gather_holdings;
using isocost::testing::rank_of;
using isocost::testing::same_everywhere;
using isocost::testing::size_of;
using Store = isocost::testing::TaskStore;

using isocost::Task;
using isocost::TaskMove;
using isocost::mpi::MigrationStage;
using isocost::mpi::TaskBalanceOptions;
using isocost::mpi::TaskBalanceResult;
using i64 = std::int64_t;
using TaskLists = std::vector<std::vector<Task>>;

std::string payload_of(i64 id) {
  const auto n = static_cast<std::size_t>(1 + (id * 37) % 300);
  std::string s(n, '\0');
  for (std::size_t k = 0; k < n; ++k)
    s[k] = static_cast<char>('a' + (id * 131 + static_cast<i64>(k)) % 26);
  return s;
}

// A hot spot: `count` tasks, all on rank 0, loads 1 … 10 in a fixed pattern;
// every `immobile_every`-th task immobile from the start (0: none).
TaskLists hot_spot(int P, i64 count, int immobile_every = 0) {
  TaskLists tasks(static_cast<std::size_t>(P));
  for (i64 id = 0; id < count; ++id)
    tasks[0].push_back({1000 + id * 3, 1.0 + static_cast<double>((id * 7) % 10),
                        immobile_every > 0 && id % immobile_every == 0});
  return tasks;
}

Store store_for(const TaskLists& tasks, int rank) {
  Store s;
  for (const auto& t : tasks[static_cast<std::size_t>(rank)]) s.items[t.id] = payload_of(t.id);
  return s;
}

// The serial plan for `tasks`: what balance_tasks() must compute.
isocost::TaskSelection plan_of(const isocost::ProcessGraph& g, const TaskLists& tasks,
                               const TaskBalanceOptions& o) {
  const auto d = isocost::diffuse(g, isocost::node_loads(tasks), o.diffusion);
  return isocost::select_tasks(g, tasks, d.transfers, o.selection);
}

void expect_same_moves(const std::vector<TaskMove>& got, const std::vector<TaskMove>& want,
                       const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].id, want[k].id) << what << " move " << k;
    EXPECT_EQ(got[k].from, want[k].from) << what << " move " << k;
    EXPECT_EQ(got[k].to, want[k].to) << what << " move " << k;
    EXPECT_EQ(got[k].load, want[k].load) << what << " move " << k;
  }
}

// The result's global fields as text (to compare across ranks).
std::string global_text(const TaskBalanceResult& r) {
  std::ostringstream out;
  out.precision(17);
  out << r.rounds.size() << " " << r.tasks << " " << r.moves_planned << " " << r.tasks_moved << " "
      << r.bytes_moved << " " << r.converged() << r.terminated << " " << r.initial_imbalance << " "
      << r.final_imbalance;
  for (double u : r.final_loads) out << " " << u;
  for (const auto& R : r.rounds)
    for (const auto& m : R.selection.moves) out << " " << m.id << ":" << m.from << ">" << m.to;
  for (const auto& f : r.failed) out << " f" << f.id;
  return out.str();
}

// Checks, after a balance, that every task exists exactly once, on the rank
// `expected` says, with its payload intact, and that my_tasks matches the
// store and the expected lists (loads and immobile flags included).
// Collective (one gather).
void expect_holdings(const Store& store, const std::vector<Task>& my_tasks,
                     const TaskLists& expected) {
  const int rank = rank_of();
  const auto where = gather_holdings(store.ids());
  std::size_t total = 0;
  for (const auto& list : expected) total += list.size();
  ASSERT_EQ(where.size(), total);
  for (std::size_t r = 0; r < expected.size(); ++r)
    for (const auto& t : expected[r]) {
      ASSERT_TRUE(where.count(t.id)) << "task " << t.id << " was lost";
      ASSERT_EQ(where.at(t.id).size(), 1u) << "task " << t.id << " is held twice";
      EXPECT_EQ(where.at(t.id)[0], static_cast<int>(r)) << "task " << t.id;
    }
  for (const auto& [id, p] : store.items) EXPECT_EQ(p, payload_of(id)) << "payload of " << id;
  EXPECT_FALSE(store.duplicate_unpack);
  const auto& mine = expected[static_cast<std::size_t>(rank)];
  ASSERT_EQ(my_tasks.size(), mine.size());
  for (std::size_t k = 0; k < mine.size(); ++k) {
    EXPECT_EQ(my_tasks[k].id, mine[k].id);
    EXPECT_EQ(my_tasks[k].load, mine[k].load);
    EXPECT_EQ(my_tasks[k].immobile, mine[k].immobile) << "task " << mine[k].id;
    EXPECT_TRUE(store.items.count(my_tasks[k].id)) << "my_tasks lists " << my_tasks[k].id;
  }
  EXPECT_EQ(store.items.size(), my_tasks.size());
}

// Graphs with one node per rank: a chain, a ring, and a 2-D mesh where P
// factors.
std::vector<std::pair<std::string, isocost::ProcessGraph>> graphs(int P) {
  std::vector<std::pair<std::string, isocost::ProcessGraph>> g;
  g.emplace_back("chain", isocost::mesh_graph({P}, false));
  if (P >= 3) g.emplace_back("ring", isocost::mesh_graph({P}, true));
  if (P == 4) g.emplace_back("2x2 mesh", isocost::mesh_graph({2, 2}, false));
  if (P == 8) g.emplace_back("2x4 torus", isocost::mesh_graph({2, 4}, true));
  return g;
}

// ---------------------------------------------------------------------------

TEST(BalanceTasks, HotSpotOnRankZeroIsSpreadAsTheSerialPlanSays) {
  const int P = size_of(), rank = rank_of();
  for (const auto& [name, graph] : graphs(P))
    for (int immobile_every : {0, 4}) {
      SCOPED_TRACE(name + (immobile_every ? ", every 4th task immobile" : ""));
      const auto tasks = hot_spot(P, 12 * P + 5, immobile_every);
      Store store = store_for(tasks, rank);
      auto mine = tasks[static_cast<std::size_t>(rank)];
      TaskBalanceOptions o;
      o.verify = immobile_every != 0;
      const auto r = isocost::mpi::balance_tasks(MPI_COMM_WORLD, graph, mine, store.callbacks(), o);
      const bool same = same_everywhere(global_text(r));

      const auto d = isocost::diffuse(graph, isocost::node_loads(tasks), o.diffusion);
      const auto want = isocost::select_tasks(graph, tasks, d.transfers, o.selection);
      const auto after = isocost::apply_moves(tasks, want.moves);
      expect_holdings(store, mine, after);  // collective
      EXPECT_TRUE(same) << "the result differs between ranks";

      ASSERT_EQ(r.rounds.size(), 1u);
      const auto& R = r.rounds[0];
      expect_same_moves(R.selection.moves, want.moves, "round 0");
      EXPECT_EQ(R.moved.size(), want.moves.size());
      EXPECT_TRUE(R.failed.empty());
      EXPECT_EQ(R.migrated, !want.moves.empty());
      EXPECT_EQ(R.diffusion.transfers, d.transfers);
      EXPECT_EQ(r.initial_loads, isocost::node_loads(tasks));
      EXPECT_EQ(r.final_loads, want.loads);  // bit for bit
      EXPECT_EQ(R.loads_after, want.loads);
      EXPECT_EQ(r.tasks, 12 * P + 5);
      EXPECT_EQ(r.replans, 0);
      EXPECT_TRUE(r.terminated);
      EXPECT_EQ(r.converged(), d.converged() && want.converged());
      EXPECT_EQ(r.verified, o.verify);
      EXPECT_TRUE(r.failed.empty());
      EXPECT_EQ(r.moves_planned, static_cast<i64>(want.moves.size()));
      EXPECT_EQ(r.tasks_moved, static_cast<i64>(want.moves.size()));
      i64 bytes = 0;
      std::vector<i64> sent, received;
      for (const auto& m : want.moves) {
        bytes += static_cast<i64>(payload_of(m.id).size());
        if (m.from == rank) sent.push_back(m.id);
        if (m.to == rank) received.push_back(m.id);
        // Tasks immobile from the start never move.
        const bool was_immobile = immobile_every && (m.id - 1000) / 3 % immobile_every == 0;
        EXPECT_FALSE(was_immobile) << "immobile task " << m.id << " moved";
      }
      EXPECT_EQ(r.bytes_moved, bytes);
      EXPECT_EQ(r.sent, sent);
      EXPECT_EQ(r.received, received);
      EXPECT_EQ(store.free_calls, static_cast<int>(sent.size()));

      if (P == 1 || immobile_every) continue;
      EXPECT_FALSE(want.moves.empty());
      EXPECT_LT(r.final_imbalance, r.initial_imbalance);
      // Each rank ends where the diffused target is, corrected by the
      // unsatisfied transfers r_e of its edges (+ r_e where it is the
      // sender, − r_e the receiver); and the largest load within one largest
      // task of the target's largest load.
      double target_max = 0, final_max = 0;
      std::vector<double> expected = R.diffusion.loads;
      for (std::size_t e = 0; e < graph.edges.size(); ++e) {
        expected[static_cast<std::size_t>(graph.edges[e].i)] += want.remaining[e];
        expected[static_cast<std::size_t>(graph.edges[e].j)] -= want.remaining[e];
      }
      const double total = r.initial_loads[0];  // the hot spot holds everything
      for (int v = 0; v < P; ++v) {
        const auto uv = static_cast<std::size_t>(v);
        EXPECT_NEAR(r.final_loads[uv], expected[uv], 1e-9 * total) << "rank " << v;
        target_max = std::max(target_max, R.diffusion.loads[uv]);
        final_max = std::max(final_max, r.final_loads[uv]);
      }
      EXPECT_LE(final_max, target_max + r.largest_task) << r.brief_report();
    }
}

// Watts §3.2.6: a task whose unpack fails stays with its owner, is marked
// immobile, and the balancing restarts from the new holdings; the re-plan
// never selects it. The injection stays armed on every rank, so a re-plan
// that selected a failed task would fail again (and show up in round 1).
struct InjectedCase {
  TaskLists tasks;
  isocost::TaskSelection first;  // the serial round-0 plan
  i64 refused = -1, out_of_memory = -1;

  bool injected(i64 id) const { return id == refused || id == out_of_memory; }
  // A rank's store with the two failures injected.
  Store store(int rank) const {
    Store s = store_for(tasks, rank);
    s.unpack_false.insert(refused);
    s.unpack_throws.insert(out_of_memory);
    return s;
  }
};

InjectedCase injected_case(const isocost::ProcessGraph& g, const TaskBalanceOptions& o) {
  const int P = size_of();
  InjectedCase c;
  c.tasks = hot_spot(P, 12 * P + 5);
  c.first = plan_of(g, c.tasks, o);
  const auto& moves = c.first.moves;
  if (moves.size() >= 2) {
    c.refused = moves.front().id;                  // unpack returns false
    c.out_of_memory = moves[moves.size() / 2].id;  // unpack throws std::bad_alloc
  }
  return c;
}

TEST(BalanceTasks, InjectedUnpackFailuresStayImmobileAndAreReplanned) {
  const int P = size_of(), rank = rank_of();
  if (P == 1) GTEST_SKIP() << "no peer to move to";
  for (const auto& [name, graph] : graphs(P))
    for (bool verify : {false, true}) {
      SCOPED_TRACE(name + (verify ? ", verified" : ""));
      TaskBalanceOptions o;
      o.verify = verify;
      const auto c = injected_case(graph, o);
      ASSERT_GE(c.first.moves.size(), 2u);
      Store store = c.store(rank);
      auto mine = c.tasks[static_cast<std::size_t>(rank)];
      const auto r = isocost::mpi::balance_tasks(MPI_COMM_WORLD, graph, mine, store.callbacks(), o);
      const bool same = same_everywhere(global_text(r));

      // The test's own bookkeeping: completed moves, immobile marks, re-plan.
      std::vector<TaskMove> done;
      std::vector<isocost::mpi::MigrationFailure> expected_failed;
      for (const auto& m : c.first.moves)
        if (c.injected(m.id))
          expected_failed.push_back({m.id, m.from, m.to, MigrationStage::unpack});
        else
          done.push_back(m);
      std::sort(expected_failed.begin(), expected_failed.end(),
                [](const auto& a, const auto& b) { return a.id < b.id; });
      auto after0 = isocost::apply_moves(c.tasks, done);
      for (auto& list : after0)
        for (auto& t : list) t.immobile = c.injected(t.id);
      const auto second = plan_of(graph, after0, o);
      const auto after1 = isocost::apply_moves(after0, second.moves);
      expect_holdings(store, mine, after1);  // collective
      EXPECT_TRUE(same) << "the result differs between ranks";

      ASSERT_EQ(r.rounds.size(), 2u) << r.brief_report();
      expect_same_moves(r.rounds[0].selection.moves, c.first.moves, "round 0");
      ASSERT_EQ(r.rounds[0].failed.size(), 2u);
      for (std::size_t k = 0; k < 2; ++k)
        EXPECT_EQ(r.rounds[0].failed[k], expected_failed[k]) << "failure " << k;
      EXPECT_EQ(r.rounds[0].loads_after, isocost::node_loads(after0));
      expect_same_moves(r.rounds[0].moved, done, "round 0 completed");
      // The re-plan: from the new holdings, without the failed tasks.
      ASSERT_FALSE(second.moves.empty())
          << "the re-plan has nothing to do; the test proves nothing";
      EXPECT_EQ(r.rounds[1].loads_before, isocost::node_loads(after0));
      expect_same_moves(r.rounds[1].selection.moves, second.moves, "round 1 (re-plan)");
      for (const auto& m : r.rounds[1].selection.moves) {
        EXPECT_NE(m.id, c.refused) << "an immobile task was selected again";
        EXPECT_NE(m.id, c.out_of_memory) << "an immobile task was selected again";
      }
      EXPECT_TRUE(r.rounds[1].failed.empty());
      // Final loads: the re-planned round's plan, bit for bit.
      EXPECT_EQ(r.final_loads, second.loads);
      EXPECT_EQ(r.rounds[1].selection.loads, second.loads);
      EXPECT_EQ(r.replans, 1);
      EXPECT_TRUE(r.terminated);
      EXPECT_EQ(r.failed, expected_failed);
      EXPECT_EQ(r.verified, verify);
      EXPECT_EQ(r.tasks_moved, static_cast<i64>(done.size() + second.moves.size()));
      EXPECT_EQ(r.moves_planned, static_cast<i64>(c.first.moves.size() + second.moves.size()));
      // The failed tasks are still with rank 0, intact, and immobile.
      if (rank == 0) {
        EXPECT_TRUE(store.items.count(c.refused));
        EXPECT_TRUE(store.items.count(c.out_of_memory));
      }
      EXPECT_FALSE(r.brief_report().empty());
    }
}

TEST(BalanceTasks, MaxReplansZeroReportsFailuresWithoutReplanning) {
  const int P = size_of(), rank = rank_of();
  if (P == 1) GTEST_SKIP() << "no peer to move to";
  const auto graph = isocost::mesh_graph({P}, false);
  TaskBalanceOptions o;
  o.max_replans = 0;
  const auto c = injected_case(graph, o);
  ASSERT_GE(c.first.moves.size(), 2u);
  Store store = c.store(rank);
  auto mine = c.tasks[static_cast<std::size_t>(rank)];
  const auto r = isocost::mpi::balance_tasks(MPI_COMM_WORLD, graph, mine, store.callbacks(), o);
  const bool same = same_everywhere(global_text(r));

  std::vector<TaskMove> done;
  for (const auto& m : c.first.moves)
    if (!c.injected(m.id)) done.push_back(m);
  auto after = isocost::apply_moves(c.tasks, done);
  for (auto& list : after)
    for (auto& t : list) t.immobile = c.injected(t.id);
  expect_holdings(store, mine, after);  // collective
  EXPECT_TRUE(same);

  ASSERT_EQ(r.rounds.size(), 1u);
  EXPECT_EQ(r.replans, 0);
  EXPECT_FALSE(r.terminated);  // failures outstanding, no re-plan allowed
  ASSERT_EQ(r.failed.size(), 2u);
  std::set<i64> failed_ids{r.failed[0].id, r.failed[1].id};
  EXPECT_EQ(failed_ids, (std::set<i64>{c.refused, c.out_of_memory}));
  EXPECT_EQ(r.final_loads, isocost::node_loads(after));
  EXPECT_NE(r.final_loads, c.first.loads);  // the failed load stayed on rank 0
  EXPECT_NE(r.brief_report().find("NOT terminated"), std::string::npos) << r.brief_report();
}

// A receiver that rejects everything (rank 1 out of memory): every failure
// marks at least one more task immobile, so the re-plan loop ends by itself
// (Watts §3.2.6's termination argument) even with a generous max_replans; a
// small max_replans cuts it short.
TEST(BalanceTasks, ARankThatRejectsEverythingEndsTheLoop) {
  const int P = size_of(), rank = rank_of();
  if (P == 1) GTEST_SKIP() << "no peer to move to";
  const auto graph = isocost::mesh_graph({P}, false);
  for (int max_replans : {1000, 1}) {
    SCOPED_TRACE("max_replans = " + std::to_string(max_replans));
    const auto tasks = hot_spot(P, 6 * P);
    Store store = store_for(tasks, rank);
    store.reject_all = rank == 1;
    auto mine = tasks[static_cast<std::size_t>(rank)];
    TaskBalanceOptions o;
    o.max_replans = max_replans;
    const auto r = isocost::mpi::balance_tasks(MPI_COMM_WORLD, graph, mine, store.callbacks(), o);
    const bool same = same_everywhere(global_text(r));
    // Expected holdings from the result's own rounds, checked against the maps.
    auto after = tasks;
    std::set<i64> failed_ids;
    for (const auto& R : r.rounds) {
      after = isocost::apply_moves(after, R.moved);
      for (const auto& f : R.failed) failed_ids.insert(f.id);
    }
    for (auto& list : after)
      for (auto& t : list) t.immobile = failed_ids.count(t.id) > 0;
    expect_holdings(store, mine, after);  // collective
    EXPECT_TRUE(same);

    ASSERT_FALSE(r.rounds.empty());
    EXPECT_FALSE(r.rounds[0].failed.empty());
    EXPECT_EQ(failed_ids.size(), r.failed.size()) << "a task failed twice";
    for (const auto& f : r.failed) {
      EXPECT_EQ(f.to, 1);
      EXPECT_EQ(f.stage, MigrationStage::unpack);
    }
    for (std::size_t k = 0; k + 1 < r.rounds.size(); ++k)
      EXPECT_FALSE(r.rounds[k].failed.empty()) << "round " << k << " re-planned without failures";
    EXPECT_TRUE(after[1].empty()) << "rank 1 accepted nothing";
    if (max_replans == 1000) {
      EXPECT_TRUE(r.terminated) << r.brief_report();
      EXPECT_TRUE(r.rounds.back().failed.empty());
      EXPECT_LE(r.rounds.size(), tasks[0].size() + 1);
    } else {
      EXPECT_EQ(r.rounds.size(), 2u);
      EXPECT_EQ(r.terminated, r.rounds.back().failed.empty());
    }
  }
}

TEST(BalanceTasks, BalancedOrEmptyInputMovesNothing) {
  const int P = size_of(), rank = rank_of();
  const auto graph = isocost::mesh_graph({P}, false);
  // Already balanced: one round, no move, migrate() not called.
  TaskLists tasks(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r)
    for (int k = 0; k < 3; ++k)
      tasks[static_cast<std::size_t>(r)].push_back({10 * r + k, 2.0, false});
  Store store = store_for(tasks, rank);
  auto mine = tasks[static_cast<std::size_t>(rank)];
  auto r = isocost::mpi::balance_tasks(MPI_COMM_WORLD, graph, mine, store.callbacks());
  ASSERT_EQ(r.rounds.size(), 1u);
  EXPECT_TRUE(r.rounds[0].selection.moves.empty());
  EXPECT_FALSE(r.rounds[0].migrated);
  EXPECT_EQ(store.calls(), 0);
  EXPECT_EQ(r.final_loads, r.initial_loads);
  EXPECT_EQ(r.initial_imbalance, 0.0);
  EXPECT_TRUE(r.converged());
  EXPECT_TRUE(r.terminated);

  // Zero total load (tasks of load 0, and no tasks at all): nothing to balance.
  for (int k = 0; k < 2; ++k) {
    std::vector<Task> zero;
    if (k == 0 && rank == 0) zero = {{1, 0.0, false}, {2, 0.0, false}};
    Store s;
    for (const auto& t : zero) s.items[t.id] = payload_of(t.id);
    const auto z = isocost::mpi::balance_tasks(MPI_COMM_WORLD, graph, zero, s.callbacks());
    EXPECT_TRUE(z.rounds.empty());
    EXPECT_EQ(z.tasks, k == 0 ? 2 : 0);
    EXPECT_EQ(z.final_imbalance, 0.0);
    EXPECT_EQ(s.calls(), 0);
    EXPECT_EQ(zero.size(), k == 0 && rank == 0 ? 2u : 0u);
  }
}

TEST(BalanceTasks, BadInputOnOneRankThrowsTheSameErrorEverywhere) {
  const int P = size_of(), rank = rank_of(), last = P - 1;
  const auto graph = isocost::mesh_graph({P}, false);
  const auto tasks = hot_spot(P, 4 * P + 1);
  Store store = store_for(tasks, rank);
  const auto original = tasks[static_cast<std::size_t>(rank)];
  auto run = [&](const isocost::ProcessGraph& g, std::vector<Task> mine,
                 isocost::mpi::MigrationCallbacks cb, const TaskBalanceOptions& o) {
    return error_of([&] { isocost::mpi::balance_tasks(MPI_COMM_WORLD, g, mine, cb, o); });
  };
  const std::string on_last = "rank " + std::to_string(last) + ": ";

  // A graph without one node per rank, on the last rank only.
  const auto wrong = isocost::mesh_graph({P + 1}, false);
  auto msg = run(rank == last ? wrong : graph, original, store.callbacks(), {});
  expect_agreed_error(msg, on_last + "graph: expected " + std::to_string(P) +
                               " nodes (one per rank of the communicator), got " +
                               std::to_string(P + 1) + " nodes");
  expect_has(msg, "balance_tasks: invalid input on 1 rank");
  // A NaN load and a negative load on the last rank.
  for (double bad : {std::nan(""), -1.0}) {
    auto mine = original;
    if (rank == last) mine.push_back({999999, bad, false});
    msg = run(graph, mine, store.callbacks(), {});
    expect_agreed_error(msg, on_last + "my_tasks[" +
                                 std::to_string(tasks[static_cast<std::size_t>(last)].size()) +
                                 "] (id 999999): load: expected a finite number >= 0, got " +
                                 (bad < 0 ? "-1" : "nan"));
  }
  // An id twice on the last rank.
  {
    auto mine = original;
    if (rank == last) mine.push_back({7, 1.0, false}), mine.push_back({7, 2.0, false});
    msg = run(graph, mine, store.callbacks(), {});
    expect_agreed_error(msg, on_last + "my_tasks lists id 7 twice, expected unique ids");
  }
  // The same id on two ranks (rank 0 holds 1000; the last rank claims it too).
  if (P > 1) {
    auto mine = original;
    if (rank == last) mine.push_back({1000, 1.0, false});
    msg = run(graph, mine, store.callbacks(), {});
    expect_agreed_error(msg, "task id 1000 is held by ranks 0 and " + std::to_string(last) +
                                 ", expected each id on one rank only");
  }
  // Invalid options on the last rank.
  {
    TaskBalanceOptions bad;
    if (rank == last) bad.max_replans = -1;
    msg = run(graph, original, store.callbacks(), bad);
    expect_agreed_error(msg, on_last + "options.max_replans: expected an integer >= 0, got -1");
    TaskBalanceOptions alpha;
    if (rank == last) alpha.diffusion.alpha = 1.5;
    msg = run(graph, original, store.callbacks(), alpha);
    expect_agreed_error(msg,
                        on_last + "options.diffusion.alpha: expected a number in (0, 1), got 1.5");
    TaskBalanceOptions count;
    count.migration.max_mpi_count = P;  // on every rank: must exceed P
    msg = run(graph, original, store.callbacks(), count);
    expect_has(msg, "options.migration");
    expect_agreed_error(msg, "max_mpi_count");
  }
  // Valid options, but different on the last rank.
  if (P > 1) {
    TaskBalanceOptions other;
    if (rank == last) other.diffusion.alpha = 0.1;
    msg = run(graph, original, store.callbacks(), other);
    expect_agreed_error(
        msg, on_last + "options differ from rank 0's: diffusion.alpha 0.1 (rank 0: 0.05)");
    // A different (valid, same size) graph on the last rank.
    msg =
        run(rank == last ? isocost::mesh_graph({P}, true) : graph, original, store.callbacks(), {});
    expect_agreed_error(msg, on_last + "graph not equal to rank 0's");
  }
  // An empty callback on the last rank.
  {
    auto cb = store.callbacks();
    if (rank == last) cb.unpack = nullptr;
    msg = run(graph, original, cb, {});
    expect_agreed_error(msg, on_last + "empty callbacks: unpack");
  }
  // Nothing moved, no callback ran.
  EXPECT_EQ(store.calls(), 0);
  const auto where = gather_holdings(store.ids());
  EXPECT_EQ(where.size(), tasks[0].size());
  for (const auto& [id, ranks] : where) EXPECT_EQ(ranks, std::vector<int>{0});
  // Null communicator: a local error (nothing to agree over).
  auto mine = original;
  EXPECT_THROW(isocost::mpi::balance_tasks(MPI_COMM_NULL, graph, mine, store.callbacks(), {}),
               isocost::Error);
}

TEST(TaskBalanceOptions, ValidatesEveryField) {
  TaskBalanceOptions o;
  std::string e;
  EXPECT_TRUE(o.is_valid(&e)) << e;
  o.max_replans = -2;
  EXPECT_FALSE(o.is_valid(&e));
  expect_has(e, "max_replans: expected an integer >= 0, got -2");
  EXPECT_THROW(o.validate(), isocost::Error);
  o = {};
  o.selection.exhaustive_limit = 41;
  EXPECT_FALSE(o.is_valid(&e));
  expect_has(e, "selection.exhaustive_limit: expected an integer in [0, 40], got 41");
  o = {};
  o.migration.max_mpi_count = 1;
  EXPECT_FALSE(o.is_valid(&e));
  expect_has(e, "migration.max_mpi_count");
  o = {};
  o.max_replans = 0;
  EXPECT_TRUE(o.is_valid(&e)) << e;
}

// Measured task loads (LoadMonitor::task_loads) feed the balancer.
TEST(UpdateTaskLoads, TakesTheWindowMeanOfTimedTasksAndKeepsTheRest) {
  isocost::LoadMonitor m;
  isocost::StepSample a, b;
  a.seconds = 1.0;
  a.tasks = {{1, 0.25}, {2, 0.5}};
  b.seconds = 1.0;
  b.tasks = {{1, 0.75}};
  m.record_step(a);
  m.record_step(b);
  std::vector<Task> tasks = {{1, 9.0, false}, {2, 9.0, true}, {3, 9.0, false}};
  EXPECT_EQ(isocost::mpi::update_task_loads(tasks, m), 2u);
  EXPECT_DOUBLE_EQ(tasks[0].load, 0.5);  // (0.25 + 0.75) / 2 steps
  EXPECT_DOUBLE_EQ(tasks[1].load, 0.5);  // ran in one step only: not diluted
  EXPECT_TRUE(tasks[1].immobile);
  EXPECT_EQ(tasks[2].load, 9.0);  // no timing: kept
}

}  // namespace
