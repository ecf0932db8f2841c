// isocost/mpi/partition_weights.hpp under mpiexec -n N (CTest: N = 1, 2, 3,
// 4, 5, 8). Every rank builds the same global integer weights and takes its
// slice of them; integer sums are exact in double, so the distributed cuts
// must equal the serial partition() of discrete_model() of all the weights,
// cut for cut and time for time, whatever the slices — including empty ones
// and more parts than cells — and so must to_partition() of them.
#include "isocost/mpi/partition_weights.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "isocost/cost_model.hpp"
#include "isocost/partition.hpp"
#include "mpi_test_support.hpp"
#include "weights_layouts.hpp"

namespace {

using isocost::Speeds;
using isocost::mpi::partition_weights;
using isocost::mpi::WeightsPartition;
using isocost::mpi::WeightsPartitionOptions;
using isocost::testing::error_of;
using isocost::testing::expect_has;
using isocost::testing::expect_in_step;
using isocost::testing::mine;
using isocost::testing::pattern;
using isocost::testing::rank_of;
using isocost::testing::size_of;
using isocost::testing::speeds_for;

isocost::Partition serial(const std::vector<double>& all, const Speeds& speeds) {
  isocost::PartitionOptions po;
  po.integer = true;
  return isocost::partition(isocost::discrete_model(all), speeds, po);
}

void expect_same(const WeightsPartition& got, const isocost::Partition& want, const Speeds& s) {
  const int P = s.ranks();
  ASSERT_EQ(got.cuts.size(), static_cast<std::size_t>(P) + 1);
  for (int k = 0; k <= P; ++k)
    ASSERT_EQ(got.cuts[static_cast<std::size_t>(k)],
              std::llround(want.cuts[static_cast<std::size_t>(k)]))
        << "cut " << k;
  for (int k = 0; k < P; ++k) {
    EXPECT_EQ(got.time[static_cast<std::size_t>(k)], want.time[static_cast<std::size_t>(k)])
        << "part " << k;
    EXPECT_EQ(got.prefix[static_cast<std::size_t>(k) + 1] - got.prefix[static_cast<std::size_t>(k)],
              want.cost[static_cast<std::size_t>(k)])
        << "part " << k;
  }
  EXPECT_EQ(got.prefix.front(), 0);
  EXPECT_EQ(got.prefix.back(), want.total_cost);
  EXPECT_EQ(got.total, want.total_cost);
  EXPECT_EQ(got.max_time, *std::max_element(want.time.begin(), want.time.end()));
  isocost::testing::expect_same_partition(got, want, s);
}

TEST(PartitionWeights, EqualsTheSerialPartitionCutForCut) {
  const int R = size_of();
  for (const std::string name : {"sieve", "bell", "spikes", "step", "zeros"})
    for (const std::int64_t n : {std::int64_t{1000}, std::int64_t{37}})
      for (const int P : {1, R, 7, 64})
        for (const bool uneven : {false, true})
          for (int layout = 0; layout < 4; ++layout) {
            SCOPED_TRACE(name + " n " + std::to_string(n) + " P " + std::to_string(P) +
                         (uneven ? " speeds 1,2,3" : "") + " layout " + std::to_string(layout));
            const std::vector<double> all = pattern(name, n);
            const Speeds s = speeds_for(P, uneven);
            const WeightsPartition got = partition_weights(MPI_COMM_WORLD, mine(all, layout), s);
            ASSERT_NO_FATAL_FAILURE(expect_same(got, serial(all, s), s));
            EXPECT_EQ(got.cells, n);
            EXPECT_TRUE(got.converged());
          }
}

TEST(PartitionWeights, MorePartsThanCellsAndOneCell) {
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{5}})
    for (int layout = 0; layout < 4; ++layout) {
      const std::vector<double> all = pattern("sieve", n);
      const Speeds s = Speeds::uniform(8);
      expect_same(partition_weights(MPI_COMM_WORLD, mine(all, layout), s), serial(all, s), s);
    }
}

TEST(PartitionWeights, OwnPartOnlyGivesThisRanksEnds) {
  const int R = size_of(), r = rank_of();
  WeightsPartitionOptions own;
  own.all_cuts = false;
  for (const std::string name : {"bell", "spikes", "zeros"})
    for (int layout = 0; layout < 4; ++layout) {
      const std::vector<double> all = pattern(name, 1000);
      const Speeds s = Speeds::uniform(R);
      const isocost::Partition want = serial(all, s);
      const WeightsPartition got = partition_weights(MPI_COMM_WORLD, mine(all, layout), s, own);
      EXPECT_TRUE(got.cuts.empty());
      if (layout == 0)  // no cuts to convert
        expect_has(error_of([&] { isocost::mpi::to_partition(got, s); }),
                   "(options.all_cuts was false)");
      EXPECT_EQ(got.begin, std::llround(want.cuts[static_cast<std::size_t>(r)]));
      EXPECT_EQ(got.end, std::llround(want.cuts[static_cast<std::size_t>(r) + 1]));
      EXPECT_EQ(got.max_time, *std::max_element(want.time.begin(), want.time.end()));
    }
}

