// isocost/mpi/migrate.hpp under mpiexec -n N (CTest runs N = 1, 2, 3, 4, 8):
// tasks with pack/unpack/free callbacks, injected failures, immobile tasks
// and the re-plan, and collective errors. Where each task ends is computed
// here independently of the library. Every test is collective; comparisons
// come after the last collective of a case (a deadlock would show up as the
// CTest timeout).
#include "isocost/mpi/migrate.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <new>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/diffusion.hpp"
#include "isocost/error.hpp"
#include "isocost/tasks.hpp"

#include "mpi_test_support.hpp"

namespace {

using isocost::testing::error_of;
using isocost::testing::expect_agreed_error;
using isocost::testing::expect_has;
using isocost::testing::rank_of;
using isocost::testing::size_of;
using i64 = std::int64_t;

// Collective: the sum over ranks.
i64 sum_of(i64 v) {
  i64 s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

using isocost::mpi::MigrationStage;
using isocost::testing::gather_holdings;
using Store = isocost::testing::TaskStore;

// ---------------------------------------------------------------------------
// Tasks with pack/unpack/free callbacks

std::string payload_of(i64 id) {
  const std::size_t n = id == 5 ? 100000 : static_cast<std::size_t>((id * 37) % 200);
  std::string s(n, '\0');
  for (std::size_t k = 0; k < n; ++k)
    s[k] = static_cast<char>('a' + (id * 131 + static_cast<i64>(k)) % 26);
  return s;
}

void run_callback_migration(const isocost::mpi::MigrateOptions& options, const std::string& label) {
  SCOPED_TRACE(label);
  const int P = size_of(), rank = rank_of();
  const i64 M = 10 * P + 3;
  Store store;
  for (i64 id = 0; id < M; ++id)
    if (id % P == rank) store.items[id] = payload_of(id);

  // Random moves, the same on every rank; then failures injected for chosen ids.
  std::mt19937_64 rng(31 + static_cast<unsigned>(P));
  std::vector<isocost::TaskMove> moves;
  for (i64 id = 0; id < M; ++id) {
    const int from = static_cast<int>(id % P);
    if (P > 1 && rng() % 3 != 0) {
      int to = static_cast<int>(rng() % static_cast<unsigned>(P - 1));
      if (to >= from) ++to;
      moves.push_back({id, from, to, 1.0});
    } else if (rng() % 5 == 0) {
      moves.push_back({id, from, from, 1.0});  // a no-op
    }
  }
  std::map<i64, MigrationStage> injected;  // id -> stage, only moves with from != to
  std::vector<const isocost::TaskMove*> real;
  for (const auto& m : moves)
    if (m.from != m.to) real.push_back(&m);
  const MigrationStage stages[] = {MigrationStage::unpack, MigrationStage::unpack,
                                   MigrationStage::size, MigrationStage::pack};
  for (std::size_t k = 0; k < real.size() && k < 4; ++k) {
    const auto& m = *real[2 * k < real.size() ? 2 * k : k];
    if (injected.count(m.id)) continue;
    injected[m.id] = stages[k];
    if (k == 0 && m.to == rank) store.unpack_false.insert(m.id);
    if (k == 1 && m.to == rank) store.unpack_throws.insert(m.id);
    if (k == 2 && m.from == rank) store.size_throws.insert(m.id);
    if (k == 3 && m.from == rank) store.pack_throws.insert(m.id);
  }

  const auto held = store.ids();
  const auto s = isocost::mpi::migrate(MPI_COMM_WORLD, held, moves, store.callbacks(), options);
  const auto where = gather_holdings(store.ids());
  const auto done = isocost::mpi::completed_moves(moves, s.failed);
  i64 bytes_done = 0;
  for (const auto& m : done)
    if (m.from == rank) bytes_done += static_cast<i64>(payload_of(m.id).size());
  const i64 global_bytes_done = sum_of(bytes_done);  // the last collective of the case

  // Failures: exactly the injected ones, sorted by id, on every rank.
  std::vector<isocost::mpi::MigrationFailure> expected_failed;
  for (const auto& m : moves)
    if (injected.count(m.id)) expected_failed.push_back({m.id, m.from, m.to, injected[m.id]});
  std::sort(expected_failed.begin(), expected_failed.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  ASSERT_EQ(s.failed.size(), expected_failed.size());
  for (std::size_t i = 0; i < s.failed.size(); ++i) {
    EXPECT_EQ(s.failed[i].id, expected_failed[i].id);
    EXPECT_EQ(s.failed[i].from, expected_failed[i].from);
    EXPECT_EQ(s.failed[i].to, expected_failed[i].to);
    EXPECT_EQ(to_string(s.failed[i].stage), to_string(expected_failed[i].stage))
        << "id " << s.failed[i].id;
  }

  // Nothing lost, nothing duplicated; each element where the completed moves say.
  std::map<i64, int> final_owner;
  for (i64 id = 0; id < M; ++id) final_owner[id] = static_cast<int>(id % P);
  for (const auto& m : done) final_owner[m.id] = m.to;
  ASSERT_EQ(static_cast<i64>(where.size()), M);
  for (const auto& [id, ranks] : where) {
    ASSERT_EQ(ranks.size(), 1u) << "id " << id << " is held by " << ranks.size() << " ranks";
    EXPECT_EQ(ranks[0], final_owner[id]) << "id " << id;
  }
  for (const auto& [id, payload] : store.items) EXPECT_EQ(payload, payload_of(id)) << "id " << id;
  EXPECT_FALSE(store.duplicate_unpack);

  // Counts: every rank's share and the global totals.
  i64 out_moves = 0, in_done = 0, out_done = 0;
  for (const auto& m : moves) out_moves += m.from == rank && m.to != rank;
  for (const auto& m : done) {
    in_done += m.to == rank;
    out_done += m.from == rank;
  }
  EXPECT_EQ(s.elements_sent, out_done);
  EXPECT_EQ(s.elements_received, in_done);
  EXPECT_EQ(s.bytes_sent, bytes_done);
  EXPECT_EQ(store.free_calls, out_done);  // freed only after a confirmed unpack
  EXPECT_EQ(store.size_calls, out_moves);
  EXPECT_EQ(s.global_moved, static_cast<i64>(done.size()));
  EXPECT_EQ(s.global_moves, static_cast<i64>(real.size()));
  EXPECT_EQ(s.global_bytes_moved, global_bytes_done);
  EXPECT_EQ(s.verified, options.verify);
  EXPECT_TRUE(s.free_errors.empty());
  if (P > 1) {
    EXPECT_FALSE(s.failed.empty());
  }
  EXPECT_FALSE(s.brief_report().empty());
}

TEST(Migrate, VariableSizeElementsWithInjectedFailuresStayWithTheirOwner) {
  run_callback_migration({}, "default options");
  isocost::mpi::MigrateOptions o;
  o.verify = true;
  run_callback_migration(o, "verified");
  o.max_mpi_count = size_of() + 9;  // large units on small data
  run_callback_migration(o, "verified, large units");
}

TEST(Migrate, LargeUnitsAreUsedWhenCountsAreLimited) {
  const int P = size_of(), rank = rank_of();
  if (P == 1) GTEST_SKIP() << "no peer to move to";
  Store store;
  for (i64 id = 0; id < 200; ++id)
    if (id % P == rank) store.items[id] = payload_of(id);
  std::vector<isocost::TaskMove> moves;
  for (i64 id = 0; id < 200; ++id)
    moves.push_back({id, static_cast<int>(id % P), static_cast<int>((id + 1) % P), 0.0});
  isocost::mpi::MigrateOptions o;
  o.max_mpi_count = P + 2;
  o.verify = true;
  const auto s = isocost::mpi::migrate(MPI_COMM_WORLD, store.ids(), moves, store.callbacks(), o);
  EXPECT_GT(s.unit_bytes, 16);
  EXPECT_TRUE(s.failed.empty());
  EXPECT_EQ(s.global_moved, 200);
  for (const auto& [id, p] : store.items) {
    EXPECT_EQ((id + 1) % P, rank);
    EXPECT_EQ(p, payload_of(id));
  }
  EXPECT_EQ(sum_of(static_cast<i64>(store.items.size())), 200);
}

// Watts §3.2.6: a task that fails to move is marked immobile and the
// balancing restarts; the re-plan never selects it, and after the second
// migration every task is where the plans say.
TEST(Migrate, FailedTasksAreMarkedImmobileAndTheReplanAvoidsThem) {
  const int P = size_of(), rank = rank_of();
  if (P == 1) GTEST_SKIP() << "no peer to move to";
  const auto graph = isocost::mesh_graph({P}, false);
  // Every task starts on rank 0: heavily unbalanced.
  std::vector<std::vector<isocost::Task>> tasks(static_cast<std::size_t>(P));
  for (i64 id = 0; id < 12 * P; ++id)
    tasks[0].push_back({id, 1.0 + static_cast<double>(id % 5), false});
  Store store;
  if (rank == 0)
    for (const auto& t : tasks[0]) store.items[t.id] = payload_of(t.id);

  auto plan = [&] {
    const auto d = isocost::diffuse(graph, isocost::node_loads(tasks));
    return isocost::select_tasks(graph, tasks, d.transfers).moves;
  };
  const auto first = plan();
  ASSERT_FALSE(first.empty());
  const i64 victim = first.front().id;  // its receiver runs out of memory
  if (first.front().to == rank) store.unpack_throws.insert(victim);
  const auto s1 = isocost::mpi::migrate(MPI_COMM_WORLD, store.ids(), first, store.callbacks());
  ASSERT_EQ(s1.failed.size(), 1u);
  EXPECT_EQ(s1.failed[0].id, victim);
  EXPECT_EQ(s1.failed[0].from, 0);
  EXPECT_EQ(s1.failed[0].stage, MigrationStage::unpack);
  if (rank == 0) {
    EXPECT_TRUE(store.items.count(victim));  // still with its owner
  }

  tasks = isocost::apply_moves(tasks, isocost::mpi::completed_moves(first, s1.failed));
  std::size_t marked = 0;
  for (auto& list : tasks) marked += isocost::mpi::mark_immobile(list, s1.failed);
  EXPECT_EQ(marked, 1u);
  const auto second = plan();
  for (const auto& m : second) EXPECT_NE(m.id, victim) << "an immobile task was selected";
  store.unpack_throws.clear();
  const auto s2 = isocost::mpi::migrate(MPI_COMM_WORLD, store.ids(), second, store.callbacks());
  EXPECT_TRUE(s2.failed.empty());
  tasks = isocost::apply_moves(tasks, isocost::mpi::completed_moves(second, s2.failed));

  // Holdings match the task lists, payloads intact.
  const auto where = gather_holdings(store.ids());
  ASSERT_EQ(static_cast<i64>(where.size()), 12 * P);
  for (int r = 0; r < P; ++r)
    for (const auto& t : tasks[static_cast<std::size_t>(r)]) {
      ASSERT_EQ(where.at(t.id).size(), 1u);
      EXPECT_EQ(where.at(t.id)[0], r) << "task " << t.id;
    }
  for (const auto& [id, p] : store.items) EXPECT_EQ(p, payload_of(id));
}

TEST(MigrateErrors, BadInputOnOneRankThrowsTheSameErrorAndCallsNoCallback) {
  const int P = size_of(), rank = rank_of(), last = P - 1;
  Store store;
  for (i64 id = 0; id < 4 * P; ++id)
    if (id % P == rank) store.items[id] = payload_of(id);
  std::vector<isocost::TaskMove> moves;
  for (i64 id = 0; id < 4 * P; ++id)
    moves.push_back({id, static_cast<int>(id % P), static_cast<int>((id + 1) % P), 0.0});
  auto run = [&](std::vector<i64> held, const std::vector<isocost::TaskMove>& mv,
                 isocost::mpi::MigrationCallbacks cb, isocost::mpi::MigrateOptions o = {}) {
    return error_of([&] { isocost::mpi::migrate(MPI_COMM_WORLD, held, mv, cb, o); });
  };
  const auto ids = store.ids();

  // A move naming an id its `from` rank (the last) does not hold.
  auto held = ids;
  if (rank == last) held.erase(held.begin());
  std::string msg = run(held, moves, store.callbacks());
  expect_agreed_error(msg, "rank " + std::to_string(last) + ": moves[" + std::to_string(last) +
                               "] moves id " + std::to_string(last) + " from rank " +
                               std::to_string(last) + ", which does not hold it");
  // A rank out of range (on every rank).
  auto out_of_range = moves;
  out_of_range[0].to = P;
  msg = run(ids, out_of_range, store.callbacks());
  expect_agreed_error(msg, "names rank " + std::to_string(P) + ", expected a rank in [0, " +
                               std::to_string(P) + ")");
  // An id moved twice.
  auto twice = moves;
  twice.push_back(moves[0]);
  msg = run(ids, twice, store.callbacks());
  expect_agreed_error(msg, "both move id 0");
  // Duplicate held ids on the last rank.
  held = ids;
  if (rank == last) held.push_back(held.front());
  msg = run(held, moves, store.callbacks());
  expect_agreed_error(
      msg, "rank " + std::to_string(last) + ": held lists id " + std::to_string(last) + " twice");
  // An empty callback on the last rank.
  auto cb = store.callbacks();
  if (rank == last) cb.free = nullptr;
  msg = run(ids, moves, cb);
  expect_agreed_error(msg, "empty callbacks: free");
  // Different moves on the last rank.
  if (P > 1) {
    auto other = moves;
    if (rank == last) std::swap(other[0], other[1]);
    msg = run(ids, other, store.callbacks());
    expect_agreed_error(msg, "rank " + std::to_string(last) + ": moves not equal to rank 0's");
  }
  isocost::mpi::MigrateOptions o;
  o.max_mpi_count = P;
  msg = run(ids, moves, store.callbacks(), o);
  expect_agreed_error(
      msg, P == 1 ? "options.max_mpi_count: expected an integer in [2, 2147483647], got 1"
                  : "options.max_mpi_count: expected more than P = " + std::to_string(P) +
                        ", got " + std::to_string(P));

  // No callback ran, nothing moved.
  EXPECT_EQ(store.calls(), 0);
  EXPECT_EQ(store.ids(), ids);
}

}  // namespace
