// From timings to cuts: a first run split [0, 10] evenly over 16 ranks and
// each rank timed its range; the work grows like x^2, so the last ranks took
// far longer. We fit a power law t(x) = A·x^p + B to those timings
// (isocost::fit, Ceres) and cut the fitted model for 8 ranks of which four are
// twice as fast. Exits 1 if the fit fails or the new cuts, judged on the true
// cost, are not balanced (L_E < 99 %).   Run: ./fit_then_cut
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "isocost/fitters/fit.hpp"
#include "isocost/metrics.hpp"
#include "isocost/partition.hpp"
#include "isocost/samples.hpp"

namespace {

// The true cumulative cost: density x^2, so t(x) = x^3 / 3.
double true_cost(double x) { return x * x * x / 3.0; }

}  // namespace

int main() {
  // 1. Synthetic measurements: 16 equal ranges, each time ±5 % noise (fixed seed).
  const int measured_ranks = 16;
  const double lo = 0.0, hi = 10.0;
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> noise(-0.05, 0.05);
  std::vector<double> cuts, times;
  for (int i = 0; i <= measured_ranks; ++i) cuts.push_back(lo + (hi - lo) * i / measured_ranks);
  for (int i = 0; i < measured_ranks; ++i)
    times.push_back((true_cost(cuts[i + 1]) - true_cost(cuts[i])) * (1.0 + noise(rng)));
  const isocost::Samples samples = isocost::samples_from_partition(cuts, times);
  std::printf("measured: %zu ranges, slowest/fastest rank %.0fx\n", samples.size(),
              times.back() / times.front());

  // 2. Fit t(x) = A·x^p + B. Not converging is a result, not an exception.
  const isocost::FitResult fit = isocost::fit(samples, isocost::parse_fit_spec("power"));
  std::printf("fit: %s\n", fit.summary.brief_report().c_str());
  if (!fit.summary.converged() || !fit.model) {
    std::printf("FAIL: the fit did not converge: %s\n", fit.summary.message.c_str());
    return 1;
  }
  const double p = fit.summary.parameter("p");

  // 3. Cut the fitted model for 8 ranks: four of speed 1, four of speed 2.
  const auto speeds = isocost::Speeds::from_values({1, 1, 1, 1, 2, 2, 2, 2});
  const isocost::Partition part = isocost::partition(*fit.model, speeds);
  std::printf("%s\n", part.brief_report().c_str());

  // 4. What each rank would really take on the true cost: cost / speed.
  std::vector<double> true_times;
  for (int r = 0; r < part.ranks(); ++r) {
    const double t = (true_cost(part.cuts[r + 1]) - true_cost(part.cuts[r])) / speeds.speed(r);
    true_times.push_back(t);
    std::printf("rank %d  speed %g  [%6.3f, %6.3f)  true time %7.2f\n", r, speeds.speed(r),
                part.cuts[r], part.cuts[r + 1], t);
  }
  const isocost::LoadStats truth = isocost::load_stats(true_times);
  std::printf("predicted L_E %.2f %%, true L_E %.2f %% (p = %.3f, expected 3)\n", part.predicted_le,
              truth.le, p);

  if (!part.converged() || std::abs(p - 3.0) > 0.1 || truth.le < 99.0) {
    std::printf("FAIL: expected p near 3 and a true L_E of at least 99 %%\n");
    return 1;
  }
  return 0;
}
