// isocost/rebalance_grid.hpp — new multi-dimensional decompositions of a grid
// of cells from measured per-rank loads: the repartition phase of the
// balancing pipeline for 2-D and 3-D data (Watts ch. 2–3; Swartz §5), serial
// and deterministic, so every rank computes the same plan from the same
// gathered loads. The multi-dimensional counterpart of rebalance.hpp.
//
// A decomposition of a grid of `shape` cells lists one Part per rank, in rank
// order, each with its cell ranges [cell_lo[a], cell_hi[a]) along the grid's
// axes (as decompose() of a grid_density() gives them); the parts tile the
// grid. Only the cell ranges are read from the current decomposition.
//
//   isocost::GridShape shape{2, {64, 64, 1}};
//   auto now = isocost::decompose(isocost::grid_density(w, shape), {{2, 2}, {0, 1}},
//                                 isocost::Speeds::uniform(4));
//   std::vector<double> t{1.0, 1.2, 0.8, 3.0};                 // measured seconds
//   auto g = isocost::rebalance_grid_global(shape, now, t, isocost::Speeds::uniform(4));
//   auto d = isocost::rebalance_grid_diffusive(shape, now, t); // diffusion + shifted cuts
//   // g.decomposition.parts[r].cell_lo/cell_hi, g.elements_moved …
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/diffusion.hpp"
#include "isocost/options.hpp"
#include "isocost/partition.hpp"
#include "isocost/rebalance.hpp"
#include "isocost/shift.hpp"

namespace isocost {

/// One earlier measurement of a grid: its parts (only the cell ranges are
/// read) and the loads measured on them.
struct GridRound {
  Decomposition parts;
  std::vector<double> loads;  ///< one per part, seconds
};

/// Settings for rebalance_grid_global().
struct GridGlobalRebalanceOptions {
  /// Minimum part widths (box units of the grid, see rebalance_grid_global())
  /// and cut options, passed to decompose().
  DecomposeOptions decompose;
  /// The history (rebalance_grid_global()'s `history`): at most this many of
  /// the newest rounds refine the per-cell estimate, >= 0 (0: none); a
  /// GridBalancer keeps as many. Not used by its forecast
  /// (GridBalancerOptions::predict); GridRebalance::history_used says how
  /// many rounds a plan used. See GlobalRebalanceOptions::history.
  int history = 4;
  /// A history round that the refined estimate still misses by more than
  /// this fraction of the total (summed over its parts) has drifted and is
  /// left out with every older round. In (0, 1].
  double history_tolerance = 0.03;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("decompose", self.decompose);
    v("history", self.history, at_least(0));
    v("history_tolerance", self.history_tolerance, left_open(0, 1));
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("rebalance_grid: …") unless is_valid().
  void validate() const { validate_options(*this, "rebalance_grid"); }
};

/// Settings for rebalance_grid_weights().
struct GridWeightsRebalanceOptions {
  /// Minimum part widths (box units) and cut options, passed to decompose().
  DecomposeOptions decompose;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("decompose", self.decompose);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("rebalance_grid: …") unless is_valid().
  void validate() const { validate_options(*this, "rebalance_grid"); }
};

/// Settings for rebalance_grid_diffusive(): the same as the 1-D diffusive
/// plan's (rebalance.hpp), applied at each level; min_width in box units.
using GridDiffusiveRebalanceOptions = DiffusiveRebalanceOptions;

/// The settings a GridRebalance was computed with (result.hpp's `options`):
/// those of the function that made it, or std::monostate when none did.
using GridRebalanceOptions =
    std::variant<std::monostate, GridGlobalRebalanceOptions, GridWeightsRebalanceOptions,
                 GridDiffusiveRebalanceOptions>;

/// A new decomposition of a grid of cells and what moving to it costs.
struct GridRebalance {
  GridRebalanceOptions options;  ///< the settings given; method() says whose
  /// global, weights or diffusion (none: no plan).
  PlanMethod method() const noexcept;
  /// The new parts, rank order, with cell ranges [cell_lo, cell_hi). Part
  /// cost is the estimated cost of the part, time its predicted time.
  Decomposition decomposition;
  std::vector<double> predicted_time;  ///< per rank, seconds (measured-load units)
  double predicted_imbalance = 0;      ///< max/avg − 1 of predicted_time
  double measured_imbalance = 0;       ///< max/avg − 1 of the loads
  /// Cells whose owner changes, Σ_r (cells_r(new) − |old_r ∩ new_r|): the
  /// least any migration between the two decompositions must move.
  std::int64_t elements_moved = 0;
  /// The most cells any one rank receives (Pearce's ElementsMoved_max).
  std::int64_t max_elements_received = 0;
  /// The cell ranges are a forecast for the coming interval (GridBalancer's
  /// `predict`); predicted_time and predicted_imbalance are the plan's for the
  /// loads as measured.
  bool forecast = false;
  /// Global only: the history rounds that refined the estimate, and the older
  /// ones left out because the load had drifted since.
  int history_used = 0;
  int history_dropped = 0;
  /// converged when every root find and diffusion involved converged;
  /// iteration_limit otherwise.
  Termination termination = Termination::converged;
  bool converged() const noexcept { return termination == Termination::converged; }

