// Tests for isocost/samples.hpp: interval and cumulative samples, samples from
// one run of a partition, the CSV/JSON readers (with file:line errors),
// isotonic regression (pool-adjacent-violators) and tabulation.
#include "isocost/samples.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "isocost/error.hpp"
#include "support/expect_error.hpp"
#include "support/values.hpp"

namespace {

using isocost::IntervalSample;
using isocost::ParseError;
using isocost::Samples;
using isocost::testing::expect_error;
using isocost::testing::has;
using isocost::testing::ParseErrorOf;
using V = std::vector<double>;

std::vector<V> Triples(const Samples& s) {
  std::vector<V> out;
  for (const auto& i : s.intervals()) out.push_back({i.lo, i.hi, i.dt});
  return out;
}

// ---------------------------------------------------------------------------
// isotonic_regression

TEST(Isotonic, HandComputedUnweighted) {
  // Violators (3,2) and (4,3) pool to their means.
  EXPECT_EQ(isocost::isotonic_regression(V{1, 3, 2, 4, 3, 5}), (V{1, 2.5, 2.5, 3.5, 3.5, 5}));
  // A violation that reaches back over an earlier pool: (4,1) -> 2.5, then
  // (2, 2.5, 2.5, 0) -> mean of {2,4,1,0} = 1.75.
  EXPECT_EQ(isocost::isotonic_regression(V{2, 4, 1, 0, 3}), (V{1.75, 1.75, 1.75, 1.75, 3}));
}

TEST(Isotonic, HandComputedWeighted) {
  // y = {3, 1}, w = {1, 3}: (1·3 + 3·1)/4 = 1.5.
  EXPECT_EQ(isocost::isotonic_regression(V{3, 1}, V{1, 3}), (V{1.5, 1.5}));
  // y = {0, 4, 2, 5}, w = {1, 1, 3, 1}: (1·4 + 3·2)/4 = 2.5 for the middle pair.
  EXPECT_EQ(isocost::isotonic_regression(V{0, 4, 2, 5}, V{1, 1, 3, 1}), (V{0, 2.5, 2.5, 5}));
  // Unweighted the same data pools to 3.
  EXPECT_EQ(isocost::isotonic_regression(V{0, 4, 2, 5}), (V{0, 3, 3, 5}));
}

TEST(Isotonic, MonotoneInputIsUnchangedBitForBit) {
  const V y{-1.5, 0.1, 0.1, 0.30000000000000004, 7, 7, 1e300};
  EXPECT_EQ(isocost::isotonic_regression(y), y);
  EXPECT_EQ(isocost::isotonic_regression(y, V{0.1, 0.2, 0.7, 3, 1e-9, 2, 5}), y);
  EXPECT_TRUE(isocost::isotonic_regression(V{}).empty());
  EXPECT_EQ(isocost::isotonic_regression(V{42}), V{42});
}

TEST(Isotonic, DecreasingInputBecomesTheWeightedMean) {
  EXPECT_EQ(isocost::isotonic_regression(V{5, 4, 3, 2, 1}), V(5, 3.0));
  // (1·8 + 2·4 + 1·0)/4 = 4.
  EXPECT_EQ(isocost::isotonic_regression(V{8, 4, 0}, V{1, 2, 1}), V(3, 4.0));
}

TEST(Isotonic, RejectsBadInput) {
  expect_error([] { isocost::isotonic_regression(V{1, 2}, V{1}); }, {"2 values", "1 weights"});
  expect_error(
      [] {
        isocost::isotonic_regression(V{1, 2}, V{1, 0});
      },
      {"weight 1: expected a finite value > 0, got 0"});
  expect_error(
      [] {
        isocost::isotonic_regression(V{1, 2}, V{-1, 1});
      },
      {"weight 0: expected a finite value > 0, got -1"});
  expect_error(
      [] {
        isocost::isotonic_regression(V{1, 2}, V{1, INFINITY});
      },
      {"weight 1: expected a finite value > 0, got inf"});
  expect_error(
      [] {
        isocost::isotonic_regression(V{1, NAN});
      },
      {"value 1: expected a finite value, got nan"});
}

// The violated optimality (KKT) conditions of weighted isotonic regression,
// "" if none. On maximal runs of equal z: each run's value is the weighted mean
// of its y, runs strictly increase, and no prefix of a run could be lowered (its
// partial sums of w·(y − z) are >= 0), which rules out any better split. Also
// z must keep the weighted sum of y.
std::string IsotonicViolations(const V& y, const V& w, const V& z) {
  if (z.size() != y.size()) return "size differs";
  double scale = 1;
  for (double v : y) scale = std::max(scale, std::abs(v));
  const double tol = 1e-12 * scale * static_cast<double>(y.size());
  std::ostringstream bad;
  double wy = 0, wz = 0;
  for (std::size_t k = 0; k < y.size(); ++k) {
    wy += w[k] * y[k];
    wz += w[k] * z[k];
  }
  if (std::abs(wz - wy) > 10 * tol) bad << "weighted sum " << wz << " != " << wy << "; ";
  std::size_t start = 0;
  while (start < z.size()) {
    std::size_t end = start;
    while (end + 1 < z.size() && z[end + 1] == z[start]) ++end;
    if (end + 1 < z.size() && !(z[end] < z[end + 1])) bad << "decreases after " << end << "; ";
    double sw = 0, swy = 0, partial = 0;
    for (std::size_t k = start; k <= end; ++k) {
      sw += w[k];
      swy += w[k] * y[k];
      partial += w[k] * (y[k] - z[k]);
      if (k < end && partial < -tol)
        bad << "prefix [" << start << ", " << k << "] could be lower; ";
    }
    if (std::abs(z[start] - swy / sw) > tol)
      bad << "run [" << start << ", " << end << "] is not its weighted mean; ";
    start = end + 1;
  }
  return bad.str();
}

TEST(Isotonic, PropertiesOnRandomInput) {
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> length(1, 40);
  std::normal_distribution<double> noise(0, 1);
  std::uniform_real_distribution<double> weight(0.05, 5);
  for (int trial = 0; trial < 500; ++trial) {
    const int n = length(rng);
    V y(n), w(n);
    for (int k = 0; k < n; ++k) {
      y[k] = 0.2 * k + noise(rng);  // a trend with noise: realistic timing data
      w[k] = weight(rng);
    }
    const V z = isocost::isotonic_regression(y, w);
    for (int k = 1; k < n; ++k) ASSERT_LE(z[k - 1], z[k]) << "trial " << trial;
    EXPECT_EQ(IsotonicViolations(y, w, z), "") << "trial " << trial;
    EXPECT_EQ(IsotonicViolations(y, V(n, 1.0), isocost::isotonic_regression(y)), "")
        << "trial " << trial;
  }
}

TEST(Isotonic, KktCheckCatchesNonOptimalAnswers) {
  // The checker itself must be able to fail. {1, 3, 2} -> {2, 2, 2} is
  // nondecreasing and keeps the sum, but its first prefix could be lower.
  EXPECT_NE(IsotonicViolations(V{1, 3, 2}, V{1, 1, 1}, V{2, 2, 2}), "");
  // Keeps the sum but is not the mean of its runs.
  EXPECT_NE(IsotonicViolations(V{1, 3, 2}, V{1, 1, 1}, V{0, 3, 3}), "");
  // The right answer passes.
  EXPECT_EQ(IsotonicViolations(V{1, 3, 2}, V{1, 1, 1}, V{1, 2.5, 2.5}), "");
}

// ---------------------------------------------------------------------------
// Samples

TEST(Samples, ValidatesEverySample) {
  const Samples s({{0, 1, 2}, {1, 3, 0.5}});
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s.lo(), 0);
  EXPECT_EQ(s.hi(), 3);
  expect_error([] { Samples(std::vector<IntervalSample>{}); }, {"at least one sample"});
  expect_error([] { Samples({{0, 1, 1}, {2, 2, 1}}); }, {"sample 1", "lo=2, hi=2", "lo < hi"});
  expect_error([] { Samples({{0, 1, 1}, {3, 2, 1}}); }, {"sample 1", "lo < hi"});
  expect_error([] { Samples({{0, 1, 0}}); }, {"sample 0", "dt=0", "dt > 0"});
  expect_error([] { Samples({{0, 1, -1.5}}); }, {"sample 0", "dt=-1.5", "dt > 0"});
  expect_error([] { Samples({{0, NAN, 1}}); }, {"sample 0", "hi=nan", "finite"});
  expect_error([] { Samples({{0, 1, 1}, {0, 1, INFINITY}}); }, {"sample 1", "dt=inf"});
}

