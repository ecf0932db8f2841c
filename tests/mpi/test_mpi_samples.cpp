// isocost/mpi/samples.hpp under mpiexec -n N (CTest runs N = 1 … 4). Every
// test is collective: all ranks run it, and a rank with bad input must make
// every rank throw — a deadlock would show up as the CTest timeout.
#include "isocost/mpi/samples.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/metrics.hpp"

#include "mpi_test_support.hpp"

namespace {

using isocost::testing::error_of;
using isocost::testing::rank_of;
using isocost::testing::size_of;

// After an agreed error every rank must still be in step: one more collective,
// here gather_times() itself (so its result is checked too) rather than the
// shared isocost::testing::expect_in_step().
void expect_gathered_in_step(MPI_Comm comm) {
  const auto times = isocost::mpi::gather_times(comm, 1.0 + rank_of(comm));
  ASSERT_EQ(times.size(), static_cast<std::size_t>(size_of(comm)));
  for (std::size_t r = 0; r < times.size(); ++r) EXPECT_EQ(times[r], 1.0 + static_cast<double>(r));
}

TEST(GatherSamples, AllIntervalsInRankOrderOnEveryRank) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = rank_of(comm), size = size_of(comm);
  const auto s = isocost::mpi::gather_samples(comm, 10.0 * rank, 10.0 * (rank + 1), rank + 0.5);
  ASSERT_EQ(s.size(), static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    const auto& iv = s.intervals()[static_cast<std::size_t>(r)];
    EXPECT_EQ(iv.lo, 10.0 * r);
    EXPECT_EQ(iv.hi, 10.0 * (r + 1));
    EXPECT_EQ(iv.dt, r + 0.5);
  }
  EXPECT_TRUE(s.tiles());
  EXPECT_EQ(s.lo(), 0.0);
  EXPECT_EQ(s.hi(), 10.0 * size);
}

TEST(GatherSamples, EmptyRangesContributeNothing) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = rank_of(comm), size = size_of(comm);
  // Odd ranks own nothing (lo == hi) and report no time; rank 0 always has work.
  const bool empty = rank % 2 == 1;
  const double lo = 10.0 * rank, hi = empty ? lo : lo + 10;
  const auto s = isocost::mpi::gather_samples(comm, lo, hi, empty ? 0.0 : 2.0);
  ASSERT_EQ(s.size(), static_cast<std::size_t>((size + 1) / 2));
  for (std::size_t k = 0; k < s.size(); ++k) {
    EXPECT_EQ(s.intervals()[k].lo, 20.0 * static_cast<double>(k));
    EXPECT_EQ(s.intervals()[k].dt, 2.0);
  }
}

TEST(GatherSamples, BadInputOnOneRankThrowsOnEveryRank) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = rank_of(comm), size = size_of(comm);
  const int bad = size - 1;  // the last rank: on one rank, rank 0 itself
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    const char* name;
    double lo, hi, dt;
    const char* expect;  // part of the message
  };
  const Case cases[] = {
      {"negative time", 0, 1, -1, "time for the non-empty range [0, 1): expected > 0, got -1"},
      {"zero time for a non-empty range", 0, 1, 0, "expected > 0"},
      {"NaN time", 0, 1, nan, "finite"},
      {"infinite end", 0, std::numeric_limits<double>::infinity(), 1, "finite ends"},
      {"hi below lo", 2, 1, 1, "expected lo <= hi"},
      {"negative time on an empty range", 1, 1, -1, "expected >= 0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const double lo = rank == bad ? c.lo : 10.0 * rank;
    const double hi = rank == bad ? c.hi : 10.0 * rank + 10;
    const double dt = rank == bad ? c.dt : 1.0;
    const auto message = error_of([&] { (void)isocost::mpi::gather_samples(comm, lo, hi, dt); });
    EXPECT_NE(message.find("gather_samples"), std::string::npos) << message;
    EXPECT_NE(message.find("rank " + std::to_string(bad) + ":"), std::string::npos) << message;
    EXPECT_NE(message.find(c.expect), std::string::npos) << message;
    expect_gathered_in_step(comm);
  }
}

TEST(GatherSamples, EveryBadRankIsNamed) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = rank_of(comm), size = size_of(comm);
  // Even ranks are bad; every rank sees all of them in the one message.
  const double dt = rank % 2 == 0 ? -static_cast<double>(rank) - 1 : 1.0;
  const auto message = error_of(
      [&] { (void)isocost::mpi::gather_samples(comm, 10.0 * rank, 10.0 * rank + 10, dt); });
  const int bad = (size + 1) / 2;
  EXPECT_NE(message.find(bad == 1 ? "1 rank (" : std::to_string(bad) + " ranks ("),
            std::string::npos)
      << message;
  for (int r = 0; r < size; r += 2)
    EXPECT_NE(message.find("rank " + std::to_string(r) + ": time for the non-empty range [" +
                           std::to_string(10 * r) + ", " + std::to_string(10 * r + 10) +
                           "): expected > 0, got " + std::to_string(-r - 1)),
              std::string::npos)
        << message;
  expect_gathered_in_step(comm);
}

TEST(GatherSamples, AllRangesEmptyThrowsOnEveryRank) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const auto message = error_of([&] { (void)isocost::mpi::gather_samples(comm, 5, 5, 0); });
  EXPECT_NE(message.find("every rank's range is empty"), std::string::npos) << message;
  expect_gathered_in_step(comm);
}

