// Issue #11, MPI faults: a migration that fails on one rank loses nothing.
// Failures are injected on one rank at a time (the first, the middle, the
// last): an allocation that fails (an element type whose default constructor
// throws std::bad_alloc when armed — the new arrays are value-initialised — or
// a pack() that throws it) and an unpack() that throws. Either every rank
// keeps its old distribution and data (the same Error everywhere; then the
// same call without the fault must succeed), or, for migrate(), the call
// completes with the failed elements listed on every rank and still held,
// intact, by their senders. Conservation is checked independently of the
// library: the global count and a checksum of ids and payloads, before and
// after. CTest runs this at 1, 2, 3, 5, 7 and 8 ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <bit>
#include <cstdint>
#include <functional>
#include <map>
#include <new>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "faults_support.hpp"
#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/mpi/block_balancer.hpp"
#include "isocost/mpi/exchange.hpp"
#include "isocost/mpi/grid_balancer.hpp"
#include "isocost/mpi/migrate.hpp"
#include "isocost/mpi/redistribute.hpp"
#include "mpi_test_support.hpp"

namespace {

using isocost::mpi::BlockBalancer;
using isocost::mpi::BlockBalancerOptions;
using isocost::mpi::BlockDistribution;
using isocost::mpi::BlockPlan;
using isocost::testing::all_on_last;
using isocost::testing::block_options;
using isocost::testing::error_of;
using isocost::testing::expect_agreed_error;
using isocost::testing::faulty_ranks;
using isocost::testing::first_check;
using isocost::testing::rank_of;
using isocost::testing::same_everywhere;
using isocost::testing::size_of;
using i64 = std::int64_t;
using u64 = std::uint64_t;
using isocost::testing::mix64;

// An element whose default construction fails while armed: the allocation
// failure of a new array on one rank.
bool bomb_armed = false;
struct Bomb {
  double v = 0;
  Bomb() {
    if (bomb_armed) throw std::bad_alloc();
  }
  explicit Bomb(double x) : v(x) {}
  bool operator==(const Bomb& o) const { return v == o.v; }
};
static_assert(std::is_trivially_copyable_v<Bomb>, "Bomb must move through redistribute()");

// Arms the bomb on this rank while in scope.
struct Armed {
  explicit Armed(bool on) { bomb_armed = on; }
  ~Armed() { bomb_armed = false; }
  Armed(const Armed&) = delete;
  Armed& operator=(const Armed&) = delete;
};

// Collective: (global count, Σ hash(id, payload)) — equal before and after
// iff, with overwhelming probability, the same (id, payload) pairs exist.
std::pair<u64, u64> census(const std::vector<std::pair<i64, u64>>& mine) {
  u64 local[2] = {mine.size(), 0}, global[2] = {};
  for (const auto& [id, payload] : mine) local[1] += mix64(mix64(static_cast<u64>(id)) ^ payload);
  MPI_Allreduce(local, global, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return {global[0], global[1]};
}

std::pair<u64, u64> census(const std::map<i64, std::string>& items) {
  std::vector<std::pair<i64, u64>> v;
  for (const auto& [id, s] : items) v.emplace_back(id, std::hash<std::string>{}(s));
  return census(v);
}

std::pair<u64, u64> census(const std::vector<i64>& ids, const std::vector<Bomb>& values) {
  std::vector<std::pair<i64, u64>> v;
  for (std::size_t k = 0; k < ids.size(); ++k)
    v.emplace_back(ids[k], std::bit_cast<u64>(values[k].v));
  return census(v);
}

// Every id held by exactly one rank.
void expect_each_once(const std::vector<i64>& ids, i64 expected_total) {
  const auto where = isocost::testing::gather_holdings(ids);
  EXPECT_EQ(static_cast<i64>(where.size()), expected_total);
  for (const auto& [id, ranks] : where) EXPECT_EQ(ranks.size(), 1u) << "id " << id;
}

template <class T>
std::vector<T> values_of(const BlockDistribution& d, double scale) {
  std::vector<T> v;
  for (i64 i = d.begin(rank_of()); i < d.end(rank_of()); ++i)
    v.push_back(T(scale * static_cast<double>(i)));
  return v;
}

std::string payload(i64 id) {
  return std::string(static_cast<std::size_t>(id % 5 + 1), 'a') + "#" + std::to_string(id);
}

// ---------------------------------------------------------------------------
// redistribute_arrays() and exchange(): all or nothing.

TEST(MigrationFaults, RedistributeArraysAllocationFailureLeavesTheArraysIntact) {
  int exercised = 0;  // the cases where the fault can happen
  const int P = size_of();
  for (const i64 n : {i64{3}, i64{4} * P + 1}) {
    const auto from = all_on_last(n, P), to = BlockDistribution::uniform(n, P);
    for (const int bad : faulty_ranks()) {
      if (to.count(bad) == 0) continue;  // allocates nothing: the fault cannot happen there
      SCOPED_TRACE("N = " + std::to_string(n) + ", fault on rank " + std::to_string(bad));
      ++exercised;
      auto a = values_of<double>(from, 1.0);
      auto b = values_of<Bomb>(from, 0.5);
      const auto a0 = a;
      const auto b0 = b;
      std::string msg;
      {
        const Armed armed(rank_of() == bad);
        msg = error_of(
            [&] { isocost::mpi::redistribute_arrays(MPI_COMM_WORLD, from, to, {}, a, b); });
      }
      expect_agreed_error(msg, "rank " + std::to_string(bad) + ": could not allocate");
      EXPECT_EQ(a, a0);
      EXPECT_EQ(b, b0);
      // The same call without the fault moves everything, verified.
      isocost::mpi::RedistributeOptions o;
      o.verify = true;
      EXPECT_EQ(
          error_of([&] { isocost::mpi::redistribute_arrays(MPI_COMM_WORLD, from, to, o, a, b); }),
          "");
      EXPECT_EQ(a, values_of<double>(to, 1.0));
      EXPECT_EQ(b, values_of<Bomb>(to, 0.5));
    }
  }
  EXPECT_GT(exercised, 0);
}

TEST(MigrationFaults, RedistributeResultAllocationFailureIsAgreed) {
  const int P = size_of();
  const i64 n = 2 * P + 1;
  const auto from = BlockDistribution::uniform(n, P), to = all_on_last(n, P);
  const auto local = values_of<Bomb>(from, 2.0);
  const int bad = P - 1;  // the only rank with a result to allocate
  std::string msg;
  {
    const Armed armed(rank_of() == bad);
    msg = error_of([&] { isocost::mpi::redistribute(MPI_COMM_WORLD, from, to, local); });
  }
  expect_agreed_error(msg, "rank " + std::to_string(bad) + ": could not allocate the result");
  const auto r = isocost::mpi::redistribute(MPI_COMM_WORLD, from, to, local);
  EXPECT_EQ(r.data, values_of<Bomb>(to, 2.0));
}

TEST(MigrationFaults, ExchangeAllocationFailureLeavesTheArraysIntact) {
  int exercised = 0;  // the cases where the fault can happen
  const int P = size_of();
  for (const i64 n : {i64{3}, i64{4} * P + 1}) {
    const auto d = BlockDistribution::uniform(n, P);
    for (const int bad : faulty_ranks()) {
      // Everything goes to `bad`, whose arrays must grow: the fault can only
      // happen if some other rank holds an element.
      if (n - d.count(bad) == 0) continue;
      SCOPED_TRACE("N = " + std::to_string(n) + ", fault on rank " + std::to_string(bad));
      ++exercised;
      std::vector<i64> keys;
      for (i64 i = d.begin(rank_of()); i < d.end(rank_of()); ++i) keys.push_back(i);
      auto values = values_of<Bomb>(d, 3.0);
      const auto before = census(keys, values);
      const auto keys0 = keys;
      const auto values0 = values;
      const std::vector<int> to(keys.size(), bad);
      std::string msg;
      {
        const Armed armed(rank_of() == bad);
        msg = error_of([&] { isocost::mpi::exchange(MPI_COMM_WORLD, to, {}, keys, values); });
      }
      expect_agreed_error(msg, "rank " + std::to_string(bad) + ": could not allocate room");
      EXPECT_EQ(keys, keys0);  // lengths and contents: the grown array was shrunk back
      EXPECT_EQ(values, values0);
      isocost::mpi::ExchangeOptions o;
      o.verify = true;
      EXPECT_EQ(error_of([&] { isocost::mpi::exchange(MPI_COMM_WORLD, to, o, keys, values); }), "");
      EXPECT_EQ(census(keys, values), before);
      EXPECT_EQ(keys.size(), rank_of() == bad ? static_cast<std::size_t>(n) : 0u);
      expect_each_once(keys, n);
    }
  }
  if (P > 1) {  // one rank: nothing arrives, no array grows
    EXPECT_GT(exercised, 0);
  }
}

// ---------------------------------------------------------------------------
// migrate(): completes, the failed elements stay with their senders.

TEST(MigrationFaults, MigrateFailureOnOneRankLosesNothing) {
  const int P = size_of(), rank = rank_of();
  if (P == 1) GTEST_SKIP() << "nothing moves on one rank";
  for (const bool in_unpack : {true, false})
    for (const int bad : faulty_ranks()) {
      SCOPED_TRACE(std::string(in_unpack ? "unpack" : "pack") + " throws on rank " +
                   std::to_string(bad));
      // Rank r holds ids 10r .. 10r + 2 and sends them all to r + 1.
      isocost::testing::TaskStore store;
      for (i64 k = 0; k < 3; ++k) store.items[10 * rank + k] = payload(10 * rank + k);
      std::vector<isocost::TaskMove> moves;
      for (int r = 0; r < P; ++r)
        for (i64 k = 0; k < 3; ++k) moves.push_back({10 * r + k, r, (r + 1) % P, 0.0});
      // The fault: `bad` fails to unpack what arrives (std::bad_alloc), or to
      // pack what leaves.
      const int sender = in_unpack ? (bad + P - 1) % P : bad;
      std::set<i64> doomed;
      for (i64 k = 0; k < 3; ++k) doomed.insert(10 * sender + k);
      if (rank == bad) (in_unpack ? store.unpack_throws : store.pack_throws) = doomed;
      const auto before = census(store.items);
      const auto s = isocost::mpi::migrate(MPI_COMM_WORLD, store.ids(), moves, store.callbacks());
      // The same failures everywhere: exactly the doomed ids, at the right stage.
      std::string text;
      for (const auto& f : s.failed) text += std::to_string(f.id) + " ";
      EXPECT_TRUE(same_everywhere(text)) << text;
      ASSERT_EQ(s.failed.size(), doomed.size());
      for (const auto& f : s.failed) {
        EXPECT_TRUE(doomed.count(f.id)) << f.id;
        EXPECT_EQ(f.from, sender);
        EXPECT_EQ(f.stage, in_unpack ? isocost::mpi::MigrationStage::unpack
                                     : isocost::mpi::MigrationStage::pack);
      }
      EXPECT_EQ(s.global_moved, 3 * P - 3);
      EXPECT_EQ(census(store.items), before);
      expect_each_once(store.ids(), 3 * P);
      if (rank == sender) {
        for (const i64 id : doomed) EXPECT_EQ(store.items.at(id), payload(id));
      }
      // The failed moves again, without the fault: now they complete.
      store.unpack_throws.clear();
      store.pack_throws.clear();
      std::vector<isocost::TaskMove> retry;
      for (const auto& m : moves)
        if (doomed.count(m.id)) retry.push_back(m);
      const auto t = isocost::mpi::migrate(MPI_COMM_WORLD, store.ids(), retry, store.callbacks());
      EXPECT_TRUE(t.failed.empty());
      EXPECT_EQ(census(store.items), before);
      expect_each_once(store.ids(), 3 * P);
      for (const auto& [id, value] : store.items) {
        EXPECT_EQ(value, payload(id));
        EXPECT_EQ(id / 10, (rank + P - 1) % P) << "every element one rank on";
      }
    }
}

// ---------------------------------------------------------------------------
// The balancers' apply(): all or nothing, the plan stays pending.

TEST(MigrationFaults, BlockApplyArraysAllocationFailureKeepsTheDistribution) {
  int exercised = 0;  // the cases where the fault can happen
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank never moves";
  for (const i64 n : {i64{3}, i64{4} * P + 1}) {
    const auto start = all_on_last(n, P);
    for (const int bad : faulty_ranks()) {
      BlockBalancer b(MPI_COMM_WORLD, start, block_options());
      const BlockPlan plan = first_check(b);
      ASSERT_TRUE(plan.moves());
      if (plan.to.count(bad) == 0) continue;
      SCOPED_TRACE("N = " + std::to_string(n) + ", fault on rank " + std::to_string(bad));
      ++exercised;
      auto a = values_of<double>(start, 1.0);
      auto c = values_of<Bomb>(start, -1.0);
      const auto a0 = a;
      const auto c0 = c;
      std::string msg;
      {
        const Armed armed(rank_of() == bad);
        msg = error_of([&] { b.apply(plan, a, c); });
      }
      expect_agreed_error(msg, "rank " + std::to_string(bad) + ": could not allocate");
      EXPECT_EQ(b.distribution().offsets, start.offsets);
      EXPECT_EQ(a, a0);
      EXPECT_EQ(c, c0);
      // The plan is still pending: applying it again succeeds.
      EXPECT_EQ(error_of([&] { b.apply(plan, a, c); }), "");
      EXPECT_EQ(b.distribution().offsets, plan.to.offsets);
      EXPECT_EQ(a, values_of<double>(plan.to, 1.0));
      EXPECT_EQ(c, values_of<Bomb>(plan.to, -1.0));
    }
  }
  EXPECT_GT(exercised, 0);
}

TEST(MigrationFaults, BlockApplyCallbacksFailureRollsBack) {
  int exercised = 0;  // the cases where the fault can happen
  const int P = size_of(), rank = rank_of();
  if (P == 1) GTEST_SKIP() << "one rank never moves";
  for (const i64 n : {i64{3}, i64{4} * P + 1}) {
    const auto start = all_on_last(n, P);
    for (const int bad : faulty_ranks()) {
      BlockBalancer b(MPI_COMM_WORLD, start, block_options());
      const BlockPlan plan = first_check(b);
      ASSERT_TRUE(plan.moves());
      // The last rank sends everything (its pack() fails: out of memory);
      // the others receive (their unpack() throws std::bad_alloc).
      const bool sends = bad == P - 1;
      if (!sends && plan.to.count(bad) == 0) continue;
      SCOPED_TRACE("N = " + std::to_string(n) + ", fault on rank " + std::to_string(bad));
      ++exercised;
      isocost::testing::TaskStore store;
      for (i64 i = start.begin(rank); i < start.end(rank); ++i) store.items[i] = payload(i);
      std::set<i64> every;
      for (i64 i = 0; i < n; ++i) every.insert(i);
      if (rank == bad) (sends ? store.pack_throws : store.unpack_throws) = every;
      const auto before = census(store.items);
      const auto items0 = store.items;
      const std::string msg = error_of([&] { b.apply(plan, store.callbacks()); });
      expect_agreed_error(msg, "rolled back, the distribution is unchanged");
      isocost::testing::expect_has(msg, sends ? "at pack" : "at unpack");
      EXPECT_EQ(b.distribution().offsets, start.offsets);
      EXPECT_EQ(store.items, items0);
      EXPECT_FALSE(store.duplicate_unpack);
      EXPECT_EQ(census(store.items), before);
      // Without the fault the pending plan applies.
      store.pack_throws.clear();
      store.unpack_throws.clear();
      EXPECT_EQ(error_of([&] { b.apply(plan, store.callbacks()); }), "");
      EXPECT_EQ(b.distribution().offsets, plan.to.offsets);
      EXPECT_EQ(census(store.items), before);
      std::vector<i64> expected;
      for (i64 i = plan.to.begin(rank); i < plan.to.end(rank); ++i) expected.push_back(i);
      EXPECT_EQ(store.ids(), expected);
    }
  }
  EXPECT_GT(exercised, 0);
}

// maybe_rebalance(residents(…), cells…) sends the particles in the cells'
// collective; a cell array that cannot be allocated on one rank fails the
// step everywhere with the particles' arrays and the cells as they were
// (the particles' arrays had grown for the arrivals: they shrink back).
TEST(MigrationFaults, ResidentsRidingAFailedRebalanceAreKept) {
  int exercised = 0;
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank never moves";
  const i64 n = 4 * P + 1;
  const auto start = all_on_last(n, P);
  for (const int bad : faulty_ranks()) {
    BlockBalancer b(MPI_COMM_WORLD, start, block_options());
    // Cells: a double and a Bomb each; particles: two per cell, keyed by it.
    auto a = values_of<double>(start, 1.0);
    auto c = values_of<Bomb>(start, -1.0);
    std::vector<i64> key, id;
    for (i64 i = start.begin(rank_of()); i < start.end(rank_of()); ++i)
      for (int k = 0; k < 2; ++k) {
        key.push_back(i);
        id.push_back(2 * i + k);
      }
    std::string msg;
    for (int s = 0; s < 2; ++s) {  // the second call is the check that moves
      b.set_costs(std::vector<double>(static_cast<std::size_t>(b.local_count()), 1.0));
      b.record_step(static_cast<double>(b.local_count()));
      if (s == 0) {
        b.maybe_rebalance(isocost::mpi::residents(key, id), a, c);
        continue;
      }
      const auto key0 = key, id0 = id;
      const auto a0 = a;
      const auto c0 = c;
      const Armed armed(rank_of() == bad);
      msg = error_of([&] { b.maybe_rebalance(isocost::mpi::residents(key, id), a, c); });
      if (msg.empty()) break;  // nothing to allocate on `bad`
      ++exercised;
      SCOPED_TRACE("fault on rank " + std::to_string(bad));
      EXPECT_EQ(b.distribution().offsets, start.offsets);
      EXPECT_EQ(key, key0);
      EXPECT_EQ(id, id0);
      EXPECT_EQ(a, a0);
      EXPECT_EQ(c, c0);
    }
    if (!msg.empty())
      expect_agreed_error(msg, "rank " + std::to_string(bad) + ": could not allocate");
  }
  EXPECT_GT(exercised, 0);
}

TEST(MigrationFaults, GridApplyAllocationFailureKeepsTheBoxes) {
  int exercised = 0;  // the cases where the fault can happen
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank never moves";
  isocost::GridShape shape;
  shape.dims = 2;
  shape.cells = {2 * P + 1, 2, 1};
  const auto cells = static_cast<std::size_t>(shape.cells[0] * shape.cells[1]);
  const auto start =
      isocost::decompose(isocost::grid_density(std::vector<double>(cells, 1.0), shape), {{P}, {0}},
                         isocost::Speeds::uniform(P));
  isocost::mpi::GridBalancerOptions o;
  o.pipeline = block_options().pipeline;
  auto fill = [&](const isocost::mpi::CellBox& box) {
    std::vector<Bomb> v;
    for (i64 j = box.lo[1]; j < box.hi[1]; ++j)
      for (i64 i = box.lo[0]; i < box.hi[0]; ++i) v.emplace_back(double(i + shape.cells[0] * j));
    return v;
  };
  for (const int bad : faulty_ranks()) {
    isocost::mpi::GridBalancer b(MPI_COMM_WORLD, shape, start, o);
    isocost::mpi::GridPlan plan;
    for (int s = 0; s < 2; ++s) {  // rank 0's cells cost 10, the others' 1
      b.set_costs(std::vector<double>(static_cast<std::size_t>(b.local_count()),
                                      rank_of() == 0 ? 10.0 : 1.0));
      b.record_step(rank_of() == 0 ? 10.0 : 1.0);
      plan = b.decide();
    }
    ASSERT_TRUE(plan.moves());
    if (plan.to.count(bad) == 0) continue;
    SCOPED_TRACE("fault on rank " + std::to_string(bad));
    ++exercised;
    const auto boxes0 = b.boxes();
    auto data = fill(boxes0.boxes[static_cast<std::size_t>(rank_of())]);
    const auto data0 = data;
    std::string msg;
    {
      const Armed armed(rank_of() == bad);
      msg = error_of([&] { b.apply(plan, data); });
    }
    expect_agreed_error(msg, "rank " + std::to_string(bad) + ": could not allocate");
    EXPECT_EQ(b.boxes().boxes, boxes0.boxes);
    EXPECT_EQ(data, data0);
    EXPECT_EQ(error_of([&] { b.apply(plan, data); }), "");
    EXPECT_EQ(b.boxes().boxes, plan.to.boxes);
    EXPECT_EQ(data, fill(plan.to.boxes[static_cast<std::size_t>(rank_of())]));
  }
  EXPECT_GT(exercised, 0);
}

}  // namespace
