// A linear trend per cut through recent plans (forecast.hpp).
#include "isocost/forecast.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/rebalance.hpp"

namespace isocost {

namespace {

// The least-squares line through (t_j, v_j) at `at`; the last value without
// a spread of times.
double trend(std::span<const double> t, std::span<const double> v, double at) {
  const double n = static_cast<double>(t.size());
  double mean_t = 0, mean_v = 0;
  for (std::size_t j = 0; j < t.size(); ++j) mean_t += t[j] / n, mean_v += v[j] / n;
  double stt = 0, stv = 0;
  for (std::size_t j = 0; j < t.size(); ++j) {
    stt += (t[j] - mean_t) * (t[j] - mean_t);
    stv += (t[j] - mean_t) * (v[j] - mean_v);
  }
  return stt > 0 ? mean_v + stv / stt * (at - mean_t) : v.back();
}

}  // namespace

std::vector<std::int64_t> forecast_offsets(std::span<const PlannedCuts> rounds, double at) {
  if (rounds.empty()) throw Error("forecast: no rounds; expected at least one plan");
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
      throw Error("forecast: round " + std::to_string(j) + " has time " +
                  detail::exact(rounds[j].time) + ", expected a finite number");
  }
  const std::int64_t N = last.back();
  std::vector<double> times, v(rounds.size());
  for (const PlannedCuts& r : rounds) times.push_back(r.time);
  std::vector<std::int64_t> out(last.size());
  out.front() = 0;
  for (std::size_t k = 1; k + 1 < last.size(); ++k) {
    for (std::size_t j = 0; j < rounds.size(); ++j)
      v[j] = static_cast<double>(rounds[j].offsets[k]);
    const double x = trend(times, v, at);
    out[k] = std::max<std::int64_t>(out[k - 1],
                                    std::llround(std::clamp(x, 0.0, static_cast<double>(N))));
  }
  out.back() = N;
  return out;
}

Decomposition forecast_decomposition(std::span<const PlannedParts> rounds, double at,
                                     const GridShape& shape) {
  if (rounds.empty()) throw Error("forecast: no rounds; expected at least one plan");
  if (!std::isfinite(at)) throw Error("forecast: time " + detail::exact(at) + " is not finite");
  const Decomposition& last = rounds.back().decomposition;
  std::vector<double> times;
  for (std::size_t j = 0; j < rounds.size(); ++j) {
    if (rounds[j].decomposition.parts.size() != last.parts.size())
      throw Error("forecast: round " + std::to_string(j) + " has " +
                  std::to_string(rounds[j].decomposition.parts.size()) + " parts, the newest " +
                  std::to_string(last.parts.size()) + "; expected the same");
    if (!std::isfinite(rounds[j].time))
      throw Error("forecast: round " + std::to_string(j) + " has time " +
                  detail::exact(rounds[j].time) + ", expected a finite number");
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
        return static_cast<std::int64_t>(std::llround(std::clamp(trend(times, v, at), 0.0, cells)));
      };
      Part& p = out.parts[r];
      p.cell_lo[a] = at_axis(&Part::cell_lo);
      p.cell_hi[a] = at_axis(&Part::cell_hi);
      if (p.cell_hi[a] < p.cell_lo[a]) return last;  // cuts crossed: no forecast
    }
  return out;
}

}  // namespace isocost
