// isocost/decompose.hpp — multi-dimensional partitions of a Density: rows or
// slabs, jagged (staggered) 2-D grids and 3-D recursive sectioning, each level
// a 1-D partition of a marginal (Swartz §5: choose rows to reduce the problem to
// one unknown; ParaDiS sections x, then y within x slabs, then z within columns).
//
//   auto rho = isocost::analytic_density(f, isocost::Box::of({0, 0}, {20, 20}));
//   isocost::ProcessGrid rows{{4}, {1}};                   // 4 rows: cuts along y
//   auto d = isocost::decompose(rho, rows, isocost::Speeds::uniform(4));
//   // d.parts[i].box is rank i's box
//
// Naming: a "grid" is always a grid of cells (GridShape, grid_density()); how
// the ranks are laid out over the domain is a ProcessGrid (process_grid,
// choose_process_grid()). The CLI's --grid option takes a process grid.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "isocost/density.hpp"
#include "isocost/partition.hpp"
#include "isocost/result.hpp"

namespace isocost {

/// A recursive sectioning: level l cuts each piece of the previous level into
/// counts[l] slabs along axis axes[l]. {{P}, {a}} is P slabs along axis a;
/// {{px, py}, {0, 1}} is px columns in x, each cut into py parts along y (a
/// jagged grid); {{px, py, pz}, {0, 1, 2}} is ParaDiS's x → y → z sectioning.
/// Ranks are numbered lexicographically by level index (the last level
/// fastest); a slab's share of the work is the sum of its ranks' speeds.
struct ProcessGrid {
  std::vector<int> counts;  ///< parts per level, each >= 1; product = P
  std::vector<int> axes;    ///< the axis cut at each level; distinct, < dims

  /// Product of the counts.
  int ranks() const;
  /// "4x4 along y,x" style name.
  std::string name() const;
  /// Throws Error unless counts and axes fit a density of `dims` dimensions.
  void validate(int dims) const;
  /// The total area of the internal cuts of any decomposition of `box` by this
  /// grid: Σ_l (counts[l] − 1)·(the box's area across axes[l]), since a
  /// level's cuts span its pieces, which tile the box. decompose() sums the
  /// same part by part (Decomposition::cut_surface); the two agree to rounding.
  double cut_surface(const Box& box) const;
};

/// Parses "4x2" (counts in axis order x, y, z: level l cuts axis l) or "auto".
/// Throws Error otherwise. "auto" gives an empty grid.
ProcessGrid parse_process_grid(const std::string& text, int dims);

/// Settings for decompose().
struct DecomposeOptions {
  /// Root finding for continuous densities (each level's marginal).
  CutOptions cut;
  /// Smallest width a part may have along each axis, in box units (e.g. a halo
  /// of 2 cells is 2 on a cell-unit grid). Parts narrower than this are not
  /// produced: the cuts are moved (minimising the heaviest part under the
  /// constraint), or, when P parts of that width cannot fit, an Error says so.
  /// On grids every part has at least one cell along each axis it is cut on.
  std::array<double, kMaxDims> min_width{0, 0, 0};

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("cut", self.cut);
    v("min_width", self.min_width, at_least(0));
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("decompose options: …") unless is_valid().
  void validate() const { validate_options(*this, "decompose options"); }
};

/// One rank's part.
struct Part {
  int rank = 0;
  Box box;
  /// Gridded densities: the cell ranges [cell_lo, cell_hi) along each axis.
  std::array<std::int64_t, kMaxDims> cell_lo{0, 0, 0};
  std::array<std::int64_t, kMaxDims> cell_hi{0, 0, 0};
  double cost = 0;     ///< ∫ rho over the box
  double time = 0;     ///< cost / speed
  double volume = 0;   ///< box volume
  double surface = 0;  ///< area of the box's faces shared with other parts
};

/// A decomposition and what it predicts.
struct Decomposition {
  ProcessGrid process_grid;  ///< the recursive sectioning used
  std::vector<Part> parts;   ///< rank order
  double total_cost = 0;
  double predicted_le = 0;  ///< L_E of the parts' times, percent (Swartz eq. 3)
  double max_time = 0;      ///< the heaviest part's cost / speed
  double cut_surface = 0;   ///< total area of the internal cuts (each counted once)
  bool on_grid_lines = false;
  DecomposeOptions options;  ///< the options given
  /// converged, or iteration_limit when a continuous cut ran out of iterations.
  Termination termination = Termination::converged;
  bool converged() const noexcept { return termination == Termination::converged; }

