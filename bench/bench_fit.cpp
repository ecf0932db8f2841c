// Fit time versus number of samples (issue 3): the sieve form, a cubic
// polynomial and PCHIP tabulation, on one run of n intervals tiling
// [10, 2^24] with 0.5 % noise. Goal: sieve form on 10 000 samples <= 25 ms.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "isocost/fitters/fit.hpp"

namespace {

isocost::Samples samples(int n) {
  std::mt19937_64 rng(1);
  std::normal_distribution<double> noise(0, 0.005);
  auto T = [](double x) { return 3.9e-7 * std::pow(x, 1.43) / (std::log(x) - 1.08366); };
  const double lo = 10, hi = 1 << 24;
  std::vector<isocost::IntervalSample> v;
  for (int k = 0; k < n; ++k) {
    const double a = lo + (hi - lo) * k / n, b = lo + (hi - lo) * (k + 1) / n;
    v.push_back({a, b, (T(b) - T(a)) * (1 + noise(rng))});
  }
  return isocost::Samples(v);
}

void run(benchmark::State& state, const char* model) {
  const auto s = samples(static_cast<int>(state.range(0)));
  const auto spec = isocost::parse_fit_spec(model);
  isocost::FitOptions options;
  options.covariance = false;  // timed separately below
  int iterations = 0;
  for (auto _ : state) {
    auto f = isocost::fit(s, spec, options);
    iterations = f.summary.iterations;
    benchmark::DoNotOptimize(f.model->total());
  }
  state.counters["ceres_iterations"] = iterations;
  state.counters["per_sample"] = benchmark::Counter(
      static_cast<double>(s.size()),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_Fit_Sieve(benchmark::State& state) { run(state, "sieve"); }
void BM_Fit_Poly3(benchmark::State& state) { run(state, "poly:3"); }
void BM_Fit_Pchip(benchmark::State& state) { run(state, "pchip"); }

// The full fit a user gets by default: with standard errors (ceres::Covariance).
void BM_Fit_Sieve_WithCovariance(benchmark::State& state) {
  const auto s = samples(static_cast<int>(state.range(0)));
  const auto spec = isocost::parse_fit_spec("sieve");
  for (auto _ : state) benchmark::DoNotOptimize(isocost::fit(s, spec).model->total());
}

BENCHMARK(BM_Fit_Sieve)->RangeMultiplier(10)->Range(100, 100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Fit_Poly3)->RangeMultiplier(10)->Range(100, 100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Fit_Pchip)->RangeMultiplier(10)->Range(100, 100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Fit_Sieve_WithCovariance)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
