// Shared by the model, multidim, mpi and cli tests: the chains-on-chains
// optimum by brute force, the independent value bottleneck_cuts(), the grid
// levels and the distributed optimum are checked against.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace isocost::testing {

// Calls f(b, bottleneck) for every split b (b_0 = 0 … b_m = n) of w into
// s.size() contiguous groups of >= w_min cells, bottleneck being
// max_j (sum of w over group j)/s_j.
template <class F>
void for_each_split(const std::vector<double>& w, const std::vector<double>& s, int w_min, F f) {
  const int n = static_cast<int>(w.size()), m = static_cast<int>(s.size());
  std::vector<int> b(static_cast<std::size_t>(m) + 1, 0);
  b[m] = n;
  std::function<void(int)> rec = [&](int j) {
    if (j == m) {
      double worst = 0;
      for (int k = 0; k < m; ++k) {
        if (b[k + 1] - b[k] < w_min) return;
        double c = 0;
        for (int i = b[k]; i < b[k + 1]; ++i) c += w[i];
        worst = std::max(worst, c / s[k]);
      }
      f(b, worst);
      return;
    }
    for (int x = b[j - 1]; x <= n; ++x) {
      b[j] = x;
      rec(j + 1);
    }
  };
  rec(1);
}

// Smallest max_j (sum of w over group j)/s_j over all splits into s.size()
// contiguous groups of >= w_min cells.
inline double brute_bottleneck(const std::vector<double>& w, const std::vector<double>& s,
                               int w_min) {
  double best = std::numeric_limits<double>::infinity();
  for_each_split(w, s, w_min,
                 [&](const std::vector<int>&, double worst) { best = std::min(best, worst); });
  return best;
}

// Of the optimal splits into s.size() non-empty contiguous groups, the
// latest: each boundary's largest value over all of them (b_0 = 0 …
// b_m = n). Costs are compared exactly, so give weights and capacities
// whose quotients are exact (integers over powers of two).
inline std::vector<std::int64_t> brute_latest_nonempty(const std::vector<double>& w,
                                                       const std::vector<double>& s) {
  const double best = brute_bottleneck(w, s, 1);
  std::vector<std::int64_t> latest(s.size() + 1, 0);
  for_each_split(w, s, 1, [&](const std::vector<int>& b, double worst) {
    if (worst > best) return;
    for (std::size_t k = 0; k < b.size(); ++k) latest[k] = std::max<std::int64_t>(latest[k], b[k]);
  });
  return latest;
}

// Whether the cells split into s.size() non-empty contiguous groups with
// (sum of group j) <= B·s_j: every reachable boundary, part after part, in
// a plain table (O(m·n), for moderate sizes).
inline bool nonempty_feasible(const std::vector<double>& P, const std::vector<double>& s,
                              double B) {
  const std::size_t n = P.size() - 1;
  std::vector<char> row(n + 1, 0), next(n + 1, 0);
  row[0] = 1;
  for (const double cap : s) {
    // Boundary k is reached iff the latest reached p < k leaves a part
    // [p, k) that fits (an earlier p only makes it heavier).
    std::ptrdiff_t last = -1;
    next[0] = 0;
    for (std::size_t k = 1; k <= n; ++k) {
      if (row[k - 1]) last = static_cast<std::ptrdiff_t>(k - 1);
      next[k] = last >= 0 && P[k] <= P[static_cast<std::size_t>(last)] + B * cap;
    }
    row.swap(next);
  }
  return row[n] != 0;
}

}  // namespace isocost::testing
