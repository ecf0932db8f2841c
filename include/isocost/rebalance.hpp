// isocost/rebalance.hpp — new 1-D block distributions from measurements: the
// "repartition" phase of the balancing pipeline (Watts ch. 2–3), serial and
// deterministic, so every rank computes the same answer from the same gathered
// numbers (the mpi layer's BlockBalancer does exactly that).
//
// A block distribution of N elements over P ranks is P + 1 integer offsets
// 0 = o_0 <= … <= o_P = N; rank r owns elements [o_r, o_{r+1}). Four plans,
// each with its own options:
//   rebalance_global     per-rank loads → the interpolated (or modelled)
//                        cumulative cost, cut into equal shares (Swartz §2);
//   rebalance_phases     per-rank, per-phase loads → cuts that minimise the
//                        phase-synchronised time (Watts ch. 4);
//   rebalance_weights    per-element costs the code measured or modelled →
//                        the discrete model of them, cut exactly;
//   rebalance_diffusive  per-rank loads → diffusion on the chain of ranks and
//                        the boundary shifts that carry it out (shift.hpp).
//
//   std::vector<std::int64_t> o{0, 250, 500, 750, 1000};
//   std::vector<double> t{1.0, 1.4, 2.1, 3.0};                 // measured seconds
//   const auto s = isocost::Speeds::uniform(4);
//   auto g = isocost::rebalance_global(o, t, s);    // pchip through the cumulative times
//   auto d = isocost::rebalance_diffusive(o, t);    // chain diffusion + boundary shifts
//   // g.offsets, g.elements_moved, g.predicted_imbalance …
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "isocost/cost_model.hpp"
#include "isocost/diffusion.hpp"
#include "isocost/options.hpp"
#include "isocost/partition.hpp"
#include "isocost/samples.hpp"
#include "isocost/shift.hpp"

