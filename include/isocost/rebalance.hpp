// isocost/rebalance.hpp — new 1-D block distributions from measured loads:
// the "repartition" phase of the balancing pipeline (Watts ch. 2–3), serial
// and deterministic, so every rank computes the same answer from the same
// gathered loads (the mpi layer's Balancer does exactly that).
//
// A block distribution of N elements over P ranks is P + 1 integer offsets
// 0 = o_0 <= … <= o_P = N; rank r owns elements [o_r, o_{r+1}).
//
//   std::vector<std::int64_t> o{0, 250, 500, 750, 1000};
//   std::vector<double> t{1.0, 1.4, 2.1, 3.0};          // measured seconds
//   auto g = isocost::rebalance_global(o, t);             // a pchip through the cumulative times
//   auto d = isocost::rebalance_diffusive(o, t);          // chain diffusion + boundary shifts
//   // g.offsets, g.elements_moved, g.predicted_imbalance …
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "isocost/cost_model.hpp"
#include "isocost/diffusion.hpp"
#include "isocost/partition.hpp"
#include "isocost/samples.hpp"
#include "isocost/shift.hpp"

namespace isocost {

/// One earlier measurement: a distribution and the loads measured on it.
struct BlockRound {
  std::vector<std::int64_t> offsets;  ///< P + 1 offsets of the same N elements
  std::vector<double> loads;          ///< P loads (seconds) measured on them

  /// The field list (options.hpp).
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("offsets", self.offsets);
    v("loads", self.loads, at_least(0));
  }
};

/// Settings for rebalance_global(), rebalance_weights() and rebalance_diffusive().
struct BlockRebalanceOptions {
  /// Global: how the cumulative measured cost between the current offsets is
  /// interpolated (Interpolation::pchip keeps it monotone and smooth).
  Interpolation interpolation = Interpolation::pchip;
  /// Global: builds the cost model from the samples instead of interpolating
  /// them (e.g. a Ceres fit from isocost::fitters, merging earlier rounds).
  /// Must return a model whose domain covers [o_0, o_P].
  std::function<CostModel(const Samples&)> model;
  /// Global (interpolation): earlier rounds, oldest first. With one load per
  /// rank, P + 1 cumulative points are all a round knows about the cost's
  /// shape; earlier rounds cut elsewhere and add points. Each round's
  /// cumulative cost is scaled to the current total, the points are merged
  /// (the current round weighs twice an earlier one), made nondecreasing by
  /// weighted isotonic regression and interpolated. Useful when the load
  /// changes slowly between rounds; stale rounds mislead. Rounds of another N
  /// or P are an Error.
  std::vector<BlockRound> history;
  /// Global and weights: the ranks' relative speeds (uniform when empty);
  /// times are converted to speed-1 cost as in samples_from_partition().
  std::vector<double> speeds;
  /// Root finding for the cuts.
  CutOptions cut;
  /// Diffusive: the scheme on the chain of ranks and the boundary shifts
  /// (the max_move cap, min_width in elements).
  DiffusionOptions diffusion;
  ShiftOptions shift;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("interpolation", self.interpolation);
    v("model", self.model);
    v("history", self.history);
    v("speeds", self.speeds, above(0));
    v("cut", self.cut);
    v("diffusion", self.diffusion);
    v("shift", self.shift);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("rebalance: …") unless is_valid().
  void validate() const { validate_options(*this, "rebalance"); }
};

/// A new distribution and what moving to it costs.
struct BlockRebalance {
  std::string method;                  ///< "global", "weights" or "diffusion"
  std::vector<std::int64_t> offsets;   ///< P + 1 new offsets
  std::vector<double> predicted_time;  ///< per rank: model cost of the new range / speed
  double predicted_imbalance = 0;      ///< max/avg − 1 of predicted_time
  double measured_imbalance = 0;       ///< max/avg − 1 of the input loads (per speed)
  /// Elements whose owner changes, Σ_r (count_r − |old_r ∩ new_r|): the least
  /// any migration between the two distributions must move.
  std::int64_t elements_moved = 0;
  /// The most elements any one rank receives (Pearce's ElementsMoved_max).
  std::int64_t max_elements_received = 0;
  /// Every root find (and, for diffusion, the diffusion) converged.
  bool converged = true;
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
/// cost through the offsets is interpolated (or modelled by options.model)
/// and cut into P equal-cost (speed-weighted) integer ranges, warm-started
/// from the current offsets. Ranks with empty ranges contribute nothing; a
/// non-empty range with load 0 counts as free. Throws Error for invalid
/// offsets, loads of the wrong count, negative or non-finite loads, all-zero
/// loads, bad options.
BlockRebalance rebalance_global(std::span<const std::int64_t> offsets,
                                std::span<const double> loads,
                                const BlockRebalanceOptions& options = {});

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
                                std::span<const double> phase_loads,
                                const BlockRebalanceOptions& options = {});

/// Global repartition from per-element loads (e.g. per-task timings over a
/// window): the discrete model of the N weights, cut exactly (the cuts equal
/// partition(discrete_model(weights))). `offsets` is the current distribution
/// (for elements_moved). Throws Error for invalid weights or offsets.
BlockRebalance rebalance_weights(std::span<const std::int64_t> offsets,
                                 std::span<const double> element_loads,
                                 const BlockRebalanceOptions& options = {});

/// Diffusive repartition: diffuse() on the chain of ranks (mesh_graph({P})),
/// then shift_cuts() on the element index, each old range's cost corrected
/// by its measured load (shift.hpp), and the shifted cuts rounded to the
/// nearest integers (order kept). Speeds are not used: diffusion equalises
/// measured times. Throws Error as rebalance_global().
BlockRebalance rebalance_diffusive(std::span<const std::int64_t> offsets,
                                   std::span<const double> loads,
                                   const BlockRebalanceOptions& options = {});

/// Σ_r (count_r − |old_r ∩ new_r|) and the largest number of elements one
/// rank receives. Both distributions must be valid and of the same N and P.
std::pair<std::int64_t, std::int64_t> block_elements_moved(std::span<const std::int64_t> from,
                                                           std::span<const std::int64_t> to);

/// Throws Error unless `offsets` are P + 1 >= 2 values, 0 first, nondecreasing.
void validate_block_offsets(std::span<const std::int64_t> offsets);

}  // namespace isocost
