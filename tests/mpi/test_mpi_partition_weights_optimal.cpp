// partition_weights() with options.optimal under mpiexec -n N (CTest: N = 1,
// 2, 3, 4, 5, 8): the exact chains-on-chains optimum must be serial
// bottleneck_cuts() of the gathered prefix sums, cut for cut, whatever the
// slices (integer weights: exact sums), in both all_cuts modes, and its
// bottleneck the brute-force optimum on small inputs; to_partition() of it
// the serial partition_optimal().
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/model/brute_bottleneck.hpp"
#include "isocost/cost_model.hpp"
#include "isocost/mpi/partition_weights.hpp"
#include "isocost/partition.hpp"
#include "mpi_test_support.hpp"
#include "weights_layouts.hpp"

namespace {

using isocost::Speeds;
using isocost::mpi::partition_weights;
using isocost::mpi::WeightsPartition;
using isocost::mpi::WeightsPartitionOptions;
using isocost::testing::error_of;
using isocost::testing::expect_agreed_error;
using isocost::testing::expect_has;
using isocost::testing::mine;
using isocost::testing::pattern;
using isocost::testing::rank_of;
using isocost::testing::size_of;
using isocost::testing::speeds_for;

WeightsPartitionOptions optimal(bool all_cuts = true) {
  WeightsPartitionOptions o;
  o.optimal = true;
  o.all_cuts = all_cuts;
  return o;
}

std::vector<double> prefix(const std::vector<double>& w) {
  std::vector<double> P(w.size() + 1, 0.0);
  for (std::size_t i = 0; i < w.size(); ++i) P[i + 1] = P[i] + w[i];
  return P;
}

std::vector<double> capacities(const Speeds& s) {
  std::vector<double> c;
  for (int k = 0; k < s.ranks(); ++k) c.push_back(s.speed(k));
  return c;
}

// The serial optimum as partition_weights() must reproduce it.
std::vector<std::int64_t> serial_cuts(const std::vector<double>& w, const Speeds& s) {
  const auto c = capacities(s);
  return isocost::bottleneck_cuts(prefix(w), c, w.size() >= c.size() ? 1 : 0);
}

// Whether the unconstrained optimum of w leaves a part empty where P <= n:
// the cases where the non-empty search runs.
bool free_leaves_empty(const std::vector<double>& w, const Speeds& s) {
  const auto c = capacities(s);
  if (w.size() < c.size()) return false;
  const auto free = isocost::bottleneck_cuts(prefix(w), c, 0);
  for (std::size_t k = 0; k + 1 < free.size(); ++k)
    if (free[k + 1] == free[k]) return true;
  return false;
}

// `got` against the serial cuts `want` of weights `w`.
void expect_same(const WeightsPartition& got, const std::vector<std::int64_t>& want,
                 const std::vector<double>& w, const Speeds& s) {
  const auto P = prefix(w);
  ASSERT_EQ(got.cuts, want);
  double worst = 0;
  for (int k = 0; k < s.ranks(); ++k) {
    const auto j = static_cast<std::size_t>(k);
    const double t =
        (P[static_cast<std::size_t>(want[j + 1])] - P[static_cast<std::size_t>(want[j])]) /
        s.speed(k);
    EXPECT_EQ(got.time[j], t) << "part " << k;
    worst = std::max(worst, t);
  }
  EXPECT_EQ(got.max_time, worst);
  EXPECT_EQ(got.total, P.back());
  EXPECT_TRUE(got.converged());
}

// to_partition() of `got` against the serial partition_optimal() of `w`.
void expect_serial_partition(const WeightsPartition& got, const std::vector<double>& w,
                             const Speeds& s) {
  isocost::testing::expect_same_partition(
      got, isocost::partition_optimal(isocost::discrete_model(w), s), s);
}

TEST(PartitionWeightsOptimal, EqualsSerialBottleneckCutsCutForCut) {
  const int R = size_of();
  int compared = 0, nonempty_uneven = 0;
  for (const std::string name : {"sieve", "bell", "spikes", "step", "zeros"})
    for (const std::int64_t n : {std::int64_t{3000}, std::int64_t{37}})
      for (const int P : {1, R, 7, 64})
        for (const bool uneven : {false, true})
          for (int layout = 0; layout < 4; ++layout) {
            SCOPED_TRACE(name + " n " + std::to_string(n) + " P " + std::to_string(P) +
                         (uneven ? " speeds 1,2,3" : "") + " layout " + std::to_string(layout));
            const std::vector<double> all = pattern(name, n);
            const Speeds s = speeds_for(P, uneven);
            const auto want = serial_cuts(all, s);
            if (uneven && free_leaves_empty(all, s)) ++nonempty_uneven;
            const WeightsPartition got =
                partition_weights(MPI_COMM_WORLD, mine(all, layout), s, optimal());
            ASSERT_NO_FATAL_FAILURE(expect_same(got, want, all, s));
            // The conversion is local: one layout's result stands for all.
            if (layout == 0) expect_serial_partition(got, all, s);
            ++compared;
          }
  EXPECT_EQ(compared, 5 * 2 * 4 * 2 * 4);
  // Among them, the reachable boundaries' search (unequal speeds, non-empty
  // parts, an unconstrained optimum with an empty part).
  EXPECT_GT(nonempty_uneven, 0);
}

TEST(PartitionWeightsOptimal, ManySpikyParts) {
  // Spikes into 1 024 parts: the non-empty search runs (10 cells a part).
  const std::vector<double> all = pattern("spikes", 10240);
  const Speeds s = Speeds::uniform(1024);
  for (int layout = 0; layout < 4; ++layout)
    expect_same(partition_weights(MPI_COMM_WORLD, mine(all, layout), s, optimal()),
                serial_cuts(all, s), all, s);
}

TEST(PartitionWeightsOptimal, MorePartsThanCells) {
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{5}})
    for (const bool uneven : {false, true})
      for (int layout = 0; layout < 4; ++layout) {
        const std::vector<double> all = pattern("sieve", n);
        const Speeds s = speeds_for(8, uneven);
        const auto want = serial_cuts(all, s);
        ASSERT_FALSE(want.empty());
        const WeightsPartition got =
            partition_weights(MPI_COMM_WORLD, mine(all, layout), s, optimal());
        expect_same(got, want, all, s);
        expect_serial_partition(got, all, s);
      }
}