  int ranks() const noexcept { return static_cast<int>(parts.size()); }
  /// One line: process grid, ranks, predicted L_E, heaviest part, cut surface.
  std::string brief_report() const;
  /// Several lines: the brief report and every part's box, cost and time.
  std::string full_report() const;
};

/// Partitions `density` by the recursive sectioning `process_grid` for
/// `speeds` (speeds.ranks() must equal process_grid.ranks()).
///
/// Continuous densities: each level solves t(x_i) = target_i on the marginal of
/// its piece (Newton on marginal/cross_section, as the 1-D partitioner).
/// Gridded densities: cuts fall on grid lines ("perfection complex", Swartz
/// §5). Rule: at each level, the cuts of a piece are the grid lines that
/// minimise its heaviest slab, max_j cost_j / S_j (S_j = the speeds of slab j's
/// ranks), among all contiguous splits into counts[l] slabs of at least the
/// minimum width (exact chains-on-chains: bisection on that bottleneck, each
/// probe tracking every reachable boundary; of the optimal splits, the one
/// whose boundaries are latest, back to front). Levels are solved one after
/// another, coarsest first.
Decomposition decompose(const Density& density, const ProcessGrid& process_grid,
                        const Speeds& speeds, const DecomposeOptions& options = {});

/// Equal boxes of a grid of cells, with no weights to read: at every level of
/// `process_grid` each piece's n cells along the level's axis go to its k
/// slabs as [⌊n·j/k⌋, ⌊n·(j+1)/k⌋), ranks as decompose() numbers them. Cell
/// units (box [0, cells[a]] on each axis); each part's cost is its cell
/// count (speed 1). The uniform start of a GridBalancer at any grid size:
/// O(P) work and memory. Throws Error for a shape of 0 or more than 3
/// dimensions or an axis without cells, a process grid that does not fit
/// them, or a piece with fewer cells than slabs.
Decomposition decompose_uniform(const GridShape& shape, const ProcessGrid& process_grid);

/// Every grid choose_process_grid() considers for P ranks in `dims` dimensions: all
/// ordered factorisations of P into one factor per axis (factors of 1 allowed),
/// with every axis order (levels with a count of 1 are dropped).
std::vector<ProcessGrid> candidate_process_grids(int P, int dims);

/// The best candidate of candidate_process_grids(): among the balanced ones
/// (heaviest part max cost/speed within 1e-9 of the ideal total/S) the one
/// with the smallest cut surface (Swartz's area/volume remark), then the first
/// in candidate order; if none is balanced, the smallest heaviest part (ties
/// within 1e-12), then the smallest cut surface, then the first. Surfaces are
/// compared as ProcessGrid::cut_surface(), so grids whose surfaces are equal
/// in exact arithmetic tie instead of being told apart by rounding.
/// Candidates whose parts cannot have the minimum widths (or, on grids, one
/// cell each) are skipped; if none can, Error. Any other error propagates.
///
/// The search is pruned, with the same result as trying every candidate:
/// candidates are tried in order of cut surface, so the first balanced one
/// ends it, and on grids a candidate whose optimal first level already has a
/// heavier slab (per speed) than the best found is not decomposed. A smooth
/// density is usually balanced by its first candidate: 10^5 ranks take one
/// decomposition instead of 70.
Decomposition choose_process_grid(const Density& density, const Speeds& speeds,
                                  const DecomposeOptions& options = {});

}  // namespace isocost