TEST(PartitionWeights, EachPartWithinOneCellOfItsShare) {
  // Nearest-boundary cuts: every cut's t is within half the heaviest cell of
  // its target, so a part is within one cell's weight of its share.
  const std::vector<double> all = pattern("spikes", 5000);
  const Speeds s = Speeds::uniform(13);
  const WeightsPartition p = partition_weights(MPI_COMM_WORLD, mine(all, 3), s);
  for (int k = 0; k < 13; ++k)
    EXPECT_LE(std::abs(p.time[static_cast<std::size_t>(k)] - p.ideal_time), 100.0) << k;
  EXPECT_LE(p.max_time, p.ideal_time + 100);
  EXPECT_NE(p.brief_report().find("5000 cells"), std::string::npos) << p.brief_report();
}

// Real-valued weights over several blocks of the compensated pass
// (detail::compensated_prefix), with spikes above the sum before them: t at
// every cut is discrete_model()'s prefix sum there — bit for bit at one rank,
// where the scan starts from 0 as serially, and to a few ulps at more, where
// each rank carries on from the lower ranks' double-double sum.
TEST(PartitionWeights, RealWeightsSumAsTheDiscreteModel) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> all(6000);
  for (double& x : all) x = u(rng) < 0.01 ? 1e4 * u(rng) : u(rng);
  all[3000] = 1e9;
  const isocost::CostModel model = isocost::discrete_model(all);
  const auto prefix = model.prefix_sums();
  const Speeds s = Speeds::uniform(11);
  for (int layout = 0; layout < 4; ++layout) {
    const WeightsPartition got = partition_weights(MPI_COMM_WORLD, mine(all, layout), s);
    for (std::size_t k = 0; k < got.cuts.size(); ++k) {
      const double want = prefix[static_cast<std::size_t>(got.cuts[k])];
      if (size_of() == 1)
        EXPECT_EQ(got.prefix[k], want) << "layout " << layout << " cut " << k;
      else
        EXPECT_NEAR(got.prefix[k], want, 4e-16 * want) << "layout " << layout << " cut " << k;
    }
    EXPECT_TRUE(std::is_sorted(got.prefix.begin(), got.prefix.end()));
  }
}

TEST(PartitionWeights, BadInputFailsOnEveryRank) {
  const int R = size_of(), last = R - 1;
  const Speeds s = Speeds::uniform(4);
  std::vector<double> w = mine(pattern("step", 100), 0);
  if (rank_of() == last) w[3] = std::numeric_limits<double>::quiet_NaN();
  std::string e = error_of([&] { partition_weights(MPI_COMM_WORLD, w, s); });
  expect_has(e, "partition_weights");
  expect_has(e, "rank " + std::to_string(last));
  // Layout 0 starts rank q at cell 100·q/R.
  expect_has(e, "weight of local cell 3 (global " + std::to_string(100 * last / R + 3) +
                    "): expected a finite number >= 0, got nan");
  expect_in_step();

  w = mine(pattern("step", 100), 0);
  if (rank_of() == last) w[0] = -1;
  e = error_of([&] { partition_weights(MPI_COMM_WORLD, w, s); });
  expect_has(e, "weight of local cell 0");
  expect_has(e, "expected a finite number >= 0, got -1");
  expect_in_step();

  const std::vector<double> zeros(3, 0.0);
  expect_has(error_of([&] { partition_weights(MPI_COMM_WORLD, zeros, s); }),
             "all weights are zero");
  expect_in_step();
  expect_has(error_of([&] { partition_weights(MPI_COMM_WORLD, {}, s); }), "no rank holds a cell");
  expect_in_step();

  w = mine(pattern("step", 100), 0);
  if (R > 1) {
    e = error_of(
        [&] { partition_weights(MPI_COMM_WORLD, w, rank_of() == last ? Speeds::uniform(5) : s); });
    expect_has(e, "speeds");
    expect_in_step();
  }
  WeightsPartitionOptions own;
  own.all_cuts = false;
  e = error_of([&] { partition_weights(MPI_COMM_WORLD, w, Speeds::uniform(R + 1), own); });
  expect_has(e, "all_cuts false with " + std::to_string(R + 1) + " parts on " + std::to_string(R) +
                    " ranks");
  expect_in_step();
  if (R > 1) {
    e = error_of([&] {
      partition_weights(MPI_COMM_WORLD, w, Speeds::uniform(R),
                        rank_of() == last ? own : WeightsPartitionOptions{});
    });
    expect_has(e, "all_cuts");
    expect_in_step();
  }
}

}  // namespace
