// The cumulative measured cost of a block distribution, and the accumulated
// points of earlier rounds with drifted rounds aged out (cumulative_points.hpp).
#include "core/pipeline/cumulative_points.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "isocost/cost_model.hpp"
#include "isocost/samples.hpp"

namespace isocost::detail {

void cumulative_points(std::span<const std::int64_t> offsets, std::span<const double> loads,
                       const Speeds& speeds, std::vector<double>& x, std::vector<double>& t) {
  x.assign(1, 0.0);
  t.assign(1, 0.0);
  for (std::size_t r = 0; r + 1 < offsets.size(); ++r) {
    if (offsets[r + 1] == offsets[r]) continue;
    x.push_back(static_cast<double>(offsets[r + 1]));
    t.push_back(t.back() + loads[r] * speeds.speed(static_cast<int>(r)));
  }
}

namespace {

struct Point {
  double x, t, w;
};

// Equal x pooled at the weighted mean, then nondecreasing t, ends pinned.
void settle(std::vector<Point>& points, double total, std::vector<double>& x,
            std::vector<double>& t) {
  std::stable_sort(points.begin(), points.end(),
                   [](const Point& a, const Point& b) { return a.x < b.x; });
  std::vector<double> pt, pw;
  x.clear();
  for (const Point& p : points) {
    if (!x.empty() && x.back() == p.x) {
      pt.back() = (pt.back() * pw.back() + p.t * p.w) / (pw.back() + p.w);
      pw.back() += p.w;
    } else {
      x.push_back(p.x);
      pt.push_back(p.t);
      pw.push_back(p.w);
    }
  }
  pw.front() = pw.back() = 1e6;  // pin the ends
  pt.front() = 0;
  pt.back() = total;
  t = isotonic_regression(pt, pw);
  t.front() = 0;
  t.back() = total;
}

// The largest distance of (hx, ht) outside the band that the merged points
// (x, t, nondecreasing) allow at hx: between t at the bracketing points.
double disagreement(const std::vector<double>& x, const std::vector<double>& t, double hx,
                    double ht) {
  const auto hi = std::lower_bound(x.begin(), x.end(), hx);
  if (hi == x.end()) return 0;
  const std::size_t b = static_cast<std::size_t>(hi - x.begin());
  const std::size_t a = x[b] == hx || b == 0 ? b : b - 1;
  return std::max({0.0, t[a] - ht, ht - t[b]});
}

}  // namespace

Accumulated accumulate_rounds(std::span<const std::int64_t> offsets, std::span<const double> loads,
                              const Speeds& speeds, std::span<const BlockRound> history,
                              double tolerance) {
  Accumulated out;
  cumulative_points(offsets, loads, speeds, out.x, out.t);
  const double total = out.t.back();
  std::vector<Point> points;
  for (std::size_t k = 0; k < out.x.size(); ++k) points.push_back({out.x[k], out.t[k], 2.0});
  for (std::size_t k = history.size(); k-- > 0;) {
    const BlockRound& h = history[k];
    std::vector<double> hx, ht;
    cumulative_points(h.offsets, h.loads, speeds, hx, ht);
    if (!(ht.back() > 0)) continue;  // an idle round says nothing about the shape
    const double scale = total / ht.back();
    bool drifted = false;
    for (std::size_t j = 1; j + 1 < hx.size() && !drifted; ++j)
      drifted = disagreement(out.x, out.t, hx[j], ht[j] * scale) > tolerance * total;
    if (drifted) {
      out.rounds_dropped = static_cast<int>(k) + 1;  // this one and every older one
      break;
    }
    for (std::size_t j = 1; j + 1 < hx.size(); ++j) points.push_back({hx[j], ht[j] * scale, 1.0});
    settle(points, total, out.x, out.t);
    ++out.rounds_used;
  }
  return out;
}

namespace {

constexpr double kFlat = 0.1;     // a neighbour is flat within this fraction of the jump
constexpr double kSpread = 0.35;  // an excess spans the middle 2·kSpread of its interval
constexpr double kSlack = 1e-3;   // slopes this close (relative) are equal
constexpr int kSamples = 8;       // pchip samples per smooth interval

}  // namespace

void edge_points(std::vector<double>& x, std::vector<double>& t) {
  const std::size_t m = x.size() - 1;  // intervals
  if (m < 2) return;
  std::vector<double> s(m);
  for (std::size_t i = 0; i < m; ++i) s[i] = (t[i + 1] - t[i]) / (x[i + 1] - x[i]);
  std::optional<CostModel> smooth;  // Boost's pchip needs 4 points
  if (m >= 3) smooth = tabulated_model(x, t, Interpolation::pchip);
  std::vector<double> ox{x[0]}, ot{t[0]};
  for (std::size_t i = 0; i < m; ++i) {
    const double S = s[i], W = x[i + 1] - x[i];
    const double L = i > 0 ? s[i - 1] : s[i + 1], R = i + 1 < m ? s[i + 1] : s[i - 1];
    const double L2 = i > 1 ? s[i - 2] : L, R2 = i + 2 < m ? s[i + 2] : R;
    const double jump = std::max(std::abs(S - L), std::abs(S - R));
    const bool flat = std::abs(L - L2) <= kFlat * jump && std::abs(R - R2) <= kFlat * jump;
    // Inner points stay strictly inside the interval and keep t nondecreasing.
    const auto add = [&](double px, double pt) {
      if (px <= ox.back() + 1e-9 * W || px >= x[i + 1] - 1e-9 * W) return;
      ox.push_back(px);
      ot.push_back(std::clamp(pt, ot.back(), t[i + 1]));
    };
    if (flat && S > std::max(L, R) * (1 + kSlack)) {  // an excess, both slopes beside it
      const double lo = x[i] + (0.5 - kSpread) * W, hi = x[i] + (0.5 + kSpread) * W;
      add(lo, t[i] + L * (lo - x[i]));
      add(hi, t[i + 1] - R * (x[i + 1] - hi));
    } else if (flat && S < std::min(L, R) * (1 - kSlack)) {
      // A deficit: both slopes for a length w, L·w + R·w being its cost.
      const double w = S * W / (L + R);
      add(x[i] + w, t[i] + L * w);
      add(x[i + 1] - w, t[i + 1] - R * w);
    } else if (flat && (L - S) * (S - R) > 0 && std::abs(L - R) > kSlack * std::max(L, R)) {
      // An edge at k, where t_i + L·(k − x_i) = t_{i+1} − R·(x_{i+1} − k).
      const double k = (t[i + 1] - t[i] - R * W) / (L - R);
      add(x[i] + k, t[i] + L * k);
    } else if (smooth) {
      for (int j = 1; j < kSamples; ++j) {
        const double px = x[i] + W * j / kSamples;
        add(px, t[0] + smooth->cost(x[0], px));
      }
    }
    ox.push_back(x[i + 1]);
    ot.push_back(t[i + 1]);
  }
  x = std::move(ox);
  t = std::move(ot);
}

}  // namespace isocost::detail
