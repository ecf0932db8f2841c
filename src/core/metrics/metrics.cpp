#include "isocost/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <boost/math/statistics/bivariate_statistics.hpp>
#include <boost/math/statistics/univariate_statistics.hpp>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

using detail::exact;

namespace {

// Statistics of validated times; an all-zero vector (allowed for one phase)
// counts as perfectly balanced.
LoadStats stats_of(std::span<const double> t) {
  LoadStats s;
  s.ranks = t.size();
  // min_element/max_element both return the first extreme; minmax_element
  // would return the last maximum.
  const auto mn = std::min_element(t.begin(), t.end());
  const auto mx = std::max_element(t.begin(), t.end());
  s.min = *mn;
  s.max = *mx;
  s.argmin = static_cast<std::size_t>(mn - t.begin());
  s.argmax = static_cast<std::size_t>(mx - t.begin());
  s.sum = std::accumulate(t.begin(), t.end(), 0.0L);
  // Central moments M1..M4 in one pass (Boost.Math statistics).
  const auto [m1, m2, m3, m4] = boost::math::statistics::first_four_moments(t.begin(), t.end());
  s.mean = m1;
  if (s.max == 0) {
    s.le = 100;
    s.efficiency = 1;
    return s;
  }
  s.li = (s.max - s.mean) / s.mean * 100;  // Swartz eq. (2)
  s.le = 100 - s.li;                       // Swartz eq. (3)
  s.li_fig2 = (s.max - s.mean) / s.max * 100;
  s.efficiency = s.mean / s.max;
  s.lambda = (s.max / s.mean - 1) * 100;  // Pearce eq. (1)
  s.drift = (s.max - s.min) / s.mean;
  s.sigma = std::sqrt(m2);  // Pearce eq. (2): population, 1/n
  // Below rounding noise of the mean, σ is zero in all but name.
  if (s.sigma > 1e-14 * s.mean) {
    s.skewness = m3 / std::pow(m2, 1.5);  // Pearce eq. (3)
    s.kurtosis = m4 / (m2 * m2) - 3;      // Pearce eq. (4)
  }
  return s;
}

}  // namespace

LoadStats load_stats(std::span<const double> times) {
  check_loads(times, "load");
  return stats_of(times);
}

double check_loads(std::span<const double> loads, std::string_view what, std::size_t count,
                   std::string_view unit, bool allow_all_zero) {
  const std::string w(what), u(unit);
  if (count > 0 && loads.size() != count)
    throw Error(w + ": " + std::to_string(loads.size()) + " loads for " + std::to_string(count) +
                " " + u + "s; expected one per " + u);
  if (loads.empty()) throw Error(w + ": expected at least one load, got none");
  double total = 0;
  for (std::size_t i = 0; i < loads.size(); ++i) {
    if (!std::isfinite(loads[i]) || loads[i] < 0)
      throw Error(detail::expected_got(w + ": load of " + u + " " + std::to_string(i),
                                       "a finite number >= 0", exact(loads[i])));
    total += loads[i];
  }
  if (!allow_all_zero && !(total > 0))
    throw Error(w + ": all loads are zero; expected a positive total");
  return total;
}

double imbalance(std::span<const double> loads, double mean) {
  if (loads.empty() || !(mean > 0)) return 0;
  return *std::max_element(loads.begin(), loads.end()) / mean - 1;
}

double imbalance(std::span<const double> loads) {
  if (loads.empty()) return 0;
  const double sum = std::accumulate(loads.begin(), loads.end(), 0.0);
  if (std::isfinite(sum)) return imbalance(loads, sum / static_cast<double>(loads.size()));
  // Loads near the double limit sum to inf (which gave −1): max/mean − 1 as
  // 1/mean(l/max) − 1 instead.
  const double max = *std::max_element(loads.begin(), loads.end());
  double scaled = 0;
  for (double l : loads) scaled += l / max;
  return static_cast<double>(loads.size()) / scaled - 1;
}

std::vector<double> fractional_ranks(std::span<const double> values) {
  const std::size_t n = values.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t i, std::size_t j) { return values[i] < values[j]; });
  std::vector<double> rank(n);
  for (std::size_t start = 0; start < n;) {
    std::size_t end = start;
    while (end + 1 < n && values[order[end + 1]] == values[order[start]]) ++end;
    const double mean_rank = 0.5 * static_cast<double>(start + end) + 1;  // ranks are 1-based
    for (std::size_t k = start; k <= end; ++k) rank[order[k]] = mean_rank;
    start = end + 1;
  }
  return rank;
}

std::optional<double> rank_correlation(std::span<const double> modelled,
                                       std::span<const double> measured) {
  if (modelled.size() != measured.size())
    throw Error("rank correlation: " + std::to_string(modelled.size()) + " modelled loads but " +
                std::to_string(measured.size()) + " measured loads");
  if (modelled.size() < 2)
    throw Error("rank correlation: needs at least 2 ranks, got " + std::to_string(modelled.size()));
  for (std::size_t i = 0; i < modelled.size(); ++i)
    if (!std::isfinite(modelled[i]) || !std::isfinite(measured[i]))
      throw Error("rank correlation: load of rank " + std::to_string(i) + " is not finite (" +
                  exact(modelled[i]) + ", " + exact(measured[i]) + ")");
  const auto m = fractional_ranks(modelled), l = fractional_ranks(measured);
  // Pearce eq. (13): Pearson's correlation of the ranks, which handles ties.
  auto constant = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); });
  };
  if (constant(m) || constant(l)) return std::nullopt;
  return boost::math::statistics::correlation_coefficient(m, l);
}

PhaseStats phase_stats(const PhaseLoads& loads) {
  const std::size_t R = loads.ranks, F = loads.phases.size();
  if (R == 0 || F == 0) throw Error("phase loads: expected at least one rank and one phase");
  if (loads.times.size() != R * F)
    throw Error("phase loads: expected " + std::to_string(R * F) + " times (" + std::to_string(R) +
                " ranks x " + std::to_string(F) + " phases), got " +
                std::to_string(loads.times.size()));
  PhaseStats out;
  out.phases = loads.phases;
  std::vector<double> column(R), total(R, 0.0);
  for (std::size_t f = 0; f < F; ++f) {
    for (std::size_t r = 0; r < R; ++r) {
      column[r] = loads.at(r, f);
      total[r] += column[r];
    }
    check_loads(column, "phase " + detail::quote(loads.phases[f]), 0, "rank", true);
    out.per_phase.push_back(stats_of(column));
    out.synchronised_time += out.per_phase.back().max;  // Watts §4.2
  }
  out.total = load_stats(total);
  out.synchronised_efficiency = out.total.mean / out.synchronised_time;
  return out;
}

}  // namespace isocost
