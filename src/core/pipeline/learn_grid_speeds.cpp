// learn_speeds() on rounds of boxes of a grid (isocost/learn_speeds.hpp):
// the shared solver (speed_fit.hpp) on a tensor product of hats, with as
// many knots along each axis as the rounds' cuts there and the equations
// afford.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/pipeline/speed_fit.hpp"
#include "core/shared/decompose_internal.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/learn_speeds.hpp"

namespace isocost {

namespace {

// One load with its box of cells.
struct BoxObservation {
  int rank = 0;
  std::array<std::int64_t, kMaxDims> lo{}, hi{};
  double load = 0;
};

// Every round's parts inside the grid, as many as round 0's, one load each.
void check_rounds(const GridShape& shape, std::span<const GridRound> rounds) {
  if (shape.dims < 1 || shape.dims > kMaxDims || shape.count() <= 0)
    throw Error("learn_speeds: expected a grid of 1 to 3 dimensions with cells, got " +
                std::to_string(shape.dims) + " dimensions and " + std::to_string(shape.count()) +
                " cells");
  const std::size_t P = rounds.front().parts.parts.size();
  for (std::size_t j = 0; j < rounds.size(); ++j) {
    const GridRound& h = rounds[j];
    const std::string name = "learn_speeds: round " + std::to_string(j);
    if (h.parts.parts.size() != P || h.loads.size() != P)
      throw Error(detail::expected_got(name, std::to_string(P) + " parts and loads (round 0's)",
                                       std::to_string(h.parts.parts.size()) + " parts and " +
                                           std::to_string(h.loads.size()) + " loads"));
    for (std::size_t r = 0; r < P; ++r) {
      const Part& p = h.parts.parts[r];
      for (int a = 0; a < shape.dims; ++a) {
        const auto ax = static_cast<std::size_t>(a);
        if (p.cell_lo[ax] < 0 || p.cell_lo[ax] > p.cell_hi[ax] || p.cell_hi[ax] > shape.cells[ax])
          throw Error(detail::expected_got(
              name + ": cells of part " + std::to_string(r) + " along axis " + std::to_string(a),
              "a range within [0, " + std::to_string(shape.cells[ax]) + "]",
              "[" + std::to_string(p.cell_lo[ax]) + ", " + std::to_string(p.cell_hi[ax]) + ")"));
      }
      const double v = h.loads[r];
      if (!(v >= 0) || !std::isfinite(v))
        throw Error(detail::expected_got(name + ": load " + std::to_string(r),
                                         "a finite number >= 0", detail::exact(v)));
    }
  }
}

// The knots along each axis: one (a constant) where no part of any round is
// cut short; else at the newest round's cut lines there (with the grid's
// ends), where the parts are small because the cost is high, so the
// density resolves what the balance depends on. From 2 up to all of those
// lines (a density finer than the parts is not seen by their loads), the
// axis furthest below its lines growing first while the product stays
// within `budget`, and the lines picked evenly in rank when fewer.
std::array<std::vector<double>, kMaxDims> knots_per_axis(const GridShape& shape,
                                                         std::span<const GridRound> rounds,
                                                         int budget, int given) {
  std::array<std::vector<double>, kMaxDims> lines;
  std::array<int, kMaxDims> k{1, 1, 1}, cap{1, 1, 1};
  for (int a = 0; a < shape.dims; ++a) {
    const auto ax = static_cast<std::size_t>(a);
    bool cut = false;
    for (const GridRound& h : rounds)
      for (const Part& p : h.parts.parts)
        cut = cut || p.cell_lo[ax] > 0 || p.cell_hi[ax] < shape.cells[ax];
    if (!cut) continue;
    std::vector<double>& l = lines[ax];
    l = {0, static_cast<double>(shape.cells[ax])};
    for (const Part& p : rounds.back().parts.parts)
      if (p.cell_lo[ax] > 0) l.push_back(static_cast<double>(p.cell_lo[ax]));
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
    k[ax] = given > 0 ? given : 2;
    cap[ax] = std::min<int>(static_cast<int>(l.size()), 64);
  }
  for (;;) {
    if (given > 0) break;
    int best = -1;
    double lag = 1;
    for (std::size_t a = 0; a < kMaxDims; ++a)
      if (k[a] > 1 && k[a] < cap[a] && static_cast<double>(k[a]) / cap[a] < lag)
        lag = static_cast<double>(k[a]) / cap[a], best = static_cast<int>(a);
    if (best < 0) break;
    const auto b = static_cast<std::size_t>(best);
    if ((k[0] * k[1] * k[2]) / k[b] * (k[b] + 1) > budget) break;
    ++k[b];
  }
  std::array<std::vector<double>, kMaxDims> at;
  for (std::size_t a = 0; a < kMaxDims; ++a) {
    const std::vector<double>& l = lines[a];
    const auto n = static_cast<std::size_t>(k[a]);
    if (n == 1) {
      at[a] = {0};
    } else if (n <= l.size()) {
      for (std::size_t i = 0; i < n; ++i) at[a].push_back(l[i * (l.size() - 1) / (n - 1)]);
    } else {  // more knots asked for than lines: equally spaced
      for (std::size_t i = 0; i < n; ++i)
        at[a].push_back(l.back() * static_cast<double>(i) / static_cast<double>(n - 1));
    }
  }
  return at;
}

LearnedSpeeds fit_grid(const GridShape& shape, std::span<const GridRound> rounds,
                       const SpeedLearningOptions& options) {
  const int P = static_cast<int>(rounds.front().parts.parts.size());
  std::vector<BoxObservation> obs;
  int distinct = 0;
  for (std::size_t j = 0; j < rounds.size(); ++j) {
    const GridRound& h = rounds[j];
    for (std::size_t r = 0; r < h.loads.size(); ++r) {
      const Part& p = h.parts.parts[r];
      bool empty = false;
      for (int a = 0; a < shape.dims; ++a)
        empty = empty ||
                p.cell_hi[static_cast<std::size_t>(a)] <= p.cell_lo[static_cast<std::size_t>(a)];
      if (!empty && h.loads[r] > 0)
        obs.push_back({static_cast<int>(r), p.cell_lo, p.cell_hi, h.loads[r]});
    }
    bool fresh = true;
    for (std::size_t i = 0; i < j && fresh; ++i)
      fresh = !detail::same_cells(rounds[i].parts, h.parts);
    distinct += fresh ? 1 : 0;
  }
  std::vector<detail::SpeedObservation> loads;
  for (const BoxObservation& o : obs) loads.push_back({o.rank, o.load});
  const auto basis = [&](int spare) {
    const auto at = knots_per_axis(shape, rounds, std::max(spare / 3, 1), options.knots);
    detail::SpeedBasis b;
    b.knots = static_cast<int>(at[0].size() * at[1].size() * at[2].size());
    const auto K = static_cast<std::size_t>(b.knots);
    b.integrals.resize(obs.size() * K);
    std::array<std::vector<double>, kMaxDims> along;
    for (std::size_t i = 0; i < obs.size(); ++i) {
      for (std::size_t a = 0; a < kMaxDims; ++a) {
        along[a].assign(at[a].size(), 1.0);
        if (static_cast<int>(a) < shape.dims)
          detail::hat_integrals(at[a], static_cast<double>(obs[i].lo[a]),
                                static_cast<double>(obs[i].hi[a]), along[a]);
      }
      // Knot (x, y, z) at x + kx·(y + ky·z): the product of its hats'.
      std::size_t at = i * K;
      for (std::size_t z = 0; z < along[2].size(); ++z)
        for (std::size_t y = 0; y < along[1].size(); ++y)
          for (std::size_t x = 0; x < along[0].size(); ++x)
            b.integrals[at++] = along[0][x] * along[1][y] * along[2][z];
    }
    return b;
  };
  return detail::fit_speeds(loads, P, distinct, basis, options);
}

}  // namespace

LearnedSpeeds learn_speeds(const GridShape& shape, std::span<const GridRound> rounds,
                           const SpeedLearningOptions& options) {
  options.validate();
  if (rounds.empty()) throw Error("learn_speeds: expected at least one round, got none");
  check_rounds(shape, rounds);
  return detail::fit_dropping_oldest(rounds.size(), options, [&](std::size_t first) {
    return fit_grid(shape, rounds.subspan(first), options);
  });
}

}  // namespace isocost