TEST(Samples, FromCumulative) {
  const auto s = Samples::from_cumulative({0, 1, 2, 4}, {10, 11, 14, 26});
  EXPECT_EQ(Triples(s), (std::vector<V>{{0, 1, 1}, {0, 2, 4}, {0, 4, 16}}));
  EXPECT_TRUE(s.cumulative());
  EXPECT_FALSE(s.tiles());
  V x, t;
  s.cumulative_points(x, t);
  EXPECT_EQ(x, (V{0, 1, 2, 4}));
  EXPECT_EQ(t, (V{0, 1, 4, 16}));
}

TEST(Samples, FromCumulativeDropsAFlatStart) {
  // t_1 == t_0 would be an interval with dt = 0: dropped.
  const auto s = Samples::from_cumulative({0, 1, 2, 3}, {5, 5, 6, 8});
  EXPECT_EQ(Triples(s), (std::vector<V>{{0, 2, 1}, {0, 3, 3}}));
  expect_error([] { Samples::from_cumulative({0, 1, 2}, {3, 3, 3}); }, {"never rises", "t_0=3"});
}

TEST(Samples, FromCumulativeRejectsOrRepairs) {
  expect_error([] { Samples::from_cumulative({0, 1}, {0}); }, {"2 x values", "1 t values"});
  expect_error([] { Samples::from_cumulative({0}, {0}); }, {"at least 2", "got 1"});
  expect_error(
      [] {
        Samples::from_cumulative({0, 2, 2}, {0, 1, 2});
      },
      {"x must increase", "point 2", "x=2 after x=2"});
  expect_error([] { Samples::from_cumulative({0, 1, NAN}, {0, 1, 2}); }, {"point 2", "x=nan"});
  expect_error(
      [] {
        Samples::from_cumulative({0, 1, 2, 3}, {0, 2, 1, 3});
      },
      {"must not decrease", "point 2", "t=1 after t=2", "repair"});
  // Repaired: t = {0, 2, 1, 3} -> {0, 1.5, 1.5, 3}.
  const auto s = Samples::from_cumulative({0, 1, 2, 3}, {0, 2, 1, 3}, true);
  EXPECT_EQ(Triples(s), (std::vector<V>{{0, 1, 1.5}, {0, 2, 1.5}, {0, 3, 3}}));
}

