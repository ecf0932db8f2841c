// isocost/mpi/partition_weights.hpp — 1-D partition of weights that no single
// rank holds: the cumulative cost t(b) = Σ_{i<b} w_i is a global prefix sum,
// and every cut is found on the rank whose slice holds it.
//
// Each rank holds a contiguous slice of the global cells, in rank order (rank
// r's first cell follows rank r − 1's last; slices may be empty). The cuts
// are the integer cells nearest the targets TT·S_k/S, as the serial
// partition() of discrete_model() of the gathered weights gives them: the
// smallest b minimising |t(b) − TT·S_k/S|. Communication: two scans, one
// broadcast and one reduction of the P − 1 candidate cuts; per-rank memory
// O(local cells + P); never a gather of the weights. options.optimal gives
// the exact chains-on-chains optimum instead, by a pipelined search (below).
//
//   std::vector<double> mine = …;                  // this rank's cells, in order
//   auto p = isocost::mpi::partition_weights(comm, mine, isocost::Speeds::uniform(P));
//   // p.cuts[k]: the first global cell of part k; p.max_time / p.ideal_time
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "isocost/options.hpp"
#include "isocost/partition.hpp"
#include "isocost/result.hpp"

namespace isocost::mpi {

/// Settings for partition_weights(). Must be the same on every rank (compared).
struct WeightsPartitionOptions {
  /// true: every rank receives all P + 1 cuts and part times (O(P) per rank,
  /// one MPI_Allreduce). false: each rank receives only its own part's ends
  /// (one MPI_Reduce_scatter_block and a neighbour exchange); needs P equal
  /// to the communicator's size.
  bool all_cuts = true;

  /// true: the exact chains-on-chains optimum instead of the nearest-target
  /// cuts: the smallest possible max_k part cost / speed, parts in rank
  /// order, every part non-empty when P <= N. The cuts are those of serial
  /// bottleneck_cuts(P, speeds, P <= N ? 1 : 0) of the gathered prefix sums:
  /// both run one search (detail::search_bottleneck, an exact bisection)
  /// over the same greedy probe. Communication, beyond the scans above: one
  /// MPI_Comm_dup and one MPI_Allreduce (the heaviest cell); per probe, a
  /// greedy pass pipelined along the ranks on the duplicate (R − 1 sends of
  /// 32 bytes, one after another: latency grows with R, not log R) and one
  /// MPI_Allreduce of 3 doubles; then the cuts' reduction as above. Probes:
  /// about log2(heaviest cell) + 3 for integer weights and equal speeds
  /// (twice that when the unconstrained optimum leaves a part empty, as
  /// serially), up to ~60 for general weights. So not the issue's "O(log)
  /// small reductions": a greedy probe is sequential along the chain, and
  /// each costs R − 1 latencies. Memory O(local cells + P). With unequal
  /// speeds, every part non-empty and a capped greedy probe that fails, the
  /// probe is decided as serially, by the boundaries the parts can reach
  /// (kept as intervals), in three more passes along the ranks (the
  /// reachable boundaries' bounds, then one MPI_Allreduce of P + 1 integers;
  /// the rows, passing P + 1 boundaries rank to rank; the split, traced
  /// back) and two small MPI_Allreduce. Its memory adds, per rank, O(P) and
  /// the intervals of its slice: about one per cell too heavy for a part's
  /// capacity within the part's useful window.
  bool optimal = false;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("all_cuts", self.all_cuts);
    v("optimal", self.optimal);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("partition_weights: …") unless is_valid().
  void validate() const { validate_options(*this, "partition_weights"); }
};

/// What partition_weights() found; fields marked global are the same on
/// every rank.
struct WeightsPartition {
  std::int64_t cells = 0;  ///< N, the global cell count, global
  double total = 0;        ///< TT = t(N), global
  /// all_cuts: the P + 1 cuts, 0 = c_0 <= … <= c_P = N (part k owns cells
  /// [c_k, c_{k+1})), global; empty otherwise.
  std::vector<std::int64_t> cuts;
  /// all_cuts: each part's cost / speed, global; empty otherwise.
  std::vector<double> time;
  /// all_cuts: t(c_k), the compensated prefix sum at each cut (0 … TT), so
  /// part k costs prefix[k+1] − prefix[k], global; empty otherwise.
  std::vector<double> prefix;
  /// This rank's part [begin, end) when P equals the communicator's size
  /// (either mode); 0, 0 otherwise.
  std::int64_t begin = 0, end = 0;
  /// The bottleneck, max_k part cost / speed, global; with options.optimal
  /// the smallest possible one.
  double max_time = 0;
  double ideal_time = 0;  ///< TT / S, global
  /// Always converged: every cut is the exact nearest cell boundary (or,
  /// with options.optimal, the exact optimum's).
  Termination termination = Termination::converged;
  bool converged() const noexcept { return termination == Termination::converged; }
  WeightsPartitionOptions options;  ///< the options used

  /// max_time / ideal_time − 1 (0 when the total is 0).
  double imbalance() const noexcept;
  std::string brief_report() const;  ///< one line
};

/// Partitions the weights the ranks hold (`weights`: this rank's slice, in
/// global cell order after the lower ranks' slices) into P = speeds.ranks()
/// parts of cost share S_k/S, with integer cuts: cut k is the smallest cell
/// boundary b minimising |t(b) − TT·S_k/S|, t(b) the compensated prefix sum
/// (as discrete_model() computes it). Identical to partition() of
/// discrete_model() of the gathered weights whenever the prefix sums are
/// exact (e.g. integer weights below 2^53 in total); otherwise each prefix
/// sum may differ from the serial one by rounding, and a cut only where two
/// boundaries are equally near a target within that rounding. Each part's
/// cost is within one cell's weight of its target share.
///
/// Collective over `comm`. `speeds` and `options` must be the same on every
/// rank (compared); P may differ from the communicator's size unless
/// options.all_cuts is false. Global counts are 64-bit. Throws the same
/// Error on every rank for a weight that is negative or not finite (naming
/// the rank and the global cell), a total of 0 or beyond the double range,
/// no cells at all, P beyond kMaxParts, or options or speeds that differ.
WeightsPartition partition_weights(MPI_Comm comm, std::span<const double> weights,
                                   const Speeds& speeds,
                                   const WeightsPartitionOptions& options = {});

/// `p` (computed with all_cuts for `speeds`) as the Partition the serial
/// functions give: partition_from_cuts() of its cuts and prefix sums, each
/// summary with its target TT·S_k/S, the residual there and the termination
/// (exact, else nearest_integer, or with options.optimal optimum). When the
/// prefix sums are exact, as partition() of discrete_model() of the gathered
/// weights (its cuts, costs, times, targets, residuals and terminations) or,
/// with options.optimal, as partition_optimal() of it. Local: no
/// communication. Throws Error unless p holds the P + 1 cuts of
/// P = speeds.ranks() parts.
Partition to_partition(const WeightsPartition& p, const Speeds& speeds);

}  // namespace isocost::mpi
