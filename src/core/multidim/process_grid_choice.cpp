// Choosing the process grid (choose_process_grid): the candidates, their cut
// surfaces known before decomposing, and a bound on each candidate's heaviest
// part that lets the search skip what cannot win (decompose.hpp has the rule).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <set>

#include "core/shared/bottleneck_internal.hpp"
#include "core/shared/decompose_internal.hpp"
#include "isocost/decompose.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

using detail::DoesNotFit;
using detail::exact;

std::vector<ProcessGrid> candidate_process_grids(int P, int dims) {
  if (P < 1) throw Error(detail::expected_got("ranks", "an integer >= 1", std::to_string(P)));
  if (dims < 1 || dims > kMaxDims)
    throw Error("expected 1 to 3 dimensions, got " + std::to_string(dims));
  std::vector<std::vector<int>> factorisations;  // one count per axis
  std::vector<int> f(static_cast<std::size_t>(dims), 1);
  // Ordered factorisations of P into `dims` factors.
  std::function<void(int, int)> rec = [&](int axis, int rest) {
    if (axis == dims - 1) {
      f[axis] = rest;
      factorisations.push_back(f);
      return;
    }
    for (int d = 1; d <= rest; ++d)
      if (rest % d == 0) {
        f[axis] = d;
        rec(axis + 1, rest / d);
      }
  };
  rec(0, P);
  std::vector<int> order(static_cast<std::size_t>(dims));
  std::set<std::pair<std::vector<int>, std::vector<int>>> seen;
  std::vector<ProcessGrid> out;
  for (const auto& counts : factorisations) {
    std::iota(order.begin(), order.end(), 0);
    do {
      ProcessGrid g;
      for (int a : order)
        if (counts[a] > 1) {
          g.counts.push_back(counts[a]);
          g.axes.push_back(a);
        }
      if (seen.insert({g.counts, g.axes}).second) out.push_back(g);
    } while (std::next_permutation(order.begin(), order.end()));
  }
  return out;
}

double ProcessGrid::cut_surface(const Box& box) const {
  double total = 0;
  for (std::size_t l = 0; l < counts.size(); ++l) {
    double across = 1;  // the box's area across axes[l]
    for (int b = 0; b < box.dims; ++b)
      if (b != axes[l]) across *= box.width(b);
    total += (counts[l] - 1) * across;
  }
  return total;
}

namespace {

// A lower bound on the heaviest part of any decomposition by `g` of a gridded
// density: its first level is the optimal bottleneck split (decompose()
// solves it exactly), and no later level can make a slab's heaviest part
// lighter than the slab's cost over its speed. `prefix` caches the whole
// box's prefix sums per axis. Returns 0 (no bound) when the first level does
// not fit, so that decompose() reports why.
double first_level_bound(const Density& d, const ProcessGrid& g, const Speeds& speeds,
                         const DecomposeOptions& o, std::vector<std::vector<double>>& prefix) {
  if (!d.grid() || g.counts.empty()) return 0;
  const int m = g.counts[0], axis = g.axes[0], q = g.ranks() / m;
  const std::int64_t n = d.grid()->cells[axis];
  const double cell = d.box().width(axis) / static_cast<double>(n);
  const auto min_cells = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::ceil(o.min_width[axis] / cell * (1 - 1e-12))));
  if (static_cast<std::int64_t>(m) * min_cells > n) return 0;
  auto& P = prefix[static_cast<std::size_t>(axis)];
  if (P.empty()) {
    P.assign(static_cast<std::size_t>(n) + 1, 0.0);
    std::array<std::int64_t, kMaxDims> c0{0, 0, 0}, c1{0, 0, 0};
    for (int a = 0; a < d.dims(); ++a) c1[a] = d.grid()->cells[a];
    for (std::int64_t k = 1; k <= n; ++k) {
      c1[axis] = k;
      P[static_cast<std::size_t>(k)] = d.cell_mass(c0, c1);
    }
  }
  std::vector<double> capacity(static_cast<std::size_t>(m), 0.0);
  for (int j = 0; j < m; ++j)
    for (int r = 0; r < q; ++r) capacity[j] += speeds.speed(j * q + r);
  const auto cuts = bottleneck_cuts(P, capacity, min_cells);
  // Rounding: the parts' own sums may differ from the slab's in the last bits.
  return detail::bottleneck_of(P, capacity, cuts) * (1 - 1e-12);
}

}  // namespace

Decomposition choose_process_grid(const Density& density, const Speeds& speeds,
                                  const DecomposeOptions& options) {
  const auto candidates = candidate_process_grids(speeds.ranks(), density.dims());
  std::vector<std::vector<double>> prefix(static_cast<std::size_t>(density.dims()));
  return detail::choose_among(
      candidates, density.box(), density.total() / speeds.total(), speeds.ranks(),
      [&](std::size_t c) {
        return first_level_bound(density, candidates[c], speeds, options, prefix);
      },
      [&](std::size_t c) { return decompose(density, candidates[c], speeds, options); });
}

}  // namespace isocost
