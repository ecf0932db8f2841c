// The cumulative measured cost of a block distribution, and the accumulated
// points of earlier rounds with drifted rounds aged out (cumulative_points.hpp).
#include "core/pipeline/cumulative_points.hpp"

#include <algorithm>
#include <cmath>

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

}  // namespace isocost::detail