namespace isocost {

/// One earlier measurement: a distribution and the loads measured on it.
struct BlockRound {
  std::vector<std::int64_t> offsets;  ///< P + 1 offsets of the same N elements
  std::vector<double> loads;          ///< P loads (seconds) measured on them
};

/// Settings for rebalance_global().
struct GlobalRebalanceOptions {
  /// How the cumulative measured cost between the current offsets is
  /// interpolated (Interpolation::pchip keeps it monotone and smooth).
  Interpolation interpolation = Interpolation::pchip;
  /// Builds the cost model from the samples instead of interpolating them
  /// (e.g. a Ceres fit from isocost::fitters, merging earlier rounds). Must
  /// return a model whose domain covers [o_0, o_P]. Empty: interpolate.
  std::function<CostModel(const Samples&)> model;
  /// Root finding for the cuts.
  CutOptions cut;
  /// The history (rebalance_global()'s `history`): at most this many of the
  /// newest rounds are merged, >= 0 (0: none); a BlockBalancer keeps as many.
  /// With one load per rank a round knows P + 1 points of the cost's shape,
  /// so a plan from the last round alone can cycle on a static narrow peak
  /// (max/avg 1.64 -> 1.78 -> 1.72 -> 1.57 -> 1.70 on 2 ranks); merging the
  /// earlier rounds' points converges (1.64 -> 1.78 -> 1.57 -> 1.35 -> 1.24
  /// -> 1.006; tests/core/pipeline/test_rebalance_convergence.cpp). Not used
  /// with `model` (the model sees the current round only) nor by a balancer's
  /// forecast (BlockBalancerOptions::predict), whose plans are each window's
  /// alone; BlockRebalance::history_used says how many rounds a plan merged.
  int history = 4;
  /// The rounds, each scaled to the current total, are merged on the atoms
  /// all their cuts make (merge_runs(): proportional fitting, the current
  /// round's loads held exactly); one the merge still misses by more than
  /// this fraction of the total (Σ over its ranges) is left out with every
  /// older round: the load has drifted since. In (0, 1].
  double history_tolerance = 0.03;
  /// With earlier rounds merged and interpolation pchip: locate the edges of
  /// the density among the points (a top-hat peak's sides, a step) instead
  /// of smoothing over them. Where the slopes beside an interval are flat
  /// and the interval's lies between them, they are extended until they
  /// meet; an interval steeper than its flat neighbours holds a concentrated
  /// excess, placed in its middle; pchip elsewhere. On top-hat peaks holding
  /// 60 % of the cost in 10, 5 or 2 % of the elements at 3, 4 and 8 ranks
  /// (48 positions each, the balancer's defaults) max/avg then exceeds 1.02
  /// after 5 rebalances in 25 of 432 runs instead of 74, and relapses above
  /// 1.03 in none instead of 13 (tests/core/pipeline/test_rebalance_peaks.cpp).
  bool edges = true;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("interpolation", self.interpolation);
    v("model", self.model);
    v("cut", self.cut);
    v("history", self.history, at_least(0));
    v("history_tolerance", self.history_tolerance, left_open(0, 1));
    v("edges", self.edges);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("rebalance: …") unless is_valid().
  void validate() const { validate_options(*this, "rebalance"); }
};

/// Settings for rebalance_phases().
struct PhaseRebalanceOptions {
  /// How each phase's cumulative measured cost is interpolated.
  Interpolation interpolation = Interpolation::pchip;
  /// Root finding for the cuts.
  CutOptions cut;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("interpolation", self.interpolation);
    v("cut", self.cut);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("rebalance: …") unless is_valid().
  void validate() const { validate_options(*this, "rebalance"); }
};

/// Settings for rebalance_weights().
struct WeightsRebalanceOptions {
  /// false: every cut is the element boundary nearest its target TT·S_i/S
  /// (the bottleneck is within one element's cost of the optimum). true: the
  /// exact chains-on-chains optimum, the smallest possible heaviest
  /// cost/speed with every rank keeping at least one element where P <= N
  /// (bottleneck_cuts()).
  bool optimal = false;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("optimal", self.optimal);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("rebalance: …") unless is_valid().
  void validate() const { validate_options(*this, "rebalance"); }
};

/// Settings for rebalance_diffusive().
struct DiffusiveRebalanceOptions {
  /// The diffusion scheme: on the chain of ranks (rebalance_diffusive()), at
  /// each level of a grid (rebalance_grid_diffusive()).
  DiffusionOptions diffusion;
  /// The boundary shifts: the max_move cap, and min_width in elements (1-D)
  /// or box units (grids).
  ShiftOptions shift;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("diffusion", self.diffusion);
    v("shift", self.shift);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("rebalance: …") unless is_valid().
  void validate() const { validate_options(*this, "rebalance"); }
};

/// Which plan a rebalance computed (BlockRebalance::method(),
/// GridRebalance::method(); none: no plan was computed, as in a balancer's
/// event without one).
enum class PlanMethod {
  none,
  global,     ///< from per-rank loads (rebalance_global(), rebalance_grid_global())
  phases,     ///< phase-synchronised (rebalance_phases(), Watts ch. 4)
  weights,    ///< from per-element costs (rebalance_weights(), rebalance_grid_weights())
  diffusion,  ///< diffusive (rebalance_diffusive(), rebalance_grid_diffusive())
};
/// "none", "global", "phases", "weights", "diffusion" ("?" for other values).
std::string_view to_string(PlanMethod method);

/// The settings a BlockRebalance was computed with (result.hpp's `options`):
/// those of the function that made it, or std::monostate when none did. The
/// alternatives are in PlanMethod's order.
using BlockRebalanceOptions =
    std::variant<std::monostate, GlobalRebalanceOptions, PhaseRebalanceOptions,
                 WeightsRebalanceOptions, DiffusiveRebalanceOptions>;

/// A new distribution and what moving to it costs.
struct BlockRebalance {
  BlockRebalanceOptions options;  ///< the settings given; method() says whose
  /// global, phases, weights or diffusion (none: no plan).
  PlanMethod method() const noexcept { return static_cast<PlanMethod>(options.index()); }
  std::vector<std::int64_t> offsets;   ///< P + 1 new offsets
  std::vector<double> predicted_time;  ///< per rank: model cost of the new range / speed
  double predicted_imbalance = 0;      ///< max/avg − 1 of predicted_time
  double measured_imbalance = 0;       ///< max/avg − 1 of the input loads (per speed)
  /// Elements whose owner changes, Σ_r (count_r − |old_r ∩ new_r|): the least
  /// any migration between the two distributions must move.
  std::int64_t elements_moved = 0;
  /// The most elements any one rank receives (Pearce's ElementsMoved_max).
  std::int64_t max_elements_received = 0;
  /// converged when every root find (and, for diffusion, the diffusion)
  /// converged; iteration_limit otherwise.
  Termination termination = Termination::converged;
  bool converged() const noexcept { return termination == Termination::converged; }
  /// Global only: the history rounds merged into the cumulative cost, and
  /// the older ones left out because the load had drifted since.
  int history_used = 0;
  int history_dropped = 0;
  /// The offsets are a forecast for the coming interval (BlockBalancer's
  /// `predict`); predicted_time and predicted_imbalance are the plan's for
  /// the loads as measured.
  bool forecast = false;
  /// Diffusion only: the diffusion on the chain of ranks.
  DiffusionSummary diffusion;
  /// Phases only: the phase-synchronised time Σ_phases max_ranks T (Watts
  /// ch. 4) measured, and predicted for the new ranges.
  double measured_synchronised = 0;
  double predicted_synchronised = 0;
  /// Phases only: the weight of each phase in the cost that was cut.
  std::vector<double> phase_weights;

