// A linear trend per cut through recent plans (forecast.hpp).
#include "isocost/forecast.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/rebalance.hpp"

namespace isocost {

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
  const double n = static_cast<double>(rounds.size());
  double mean_t = 0;
  for (const PlannedCuts& r : rounds) mean_t += r.time / n;
  double stt = 0;
  for (const PlannedCuts& r : rounds) stt += (r.time - mean_t) * (r.time - mean_t);
  if (!(stt > 0)) return last;  // one round, or all at one time: no trend
  const std::int64_t N = last.back();
  std::vector<std::int64_t> out(last.size());
  out.front() = 0;
  for (std::size_t k = 1; k + 1 < last.size(); ++k) {
    double mean_x = 0, stx = 0;
    for (const PlannedCuts& r : rounds) mean_x += static_cast<double>(r.offsets[k]) / n;
    for (const PlannedCuts& r : rounds)
      stx += (r.time - mean_t) * (static_cast<double>(r.offsets[k]) - mean_x);
    const double x = mean_x + stx / stt * (at - mean_t);
    out[k] = std::max<std::int64_t>(out[k - 1],
                                    std::llround(std::clamp(x, 0.0, static_cast<double>(N))));
  }
  out.back() = N;
  return out;
}

}  // namespace isocost
