// The BlockBalancer learning the ranks' speeds (learn_speeds) under mpiexec
// (CTest: 1, 2, 3, 4, 8 and 11 ranks): exact loads of a cost that grows
// along the elements, each rank's time divided by a speed the balancer is
// not told. It must end as balanced as with the true speeds given, learn
// them, follow a rank that halves its speed, and change nothing when the
// speeds are equal.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "block_loop.hpp"
#include "mpi_test_support.hpp"

namespace {

using isocost::mpi::BlockBalancer;
using isocost::mpi::BlockBalancerOptions;
using isocost::mpi::BlockDistribution;
using isocost::mpi::BlockEvent;
using isocost::testing::quiet_options;
using isocost::testing::rank_of;
using isocost::testing::size_of;

constexpr std::int64_t kN = 1 << 16;

// Element i's cost: grows as (i/N)^1.43, sieve-like (Swartz eq. 4).
double element_cost(std::int64_t i) {
  const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(kN);
  return 1e-5 * (1 + 4 * std::pow(x, 1.43));
}

// Speeds as a function of the step: Swartz §4's node types (the last four of
// eleven ranks 3× as fast), or one fast rank of P.
using SpeedsAt = std::function<std::vector<double>(int step)>;

std::vector<double> node_types(int P) {
  std::vector<double> s(static_cast<std::size_t>(P), 1.0);
  if (P == 11)
    for (int r = 7; r < 11; ++r) s[static_cast<std::size_t>(r)] = 3;
  else
    s[static_cast<std::size_t>(P - 1)] = 3;
  return s;
}

struct SpeedRun {
  std::vector<double> ratio;  // max/avg of the time in each step
  std::vector<BlockEvent> events;
  BlockDistribution final;
};

// `steps` steps of exact loads; the balancer checks every step.
// What the code gives set_costs(): nothing, each element's cost, or each
// element's time as measured on its rank (cost / that rank's speed).
enum class Costs { none, exact, timed };

SpeedRun run_speeds(const BlockBalancerOptions& o, int steps, const SpeedsAt& speeds,
                    Costs costs = Costs::none) {
  const int rank = rank_of(), P = size_of();
  BlockBalancer b(MPI_COMM_WORLD, BlockDistribution::uniform(kN, P), o);
  std::vector<std::int64_t> ids(static_cast<std::size_t>(b.local_count()));
  std::iota(ids.begin(), ids.end(), b.local_begin());
  SpeedRun out;
  for (int step = 0; step < steps; ++step) {
    const auto& d = b.distribution();
    const std::vector<double> s = speeds(step);
    std::vector<double> t(static_cast<std::size_t>(P));
    for (int r = 0; r < P; ++r) {
      double c = 0;
      for (std::int64_t i = d.begin(r); i < d.end(r); ++i) c += element_cost(i);
      t[static_cast<std::size_t>(r)] = c / s[static_cast<std::size_t>(r)];
    }
    const double max = *std::max_element(t.begin(), t.end());
    out.ratio.push_back(max / (std::accumulate(t.begin(), t.end(), 0.0) / P));
    b.record_step(t[static_cast<std::size_t>(rank)]);
    if (costs != Costs::none) {
      std::vector<double> mine;
      for (std::int64_t i = d.begin(rank); i < d.end(rank); ++i)
        mine.push_back(element_cost(i) /
                       (costs == Costs::timed ? s[static_cast<std::size_t>(rank)] : 1.0));
      b.set_costs(mine);
    }
    out.events.push_back(b.maybe_rebalance(ids));
  }
  // Every id in place.
  EXPECT_EQ(static_cast<std::int64_t>(ids.size()), b.local_count());
  for (std::size_t k = 0; k < ids.size(); ++k)
    if (ids[k] != b.local_begin() + static_cast<std::int64_t>(k)) {
      ADD_FAILURE() << "element " << k << " holds " << ids[k];
      break;
    }
  out.final = b.distribution();
  return out;
}

BlockBalancerOptions every_step() {
  BlockBalancerOptions o = quiet_options();
  o.pipeline.trigger.every = 1;
  o.pipeline.trigger.drift_threshold = 0.005;
  return o;
}

std::string trace(const std::vector<double>& ratio) {
  std::string s;
  for (double r : ratio) s += std::to_string(r).substr(0, 6) + " ";
  return s;
}

TEST(BlockBalancerSpeeds, UnknownSpeedsAreLearnedWithinFourRebalances) {
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank has nothing to learn";
  const std::vector<double> truth = node_types(P);
  const SpeedsAt fixed = [&](int) { return truth; };
  BlockBalancerOptions given = every_step();
  given.speeds = isocost::Speeds::from_values(truth);
  BlockBalancerOptions learning = every_step();
  learning.learn_speeds = true;
  const int steps = 7;
  const SpeedRun known = run_speeds(given, steps, fixed),
                 learned = run_speeds(learning, steps, fixed);
  const SpeedRun equal = run_speeds(every_step(), steps, fixed);
  if (rank_of() == 0)
    std::printf("[ speeds ] P = %d: given %s| learned %s| assumed equal %s\n", P,
                trace(known.ratio).c_str(), trace(learned.ratio).c_str(),
                trace(equal.ratio).c_str());
  // After 4 rebalances (the first at step 0's check), within 2 % of what the
  // same balancer reaches with the speeds given.
  for (std::size_t k = 4; k < learned.ratio.size(); ++k)
    EXPECT_LE(learned.ratio[k], known.ratio.back() * 1.02)
        << "step " << k << ": " << trace(learned.ratio);
  // Loads alone, speeds assumed equal, get there too on a static load (each
  // round corrects the last), but not sooner: learning is as quick or quicker.
  const auto first_within = [&](const std::vector<double>& ratio) {
    for (std::size_t k = 0; k < ratio.size(); ++k)
      if (ratio[k] <= known.ratio.back() * 1.02) return k;
    return ratio.size();
  };
  EXPECT_LE(first_within(learned.ratio), first_within(equal.ratio))
      << trace(learned.ratio) << "| " << trace(equal.ratio);
  // The speeds learned at the last check that planned, mean 1, within 5 %
  // (the cases, 4 and 7 + 4 ranks). With 2 or 3 ranks a few loads
  // afford only a linear density (2 knots), whose misfit to this convex cost
  // biases the speeds (7 % at 2 ranks): 15 % there.
  const double within = P >= 4 ? 0.05 : 0.15;
  auto last = learned.events.rbegin();
  while (last != learned.events.rend() && !last->learned) ++last;
  ASSERT_NE(last, learned.events.rend()) << "no check learned";
  ASSERT_TRUE(last->learned->identifiable) << last->learned->brief_report();
  const double mean = std::accumulate(truth.begin(), truth.end(), 0.0) / P;
  for (int r = 0; r < P; ++r)
    EXPECT_NEAR(last->learned->speeds[static_cast<std::size_t>(r)],
                truth[static_cast<std::size_t>(r)] / mean,
                within * truth[static_cast<std::size_t>(r)] / mean)
        << r << ": " << last->learned->brief_report();
  // The log line carries them.
  EXPECT_NE(last->to_json().find("\"learned_speeds\":{\"identifiable\":true"), std::string::npos)
      << last->to_json();
}

TEST(BlockBalancerSpeeds, ARankThatHalvesItsSpeedIsFollowed) {
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank has nothing to learn";
  const std::vector<double> before = node_types(P);
  std::vector<double> after = before;
  after[0] /= 2;  // rank 0 halves its speed at step 8
  const int change = 8, steps = 14;
  const SpeedsAt speeds = [&](int step) { return step < change ? before : after; };
  BlockBalancerOptions learning = every_step();
  learning.learn_speeds = true;
  const SpeedRun r = run_speeds(learning, steps, speeds);
  // The speed-aware optimum after the change: the true speeds given from the start
  // of a run with the new speeds.
  BlockBalancerOptions given = every_step();
  given.speeds = isocost::Speeds::from_values(after);
  const SpeedRun best = run_speeds(given, 7, [&](int) { return after; });
  if (rank_of() == 0)
    std::printf("[ speeds ] P = %d, rank 0 halves at step %d: %s| optimum %.5f\n", P, change,
                trace(r.ratio).c_str(), best.ratio.back());
  EXPECT_GT(r.ratio[static_cast<std::size_t>(change)], best.ratio.back() * 1.05)
      << "the change should show: " << trace(r.ratio);
  // Back within 2 % of the optimum within 4 checks after the change.
  for (std::size_t k = change + 4; k < r.ratio.size(); ++k)
    EXPECT_LE(r.ratio[k], best.ratio.back() * 1.02) << "step " << k << ": " << trace(r.ratio);
}

// Per-element costs timed on their own ranks: the learned speeds turn them
// into costs, and the plans end where the true costs and speeds lead.
TEST(BlockBalancerSpeeds, CostsTimedOnTheirRanksAreNormalised) {
  const int P = size_of();
  if (P == 1) GTEST_SKIP() << "one rank has nothing to learn";
  const std::vector<double> truth = node_types(P);
  const SpeedsAt fixed = [&](int) { return truth; };
  BlockBalancerOptions given = every_step();
  given.speeds = isocost::Speeds::from_values(truth);
  BlockBalancerOptions learning = every_step();
  learning.learn_speeds = true;
  const SpeedRun best = run_speeds(given, 5, fixed, Costs::exact);
  const SpeedRun learned = run_speeds(learning, 7, fixed, Costs::timed);
  if (rank_of() == 0)
    std::printf("[ speeds ] P = %d, timed costs: learned %s| true costs and speeds %s\n", P,
                trace(learned.ratio).c_str(), trace(best.ratio).c_str());
  for (std::size_t k = 4; k < learned.ratio.size(); ++k)
    EXPECT_LE(learned.ratio[k], best.ratio.back() * 1.02)
        << "step " << k << ": " << trace(learned.ratio);
  // Some plan was made on the costs with speeds learned.
  EXPECT_TRUE(std::any_of(learned.events.begin(), learned.events.end(), [](const BlockEvent& e) {
    return e.used_costs && e.learned && e.learned->identifiable && e.moves();
  }));
}

TEST(BlockBalancerSpeeds, EqualSpeedsLearnedChangeNothing) {
  const int P = size_of();
  const std::vector<double> ones(static_cast<std::size_t>(P), 1.0);
  BlockBalancerOptions learning = every_step();
  learning.learn_speeds = true;
  const SpeedRun with = run_speeds(learning, 6, [&](int) { return ones; });
  const SpeedRun without = run_speeds(every_step(), 6, [&](int) { return ones; });
  for (std::size_t k = 0; k < with.ratio.size(); ++k)
    EXPECT_NEAR(with.ratio[k], without.ratio[k], 0.01)
        << k << ": " << trace(with.ratio) << "| " << trace(without.ratio);
}

TEST(BlockBalancerSpeeds, LearningWithGivenSpeedsOrNoHistoryIsAnError) {
  BlockBalancerOptions o = every_step();
  o.learn_speeds = true;
  o.speeds = isocost::Speeds::uniform(size_of());
  std::string why;
  EXPECT_FALSE(o.is_valid(&why));
  EXPECT_NE(why.find("learn_speeds: expected no given speeds"), std::string::npos) << why;
  o.speeds.reset();
  o.global.history = 0;
  EXPECT_FALSE(o.is_valid(&why));
  EXPECT_NE(why.find("global.history >= 1"), std::string::npos) << why;
  EXPECT_THROW(BlockBalancer(MPI_COMM_WORLD, BlockDistribution::uniform(kN, size_of()), o),
               isocost::Error);
}

}  // namespace