TEST(GatherSamples, NullCommunicatorIsAnError) {
  const auto message = error_of([] { (void)isocost::mpi::gather_samples(MPI_COMM_NULL, 0, 1, 1); });
  EXPECT_NE(message.find("MPI_COMM_NULL"), std::string::npos) << message;
}

TEST(GatherSamples, WorksOnASubCommunicator) {
  const int rank = rank_of(MPI_COMM_WORLD);
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  const int sub = rank_of(half), subsize = size_of(half);
  // A bad value in the odd half must not disturb the even half.
  const bool bad = rank % 2 == 1 && sub == 0;
  const auto message = error_of([&] {
    const auto s = isocost::mpi::gather_samples(half, sub, sub + 1, bad ? -1.0 : 1.0 + rank);
    ASSERT_EQ(s.size(), static_cast<std::size_t>(subsize));
    for (int r = 0; r < subsize; ++r)  // world rank of sub-rank r is 2r + colour
      EXPECT_EQ(s.intervals()[static_cast<std::size_t>(r)].dt, 1.0 + 2 * r + rank % 2);
  });
  if (rank % 2 == 1)
    EXPECT_NE(message.find("rank 0: time for the non-empty range [0, 1): expected > 0, got -1"),
              std::string::npos)
        << message;
  else
    EXPECT_EQ(message, "");
  MPI_Comm_free(&half);
  expect_gathered_in_step(MPI_COMM_WORLD);
}

TEST(GatherTimes, EveryTimeInRankOrderOnEveryRank) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = rank_of(comm), size = size_of(comm);
  const auto times = isocost::mpi::gather_times(comm, 0.25 * rank);
  ASSERT_EQ(times.size(), static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) EXPECT_EQ(times[static_cast<std::size_t>(r)], 0.25 * r);
}

TEST(GatherTimes, BadTimeOnOneRankThrowsOnEveryRank) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = rank_of(comm), size = size_of(comm);
  for (const double bad_value :
       {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    const int bad = size / 2;
    const auto message =
        error_of([&] { (void)isocost::mpi::gather_times(comm, rank == bad ? bad_value : 1.0); });
    EXPECT_NE(message.find("gather_times: invalid input on 1 rank (rank " + std::to_string(bad)),
              std::string::npos)
        << message;
    expect_gathered_in_step(comm);
  }
}

// Rank r took (r % 3 + 1)·0.1 s for the same work: speeds 3, 1.5, 1, 3, …
// relative to the slowest (one rank alone: speed 1).
TEST(CalibrateSpeeds, SpeedsFromEveryRanksTimeOnEveryRank) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = rank_of(comm), size = size_of(comm);
  const auto s = isocost::mpi::calibrate_speeds(comm, 0.1 * (rank % 3 + 1));
  ASSERT_EQ(s.ranks(), size);
  const int slowest = std::min(size, 3);  // the largest (r % 3 + 1) present
  for (int r = 0; r < size; ++r) EXPECT_DOUBLE_EQ(s.speed(r), double(slowest) / (r % 3 + 1)) << r;
}

TEST(CalibrateSpeeds, BadTimeOnOneRankThrowsOnEveryRank) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = rank_of(comm), size = size_of(comm);
  for (const double bad_value : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
    const int bad = size - 1;
    const auto message = error_of(
        [&] { (void)isocost::mpi::calibrate_speeds(comm, rank == bad ? bad_value : 1.0); });
    EXPECT_NE(message.find("calibrate_speeds: invalid input on 1 rank (rank " +
                           std::to_string(bad) + ": calibration time"),
              std::string::npos)
        << message;
    expect_gathered_in_step(comm);
  }
}

TEST(GatherLoadStats, SameStatisticsOnEveryRankAsLoadStats) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = rank_of(comm), size = size_of(comm);
  std::vector<double> times;
  for (int r = 0; r < size; ++r) times.push_back(1.0 + r * r);
  const auto got = isocost::mpi::gather_load_stats(comm, times[static_cast<std::size_t>(rank)]);
  const auto want = isocost::load_stats(times);
  EXPECT_EQ(got.ranks, static_cast<std::size_t>(size));
  EXPECT_EQ(got.max, want.max);
  EXPECT_EQ(got.mean, want.mean);
  EXPECT_EQ(got.le, want.le);
  EXPECT_EQ(got.argmax, want.argmax);
  // Bit-identical on every rank: compare with rank 0's through a broadcast.
  double mine[3] = {got.le, got.sigma, got.efficiency};
  double root[3] = {got.le, got.sigma, got.efficiency};
  MPI_Bcast(root, 3, MPI_DOUBLE, 0, comm);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(mine[k], root[k]);
}

TEST(GatherLoadStats, BadTimeOrAllZeroThrowsOnEveryRank) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = rank_of(comm);
  auto message =
      error_of([&] { (void)isocost::mpi::gather_load_stats(comm, rank == 0 ? -2.0 : 1.0); });
  EXPECT_NE(message.find(
                "gather_load_stats: invalid input on 1 rank (rank 0: time: expected a finite value "
                ">= 0, got -2"),
            std::string::npos)
      << message;
  expect_gathered_in_step(comm);
  // All zero passes each rank's check but not load_stats: identical data, so
  // every rank throws the same.
  message = error_of([&] { (void)isocost::mpi::gather_load_stats(comm, 0.0); });
  EXPECT_NE(message, "");
  expect_gathered_in_step(comm);
}

}  // namespace
