// Shared by the multidim tests: the chains-on-chains optimum by brute force,
// the independent value bottleneck_cuts() and the grid levels are checked
// against.
#pragma once

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

namespace isocost::testing {

// Smallest max_j (sum of w over group j)/s_j over all splits into s.size()
// contiguous groups of >= w_min cells.
inline double brute_bottleneck(const std::vector<double>& w, const std::vector<double>& s,
                               int w_min) {
  const int n = static_cast<int>(w.size()), m = static_cast<int>(s.size());
  double best = std::numeric_limits<double>::infinity();
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
      best = std::min(best, worst);
      return;
    }
    for (int x = b[j - 1]; x <= n; ++x) {
      b[j] = x;
      rec(j + 1);
    }
  };
  rec(1);
  return best;
}

}  // namespace isocost::testing