TEST(Samples, TilesAndCumulativePoints) {
  // Given out of order; sorted by lo they tile [1, 7).
  const Samples s({{3, 4, 2}, {1, 3, 1}, {4, 7, 0.5}});
  EXPECT_TRUE(s.tiles());
  EXPECT_FALSE(s.cumulative());
  V x, t;
  s.cumulative_points(x, t);
  EXPECT_EQ(x, (V{1, 3, 4, 7}));
  EXPECT_EQ(t, (V{0, 1, 3, 3.5}));

  // One sample is both.
  const Samples one({{2, 5, 4}});
  EXPECT_TRUE(one.tiles());
  EXPECT_TRUE(one.cumulative());
  one.cumulative_points(x, t);
  EXPECT_EQ(x, (V{2, 5}));
  EXPECT_EQ(t, (V{0, 4}));

  // A default-constructed set is neither.
  EXPECT_FALSE(Samples().tiles());
  EXPECT_FALSE(Samples().cumulative());
  expect_error([&] { Samples().cumulative_points(x, t); }, {"no samples"});
}

TEST(Samples, CumulativePointsRoundTrip) {
  const V x0{-2, -1, 0.5, 3, 10};
  const V t0{0, 0.25, 1, 7, 20};
  const auto s = Samples::from_cumulative(x0, t0);
  V x, t;
  s.cumulative_points(x, t);
  EXPECT_EQ(x, x0);
  EXPECT_EQ(t, t0);
  // The same curve as tiles, shuffled, gives the same points.
  const Samples tiles({{0.5, 3, 6}, {-2, -1, 0.25}, {3, 10, 13}, {-1, 0.5, 0.75}});
  tiles.cumulative_points(x, t);
  EXPECT_EQ(x, x0);
  EXPECT_EQ(t, t0);
}

TEST(Samples, CumulativePointsRejectsOverlapsGapsAndConflicts) {
  V x, t;
  const Samples overlap({{0, 2, 1}, {1, 3, 1}});
  EXPECT_FALSE(overlap.tiles());
  EXPECT_FALSE(overlap.cumulative());
  expect_error([&] { overlap.cumulative_points(x, t); },
               {"sample 0 [0, 2)", "sample 1 [1, 3)", "overlap", "parametric"});
  const Samples gap({{0, 1, 1}, {2, 3, 1}});
  EXPECT_FALSE(gap.tiles());
  expect_error([&] { gap.cumulative_points(x, t); }, {"gap"});
  // Repeats of one interval: equal ones collapse, different ones conflict.
  Samples({{0, 1, 1}, {0, 2, 3}, {0, 1, 1}}).cumulative_points(x, t);
  EXPECT_EQ(x, (V{0, 1, 2}));
  EXPECT_EQ(t, (V{0, 1, 3}));
  expect_error(
      [&] {
        Samples({{0, 1, 1}, {0, 2, 3}, {0, 1, 2}}).cumulative_points(x, t);
      },
      {"samples 0 and 2", "[0, 1)", "dt=1 and dt=2"});
  // A longer interval that took less time: no cumulative curve (fuzz finding).
  const Samples decreasing({{0, 3, 1}, {0, 1, 2}});
  EXPECT_TRUE(decreasing.cumulative());
  expect_error(
      [&] { decreasing.cumulative_points(x, t); },
      {"sample 1 [0, 1) took dt=2", "sample 0 [0, 3) took only dt=1", "must not decrease"});
  expect_error([&] { (void)tabulate(decreasing); }, {"cannot tabulate", "must not decrease"});
}

