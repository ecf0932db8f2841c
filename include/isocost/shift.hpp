// isocost/shift.hpp — applying diffusion transfers to partitions: every
// boundary between two neighbouring ranks moves so that the load crossing it
// equals the transfer on their edge, by root finding on the cost model
// (Watts ch. 3: diffusion gives the transfers, the partition carries them out).
//
// Signs. Rank i owns [x_i, x_{i+1}). A transfer T > 0 on edge (i, i+1) means
// rank i sends T to rank i+1, so rank i must shrink from the right: the
// boundary x_{i+1} moves LEFT (T < 0: it moves right).
//
// Units. Transfers come from diffuse() in load units (measured seconds, say);
// the model counts model cost. Both meet in the load-unit cumulative function
// L, the cost model rescaled range by range so that each old range holds its
// measured load: on old range r = [x_r, x_{r+1}],
//     L(x) = Λ_r + (t(x) − t(x_r)) / ratio_r,   Λ_r = Σ_{s<r} cost_s / ratio_s,
// with ratio_r = cost_r / load_r (model cost per unit load; the global ratio,
// total cost / total load, when cost_r or load_r is 0). L is continuous and
// nondecreasing, and boundary k moves to where L(x_new) = L(x_old) − T. On a
// chain diffusion routinely routes work THROUGH a rank (rank 1 of loads
// 3, 1, 1, 1, 1 receives more than its own load and passes it on), so a
// boundary may cross several old ranges; the work it crosses is converted
// with the ratio of the range it lies in, i.e. of the rank that measured it.
// With every transfer applied exactly, rank i's new range holds
// L(x_{i+1,new}) − L(x_{i,new}) = load_i − out + in: the load diffuse()
// predicted (DiffusionSummary::loads), whenever no rank has a zero cost or
// load.
//
//   auto t = isocost::power_model(1, 1, 0, 0, 10);    // t(x) = x on [0, 10]
//   std::vector<double> cuts{0, 2, 4, 6, 8, 10}, loads{3, 1, 1, 1, 1};
//   auto g = isocost::mesh_graph({5}, false);
//   auto d = isocost::diffuse(g, loads);
//   auto s = isocost::shift_cuts(t, cuts, d.transfers, loads);
//   // s.predicted_load[i] == d.loads[i] (to rounding), nothing capped
#pragma once

#include <limits>
#include <span>
#include <string>
#include <vector>

#include "isocost/cost_model.hpp"
#include "isocost/cut.hpp"
#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/diffusion.hpp"

