// The scenarios of the cost_model example: the work profiles and the work
// (see cost_model_scenarios.hpp).
#include "cost_model_scenarios.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "isocost/mpi/distribution.hpp"

namespace cost_model {

namespace {

namespace mpi = isocost::mpi;

// The amplitude is capped (a ramp or a hot spot beyond it changes little);
// a target beyond reach gets the cap's imbalance, which the table shows.
constexpr double kMaxAmplitude = 1e4;

// The profile's shape at x in [0, 1): a ramp, or a bump of width a quarter
// block centred in rank 1's block (a local maximum a global method must split).
double shape_at(const std::string& shape, double x, int ranks) {
  if (shape == "ramp") return x;
  const double c = ranks > 1 ? 1.5 / ranks : 0.5, s = 0.25 / std::max(ranks, 1);
  return std::exp(-((x - c) / s) * ((x - c) / s));
}

// kMeanUnits·(1 + a·f)/(1 + a·f̄): every profile of N elements does the same
// total work, so a scenario's cost depends on N and S, not on its shape.
int units_for(double amplitude, double f, double mean_f) {
  const double u = kMeanUnits * (1 + amplitude * f) / (1 + amplitude * mean_f);
  return std::max(1, static_cast<int>(std::lround(u)));
}

// T_max/T_avg of the integer units on the uniform blocks.
double block_ratio(const std::vector<double>& f, double mean_f, double amplitude,
                   const std::vector<std::int64_t>& offsets) {
  double heaviest = 0, total = 0;
  for (std::size_t r = 0; r + 1 < offsets.size(); ++r) {
    double sum = 0;
    for (auto i = offsets[r]; i < offsets[r + 1]; ++i)
      sum += units_for(amplitude, f[static_cast<std::size_t>(i)], mean_f);
    heaviest = std::max(heaviest, sum);
    total += sum;
  }
  return total > 0 ? heaviest * static_cast<double>(offsets.size() - 1) / total : 1;
}

}  // namespace

int Profile::units(long long i) const {
  const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(elements);
  return units_for(amplitude, shape_at(shape, x, ranks), mean_f);
}

Profile make_profile(std::string shape, double target, long long elements, int ranks) {
  // A linear ramp puts at most (2P − 1)/P times the mean on the last block.
  if (shape == "ramp" && target > 0.8 * (2.0 * ranks - 1) / ranks) shape = "hot";
  Profile p{shape, target, 0, 0, 1, elements, ranks};
  if (ranks < 2) return p;  // one block: nothing to imbalance
  const auto offsets = mpi::BlockDistribution::uniform(elements, ranks).offsets;
  std::vector<double> f(static_cast<std::size_t>(elements));
  for (long long i = 0; i < elements; ++i)
    f[static_cast<std::size_t>(i)] =
        shape_at(shape, (static_cast<double>(i) + 0.5) / static_cast<double>(elements), ranks);
  for (const double x : f) p.mean_f += x / static_cast<double>(elements);
  const auto ratio = [&](double a) { return block_ratio(f, p.mean_f, a, offsets); };
  double lo = 0, hi = 1;
  while (ratio(hi) < target && hi < kMaxAmplitude) hi = std::min(2 * hi, kMaxAmplitude);
  for (int k = 0; k < 40; ++k) {  // bisection on a: the ratio rises with it
    const double mid = 0.5 * (lo + hi);
    (ratio(mid) < target ? lo : hi) = mid;
  }
  p.amplitude = hi;
  p.imbalance = ratio(hi);
  return p;
}

double work(double v, int units) {
  for (int u = 0; u < units; ++u) v = 3.99 * v * (1.0 - v);
  return v;
}

void step_work(std::vector<double>& value, const std::vector<std::int32_t>& units) {
  // Each element starts from value + 0·(the previous element's result): the
  // same number (it is finite), but the chains now run one after another.
  // Otherwise the CPU overlaps the short chains of light elements, which then
  // cost up to 30 % less per unit than heavy ones, and a plan cut on units
  // leaves the hot spot's ranks slower than predicted.
  double previous = 0;
  for (std::size_t k = 0; k < value.size(); ++k)
    previous = value[k] = work(value[k] + 0.0 * previous, units[k]);
}

}  // namespace cost_model