TEST(Samples, Merged) {
  const Samples a({{0, 1, 1}, {1, 2, 2}});
  const Samples b({{0, 1.5, 2.5}});
  const Samples m = a.merged(b);
  EXPECT_EQ(Triples(m), (std::vector<V>{{0, 1, 1}, {1, 2, 2}, {0, 1.5, 2.5}}));
  EXPECT_EQ(m.lo(), 0);
  EXPECT_EQ(m.hi(), 2);
  EXPECT_FALSE(m.tiles());
  EXPECT_EQ(Triples(a.merged(Samples())), Triples(a));
  EXPECT_EQ(Triples(Samples().merged(b)), Triples(b));
  EXPECT_EQ(Samples().merged(Samples()).size(), 0u);
}

// ---------------------------------------------------------------------------
// samples_from_partition

TEST(FromPartition, OneRun) {
  const V cuts{0, 1, 1, 3, 4};  // rank 1 is idle: its (bogus) time is ignored
  const V times{2, -7, 6, 1};
  const auto s = isocost::samples_from_partition(cuts, times);
  EXPECT_EQ(Triples(s), (std::vector<V>{{0, 1, 2}, {1, 3, 6}, {3, 4, 1}}));
  EXPECT_TRUE(s.tiles());
}

TEST(FromPartition, SpeedsMultiplyTheTimes) {
  const V cuts{0, 1, 3, 4};
  const V times{2, 3, 1};
  const auto speeds = isocost::Speeds::from_values({1, 2, 0.5});
  const auto s = isocost::samples_from_partition(cuts, times, &speeds);
  EXPECT_EQ(Triples(s), (std::vector<V>{{0, 1, 2}, {1, 3, 6}, {3, 4, 0.5}}));
  const auto wrong = isocost::Speeds::uniform(2);
  expect_error([&] { isocost::samples_from_partition(cuts, times, &wrong); },
               {"2 ranks", "3 times"});
}

TEST(FromPartition, RejectsBadInput) {
  using isocost::samples_from_partition;
  expect_error([] { samples_from_partition(V{0, 1}, V{}); }, {"at least one"});
  expect_error([] { samples_from_partition(V{0, 1}, V{1, 1}); }, {"3 cuts", "got 2"});
  expect_error(
      [] {
        samples_from_partition(V{0, 2, 1}, V{1, 1});
      },
      {"cut 2: expected a value >= 2 (cut 1; cuts must not decrease), got 1"});
  expect_error(
      [] {
        samples_from_partition(V{0, NAN}, V{1});
      },
      {"cut 1: expected a finite value, got nan"});
  expect_error(
      [] {
        samples_from_partition(V{0, 1, 2}, V{1, 0});
      },
      {"time of rank 1, which owns [1, 2): expected a finite time > 0, got 0"});
  expect_error(
      [] {
        samples_from_partition(V{0, 1, 2}, V{INFINITY, 1});
      },
      {"time of rank 0, which owns [0, 1): expected a finite time > 0, got inf"});
  expect_error([] { samples_from_partition(V{1, 1, 1}, V{1, 1}); }, {"every rank", "empty"});
}

// ---------------------------------------------------------------------------
// read_samples

Samples Read(const std::string& text, bool repair = false, const std::string& name = "s.csv") {
  std::istringstream in(text);
  return isocost::read_samples(in, name, repair);
}

// The ParseError from reading `text`, checked for file, line and fragments.
void ExpectReadError(const std::string& text, std::size_t line,
                     const std::vector<std::string>& parts, bool repair = false,
                     const std::string& name = "s.csv") {
  const auto e = ParseErrorOf([&] { Read(text, repair, name); });
  ASSERT_TRUE(e.has_value()) << text;
  const std::string msg = e->what();
  EXPECT_EQ(e->line(), line) << msg;
  EXPECT_EQ(e->file(), name) << msg;
  EXPECT_EQ(msg.rfind(name + ":" + std::to_string(line) + ": ", 0), 0u) << msg;
  for (const auto& p : parts) EXPECT_TRUE(has(msg, p)) << "missing '" << p << "' in: " << msg;
}

TEST(ReadCsv, Cumulative) {
  EXPECT_EQ(Triples(Read("x,t\n0,1\n1,2\n3,5\n")), (std::vector<V>{{0, 1, 1}, {0, 3, 4}}));
  // Blanks, comments, blank lines, CRLF, no header, '+' signs.
  EXPECT_EQ(Triples(Read("# run 3\r\n\r\n0 0\r\n  1\t2 \r\n# note\n+3 , 5\r\n")),
            (std::vector<V>{{0, 1, 2}, {0, 3, 5}}));
  EXPECT_EQ(Triples(Read("X, T\n0,0\n2,1\n")), (std::vector<V>{{0, 2, 1}}));
}