namespace isocost {

/// Settings for shift_cuts() and shift_jagged().
struct ShiftOptions {
  /// Optional cap on how far a boundary moves, > 0, after Pearce's "how much
  /// load can be moved in one time step" (Table 3; Pearce's γ itself is
  /// SimulationOptions::gamma): a boundary moves at most max_move × the OLD
  /// width of the adjacent range on the side it moves toward. max_move <= 1
  /// keeps it inside that range (and then leaves that range at least
  /// min_width, as a range already narrower is not entered); max_move > 1
  /// lets it cross into further ranges. Default +∞: no cap, the boundary goes
  /// wherever the transfer takes it (the partition's ends aside).
  double max_move = std::numeric_limits<double>::infinity();
  /// Smallest width, in domain units, >= 0, that a new range may have where
  /// the old range was at least that wide (a narrower one must not shrink
  /// below its old width). Discrete models round it up to whole cells;
  /// shift_jagged() on a gridded density uses at least one cell.
  double min_width = 0.0;
  /// Root finding for each boundary: solve_cut() on the old range where the
  /// target lies (clipped to the cap); the cost tolerance is
  /// cost_tolerance × TT as in solve_cut().
  CutOptions cut;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("max_move", self.max_move, above(0).or_infinity());
    v("min_width", self.min_width, at_least(0));
    v("cut", self.cut);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("shift: …") unless is_valid().
  void validate() const { validate_options(*this, "shift"); }
};

/// What shift_cuts() did. Boundary b is cut b + 1, between ranks b and b + 1;
/// L is the load-unit cumulative function of the old partition (see the top of
/// this header).
struct ShiftResult {
  std::vector<double> cuts;  ///< P + 1 new cuts, nondecreasing; the ends never move
  /// P: model cost per unit load of each old range, cost_r / load_r (or the
  /// global ratio): the slope of t against L there.
  std::vector<double> ratio;
  /// P − 1: the transfer asked of boundary b, in load units (> 0: from rank b
  /// to b + 1, the boundary moves left).
  std::vector<double> requested;
  /// P − 1: L(x_old) − L(x_new), in load units: the load that did cross (equal
  /// to `requested` up to the root finder's tolerance unless capped or in a
  /// conflict; nearest-in-cost on discrete models).
  std::vector<double> applied;
  /// P − 1: t(x_old) − t(x_new), in model units: the model cost that crossed.
  std::vector<double> cost_moved;
  /// P − 1: the boundary stopped short of its target at its cap (max_move,
  /// the min_width room of max_move <= 1, or the partition's end).
  std::vector<bool> capped;
  /// P − 1: the boundary was pooled with neighbours by the ordering rule
  /// (see shift_cuts()) and placed at their common meeting point.
  std::vector<bool> conflict;
  std::vector<int> iterations;  ///< P − 1: root-finder iterations (0: no root find)
  std::vector<double> cost;     ///< P: model cost of each new range, t(x_{i+1}) − t(x_i)
  /// P: the load each rank is predicted to have with the new cuts under the
  /// measured-load-corrected model, L(x_{i+1,new}) − L(x_{i,new}).
  std::vector<double> predicted_load;
  double max_abs_residual = 0;  ///< max |t(x_new) − target| over the root finds (model units)
  /// converged, or iteration_limit when a root find ran out of iterations.
  Termination termination = Termination::converged;
  ShiftOptions options;  ///< the options given
  bool converged() const noexcept { return termination == Termination::converged; }

