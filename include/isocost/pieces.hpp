// isocost/pieces.hpp — vector balancing with several pieces per rank (Watts
// §4.2). When a step has phases that synchronise (a particle push ∝
// particles, then a field solve ∝ cells), each phase must be balanced on its
// own; one contiguous block per rank cannot do that when the phases' costs lie
// differently along the domain (Watts Fig. 4.12: "the only way to achieve a
// balance is to assign multiple partitions to each computer").
//
// The domain is cut into chunks, the code's units of ownership (e.g. square
// patches of cells), each with a cost per phase. plan_pieces() orders the
// chunks so that every prefix of the order holds about the same share of
// every phase, then cuts that order into one range per rank: each rank gets
// several chunks, rich in one phase and poor in another, and so its share of
// every phase.
//
//   std::vector<double> cost(G * 2);     // chunk g: cost[2g] push, cost[2g+1] field
//   auto plan = isocost::plan_pieces(cost, 2, isocost::Speeds::uniform(P));
//   int owner = plan.owner[g];           // the rank that owns chunk g
//   // plan.synchronised_efficiency against plan.block_synchronised_efficiency
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "isocost/options.hpp"
#include "isocost/partition.hpp"
#include "isocost/result.hpp"

namespace isocost {

/// Settings for plan_pieces().
struct PiecesOptions {
  /// false: the chunks in their given order, cut into one block per rank,
  /// as the comparison (`block_*` of the plan) and nothing else. true: the
  /// phase-mixed order, several pieces per rank.
  bool mix = true;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("mix", self.mix);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("plan_pieces: …") unless is_valid().
  void validate() const { validate_options(*this, "plan_pieces"); }
};

/// A plan that gives each rank a set of chunks, and what it predicts.
struct PiecePlan {
  std::size_t phases = 0;  ///< F
  /// position → chunk: the order that was cut (the given one without `mix`).
  std::vector<std::int64_t> order;
  /// P + 1 positions into `order`: rank r owns order[offsets[r], offsets[r+1]).
  std::vector<std::int64_t> offsets;
  /// chunk → rank, the same plan seen from the chunks.
  std::vector<int> owner;
  /// P × F: rank r's cost in phase p per its speed, at [r·F + p].
  std::vector<double> part_costs;
  /// F: each phase's balanced time T_p / S over its slowest rank's
  /// max_r T_{r,p} (T_avg / T_max at equal speeds; 1 for a phase that costs 0).
  std::vector<double> phase_efficiency;
  /// Σ_p T_p / S over Σ_p max_r T_{r,p}: the efficiency of a step whose
  /// phases wait for each other (Watts ch. 4).
  double synchronised_efficiency = 0;
  /// The same, for the best cut of the chunks in their given order into one
  /// block per rank: what one contiguous block per rank can do.
  double block_synchronised_efficiency = 0;
  /// The most runs of consecutive chunks (in the given numbering) one rank
  /// owns: 1 is a block per rank.
  std::int64_t max_pieces = 0;
  /// The largest deviation of any prefix of `order` from an equal share of
  /// every phase: max over prefixes and phases of |share_p − mean share|.
  double max_prefix_deviation = 0;
  /// converged: every phase's heaviest rank is within two of the phase's
  /// heaviest chunks (one for the mixing, one for the cut) of the balanced
  /// T_p / S, on the slowest rank; iteration_limit otherwise: the chunks are
  /// too few or too coarse to mix, or (without `mix`) one block per rank
  /// cannot balance the phases.
  Termination termination = Termination::converged;
  bool converged() const noexcept { return termination == Termination::converged; }
  PiecesOptions options;  ///< the options used

  std::string brief_report() const;  ///< one line
};

/// Vector balancing by several pieces per rank: `chunk_costs[g·F + p]` is
/// chunk g's cost in phase p (G = chunk_costs.size() / F chunks, each >= 0
/// and finite). The chunks are ordered so that every prefix holds about the
/// same share of each phase — greedily, each next chunk the one (among the
/// first unused chunk of each kind, a kind being the phase a chunk is richest
/// in relative to its average share) that keeps the running shares closest
/// together — and the order is cut into P ranges of the weighted cost that
/// gives the least Σ_p max_r T_{r,p}, as rebalance_phases() chooses its
/// weights (the total, each phase's share, or one phase alone), rank r's
/// share S_r/S of it. Chunks keep their given relative order within a kind,
/// so a rank's pieces are few when the kinds are. When the mixed order does
/// not beat one block per rank, the plan is the block plan. Deterministic: every rank
/// that calls it with the same input gets the same plan. O(G·F² + P·F) time.
/// Throws Error for F = 0, a size that is not a multiple of F, no chunks,
/// negative or non-finite costs, all costs 0, or invalid options.
PiecePlan plan_pieces(std::span<const double> chunk_costs, std::size_t phases, const Speeds& speeds,
                      const PiecesOptions& options = {});

}  // namespace isocost
