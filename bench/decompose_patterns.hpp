// The weight grids bench_decompose partitions and the baseline it compares
// isocost with: six 2-D weight patterns and a 3-D one (fixed seeds), the plain
// prefix-sum jagged split, and the balance of a set of parts summed from the
// raw weights (independent of the summed-area table). See bench/README.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/partition.hpp"

namespace isocost::bench {

using Cells = std::array<std::int64_t, kMaxDims>;

// ---------------------------------------------------------------------------
// Weight grids and patterns.

// A box of whole cells [c0, c1) along each axis (c0 = 0, c1 = 1 on unused axes).
struct CellBox {
  Cells c0{0, 0, 0}, c1{1, 1, 1};
};

// Raw per-cell weights, x fastest (the layout grid_density takes).
struct Grid {
  isocost::GridShape shape;
  std::vector<double> w;
  std::size_t bytes() const { return w.size() * sizeof(double); }
};

enum class Pattern { uniform, gaussian, gradient, hotspots, checkerboard, band };

const char* pattern_name(Pattern p);

// An n×n pattern. u, v are the cell centres scaled to [0, 1], so each pattern
// looks the same at every resolution.
//   uniform       U[0, 1) (mt19937_64, seed 1)
//   gaussian      0.05 + exp(−|p − (0.4, 0.6)|² / (2·0.1²))
//   gradient      exp(8u)  (heaviest/lightest column ≈ e^8 ≈ 3000)
//   hotspots      1 + Σ_k 200·exp(−|p − c_k|² / (2·0.01²)), 8 centres c_k
//                 uniform in [0.1, 0.9]² (seed 7); about half the mass in spots
//   checkerboard  blocks of n·5/128 cells (40 at n = 1024, not aligned with the
//                 parts' 64 cells), heavy 10, light 1
//   band          20 where |u − v| < 0.05, else 1
Grid make_pattern_2d(Pattern p, std::int64_t n);

// n³ cells: 0.5 + U[0, 1) (seed 3) + 4·exp(−|p − (0.4, 0.5, 0.6)|² / (2·0.15²)).
Grid make_pattern_3d(std::int64_t n);

// ---------------------------------------------------------------------------
// Balance, from the raw weights (independent of the summed-area table).

// Σ weights over the cells of `b`.
double box_sum(const Grid& g, const CellBox& b);

struct Balance {
  double max_over_avg = 0;
  std::int64_t cells = 0;  // cells covered by the parts (must be the grid's count)
};

// The heaviest part's cost over the average part cost, and the cells covered.
Balance balance(const Grid& g, const std::vector<CellBox>& parts);

// The parts of `d` as boxes of whole cells.
std::vector<CellBox> cell_boxes(const isocost::Decomposition& d, int dims);

// Largest |cost from the summed-area table − cost from the raw weights|, as a
// fraction of the average part cost.
double sat_error(const Grid& g, const isocost::Decomposition& d, const std::vector<CellBox>& boxes);

// ---------------------------------------------------------------------------
// The baseline: the plain prefix-sum jagged split. At each level, the piece's
// marginal along the level's axis is summed from the raw weights, and cut i of
// m is the first cell boundary k whose prefix sum reaches i·S_n/m (S_n = the
// piece's total); then each slab is split the same way at the next level.
std::vector<CellBox> plain_jagged(const Grid& g, const isocost::ProcessGrid& pg);

}  // namespace isocost::bench