TEST(ReadCsv, Intervals) {
  const std::vector<V> want{{0, 1, 2}, {1, 3, 6}};
  EXPECT_EQ(Triples(Read("lo,hi,dt\n0,1,2\n1,3,6\n")), want);
  EXPECT_EQ(Triples(Read("x_lo,x_hi,dt\r\n0,1,2\r\n1,3,6\r\n")), want);
  EXPECT_EQ(Triples(Read("0 1 2\n# c\n1 3 6\n")), want);
  // Overlapping intervals are fine for a reader.
  EXPECT_EQ(Triples(Read("0,2,1\n1,3,1\n")), (std::vector<V>{{0, 2, 1}, {1, 3, 1}}));
}

TEST(ReadCsv, Errors) {
  ExpectReadError("", 1, {"no samples"});
  ExpectReadError("# only a comment\n\n", 1, {"no samples"});
  ExpectReadError("x,t\n# none\n", 1, {"no samples"});
  ExpectReadError("lo,hi\n0,1\n", 1, {"header", "lo,hi"});
  ExpectReadError("x,t,dt\n0,1,1\n", 1, {"header"});
  ExpectReadError("\n0,1,2,3,4\n", 2, {"2 fields", "3 fields", "4 fields", "got 5"});
  ExpectReadError("0,0\n1,1\n# c\n2,3,4\n", 4, {"expected 2 fields", "line 1", "mixed"});
  ExpectReadError("lo,hi,dt\n0,1,2\n1,2\n", 3, {"expected 3 fields", "line 1", "mixed"});
  ExpectReadError("0,0\n1,1\n2x,3\n", 3, {"x: expected a finite number", "'2x'"});
  ExpectReadError("0,0\n1,nan\n", 2, {"t: expected a finite number", "'nan'"});
  ExpectReadError("0,0\n1,\n", 2, {"t: expected a finite number", "''"});
  ExpectReadError("0,0\n1,1e999\n", 2, {"'1e999'"});
  ExpectReadError("0,1,2\n\n1,1,2\n", 3, {"sample 1", "lo=1, hi=1", "lo < hi"});
  ExpectReadError("0,1,2\n1,2,0\n", 2, {"sample 1", "dt > 0"});
  ExpectReadError("0,1,2\n1,2,-1\n", 2, {"sample 1", "dt=-1"});
  ExpectReadError("0,0\n", 1, {"at least 2"});
  ExpectReadError("0,0\n1,1\n1,2\n", 3, {"x must increase", "line 2"});
  ExpectReadError("0,0\n1,0\n", 2, {"never rises"});
}

TEST(ReadCsv, NonMonotoneTimeNeedsRepair) {
  const std::string text = "x,t\n0,0\n1,2\n# noise\n2,1\n3,3\n4,2.5\n";
  ExpectReadError(text, 5,
                  {"must not decrease", "sample 2", "t=1 after t=2", "line 3", "--repair"});
  // Repaired: {0, 2, 1, 3, 2.5} -> {0, 1.5, 1.5, 2.75, 2.75}.
  EXPECT_EQ(Triples(Read(text, true)),
            (std::vector<V>{{0, 1, 1.5}, {0, 2, 1.5}, {0, 3, 2.75}, {0, 4, 2.75}}));
  // Repair does not excuse x out of order.
  ExpectReadError("0,0\n2,1\n1,2\n", 3, {"x must increase"}, true);
}

TEST(ReadJson, AllThreeForms) {
  const std::vector<V> cumulative{{0, 1, 1}, {0, 3, 4}};
  EXPECT_EQ(
      Triples(Read(R"({"cumulative": [{"x": 0, "t": 1}, {"x": 1, "t": 2}, {"x": 3, "t": 5}]})")),
      cumulative);
  EXPECT_EQ(Triples(Read("  \n[{\"t\": 1, \"x\": 0}, {\"x\": 1, \"t\": 2}, {\"x\": 3, \"t\": 5}]")),
            cumulative);
  const std::vector<V> intervals{{0, 1, 2}, {1, 3, 6.5}};
  EXPECT_EQ(Triples(Read(
                R"({"intervals": [{"lo": 0, "hi": 1, "dt": 2}, {"lo": 1, "hi": 3, "dt": 6.5}]})")),
            intervals);
  EXPECT_EQ(Triples(Read(R"([{"lo": 0, "hi": 1, "dt": 2, "rank": 0},
                             {"lo": 1, "hi": 3, "dt": 6.5, "rank": 1}])")),
            intervals);
  // Other keys are ignored; a byte order mark is skipped.
  EXPECT_EQ(Triples(Read("\xEF\xBB\xBF{\"units\": \"s\", \"intervals\": [{\"lo\": 0, \"hi\": 1, "
                         "\"dt\": 2}, {\"lo\": 1, \"hi\": 3, \"dt\": 6.5}]}")),
            intervals);
}