  std::string brief_report() const;  ///< one line
};

/// Global functional repartition (Swartz §2, from measurements): rank r
/// measured loads[r] seconds for its elements [o_r, o_{r+1}); the cumulative
/// speed-1 cost through the offsets (time × speed, as samples_from_partition()
/// converts it) is interpolated (or modelled by options.model) and cut into P
/// integer ranges of cost share S_r/S, warm-started from the current offsets.
/// Ranks with empty ranges contribute nothing; a non-empty range with load 0
/// counts as free.
///
/// `history` (interpolation only): earlier rounds, oldest first, of which the
/// newest options.history are used. With one load
/// per rank, P + 1 cumulative points are all a round knows about the cost's
/// shape; earlier rounds cut elsewhere and add points. Each round's
/// cumulative cost is scaled to the current total and the rounds are merged
/// as merge_runs() merges runs of timings (the current loads held exactly),
/// then interpolated (with options.edges, the density's edges located among
/// the points). Useful when the load
/// changes slowly between rounds; stale rounds mislead.
///
/// Throws Error for invalid offsets, loads of the wrong count, negative or
/// non-finite loads, all-zero loads, speeds for another P, history rounds of
/// another N or P, bad options.
BlockRebalance rebalance_global(std::span<const std::int64_t> offsets,
                                std::span<const double> loads, const Speeds& speeds,
                                const GlobalRebalanceOptions& options = {},
                                std::span<const BlockRound> history = {});

/// Global repartition for phase-synchronised time (Watts ch. 4, vector
/// loads): phase_loads[r·F + p] is rank r's measured time in phase p (F
/// phases, F >= 1). Each phase's cumulative cost is interpolated as in
/// rebalance_global(); one set of cuts cannot balance every phase at once, so
/// the cost that is cut is a weighted sum of the phases, the weights chosen
/// among: all 1 (the total time), 1/(phase total) (every phase's share
/// equalised on average) and each phase alone; the candidate with the least
/// predicted Σ_p max_r T_{r,p} wins (ties: that order). predicted_time is each
/// rank's total over the phases. Throws Error as rebalance_global(), and for
/// phase_loads whose size is not a multiple F of P.
BlockRebalance rebalance_phases(std::span<const std::int64_t> offsets,
                                std::span<const double> phase_loads, const Speeds& speeds,
                                const PhaseRebalanceOptions& options = {});

/// Global repartition from per-element costs (measured, e.g. per-task timings
/// over a window, or modelled, e.g. particles per cell): the discrete model of
/// the N costs, cut exactly (the cuts equal partition(discrete_model(costs)),
/// or bottleneck_cuts() with options.optimal). predicted_time is in the costs'
/// units per speed. `offsets` is the current distribution (for
/// elements_moved and measured_imbalance, the current ranges' costs). Throws
/// Error for invalid costs or offsets, speeds for another P.
BlockRebalance rebalance_weights(std::span<const std::int64_t> offsets,
                                 std::span<const double> element_costs, const Speeds& speeds,
                                 const WeightsRebalanceOptions& options = {});

/// Diffusive repartition: diffuse_and_shift() (diffusion on the chain of
/// ranks, then the boundary shifts) on the element index, each old range's
/// cost corrected by its measured load (shift.hpp), the shifted cuts rounded
/// to the nearest integers (order kept). With `element_costs` (N values, the
/// code's own per-element costs), the shifts run on the discrete model of
/// those instead of on uniform elements. Speeds are not used: diffusion
/// equalises measured times. Throws Error as rebalance_global().
BlockRebalance rebalance_diffusive(std::span<const std::int64_t> offsets,
                                   std::span<const double> loads,
                                   const DiffusiveRebalanceOptions& options = {},
                                   std::span<const double> element_costs = {});

/// Σ_r (count_r − |old_r ∩ new_r|) and the largest number of elements one
/// rank receives. Both distributions must be valid and of the same N and P.
std::pair<std::int64_t, std::int64_t> block_elements_moved(std::span<const std::int64_t> from,
                                                           std::span<const std::int64_t> to);

/// Throws Error unless `offsets` are P + 1 >= 2 values, 0 first, nondecreasing.
void validate_block_offsets(std::span<const std::int64_t> offsets);

}  // namespace isocost