  std::string brief_report() const;  ///< one line
};

/// Global repartition (Swartz §5 from measurements). `current` is a
/// decomposition of a grid of `shape` cells (on grid lines, parts in rank
/// order, tiling the grid, its ProcessGrid valid for shape.dims dimensions);
/// rank r measured loads[r] seconds for its part.
///
/// The cost is estimated piecewise constant: every cell of part r costs
/// loads[r]·speed[r]/cells(r) (an empty part contributes nothing; a non-empty
/// part with load 0 counts as free) — the multi-dimensional analogue of
/// interpolating the cumulative 1-D cost. The new parts are decompose() of
/// grid_density() of that estimate with current.process_grid, the speeds and
/// options.decompose (each level's cuts minimise its heaviest slab exactly,
/// on grid lines). predicted_time[r] is the new part's estimated cost /
/// speed[r]. When the code knows each cell's cost, rebalance_grid_weights()
/// cuts that instead.
///
/// If the new parts' heaviest predicted time is not below the current parts'
/// (under the same estimate: the heaviest measured load of a non-empty part,
/// to a relative 1e-12), the current decomposition is kept: nothing moves and
/// predicted_time is its estimate (normally the loads, 0 for empty parts).
///
/// Boxes: the grid covers the current parts' bounding box when that is a
/// valid box of shape.dims dimensions (e.g. the parts came from decompose() of
/// a grid_density on some box), else cell units [0, cells[a]]. If only empty
/// parts measured anything (the estimate would be zero everywhere), the
/// measured total is spread evenly over the cells.
///
/// `history`: earlier rounds on the same grid, oldest first. One load per
/// part says nothing about where inside the part the cost lies, so a plan
/// from one round can keep missing a narrow hot spot; earlier rounds cut
/// elsewhere. The per-cell estimate is refined until every part of every
/// round sums to its measured cost (iterative proportional fitting, each
/// round scaled to the current total, the current round's sums exact); a
/// round still missed by more than options.history_tolerance has drifted and
/// is left out with every older one.
///
/// Cost: the estimate is constant on the blocks that every round's part
/// boundaries cut the grid into, and is held, fitted and cut on those blocks
/// — O(blocks + the cells along each axis) time and memory, no per-cell
/// array (a GridBalancer's check from loads alone).
///
/// Throws Error for loads of the wrong count, negative, non-finite or all
/// zero; a `current` (or history round) that does not tile `shape` (naming
/// the part and cell); a speed count other than the number of parts; history
/// rounds with another number of parts or loads; bad options.
GridRebalance rebalance_grid_global(const GridShape& shape, const Decomposition& current,
                                    std::span<const double> loads, const Speeds& speeds,
                                    const GridGlobalRebalanceOptions& options = {},
                                    std::span<const GridRound> history = {});

/// Global repartition from per-cell costs the code measured or modelled
/// (e.g. particles per cell): decompose() of grid_density(cell_costs) with
/// current.process_grid, the speeds and options.decompose; `cell_costs` holds every
/// cell of `shape`, x fastest, finite, >= 0, not all zero. predicted_time is in
/// the costs' units per speed. As in rebalance_grid_global(), the current
/// parts are kept when the new ones are no lighter at their heaviest. Throws
/// Error as rebalance_grid_global(), and for a cost count other than the
/// grid's cells.
GridRebalance rebalance_grid_weights(const GridShape& shape, const Decomposition& current,
                                     std::span<const double> cell_costs, const Speeds& speeds,
                                     const GridWeightsRebalanceOptions& options = {});

/// rebalance_grid_weights() for new parts cut elsewhere from costs no one
/// place holds whole — by mpi::decompose_grid() on the ranks' boxes, as the
/// GridBalancer does with per-cell costs: `next` holds the new cell ranges
/// and part times (any box units), `now` the current parts' times under the
/// same costs. The new parts get the current decomposition's box units (as
/// rebalance_grid_global()), and the current parts are kept unless next's
/// heaviest part is lighter. O(P): no per-cell array. Throws Error for a
/// `next` or `now` of another part count, speeds of another count or bad
/// options.
GridRebalance rebalance_grid_with(const GridShape& shape, const Decomposition& current,
                                  Decomposition next, std::span<const double> now,
                                  const Speeds& speeds,
                                  const GridWeightsRebalanceOptions& options = {});

/// Diffusive repartition: shift_jagged() of `current` (rows, or a 2-level
/// jagged grid) on a uniform-cost grid of `shape` (every cell costs 1: the
/// measured loads correct it, shift.hpp) — or on `cell_costs` when the code
/// gives them — with options.diffusion and options.shift, keeping the rank
/// numbering. predicted_time[r] (and the part's cost and time) is the new
/// part's cost under the load-corrected estimate in measured-load units
/// (every cell c of old part s costs loads[s]·w_c/W_s, w the cell costs or 1,
/// W_s their sum over part s), the multi-dimensional form of
/// rebalance_diffusive()'s prediction, comparable with
/// rebalance_grid_global()'s. Speeds are not used: diffusion equalises
/// measured times. Boxes as in rebalance_grid_global(). Without `cell_costs`
/// no per-cell array is made: O(P + the cells along each axis) plus the
/// overlaps of old and new parts. Throws Error as rebalance_grid_global(),
/// and for grids of more than 2 levels.
GridRebalance rebalance_grid_diffusive(const GridShape& shape, const Decomposition& current,
                                       std::span<const double> loads,
                                       const GridDiffusiveRebalanceOptions& options = {},
                                       std::span<const double> cell_costs = {});

/// Cells whose owner changes between two decompositions of the same grid
/// (same number of parts P), and the most any one rank receives:
/// Σ_r (cells_r(new) − |old_r ∩ new_r|), from the parts' cell ranges. Axes on
/// which every part of both has the range [0, 0) are not grid axes (e.g. z of
/// a 2-D decomposition). Throws Error for different P, an inverted range, or
/// two decompositions whose extents (largest cell_hi per axis) or cell
/// counts differ.
std::pair<std::int64_t, std::int64_t> grid_cells_moved(const Decomposition& from,
                                                       const Decomposition& to);

}  // namespace isocost