TEST(ReadJson, SyntaxErrorsCarryTheLine) {
  // A missing comma on line 3.
  ExpectReadError(
      "{\"intervals\": [\n  {\"lo\": 0, \"hi\": 1, \"dt\": 2},\n  {\"lo\": 1 \"hi\": 3, "
      "\"dt\": 1}\n]}\n",
      3, {"invalid JSON", "column"}, false, "s.json");
  // A bad literal on line 4.
  ExpectReadError("[\n{\"x\": 0, \"t\": 0},\n{\"x\": 1,\n \"t\": tru}\n]", 4, {"invalid JSON"},
                  false, "s.json");
  // A bad literal ended by a newline: still the literal's line.
  ExpectReadError("[\n{\"x\": 0, \"t\": tru\n}]", 2, {"invalid JSON", "literal"}, false, "s.json");
  // Input that ends early: the last line with content.
  ExpectReadError("[\n{\"x\": 0, \"t\": 0},\n{\"x\": 1, \"t\": 1}\n\n\n", 3,
                  {"invalid JSON", "end of input"}, false, "s.json");
  // A number too large for a double (nlohmann's out_of_range, not parse_error).
  ExpectReadError("[{\"x\": 0, \"t\": 0},\n{\"x\": 1, \"t\": 1e999}]", 2,
                  {"invalid JSON", "overflow", "1e999"}, false, "s.json");
  // Trailing garbage after the document.
  ExpectReadError("[{\"x\": 0, \"t\": 0}, {\"x\": 1, \"t\": 1}]\n\nx", 3, {"invalid JSON"}, false,
                  "s.json");
}

TEST(ReadJson, SemanticErrorsCarryTheLine) {
  const std::string head = "{\n  \"cumulative\": [\n";
  // Elements start on lines 3, 4, 5, … .
  ExpectReadError(
      head + "    {\"x\": 0, \"t\": 0},\n    {\"x\": 1},\n    {\"x\": 2, \"t\": 3}\n  ]\n}", 4,
      {"sample 1", "missing key 't'"});
  ExpectReadError(head + "    {\"x\": 0, \"t\": 0},\n    {\"x\": 1, \"t\": \"2\"}\n  ]\n}", 4,
                  {"sample 1", "'t': expected a number", "\"2\"", "string"});
  ExpectReadError(head + "    {\"x\": 0, \"t\": 0},\n    {\"x\": 1, \"t\": 2},\n    3\n  ]\n}", 5,
                  {"sample 2", "expected an object", "number"});
  // A multi-line object: the line of the offending member.
  ExpectReadError(
      head + "    {\"x\": 0, \"t\": 0},\n    {\n      \"x\": 1,\n      \"t\": null\n    }\n  ]\n}",
      6, {"sample 1", "'t': expected a number", "null"});
  // Non-monotone t without repair: the line of the first decreasing sample.
  const std::string noisy = head +
                            "    {\"x\": 0, \"t\": 0},\n    {\"x\": 1, \"t\": 2},\n"
                            "    {\"x\": 2, \"t\": 1},\n    {\"x\": 3, \"t\": 3}\n  ]\n}";
  ExpectReadError(noisy, 5, {"must not decrease", "sample 2", "--repair"});
  EXPECT_EQ(Triples(Read(noisy, true)), (std::vector<V>{{0, 1, 1.5}, {0, 2, 1.5}, {0, 3, 3}}));
  // Intervals: negative dt, lo >= hi, and a cumulative object among intervals.
  const std::string ihead = "{\"intervals\": [\n";
  ExpectReadError(
      ihead + "{\"lo\": 0, \"hi\": 1, \"dt\": 1},\n{\"lo\": 1, \"hi\": 2, \"dt\": -3}\n]}", 3,
      {"sample 1", "dt=-3", "dt > 0"});
  ExpectReadError(
      ihead + "{\"lo\": 0, \"hi\": 1, \"dt\": 1},\n\n{\"lo\": 2, \"hi\": 2, \"dt\": 3}\n]}", 4,
      {"sample 1", "lo < hi"});
  ExpectReadError(ihead + "{\"lo\": 0, \"hi\": 1, \"dt\": 1},\n{\"x\": 2, \"t\": 3}\n]}", 3,
                  {"sample 1", "missing key 'lo'", "cannot be mixed"});
  // Bare array: the first element fixes the kind.
  ExpectReadError("[\n{\"x\": 0, \"t\": 0},\n{\"lo\": 0, \"hi\": 1, \"dt\": 1}\n]", 3,
                  {"sample 1", "missing key 'x'", "cannot be mixed"});
  ExpectReadError("[\n{\"a\": 1}\n]", 2, {"sample 0", "expected an object {\"x\""});
  // Document-level problems.
  ExpectReadError("\n\n{\"samples\": []}", 3, {"'cumulative' or 'intervals'"});
  ExpectReadError("{\"cumulative\": [], \"intervals\": []}", 1, {"both"});
  ExpectReadError("{\n\"cumulative\":\n  {\"x\": 1}}", 3, {"'cumulative'", "expected an array"});
  ExpectReadError("{\"intervals\":\n\n[ ]}", 3, {"no samples"});
  ExpectReadError("[]", 1, {"no samples"});
  ExpectReadError("[{\"x\": 0, \"t\": 0}]", 1, {"at least 2"});
}