  /// Number of ranks P.
  int ranks() const noexcept { return static_cast<int>(ratio.size()); }
  /// Number of boundaries that were capped, and that were in a conflict.
  int capped_count() const;
  int conflict_count() const;
  /// One line: boundaries moved, capped, conflicts, largest |applied − requested|
  /// (load units).
  std::string brief_report() const;
};

/// Moves the P − 1 inner cuts of a 1-D partition by the transfers of the chain
/// of ranks (edge b = (b, b + 1), as diffuse() on mesh_graph({P}, false)
/// returns them). `cuts`: P + 1 finite, nondecreasing values inside the
/// model's domain (integers for a discrete model; the first and last are not
/// moved and need not be the domain's ends). `loads`: the measured load of
/// each rank, finite, >= 0, not all zero. `transfers`: finite, any sign, in
/// load units.
///
/// 1. Each boundary k on its own, from the OLD cuts: its target is
///    L* = L(x_k) − transfers[k − 1], clipped to the cap (max_move; the partition's
///    ends, which also keep the ranges between a boundary and the end at
///    least min_width). The old range r holding L* (the one nearest x_k when
///    L is flat there) gives the model target t(x_r) + (L* − Λ_r)·ratio_r,
///    solved on that range with solve_cut() — on discrete models the
///    nearest-in-cost grid line, so cuts stay integers. A clipped target is
///    flagged `capped`.
/// 2. Ordering and min_width. Solved on one nondecreasing L, two boundaries
///    can only cross when a rank's new load (load − out + in) is negative,
///    within the root finder's tolerance, or on stretches where t is flat;
///    and a range can fall below min_width. With g_i = min(min_width, old
///    width of range i) and G_k = g_0 + … + g_{k−1}, the requirement
///    x_{k+1} − x_k >= g_k is z_k = x_k − G_k nondecreasing. Consecutive
///    boundaries that violate it are pooled (pool-adjacent-violators, merging
///    until the pools are in order): a pool's boundaries meet at the point m
///    where L(m) is the mean of their realised L values (their L-weighted
///    meeting point), spread around it by their gaps (x_k = m + G_k − mean G),
///    then kept within the caps (for max_move <= 1 exactly; for max_move > 1 a pooled
///    boundary may be pushed as far as the cap of a boundary beyond it
///    reaches) and, on discrete models, rounded to whole cells (z half away
///    from zero). Pooled boundaries are flagged `conflict`; they may end short of
///    their targets or, when one rank gives away more than it has, on the
///    other side of their old position.
/// The result is nondecreasing, every new range is at least
/// min(min_width, its old width) wide (to rounding in the last bit), and with
/// max_move <= 1 every boundary stays within its cap.
///
/// If the model has no cost between the first and last cut there is nothing
/// to place by: nothing moves, every boundary with a nonzero transfer is
/// capped, and predicted_load is the measured load.
///
/// Throws Error for wrong sizes, unordered or out-of-domain cuts, negative or
/// non-finite loads, non-finite transfers, all-zero loads, bad options.
ShiftResult shift_cuts(const CostModel& model, std::span<const double> cuts,
                       std::span<const double> transfers, std::span<const double> loads,
                       const ShiftOptions& options = {});

/// A 1-D diffusive repartition in one call: the diffusion on the chain of P
/// ranks and the boundary shifts that carry it out.
struct ChainShift {
  DiffusionSummary diffusion;  ///< diffuse() on mesh_graph({P}, false)
  ShiftResult shift;           ///< shift_cuts() with the chain's transfers
  bool converged() const noexcept { return diffusion.converged() && shift.converged(); }
};

/// diffuse() on the chain of the P = cuts.size() − 1 ranks with `diffusion`,
/// then shift_cuts() with its transfers (edge b = (b, b + 1) moves boundary
/// b + 1) and `shift`: the one path every 1-D diffusive repartition takes
/// (isocost diffuse --cuts, the Balancer's diffusive block plan, each level of
/// shift_jagged()). Throws Error as diffuse() and shift_cuts().
ChainShift diffuse_and_shift(const CostModel& model, std::span<const double> cuts,
                             std::span<const double> loads, const DiffusionOptions& diffusion = {},
                             const ShiftOptions& shift = {});

/// Rebalances a 1- or 2-level decomposition (rows, or a jagged grid
/// {{px, py}, {a0, a1}} as decompose() makes it) of `density` from measured
/// per-rank `loads` by diffusion, rank numbering unchanged:
///  1. Columns: the load of column c is the sum of its ranks' loads; diffuse()
///     on the chain of px columns (mesh_graph({px}, false)), then shift_cuts()
///     on the density's marginal along a0 over the whole box.
///  2. Inside each (new) column: each rank's measured load per unit model cost
///     k_r = load_r / cost_r (its old part; the column's, then the global
///     ratio, when the part has no cost or no load) predicts its load in the
///     new column, k_r·cost(new column ∩ its old a1 range); diffuse() on the
///     chain of the column's py parts with those loads, then shift_cuts() on
///     the new column's own marginal along a1.
/// `options` apply at both levels; with the default (no max_move cap) a cut may cross
/// several old columns or parts, as the diffused work does.
/// Gridded densities: each level's marginal is the discrete model of the
/// slab's per-cell masses, so every shifted cut lies on a grid line (the one
/// nearest the continuous solution, i.e. the nearest in cost), order is kept
/// and every part keeps at least one cell (min_width is at least one cell).
/// The result's parts hold the new boxes (and cell ranges), cost = ∫rho over
/// the box, and time = k_r·cost: the predicted measured load (k_r plays the
/// role of 1/speed); predicted_le, max_time and cut_surface follow from them.
/// The decomposition's termination is iteration_limit if a root find or a
/// diffusion did not converge.
/// Throws Error for a decomposition that is not such a grid of `density`,
/// `loads` of the wrong size or with negative, non-finite or all-zero values,
/// and bad options.
Decomposition shift_jagged(const Density& density, const Decomposition& decomposition,
                           std::span<const double> loads, const DiffusionOptions& diffusion = {},
                           const ShiftOptions& options = {});

}  // namespace isocost
