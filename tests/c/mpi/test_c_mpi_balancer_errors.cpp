// isocost_balancer's error paths (include/isocost/isocost_mpi.h): every bad
// argument gives its status and a message naming it; on a collective call,
// a bad argument on one rank, or one that differs between ranks, gives the
// same status and message on every rank, which stay in step (no hang).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "isocost/isocost_mpi.h"

#include "c_mpi_support.hpp"

namespace {

using isocost::testing::expect_agreed;
using isocost::testing::outcome;
using isocost::testing::Outcome;
using isocost::testing::rank_of;
using isocost::testing::size_of;

using isocost::testing::kInvalid;

using isocost::testing::odd;
using isocost::testing::odd_name;
using isocost::testing::odd_rank;

// "rank 0", "ranks 0, 1", "ranks 0-3": every rank, as agreed errors list them.
std::string every_rank() {
  const int P = size_of();
  return P == 1 ? "rank 0" : P == 2 ? "ranks 0, 1" : "ranks 0-" + std::to_string(P - 1);
}

isocost_balancer_options quiet() {
  isocost_balancer_options o;
  isocost_balancer_options_init(&o);
  o.check_every = 1;
  o.window = 1;
  o.policy = ISOCOST_POLICY_GLOBAL;
  o.decision_seconds = 0;
  o.comm_latency = 0;
  o.comm_per_byte = 0;
  return o;
}

// A balancer over 10 elements a rank whose first check (step 1) moves data:
// rank 0's load is 4 times the others'.
isocost_balancer* moving(isocost_balancer_decision& d) {
  const isocost_balancer_options o = quiet();
  isocost_balancer* b = nullptr;
  EXPECT_EQ(isocost_balancer_create(MPI_COMM_WORLD, 10 * size_of(), nullptr, &o, &b), ISOCOST_OK)
      << isocost_last_error();
  EXPECT_EQ(isocost_balancer_record_step(b, rank_of() == 0 ? 4.0 : 1.0), ISOCOST_OK);
  EXPECT_EQ(isocost_balancer_check(b, 8, &d), ISOCOST_OK) << isocost_last_error();
  return b;
}

TEST(CBalancerErrors, NullBalancerAndOptions) {
  isocost_balancer_decision d;
  std::int64_t x = 0;
  const struct {
    Outcome o;
    const char* message;
  } cases[] = {
      {outcome(isocost_balancer_begin_step(nullptr)),
       "isocost_balancer_begin_step: balancer is NULL"},
      {outcome(isocost_balancer_end_step(nullptr)), "isocost_balancer_end_step: balancer is NULL"},
      {outcome(isocost_balancer_record_step(nullptr, 1)),
       "isocost_balancer_record_step: balancer is NULL"},
      {outcome(isocost_balancer_set_costs(nullptr, nullptr, 0)),
       "isocost_balancer_set_costs: balancer is NULL"},
      {outcome(isocost_balancer_check(nullptr, 8, &d)), "isocost_balancer_check: balancer is NULL"},
      {outcome(isocost_balancer_last_decision(nullptr, &d)),
       "isocost_balancer_last_decision: balancer is NULL"},
      {outcome(isocost_balancer_migrate(nullptr, 0, nullptr, nullptr, nullptr)),
       "isocost_balancer_migrate: balancer is NULL"},
      {outcome(isocost_balancer_local(nullptr, &x, &x)),
       "isocost_balancer_local: balancer is NULL"},
      {outcome(isocost_balancer_offsets(nullptr, &x)),
       "isocost_balancer_offsets: balancer is NULL"},
      {outcome(isocost_balancer_options_init(nullptr)),
       "isocost_balancer_options_init: options is NULL"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(c.o.status, kInvalid);
    EXPECT_EQ(c.o.message, c.message);
  }
  isocost_balancer_free(nullptr);  // a no-op
}

TEST(CBalancerErrors, CreateAgreesOnEveryArgument) {
  const isocost_balancer_options good = quiet();
  isocost_balancer* b = reinterpret_cast<isocost_balancer*>(&b);  // not NULL: must be reset
  // out NULL on one rank.
  expect_agreed(
      outcome(isocost_balancer_create(MPI_COMM_WORLD, 10, nullptr, &good, odd() ? nullptr : &b)),
      kInvalid,
      "isocost_balancer_create: arguments: invalid input on 1 rank (" + odd_name() +
          "out is NULL)");
  if (!odd()) {
    EXPECT_EQ(b, nullptr);
  }
  // n negative on one rank.
  expect_agreed(
      outcome(isocost_balancer_create(MPI_COMM_WORLD, odd() ? -3 : 10, nullptr, &good, &b)),
      kInvalid, odd_name() + "n: expected an integer >= 0, got -3");
  EXPECT_EQ(b, nullptr);
  // A policy out of range.
  isocost_balancer_options bad = good;
  bad.policy = 7;
  expect_agreed(outcome(isocost_balancer_create(MPI_COMM_WORLD, 10, nullptr, &bad, &b)), kInvalid,
                "options->policy: expected ISOCOST_POLICY_CHOOSE (0), _GLOBAL (1) or _DIFFUSION "
                "(2), got 7");
  // An invalid value, found by the C++ options' check.
  bad = good;
  bad.steps_ahead = 0;
  expect_agreed(outcome(isocost_balancer_create(MPI_COMM_WORLD, 10, nullptr, &bad, &b)), kInvalid,
                "isocost_balancer_create: BlockBalancer: invalid input on " +
                    std::to_string(size_of()) + (size_of() == 1 ? " rank" : " ranks") + " (" +
                    every_rank() +
                    ": options.pipeline.steps_ahead: expected an integer >= 1, got 0)");
  // Offsets that do not end at n.
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(size_of()) + 1, 0);
  offsets.back() = 9;
  expect_agreed(outcome(isocost_balancer_create(MPI_COMM_WORLD, 10, offsets.data(), &good, &b)),
                kInvalid, "offsets[" + std::to_string(size_of()) + "]: expected n = 10, got 9");
  EXPECT_EQ(b, nullptr);
  // The comm itself cannot be agreed over: every rank passes MPI_COMM_NULL.
  expect_agreed(outcome(isocost_balancer_create(MPI_COMM_NULL, 10, nullptr, &good, &b)), kInvalid,
                "isocost_balancer_create: comm is MPI_COMM_NULL");
  EXPECT_EQ(b, nullptr);
}

TEST(CBalancerErrors, CreateAgreesOnDifferences) {
  if (size_of() < 2) GTEST_SKIP() << "needs two ranks to differ";
  const isocost_balancer_options good = quiet();
  isocost_balancer* b = nullptr;
  expect_agreed(
      outcome(isocost_balancer_create(MPI_COMM_WORLD, odd() ? 11 : 10, nullptr, &good, &b)),
      kInvalid,
      "isocost_balancer_create: arguments: invalid input on 1 rank (" + odd_name() +
          "n differ from rank 0's: n 11 (rank 0: 10))");
  isocost_balancer_options other = good;
  if (odd()) other.check_every = 3;
  expect_agreed(outcome(isocost_balancer_create(MPI_COMM_WORLD, 10, nullptr, &other, &b)), kInvalid,
                odd_name() + "options differ from rank 0's: pipeline.trigger.every 3 (rank 0: 1)");
  other = good;
  if (odd()) other.policy = ISOCOST_POLICY_DIFFUSION;
  expect_agreed(
      outcome(isocost_balancer_create(MPI_COMM_WORLD, 10, nullptr, &other, &b)), kInvalid,
      odd_name() + "options differ from rank 0's: pipeline.policy diffusion (rank 0: global)");
  EXPECT_EQ(b, nullptr);
}

TEST(CBalancerErrors, StepsAndCosts) {
  const isocost_balancer_options o = quiet();
  isocost_balancer* b = nullptr;
  ASSERT_EQ(isocost_balancer_create(MPI_COMM_WORLD, 10, nullptr, &o, &b), ISOCOST_OK);
  Outcome r = outcome(isocost_balancer_end_step(b));
  EXPECT_EQ(r.status, kInvalid);
  EXPECT_EQ(r.message,
            "isocost_balancer_end_step: no step is open (call isocost_balancer_begin_step() "
            "first)");
  ASSERT_EQ(isocost_balancer_begin_step(b), ISOCOST_OK);
  r = outcome(isocost_balancer_begin_step(b));
  EXPECT_EQ(r.message, "isocost_balancer_begin_step: a step is already open");
  r = outcome(isocost_balancer_record_step(b, 1));
  EXPECT_EQ(r.message,
            "isocost_balancer_record_step: a step is open (isocost_balancer_begin_step() without "
            "_end_step())");
  r = outcome(isocost_balancer_check(b, 8, nullptr));
  EXPECT_EQ(r.message,
            "isocost_balancer_check: a step is open (isocost_balancer_begin_step() without "
            "_end_step())");
  ASSERT_EQ(isocost_balancer_end_step(b), ISOCOST_OK);
  r = outcome(isocost_balancer_set_costs(b, nullptr, -1));
  EXPECT_EQ(r.message, "isocost_balancer_set_costs: count: expected an integer >= 0, got -1");
  r = outcome(isocost_balancer_set_costs(b, nullptr, 2));
  EXPECT_EQ(r.message, "isocost_balancer_set_costs: costs is NULL");
  isocost_balancer_decision d;
  r = outcome(isocost_balancer_last_decision(b, nullptr));
  EXPECT_EQ(r.message, "isocost_balancer_last_decision: out is NULL");
  r = outcome(isocost_balancer_offsets(b, nullptr));
  EXPECT_EQ(r.message, "isocost_balancer_offsets: offsets is NULL");
  // Costs of the wrong count on one rank: the check fails on every rank.
  std::int64_t count = 0;
  ASSERT_EQ(isocost_balancer_local(b, nullptr, &count), ISOCOST_OK);
  const std::vector<double> costs(static_cast<std::size_t>(count) + 1, 1.0);
  ASSERT_EQ(isocost_balancer_set_costs(b, costs.data(), odd() ? count + 1 : count), ISOCOST_OK);
  expect_agreed(outcome(isocost_balancer_check(b, 8, &d)), kInvalid,
                "isocost_balancer_check: BlockBalancer::decide: invalid input on 1 rank (" +
                    odd_name() + "set_costs() gave " + std::to_string(10 / size_of() + 1) +
                    " costs for " + std::to_string(10 / size_of()) + " local elements)");
  isocost_balancer_free(b);
}

TEST(CBalancerErrors, CheckAgreesOnBytes) {
  if (size_of() < 2) GTEST_SKIP() << "needs two ranks to differ";
  const isocost_balancer_options o = quiet();
  isocost_balancer* b = nullptr;
  ASSERT_EQ(isocost_balancer_create(MPI_COMM_WORLD, 10, nullptr, &o, &b), ISOCOST_OK);
  ASSERT_EQ(isocost_balancer_record_step(b, 1), ISOCOST_OK);
  isocost_balancer_decision d;
  expect_agreed(outcome(isocost_balancer_check(b, odd() ? 16 : 8, &d)), kInvalid,
                "isocost_balancer_check: BlockBalancer::decide: the ranks gave between 8 and 16 "
                "bytes per element; expected the same on every rank");
  isocost_balancer_free(b);
}

TEST(CBalancerErrors, MigrateChecksAndStaysPending) {
  isocost_balancer_decision d;
  isocost_balancer* b = moving(d);
  std::int64_t begin = 0, count = 0;
  ASSERT_EQ(isocost_balancer_local(b, &begin, &count), ISOCOST_OK);
  if (size_of() == 1) {  // one rank never moves: nothing is pending
    EXPECT_EQ(d.action, ISOCOST_ACTION_NONE);
    expect_agreed(outcome(isocost_balancer_migrate(b, 0, nullptr, nullptr, nullptr)), kInvalid,
                  "isocost_balancer_migrate: no migration pending: the latest "
                  "isocost_balancer_check() decided ISOCOST_ACTION_NONE");
    isocost_balancer_free(b);
    return;
  }
  ASSERT_NE(d.action, ISOCOST_ACTION_NONE);
  std::vector<double> x(static_cast<std::size_t>(count)),
      x2(static_cast<std::size_t>(d.new_local_count));
  std::vector<std::int32_t> k(x.size()), k2(x2.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<double>(begin + static_cast<std::int64_t>(i));
    k[i] = static_cast<std::int32_t>(begin + static_cast<std::int64_t>(i));
  }
  const void* olds[] = {x.data(), k.data()};
  void* news[] = {x2.data(), k2.data()};
  const size_t bytes[] = {8, 4};
  const size_t swapped[] = {4, 8};
  const size_t zero[] = {8, 0};
  const std::vector<std::int64_t> before = [&] {
    std::vector<std::int64_t> o(static_cast<std::size_t>(size_of()) + 1);
    isocost_balancer_offsets(b, o.data());
    return o;
  }();
  expect_agreed(outcome(isocost_balancer_migrate(b, odd() ? -1 : 2, olds, news, bytes)), kInvalid,
                odd_name() + "narrays: expected an integer >= 0, got -1");
  expect_agreed(outcome(isocost_balancer_migrate(b, 2, olds, odd() ? nullptr : news, bytes)),
                kInvalid, odd_name() + "new_arrays is NULL");
  expect_agreed(outcome(isocost_balancer_migrate(b, 2, olds, news, odd() ? zero : bytes)), kInvalid,
                odd_name() + "element_bytes[1]: expected >= 1, got 0");
  // Disagreements: a count, or the same total in another order.
  const std::string differ =
      odd_name() + "narrays and element_bytes differ from rank 0's: narrays and element_bytes ";
  expect_agreed(outcome(isocost_balancer_migrate(b, odd() ? 1 : 2, olds, news, bytes)), kInvalid,
                differ + "1 8 (rank 0: 2 8 4)");
  // Swapped sizes need arrays 8 bytes wide on both sides, or the local
  // overlap check may see the too-small arrays overlap (heap order).
  std::vector<double> wide_x(x.size()), wide_k(x.size()), wide_x2(x2.size()), wide_k2(x2.size());
  const void* wide_olds[] = {wide_x.data(), wide_k.data()};
  void* wide_news[] = {wide_x2.data(), wide_k2.data()};
  expect_agreed(
      outcome(isocost_balancer_migrate(b, 2, odd() ? wide_olds : olds, odd() ? wide_news : news,
                                       odd() ? swapped : bytes)),
      kInvalid, differ + "2 4 8 (rank 0: 2 8 4)");
  // Old and new arrays overlapping.
  void* same[] = {x.data(), k.data()};
  const bool has = count > 0 && d.new_local_count > 0;
  int any = has ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any) {
    expect_agreed(outcome(isocost_balancer_migrate(b, 2, olds, same, bytes)), kInvalid,
                  "new_arrays[0] overlaps old_arrays[0]");
  }
  // Nothing moved: still the old distribution, the migration still pending.
  std::vector<std::int64_t> now(before.size());
  ASSERT_EQ(isocost_balancer_offsets(b, now.data()), ISOCOST_OK);
  EXPECT_EQ(now, before);
  ASSERT_EQ(isocost_balancer_migrate(b, 2, olds, news, bytes), ISOCOST_OK) << isocost_last_error();
  for (std::size_t i = 0; i < x2.size(); ++i) {
    EXPECT_EQ(x2[i], static_cast<double>(d.new_local_begin + static_cast<std::int64_t>(i)));
    EXPECT_EQ(k2[i], d.new_local_begin + static_cast<std::int64_t>(i));
  }
  // Done: a second migration has nothing to do, the same error everywhere.
  expect_agreed(outcome(isocost_balancer_migrate(b, 2, olds, news, bytes)), kInvalid,
                "no migration pending");
  isocost_balancer_free(b);
}