TEST(ReadJson, LinesSurviveTrickyStrings) {
  // Braces, brackets, escaped quotes and duplicate keys do not confuse the line scan.
  const std::string text =
      "{\"note\": \"a } ] [ { \\\" ,\",\n"
      " \"cumulative\": [{\"x\": 5, \"t\": 5}],\n"
      " \"cumulative\": [\n"
      "  {\"x\": 0, \"t\": 0, \"extra\": {\"deep\": [[1, {\"s\": \"]\\n\"}]]}},\n"
      "  {\"x\": 1, \"t\": \"oops\"}\n"
      " ]}";
  ExpectReadError(text, 5, {"sample 1", "'t': expected a number"});
  // Escaped key names are decoded.
  EXPECT_EQ(Triples(Read("{\"cumul\\u0061tive\": [{\"x\": 0, \"t\": 0}, {\"x\": 2, \"t\": 1}]}")),
            (std::vector<V>{{0, 2, 1}}));
}

// A file in the test temp directory, removed at scope exit.
class SampleFile {
 public:
  SampleFile(const std::string& stem, const std::string& contents) {
    std::random_device rd;
    path_ = (std::filesystem::path(testing::TempDir()) /
             ("isocost_test_samples_" + stem + "_" + std::to_string(rd())))
                .string();
    std::ofstream out(path_, std::ios::binary);
    out << contents;
  }
  ~SampleFile() { std::remove(path_.c_str()); }
  SampleFile(const SampleFile&) = delete;
  SampleFile& operator=(const SampleFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(ReadFiles, FromPathAndErrorsNameThePath) {
  SampleFile csv("csv", "lo,hi,dt\r\n0,1,2\r\n1,3,6\r\n");
  EXPECT_EQ(Triples(isocost::read_samples(csv.path())), (std::vector<V>{{0, 1, 2}, {1, 3, 6}}));
  SampleFile json("json",
                  "{\"cumulative\": [\n{\"x\": 0, \"t\": 0},\n{\"x\": 1, \"t\": 3},\n"
                  "{\"x\": 2, \"t\": 2}\n]}\n");
  const auto e = ParseErrorOf([&] { isocost::read_samples(json.path()); });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->file(), json.path());
  EXPECT_EQ(e->line(), 4u) << e->what();
  EXPECT_EQ(Triples(isocost::read_samples(json.path(), true)),
            (std::vector<V>{{0, 1, 2.5}, {0, 2, 2.5}}));
}

TEST(ReadFiles, MissingFile) {
  const std::string path =
      (std::filesystem::path(testing::TempDir()) / "isocost_no_such_dir" / "s.csv").string();
  expect_error([&] { isocost::read_samples(path); }, {"cannot open", path});
}

// ---------------------------------------------------------------------------
// tabulate

TEST(Tabulate, PchipThroughOneRunReproducesTheKnots) {
  // A linear run over t = x²: rank i owns [i, i+1) and took (i+1)² − i².
  const V cuts{0, 1, 2, 3, 4, 5};
  const V times{1, 3, 5, 7, 9};
  const auto model = isocost::tabulate(isocost::samples_from_partition(cuts, times));
  EXPECT_EQ(model.kind(), "pchip");
  EXPECT_EQ(model.lo(), 0);
  EXPECT_EQ(model.hi(), 5);
  for (int k = 0; k <= 5; ++k) EXPECT_DOUBLE_EQ(model.cost(k), k * k) << "knot " << k;
  double previous = -1;
  for (int k = 0; k <= 500; ++k) {
    const double x = 5.0 * k / 500;
    const double c = model.cost(x);
    EXPECT_GE(c, previous) << "at x=" << x;
    EXPECT_GE(model.density(x), 0) << "at x=" << x;
    previous = c;
  }
  // Linear interpolation from cumulative samples.
  const auto linear = isocost::tabulate(Samples::from_cumulative({0, 2, 4}, {1, 2, 5}),
                                        isocost::Interpolation::linear);
  EXPECT_DOUBLE_EQ(linear.cost(1), 0.5);
  EXPECT_DOUBLE_EQ(linear.cost(3), 2.5);
}

TEST(Tabulate, Errors) {
  expect_error(
      [] {
        isocost::tabulate(Samples({{0, 2, 1}, {1, 3, 1}, {3, 4, 1}, {4, 5, 1}}));
      },
      {"cannot tabulate", "overlap"});
  // Too few points for pchip: the tabulated_model error, prefixed.
  expect_error(
      [] {
        isocost::tabulate(Samples({{0, 1, 1}, {1, 2, 1}}));
      },
      {"cannot tabulate", "pchip", "at least 4"});
}

}  // namespace

