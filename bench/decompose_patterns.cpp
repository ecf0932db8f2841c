// The weight patterns, the balance from the raw weights and the plain
// prefix-sum jagged split of bench_decompose (decompose_patterns.hpp).
#include "decompose_patterns.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace isocost::bench {

// ---------------------------------------------------------------------------
// Weight grids and patterns.

const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::uniform:
      return "uniform";
    case Pattern::gaussian:
      return "gaussian";
    case Pattern::gradient:
      return "gradient";
    case Pattern::hotspots:
      return "hotspots";
    case Pattern::checkerboard:
      return "checkerboard";
    case Pattern::band:
      return "band";
  }
  return "?";
}

Grid make_pattern_2d(Pattern p, std::int64_t n) {
  Grid g;
  g.shape = isocost::GridShape{2, {n, n, 1}};
  g.w.resize(static_cast<std::size_t>(n * n));
  const double h = 1.0 / static_cast<double>(n);
  std::vector<std::array<double, 2>> spots;
  if (p == Pattern::hotspots) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> pos(0.1, 0.9);
    for (int k = 0; k < 8; ++k) {
      const double x = pos(rng);
      spots.push_back({x, pos(rng)});
    }
  }
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::int64_t block = std::max<std::int64_t>(1, n * 5 / 128);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i) {
      const double u = (static_cast<double>(i) + 0.5) * h, v = (static_cast<double>(j) + 0.5) * h;
      double w = 0;
      switch (p) {
        case Pattern::uniform:
          w = unit(rng);
          break;
        case Pattern::gaussian: {
          const double r2 = (u - 0.4) * (u - 0.4) + (v - 0.6) * (v - 0.6);
          w = 0.05 + std::exp(-r2 / (2 * 0.1 * 0.1));
          break;
        }
        case Pattern::gradient:
          w = std::exp(8 * u);
          break;
        case Pattern::hotspots: {
          w = 1;
          for (const auto& c : spots) {
            const double r2 = (u - c[0]) * (u - c[0]) + (v - c[1]) * (v - c[1]);
            w += 200 * std::exp(-r2 / (2 * 0.01 * 0.01));
          }
          break;
        }
        case Pattern::checkerboard:
          w = ((i / block + j / block) % 2) ? 10 : 1;
          break;
        case Pattern::band:
          w = std::abs(u - v) < 0.05 ? 20 : 1;
          break;
      }
      g.w[static_cast<std::size_t>(i + n * j)] = w;
    }
  return g;
}

Grid make_pattern_3d(std::int64_t n) {
  Grid g;
  g.shape = isocost::GridShape{3, {n, n, n}};
  g.w.resize(static_cast<std::size_t>(n * n * n));
  const double h = 1.0 / static_cast<double>(n);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::size_t idx = 0;
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) {
        const double u = (static_cast<double>(i) + 0.5) * h - 0.4;
        const double v = (static_cast<double>(j) + 0.5) * h - 0.5;
        const double t = (static_cast<double>(k) + 0.5) * h - 0.6;
        g.w[idx++] = 0.5 + unit(rng) + 4 * std::exp(-(u * u + v * v + t * t) / (2 * 0.15 * 0.15));
      }
  return g;
}

// ---------------------------------------------------------------------------
// Balance, from the raw weights (independent of the summed-area table).

double box_sum(const Grid& g, const CellBox& b) {
  const auto nx = g.shape.cells[0], ny = g.shape.cells[1];
  double s = 0;
  for (std::int64_t k = b.c0[2]; k < b.c1[2]; ++k)
    for (std::int64_t j = b.c0[1]; j < b.c1[1]; ++j) {
      const double* row = g.w.data() + nx * (j + ny * k);
      for (std::int64_t i = b.c0[0]; i < b.c1[0]; ++i) s += row[i];
    }
  return s;
}

Balance balance(const Grid& g, const std::vector<CellBox>& parts) {
  Balance b;
  double total = 0, worst = 0;
  for (const auto& p : parts) {
    const double c = box_sum(g, p);
    total += c;
    worst = std::max(worst, c);
    std::int64_t v = 1;
    for (int a = 0; a < kMaxDims; ++a) v *= p.c1[a] - p.c0[a];
    b.cells += v;
  }
  b.max_over_avg = worst / (total / static_cast<double>(parts.size()));
  return b;
}

std::vector<CellBox> cell_boxes(const isocost::Decomposition& d, int dims) {
  std::vector<CellBox> out;
  out.reserve(d.parts.size());
  for (const auto& p : d.parts) {
    CellBox b;
    for (int a = 0; a < dims; ++a) {
      b.c0[a] = p.cell_lo[a];
      b.c1[a] = p.cell_hi[a];
    }
    out.push_back(b);
  }
  return out;
}

// Largest |cost from the summed-area table − cost from the raw weights|, as a
// fraction of the average part cost.
double sat_error(const Grid& g, const isocost::Decomposition& d,
                 const std::vector<CellBox>& boxes) {
  const double avg = d.total_cost / static_cast<double>(d.parts.size());
  double worst = 0;
  for (std::size_t r = 0; r < boxes.size(); ++r)
    worst = std::max(worst, std::abs(d.parts[r].cost - box_sum(g, boxes[r])) / avg);
  return worst;
}

// ---------------------------------------------------------------------------
// The baseline (plain_jagged, decompose_patterns.hpp): one level of the plain
// split of `piece`, then each slab at the next level.

namespace {

void plain_split(const Grid& g, const CellBox& piece, const isocost::ProcessGrid& pg,
                 std::size_t level, std::vector<CellBox>& out) {
  if (level == pg.counts.size()) {
    out.push_back(piece);
    return;
  }
  const int axis = pg.axes[level], m = pg.counts[level];
  const auto nx = g.shape.cells[0], ny = g.shape.cells[1];
  const std::int64_t lo = piece.c0[axis], n = piece.c1[axis] - lo;
  std::vector<double> S(static_cast<std::size_t>(n) + 1, 0.0);
  for (std::int64_t k = piece.c0[2]; k < piece.c1[2]; ++k)
    for (std::int64_t j = piece.c0[1]; j < piece.c1[1]; ++j) {
      const double* row = g.w.data() + nx * (j + ny * k);
      if (axis == 0) {
        double* s = S.data() + 1 - lo;
        for (std::int64_t i = piece.c0[0]; i < piece.c1[0]; ++i) s[i] += row[i];
      } else {
        double r = 0;
        for (std::int64_t i = piece.c0[0]; i < piece.c1[0]; ++i) r += row[i];
        S[static_cast<std::size_t>((axis == 1 ? j : k) - lo + 1)] += r;
      }
    }
  std::partial_sum(S.begin(), S.end(), S.begin());
  const double total = S.back();
  std::int64_t prev = 0;
  for (int i = 0; i < m; ++i) {
    std::int64_t next = n;
    if (i + 1 < m) next = std::lower_bound(S.begin(), S.end(), total * (i + 1) / m) - S.begin();
    CellBox slab = piece;
    slab.c0[axis] = lo + prev;
    slab.c1[axis] = lo + next;
    plain_split(g, slab, pg, level + 1, out);
    prev = next;
  }
}

}  // namespace

std::vector<CellBox> plain_jagged(const Grid& g, const isocost::ProcessGrid& pg) {
  CellBox whole;
  for (int a = 0; a < g.shape.dims; ++a) whole.c1[a] = g.shape.cells[a];
  std::vector<CellBox> out;
  out.reserve(static_cast<std::size_t>(pg.ranks()));
  plain_split(g, whole, pg, 0, out);
  return out;
}

}  // namespace isocost::bench