// A check while a migration is pending abandons it (BlockBalancer::decide()).
TEST(CBalancerErrors, ACheckAbandonsAPendingMigration) {
  if (size_of() < 2) GTEST_SKIP() << "one rank never moves";
  isocost_balancer_decision d;
  isocost_balancer* b = moving(d);
  ASSERT_NE(d.action, ISOCOST_ACTION_NONE);
  ASSERT_EQ(isocost_balancer_record_step(b, 1.0), ISOCOST_OK);  // now balanced
  ASSERT_EQ(isocost_balancer_check(b, 8, &d), ISOCOST_OK) << isocost_last_error();
  EXPECT_EQ(d.checked, 1);
  EXPECT_EQ(d.action, ISOCOST_ACTION_NONE);
  expect_agreed(outcome(isocost_balancer_migrate(b, 0, nullptr, nullptr, nullptr)), kInvalid,
                "isocost_balancer_migrate: no migration pending: the latest "
                "isocost_balancer_check() decided ISOCOST_ACTION_NONE");
  std::int64_t begin = -1, count = -1;
  ASSERT_EQ(isocost_balancer_local(b, &begin, &count), ISOCOST_OK);
  EXPECT_EQ(begin, 10 * rank_of());  // still the equal blocks
  EXPECT_EQ(count, 10);
  isocost_balancer_free(b);
}

}  // namespace