// ---------------------------------------------------------------------------
// Files that cannot be read, a byte order mark, and bad fields quoted
// escaped and bounded (however deep or long the input)

namespace {

using isocost::testing::kBom;

TEST(ReadFiles, AByteOrderMarkIsSkippedInEveryFormat) {
  const std::vector<V> expected{{0, 1, 1}, {0, 2, 4}};
  EXPECT_EQ(Triples(Read(kBom + "x,t\n0,0\n1,1\n2,4\n")), expected);
  EXPECT_EQ(Triples(Read(kBom + "0 0\n1 1\n2 4\n")), expected);
  EXPECT_EQ(
      Triples(Read(kBom + "[{\"x\": 0, \"t\": 0}, {\"x\": 1, \"t\": 1}, {\"x\": 2, \"t\": 4}]")),
      expected);
  SampleFile file("bom", kBom + "lo,hi,dt\r\n0,1,2\r\n");
  EXPECT_EQ(Triples(isocost::read_samples(file.path())), (std::vector<V>{{0, 1, 2}}));
}

TEST(ReadFiles, ASampleFileThatCannotBeReadSaysWhy) {
  const std::string dir = testing::TempDir();
  expect_error([&] { isocost::read_samples(dir); }, {"cannot open '" + dir + "': is a directory"});
  SampleFile plain("plain", "x,t\n");
  expect_error([&] { isocost::read_samples(plain.path() + "/s.csv"); }, {"not a directory"});
}

TEST(ReadFiles, TextFieldsAreQuotedEscapedAndBounded) {
  ExpectReadError("x,t\n0,0\n1,1\r5\n", 3, {"t: expected a finite number, got '1\\r5'"});
  const std::string huge(10000, '8');
  const auto e = ParseErrorOf([&] { Read("x,t\n0,0\n1," + huge + "x\n"); });
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(has(e->what(), "'" + huge.substr(0, 60) + "...' (10001 bytes)")) << e->what();
  EXPECT_LE(std::string(e->what()).size(), 130u) << e->what();
  // A header that is no header: the whole line, bounded.
  const auto h = ParseErrorOf([&] { Read("x," + std::string(5000, 'h') + "\n0,0\n"); });
  ASSERT_TRUE(h.has_value());
  EXPECT_LE(std::string(h->what()).size(), 200u) << h->what();
}

TEST(ReadJson, ValuesInMessagesAreBounded) {
  const std::string huge(10000, 'z');
  const auto s = ParseErrorOf([&] {
    Read("[{\"x\": \"" + huge + "\", \"t\": 0}, {\"x\": 1, \"t\": 1}]", false, "s.json");
  });
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(has(s->what(), "'x': expected a number, got \"zzzz")) << s->what();
  EXPECT_TRUE(has(s->what(), "... (string)")) << s->what();
  EXPECT_LE(std::string(s->what()).size(), 120u) << s->what();
  // A syntax error whose token is a whole long string (nlohmann quotes it).
  const auto t = ParseErrorOf([&] { Read("[{\"x\": \"" + huge + "\x01\"}]", false, "s.json"); });
  ASSERT_TRUE(t.has_value());
  EXPECT_TRUE(has(t->what(), "invalid JSON")) << t->what();
  EXPECT_LE(std::string(t->what()).size(), 300u) << t->what();
  // Small values are shown whole.
  ExpectReadError("[{\"x\": [1, 2], \"t\": 0}]", 1, {"'x': expected a number, got [1,2] (array)"},
                  false, "s.json");
  ExpectReadError("[{\"x\": {\"a\": null}, \"t\": 0}]", 1, {"got {\"a\":null} (object)"}, false,
                  "s.json");
}

TEST(ReadJson, AVeryDeepArrayIsACleanError) {
  // nlohmann parses and destroys iteratively, but dump() recurses: a message
  // that serialised this value would overflow the stack.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string shown = "got " + std::string(37, '[') + "... (array)";
  for (const std::string& text :
       {deep, "{\"cumulative\": " + deep + "}", "[{\"x\": " + deep + ", \"t\": 0}]",
        "{\"intervals\": [" + deep + "]}"}) {
    const auto e = ParseErrorOf([&] { Read(text, false, "deep.json"); });
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->line(), 1u);
    EXPECT_TRUE(has(e->what(), shown)) << e->what();
    EXPECT_LE(std::string(e->what()).size(), 250u) << e->what();
  }
}

}  // namespace
