// The cumulative measured cost of a block distribution, and the accumulated
// points of earlier rounds with drifted rounds aged out (cumulative_points.hpp).
#include "core/pipeline/cumulative_points.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/data/merge_internal.hpp"
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

Accumulated accumulate_rounds(std::span<const std::int64_t> offsets, std::span<const double> loads,
                              const Speeds& speeds, std::span<const BlockRound> history,
                              double tolerance) {
  Accumulated out;
  cumulative_points(offsets, loads, speeds, out.x, out.t);
  const double total = out.t.back();
  if (history.empty() || !(total > 0)) return out;
  // Each round as intervals, scaled to the current total, oldest first and
  // the current round last: merge_runs()'s proportional fitting keeps its
  // sums exactly and drops an older round it still misses by more than the
  // tolerance (the grid history's merge, on 1-D atoms).
  const auto chain = [](const std::vector<double>& x, const std::vector<double>& t, double scale) {
    std::vector<IntervalSample> run;
    for (std::size_t k = 1; k < x.size(); ++k)
      run.push_back({x[k - 1], x[k], (t[k] - t[k - 1]) * scale});
    return run;
  };
  std::vector<std::vector<IntervalSample>> runs;
  for (const BlockRound& h : history) {
    std::vector<double> hx, ht;
    cumulative_points(h.offsets, h.loads, speeds, hx, ht);
    if (!(ht.back() > 0)) continue;  // an idle round says nothing about the shape
    runs.push_back(chain(hx, ht, total / ht.back()));
  }
  runs.push_back(chain(out.x, out.t, 1.0));
  MergeOptions merge;
  merge.tolerance = tolerance;
  merge.converged = 1e-12;
  // Agreeing rounds converge in one sweep from the start (the chains'
  // cumulative); disagreeing ones (noise) are reconciled enough in a few,
  // and more would cost a check O(sweeps · atoms) (bench_rebalance).
  merge.max_sweeps = 20;
  const MergedRuns m = merge_intervals(runs, merge, "rebalance");
  out.x = m.x;
  out.t = m.t;
  out.rounds_used = m.runs_used - 1;
  out.rounds_dropped = m.runs_dropped;
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
