// The balance interval timings guarantee for a partition (guarantee.hpp).
#include "isocost/guarantee.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

using detail::exact;

std::string BalanceGuarantee::brief_report() const {
  const auto g = [](double v) { return detail::fixed_digits(v, 4); };
  std::ostringstream out;
  out << "guaranteed L_E " << (covered ? g(le_lo) : std::string("-inf")) << " to " << g(le_hi)
      << " % (whatever the cost inside each timed interval";
  if (noise > 0) out << ", each timing within ±" << g(100 * noise) << " %";
  out << ")";
  if (!covered) out << "; a part reaches beyond the timed span, whose cost is unknown";
  if (!limiting.empty()) {
    out << "; limited by part " << limiting_part << ", which splits";
    for (const auto& [a, b] : limiting)
      out << " [" << detail::fixed_digits(a, 6) << ", " << detail::fixed_digits(b, 6) << "]";
  }
  if (coarse_cuts > 0)
    out << "; " << coarse_cuts << (coarse_cuts == 1 ? " cut falls" : " cuts fall") << " inside ["
        << exact(coarse_lo) << ", " << exact(coarse_hi) << "], which holds " << g(coarse_shares)
        << " parts' shares of the cost";
  return out.str();
}

BalanceGuarantee guaranteed_balance(const Samples& samples, std::span<const double> cuts,
                                    const Speeds& speeds, double noise) {
  if (!(noise >= 0 && noise < 1))
    throw Error(
        detail::expected_got("guaranteed_balance: noise", "a fraction in [0, 1)", exact(noise)));
  if (cuts.size() < 2)
    throw Error("guaranteed_balance: " + std::to_string(cuts.size()) +
                " cuts; expected at least 2 (one part)");
  for (std::size_t k = 0; k < cuts.size(); ++k)
    if (!std::isfinite(cuts[k]) || (k > 0 && cuts[k] < cuts[k - 1]))
      throw Error(detail::expected_got("guaranteed_balance: cut " + std::to_string(k),
                                       "a finite value, nondecreasing", exact(cuts[k])));
  const std::size_t P = cuts.size() - 1;
  if (static_cast<std::size_t>(speeds.ranks()) != P)
    throw Error("guaranteed_balance: " + std::to_string(speeds.ranks()) + " speeds for " +
                std::to_string(P) + " parts");
  std::vector<double> x, t;
  samples.cumulative_points(x, t);  // throws for several runs
  const std::size_t n = x.size() - 1;
  const double total = t.back();
  // The intervals [x_j, x_j+1) a part [a, b) touches and covers whole.
  const auto first_touched = [&](double a) {  // first j with x_j+1 > a
    return static_cast<std::size_t>(std::upper_bound(x.begin() + 1, x.end(), a) - x.begin() - 1);
  };
  BalanceGuarantee g;
  g.noise = noise;
  double max_lo = 0, max_hi = 0, mean_lo = 0, mean_hi = 0;
  double s_max = 0, s_min = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < P; ++k) {
    const double s = speeds.speed(static_cast<int>(k));
    s_max = std::max(s_max, s);
    s_min = std::min(s_min, s);
    const double a = cuts[k], b = cuts[k + 1];
    if (!(b > a)) continue;  // an empty part costs nothing
    if (a < x.front() || b > x.back()) g.covered = false;
    double lo = 0, hi = 0;
    for (std::size_t j = first_touched(a); j < n && x[j] < b; ++j) {
      const double d = t[j + 1] - t[j];
      hi += d * (1 + noise);
      if (x[j] >= a && x[j + 1] <= b) lo += d * (1 - noise);
    }
    if (lo / s > max_lo) max_lo = lo / s;
    if (hi / s > max_hi) {
      max_hi = hi / s;
      g.limiting_part = static_cast<int>(k);
    }
  }
  // T_avg = Σ_k cost_k/s_k / P, Σ_k cost_k = T: between T/(P·s_max) and T/(P·s_min).
  mean_lo = total * (1 - noise) / (static_cast<double>(P) * s_max);
  mean_hi = total * (1 + noise) / (static_cast<double>(P) * s_min);
  g.t_max_lo = std::max(max_lo, mean_lo);
  g.t_max_hi = max_hi;
  g.le_lo = g.covered ? 100 * (2 - max_hi / mean_lo) : -std::numeric_limits<double>::infinity();
  g.le_hi = std::min(100.0, 100 * (2 - g.t_max_lo / mean_hi));
  if (g.limiting_part >= 0) {
    const auto k = static_cast<std::size_t>(g.limiting_part);
    for (const double c : {cuts[k], cuts[k + 1]})
      if (c > x.front() && c < x.back()) {
        const std::size_t j = first_touched(c);
        if (x[j] < c) g.limiting.emplace_back(x[j], x[j + 1]);
      }
  }
  // The heaviest interval holding more than a share with a cut inside.
  const double share = total / static_cast<double>(P);
  for (std::size_t k = 1; k < P; ++k) {
    const double c = cuts[k];
    if (!(c > x.front() && c < x.back())) continue;
    const std::size_t j = first_touched(c);
    const double d = t[j + 1] - t[j];
    if (!(x[j] < c) || !(d > share)) continue;
    if (g.coarse_cuts > 0 && x[j] == g.coarse_lo) {
      ++g.coarse_cuts;
    } else if (d / share > g.coarse_shares) {
      g.coarse_lo = x[j];
      g.coarse_hi = x[j + 1];
      g.coarse_shares = d / share;
      g.coarse_cuts = 1;
    }
  }
  return g;
}

}  // namespace isocost