TEST(PartitionWeightsOptimal, OwnPartOnlyGivesThisRanksEnds) {
  const int R = size_of(), r = rank_of();
  for (const std::string name : {"bell", "spikes", "zeros", "step"})
    for (const std::int64_t n : {std::int64_t{1000}, std::int64_t{6}})
      for (int layout = 0; layout < 4; ++layout) {
        const std::vector<double> all = pattern(name, n);
        const Speeds s = Speeds::uniform(R);
        const auto want = serial_cuts(all, s);
        const WeightsPartition got =
            partition_weights(MPI_COMM_WORLD, mine(all, layout), s, optimal(false));
        EXPECT_TRUE(got.cuts.empty());
        EXPECT_EQ(got.begin, want[static_cast<std::size_t>(r)]);
        EXPECT_EQ(got.end, want[static_cast<std::size_t>(r) + 1]);
        const auto P = prefix(all);
        double worst = 0;
        for (std::size_t k = 0; k + 1 < want.size(); ++k)
          worst = std::max(worst, P[static_cast<std::size_t>(want[k + 1])] -
                                      P[static_cast<std::size_t>(want[k])]);
        EXPECT_EQ(got.max_time, worst);
      }
}

TEST(PartitionWeightsOptimal, MatchesBruteForce) {
  std::mt19937 g(5);
  std::uniform_int_distribution<int> weight(0, 9), cells(1, 8), parts(1, 4);
  for (int trial = 0; trial < 150; ++trial) {
    const int n = cells(g), P = parts(g);
    std::vector<double> w(static_cast<std::size_t>(n));
    for (double& v : w) v = weight(g);
    if (trial % 5 == 0) w[static_cast<std::size_t>(n / 2)] = 50;  // a heavy cell
    w[0] += 1;                                                    // a total > 0
    const Speeds s = speeds_for(P, trial % 2 == 1);
    const WeightsPartition got =
        partition_weights(MPI_COMM_WORLD, mine(w, trial % 4), s, optimal());
    SCOPED_TRACE("trial " + std::to_string(trial));
    EXPECT_EQ(got.max_time, isocost::testing::brute_bottleneck(w, capacities(s), n >= P ? 1 : 0));
    expect_serial_partition(got, w, s);
    if (n >= P) {
      for (int k = 0; k < P; ++k) {
        EXPECT_LT(got.cuts[static_cast<std::size_t>(k)], got.cuts[static_cast<std::size_t>(k) + 1]);
      }
    }
  }
}

TEST(PartitionWeightsOptimal, BadInputFailsOnEveryRank) {
  const int R = size_of(), last = R - 1;
  const std::vector<double> w = mine(pattern("step", 100), 0);
  if (R > 1) {
    WeightsPartitionOptions o = optimal();
    o.optimal = rank_of() != last;
    expect_agreed_error(
        error_of([&] { partition_weights(MPI_COMM_WORLD, w, Speeds::uniform(4), o); }), "optimal");
  }
  std::vector<double> bad = w;
  if (rank_of() == last && !bad.empty()) bad[0] = -1;
  if (!bad.empty() || rank_of() != last)
    expect_agreed_error(
        error_of([&] { partition_weights(MPI_COMM_WORLD, bad, Speeds::uniform(4), optimal()); }),
        "weight");
  const std::vector<double> zeros(2, 0.0);
  expect_agreed_error(
      error_of([&] { partition_weights(MPI_COMM_WORLD, zeros, Speeds::uniform(4), optimal()); }),
      "all weights are zero");
}

TEST(PartitionWeightsOptimal, NonEmptyPartsAtUnequalSpeeds) {
  // The free optimum leaves part 0 empty at 1.01; non-empty, part 0 holds
  // the 100 alone.
  const std::vector<double> heavy = {100, 1, 1};
  const Speeds s = Speeds::from_values({1, 100, 1});
  ASSERT_TRUE(free_leaves_empty(heavy, s));
  for (int layout = 0; layout < 4; ++layout)
    expect_same(partition_weights(MPI_COMM_WORLD, mine(heavy, layout), s, optimal()),
                std::vector<std::int64_t>{0, 1, 2, 3}, heavy, s);
  // Spikes into 1 024 parts of speeds 1, 3 and 0.25 in turn: the free
  // optimum leaves parts empty; the distributed search is the serial one.
  const std::vector<double> all = pattern("spikes", 10240);
  std::vector<double> v(1024);
  for (std::size_t j = 0; j < v.size(); ++j) v[j] = j % 3 == 0 ? 1 : (j % 3 == 1 ? 3 : 0.25);
  const Speeds mixed = Speeds::from_values(v);
  ASSERT_TRUE(free_leaves_empty(all, mixed));
  const auto want = serial_cuts(all, mixed);
  for (int layout = 0; layout < 4; ++layout)
    expect_same(partition_weights(MPI_COMM_WORLD, mine(all, layout), mixed, optimal()), want, all,
                mixed);
}

}  // namespace
