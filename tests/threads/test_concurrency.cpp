// The code that may run across threads: an OpenMP or std::thread code calls
// the library from several threads at once, on its own objects or on shared
// copies of one model (CostModel, Density and the formula-backed ones share
// their implementation between copies). Every call below must give, on every
// thread, exactly the answer it gives alone. Built and run in every build; the
// ThreadSanitizer build (scripts/test) runs only this program, where a data
// race is a failure even when the numbers agree.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "isocost/cost_model.hpp"
#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/fitters/expression.hpp"
#include "isocost/fitters/fit.hpp"
#include "isocost/metrics.hpp"
#include "isocost/partition.hpp"
#include "isocost/samples.hpp"

namespace {

using namespace isocost;

constexpr int kThreads = 4;

// Runs `work(thread)` on kThreads threads at once and returns each result;
// an exception on a thread is rethrown here.
template <class R>
std::vector<R> on_threads(const std::function<R(int)>& work) {
  std::vector<R> results(kThreads);
  std::vector<std::exception_ptr> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        results[static_cast<std::size_t>(t)] = work(t);
      } catch (...) {
        errors[static_cast<std::size_t>(t)] = std::current_exception();
      }
    });
  for (auto& thread : threads) thread.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return results;
}

// Sieve cost on [100, 1e6] (Swartz eq. 4): the serial answer each thread must
// reproduce bit for bit.
TEST(Concurrency, SharedModelPartitionsAlikeOnEveryThread) {
  const CostModel model = sieve_model(SieveParams{}, 100, 1e6);
  const auto alone = partition(model, Speeds::uniform(64)).cuts;
  const auto cuts = on_threads<std::vector<double>>(
      [&](int) { return partition(model, Speeds::uniform(64)).cuts; });
  for (const auto& c : cuts) EXPECT_EQ(c, alone);
  // And the answer is the right one: every rank's cost is TT/P.
  const double share = model.total() / 64;
  for (std::size_t i = 0; i + 1 < alone.size(); ++i)
    EXPECT_NEAR(model.cost(alone[i], alone[i + 1]), share, 1e-6 * share);
}

// Copies of one expression model share a parser behind a mutex.
TEST(Concurrency, ExpressionModelCopiesShareOneParserSafely) {
  const CostModel model = expression_model("A*x^p", {{"A", 2.0}, {"p", 3.0}}, 0, 2);
  const auto alone = partition(model, Speeds::uniform(16)).cuts;
  const auto cuts = on_threads<std::vector<double>>([&](int) {
    const CostModel copy = model;  // a copy per thread, one parser underneath
    return partition(copy, Speeds::uniform(16)).cuts;
  });
  for (const auto& c : cuts) EXPECT_EQ(c, alone);
  // The formula is t(x) = 2 x^3 on [0, 2]: the cuts are 2·(i/16)^(1/3).
  for (int i = 0; i <= 16; ++i)
    EXPECT_NEAR(alone[static_cast<std::size_t>(i)], 2 * std::cbrt(i / 16.0), 1e-9);
}

// decompose() on one shared formula density from every thread.
TEST(Concurrency, SharedDensityDecomposesAlikeOnEveryThread) {
  const Density density = expression_density("x + y", Box::of({0, 0}, {1, 1}));
  const ProcessGrid grid{{4, 2}, {0, 1}};
  const auto alone = decompose(density, grid, Speeds::uniform(8));
  const auto costs = on_threads<std::vector<double>>([&](int) {
    std::vector<double> c;
    for (const auto& part : decompose(density, grid, Speeds::uniform(8)).parts)
      c.push_back(part.cost);
    return c;
  });
  std::vector<double> expected;
  for (const auto& part : alone.parts) expected.push_back(part.cost);
  for (const auto& c : costs) EXPECT_EQ(c, expected);
  // The mass of x + y on the unit square is 1: each of 8 parts gets 1/8.
  for (double c : expected) EXPECT_NEAR(c, 0.125, 1e-7);
}

// Ceres fits on separate samples, one per thread.
TEST(Concurrency, FitsOnSeparateThreadsAgreeWithTheSerialFit) {
  // Exact power-law timings t(x) = x^2.5 on 12 equal intervals of [1, 4].
  std::vector<IntervalSample> intervals;
  for (int k = 0; k < 12; ++k) {
    const double lo = 1 + 0.25 * k, hi = lo + 0.25;
    intervals.push_back({lo, hi, std::pow(hi, 2.5) - std::pow(lo, 2.5)});
  }
  const Samples samples(intervals);
  const FitSpec spec = parse_fit_spec("power");
  const double alone = fit(samples, spec).summary.parameter("p");
  const auto p = on_threads<double>([&](int) { return fit(samples, spec).summary.parameter("p"); });
  for (double v : p) EXPECT_EQ(v, alone);
  EXPECT_NEAR(alone, 2.5, 1e-6);  // t(x) = A x^p with p = 2.5
}

// Load statistics, read-only on a shared vector.
TEST(Concurrency, LoadStatsOnSharedTimes) {
  const std::vector<double> times = {1, 2, 3, 4};
  const auto e = on_threads<double>([&](int) { return load_stats(times).efficiency; });
  for (double v : e) EXPECT_DOUBLE_EQ(v, 0.625);  // Watts: T_avg/T_max = 2.5/4
}

}  // namespace
