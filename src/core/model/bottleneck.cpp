// The chains-on-chains optimum of cell weights (partition.hpp:
// bottleneck_cuts(), an exact bisection on the bottleneck over a greedy
// probe, and partition_optimal(), its cuts of a discrete model).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/shared/bottleneck_internal.hpp"
#include "core/shared/reach.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/limits.hpp"
#include "isocost/partition.hpp"

namespace isocost {

using detail::exact;

namespace {

// Can the cells be split into parts with cost_j <= B·s_j, each at least w
// cells long? With minimum widths a greedy split is not enough (taking the
// most for one part can push the next onto heavy cells it cannot hold), so
// this tracks every reachable boundary (w = 1: the capped greedy first, then
// reach.hpp's intervals; w >= 2: this table): after part j, boundary k is reachable
// if some reachable p in [L(k), k − w] exists, L(k) being the first p with
// P[k] − P[p] <= B·s_j. O(m·n) with a running count. On success `cuts` holds
// the split that puts every boundary as late as possible, front to back; on
// failure `next` bounds the next feasible B from below (ProbeResult): the
// least B at which a greedy part would grow or the last part fit.
bool probe(std::span<const double> P, std::span<const double> s, std::int64_t w, double B,
           std::vector<std::int64_t>& cuts, std::vector<char>& reach,
           std::optional<detail::ReachableRows>& rows, double& next) {
  next = std::numeric_limits<double>::infinity();
  const auto n = static_cast<std::int64_t>(P.size()) - 1;
  const auto m = static_cast<std::int64_t>(s.size());
  if (w == 0) {
    // Without widths the greedy split is optimal (each greedy boundary is at
    // least as late as any feasible split's) and costs O(m log n).
    cuts.assign(static_cast<std::size_t>(m) + 1, 0);
    std::int64_t pos = 0;
    for (std::int64_t j = 0; j + 1 < m; ++j) {
      const double limit = P[pos] + B * s[j];
      const std::int64_t end =
          static_cast<std::int64_t>(std::upper_bound(P.begin() + pos, P.end(), limit) - P.begin()) -
          1;
      if (end < n) next = std::min(next, (P[end + 1] - P[pos]) / s[j]);
      pos = end;
      cuts[j + 1] = pos;
    }
    cuts[m] = n;
    if (P[n] - P[pos] <= B * s[m - 1]) return true;
    next = std::min(next, (P[n] - P[pos]) / s[m - 1]);
    return false;
  }
  if (w == 1) {
    // Non-empty parts: the greedy split, each part capped so that every
    // later part keeps a cell and forced to one cell. Each greedy boundary
    // is then at least as late as any feasible split's, so success proves
    // feasibility and, at equal capacities, failure proves infeasibility:
    // the forced cell lies in some feasible later part of the same
    // capacity. With unequal ones it may not fit this part's: then the
    // reachable boundaries decide (reach.hpp: O(m + the intervals of the
    // rows' windows) per probe, O(n/63) memory). O(m log n), as without
    // widths, while the greedy succeeds.
    cuts.assign(static_cast<std::size_t>(m) + 1, 0);
    std::int64_t pos = 0;
    bool equal = true;
    for (std::int64_t j = 1; j < m; ++j) equal = equal && s[j] == s[0];
    bool ok = true;
    for (std::int64_t j = 0; j + 1 < m && ok; ++j) {
      const double limit = P[pos] + B * s[j];
      const std::int64_t cap = n - (m - j - 1);
      std::int64_t end =
          static_cast<std::int64_t>(std::upper_bound(P.begin() + pos, P.end(), limit) - P.begin()) -
          1;
      // A capped part stays so at any larger B; an uncapped one grows at next.
      if (end < cap && end < n) next = std::min(next, (P[end + 1] - P[pos]) / s[j]);
      end = std::min(end, cap);
      if (end <= pos) {  // not even one cell fits
        ok = false;
        break;
      }
      pos = end;
      cuts[j + 1] = pos;
    }
    cuts[m] = n;
    if (ok && pos < n && P[n] - P[pos] <= B * s[m - 1]) return true;
    if (ok && pos < n) next = std::min(next, (P[n] - P[pos]) / s[m - 1]);
    if (equal) return false;
    if (!rows) rows.emplace(P, 0, n, s);
    return detail::reach_probe(P, s, B, *rows, cuts, next);
  }
  // reach[j·(n+1) + k]: boundary k reachable after j parts (one flat buffer,
  // reused across probes).
  const auto row = static_cast<std::size_t>(n) + 1;
  reach.assign((static_cast<std::size_t>(m) + 1) * row, 0);
  reach[0] = 1;
  std::vector<std::int64_t> count(static_cast<std::size_t>(n) + 2);
  for (std::int64_t j = 0; j < m; ++j) {
    const char* prev = reach.data() + static_cast<std::size_t>(j) * row;
    char* cur = reach.data() + static_cast<std::size_t>(j + 1) * row;
    count[0] = 0;
    for (std::int64_t i = 0; i <= n; ++i) count[i + 1] = count[i] + prev[i];
    std::int64_t L = 0;
    for (std::int64_t k = 0; k <= n; ++k) {
      while (L < k && P[k] - P[L] > B * s[j]) ++L;
      const std::int64_t hi = k - w;
      cur[k] = hi >= L && count[hi + 1] - count[L] > 0;
    }
  }
  next = B;
  if (!reach[static_cast<std::size_t>(m) * row + static_cast<std::size_t>(n)]) return false;
  cuts.assign(static_cast<std::size_t>(m) + 1, 0);
  cuts[m] = n;
  for (std::int64_t j = m - 1, k = n; j >= 0; --j) {
    // The latest reachable start p of part j with P[k] − P[p] <= B·s_j.
    std::int64_t p = k - w;
    while (p >= 0 && !(reach[static_cast<std::size_t>(j) * row + static_cast<std::size_t>(p)] &&
                       P[k] - P[p] <= B * s[j]))
      --p;
    cuts[j] = p;
    k = p;
  }
  return true;
}

}  // namespace

double detail::bottleneck_of(std::span<const double> P, std::span<const double> s,
                             const std::vector<std::int64_t>& cuts) {
  double worst = 0;
  for (std::size_t j = 0; j < s.size(); ++j)
    worst = std::max(worst, (P[cuts[j + 1]] - P[cuts[j]]) / s[j]);
  return worst;
}

std::vector<std::int64_t> bottleneck_cuts(std::span<const double> P, std::span<const double> s,
                                          std::int64_t min_cells) {
  if (P.size() < 2) throw Error("bottleneck_cuts: expected at least one cell");
  if (s.empty()) throw Error("bottleneck_cuts: expected at least one part");
  const auto n = static_cast<std::int64_t>(P.size()) - 1;
  const auto m = static_cast<std::int64_t>(s.size());
  if (min_cells < 0)
    throw Error(detail::expected_got("bottleneck_cuts: min_cells", "an integer >= 0",
                                     std::to_string(min_cells)));
  if (m * min_cells > n)
    throw Error(std::to_string(m) + " parts of at least " + std::to_string(min_cells) +
                " cells do not fit in " + std::to_string(n) + " cells");
  for (double v : s)
    if (!(v > 0) || !std::isfinite(v))
      throw Error(
          detail::expected_got("bottleneck_cuts: capacities", "finite numbers > 0", exact(v)));
  if (min_cells > 0) {
    // The unconstrained optimum is also optimal under the widths when it
    // happens to respect them — the usual case, at O(m log n) a probe.
    auto free = bottleneck_cuts(P, s, 0);
    bool wide = true;
    for (std::int64_t j = 0; j < m; ++j) wide = wide && free[j + 1] - free[j] >= min_cells;
    if (wide) return free;
  }
  // The serial probe for search_bottleneck(): the split in `cuts`, the best
  // kept in `best`.
  struct Serial {
    std::span<const double> P, s;
    std::int64_t w;
    std::vector<std::int64_t> cuts, best;
    std::vector<char> reach;
    std::optional<detail::ReachableRows> rows;
    detail::ProbeResult probe(double B) {
      double next = B;
      if (isocost::probe(P, s, w, B, cuts, reach, rows, next))
        return {true, detail::bottleneck_of(P, s, cuts)};
      return {false, next};
    }
    void keep() { best = cuts; }
  } serial{P, s, min_cells, {}, {}, {}, {}};
  // The search's first bound. With few cells a part (64 or fewer), the
  // heaviest cell w gives (total + (m − 1)·w)/S, its pass over the cells
  // costing no more than the probes do. With many more cells that pass
  // would be the whole cost (10⁸ cells into 16 parts: 60 ms against
  // microseconds): the proportional split's bottleneck instead, each cut
  // where the prefix reaches its share, O(m log n), total standing in for w.
  const double total = P[n] - P[0];
  double w_max = total, attained = std::numeric_limits<double>::infinity();
  if (n <= 64 * m) {
    w_max = 0;
    for (std::int64_t i = 0; i < n; ++i) w_max = std::max(w_max, P[i + 1] - P[i]);
  } else {
    double s_sum = 0, before = 0;
    for (const double v : s) s_sum += v;
    std::vector<std::int64_t> even{0};
    for (std::int64_t j = 0; j + 1 < m; ++j) {
      before += s[j];
      const double target = P[0] + total * (before / s_sum);
      even.push_back(std::lower_bound(P.begin() + even.back(), P.end(), target) - P.begin());
    }
    even.push_back(n);
    attained = detail::bottleneck_of(P, s, even);
  }
  if (!detail::search_bottleneck(total, w_max, s, serial, attained))
    throw Error("bottleneck_cuts: no split of " + std::to_string(n) + " cells into " +
                std::to_string(m) + " parts of >= " + std::to_string(min_cells) + " cells");
  return serial.best;
}

Partition partition_optimal(const CostModel& model, const Speeds& speeds,
                            const PartitionOptions& options) {
  options.validate();
  if (!model.is_discrete())
    throw Error(
        "partition_optimal: expected a discrete model (per-cell weights, discrete_model()), "
        "got a " +
        model.kind() + " model");
  const int P = speeds.ranks();
  if (P > kMaxParts) throw Error("partition_optimal: " + above_limit(P, kMaxParts, "parts"));
  const std::span<const double> prefix = model.prefix_sums();
  const std::vector<double> capacity = speeds.values();
  // Non-empty parts wherever the cells allow it: a rank with no cell is not
  // a partition the caller can use.
  const auto n = static_cast<std::int64_t>(prefix.size()) - 1;
  const std::vector<std::int64_t> cuts = bottleneck_cuts(prefix, capacity, n >= P ? 1 : 0);
  std::vector<double> t_at(cuts.size());
  for (std::size_t i = 0; i < cuts.size(); ++i) t_at[i] = prefix[static_cast<std::size_t>(cuts[i])];
  return partition_from_cuts(cuts, t_at, speeds, CutTermination::optimum, options, model.lo());
}

}  // namespace isocost
