// A linear trend per cut through recent plans (forecast.hpp).
#include "isocost/forecast.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/rebalance.hpp"

namespace isocost {

namespace {

// The weighted least-squares line through (t_j, v_j) at `at`; the last
// value without a spread of times. Round j of n weighs 2^-((n-1-j)/half_life):
// recent plans follow a cut that speeds up or slows down, older ones still
// average out each plan's interpolation error.
double trend(std::span<const double> t, std::span<const double> v, double at, double half_life) {
  const std::size_t n = t.size();
  std::vector<double> w(n, 1.0);
  if (std::isfinite(half_life))
    for (std::size_t j = 0; j < n; ++j)
      w[j] = std::exp2(-static_cast<double>(n - 1 - j) / half_life);
  double sw = 0, mean_t = 0, mean_v = 0;
  for (std::size_t j = 0; j < n; ++j) sw += w[j], mean_t += w[j] * t[j], mean_v += w[j] * v[j];
  mean_t /= sw;
  mean_v /= sw;
  double stt = 0, stv = 0;
  for (std::size_t j = 0; j < n; ++j) {
    stt += w[j] * (t[j] - mean_t) * (t[j] - mean_t);
    stv += w[j] * (t[j] - mean_t) * (v[j] - mean_v);
  }
  return stt > 0 ? mean_v + stv / stt * (at - mean_t) : v.back();
}

void check_half_life(double half_life) {
  if (!(half_life > 0))  // NaN too
    throw Error(detail::expected_got("forecast: half_life",
                                     "a number > 0 (infinity: equal weights)",
                                     detail::exact(half_life) + " rounds"));
}

}  // namespace

std::vector<std::int64_t> forecast_offsets(std::span<const PlannedCuts> rounds, double at,
                                           double half_life) {
  if (rounds.empty()) throw Error("forecast: no rounds; expected at least one plan");
  check_half_life(half_life);
  if (!std::isfinite(at)) throw Error("forecast: time " + detail::exact(at) + " is not finite");
  const std::vector<std::int64_t>& last = rounds.back().offsets;
  for (std::size_t j = 0; j < rounds.size(); ++j) {
    validate_block_offsets(rounds[j].offsets);
    if (rounds[j].offsets.size() != last.size() || rounds[j].offsets.back() != last.back())
      throw Error("forecast: round " + std::to_string(j) + " has " +
                  std::to_string(rounds[j].offsets.size() - 1) + " ranks and " +
                  std::to_string(rounds[j].offsets.back()) + " elements, the newest " +
                  std::to_string(last.size() - 1) + " and " + std::to_string(last.back()) +
                  "; expected the same");
    if (!std::isfinite(rounds[j].time))
      throw Error(detail::expected_got("forecast: time of round " + std::to_string(j),
                                       "a finite number", detail::exact(rounds[j].time)));
  }
  const std::int64_t N = last.back();
  std::vector<double> times, v(rounds.size());
  for (const PlannedCuts& r : rounds) times.push_back(r.time);
  std::vector<std::int64_t> out(last.size());
  out.front() = 0;
  for (std::size_t k = 1; k + 1 < last.size(); ++k) {
    for (std::size_t j = 0; j < rounds.size(); ++j)
      v[j] = static_cast<double>(rounds[j].offsets[k]);
    const double x = trend(times, v, at, half_life);
    out[k] = std::max<std::int64_t>(out[k - 1],
                                    std::llround(std::clamp(x, 0.0, static_cast<double>(N))));
  }
  out.back() = N;
  return out;
}

Decomposition forecast_decomposition(std::span<const PlannedParts> rounds, double at,
                                     const GridShape& shape, double half_life) {
  if (rounds.empty()) throw Error("forecast: no rounds; expected at least one plan");
  check_half_life(half_life);
  if (!std::isfinite(at)) throw Error("forecast: time " + detail::exact(at) + " is not finite");
  const Decomposition& last = rounds.back().decomposition;
  std::vector<double> times;
  for (std::size_t j = 0; j < rounds.size(); ++j) {
    if (rounds[j].decomposition.parts.size() != last.parts.size())
      throw Error("forecast: round " + std::to_string(j) + " has " +
                  std::to_string(rounds[j].decomposition.parts.size()) + " parts, the newest " +
                  std::to_string(last.parts.size()) + "; expected the same");
    if (!std::isfinite(rounds[j].time))
      throw Error(detail::expected_got("forecast: time of round " + std::to_string(j),
                                       "a finite number", detail::exact(rounds[j].time)));
    times.push_back(rounds[j].time);
  }
  Decomposition out = last;
  std::vector<double> v(rounds.size());
  for (std::size_t r = 0; r < out.parts.size(); ++r)
    for (int a = 0; a < shape.dims; ++a) {
      const auto cells = static_cast<double>(shape.cells[static_cast<std::size_t>(a)]);
      const auto at_axis = [&](auto member) {
        for (std::size_t j = 0; j < rounds.size(); ++j)
          v[j] = static_cast<double>((rounds[j].decomposition.parts[r].*member)[a]);
        return static_cast<std::int64_t>(
            std::llround(std::clamp(trend(times, v, at, half_life), 0.0, cells)));
      };
      Part& p = out.parts[r];
      p.cell_lo[a] = at_axis(&Part::cell_lo);
      p.cell_hi[a] = at_axis(&Part::cell_hi);
      if (p.cell_hi[a] < p.cell_lo[a]) return last;  // cuts crossed: no forecast
    }
  return out;
}

}  // namespace isocost
