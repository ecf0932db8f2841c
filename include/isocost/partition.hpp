// isocost/partition.hpp — one-dimensional partitions with per-rank speeds.
//
// Rank i of P owns [x_i, x_{i+1}) with t(x_i) = TT·S_i/S, where s_k > 0 is the
// relative speed of rank k (work per second), S_i = s_0 + … + s_{i−1} and
// S = S_P. Homogeneous ranks (s_k = 1) give Swartz eq. (1), t(x_i) = i·TT/P;
// Swartz §4's node types map to speeds (speed_j = R_j). Every rank then needs
// cost_i / s_i = TT/S of time: all finish together.
//
//   auto t = isocost::sieve_model({}, 6, 268435456);
//   auto part = isocost::partition(t, isocost::Speeds::uniform(16));
//   // part.cuts[i], part.cuts[i+1] bound rank i
//
//   // Or, on rank i alone, with no communication (Swartz §2):
//   auto mine = isocost::rank_range(t, i, isocost::Speeds::uniform(16));
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "isocost/cost_model.hpp"
#include "isocost/cut.hpp"
#include "isocost/result.hpp"

namespace isocost {

/// One kind of node in Swartz §4: `count` nodes whose runs take 1/time_ratio
/// of the time a type-1 node takes (R_j = time on type 1 / time on type j), so
/// their relative speed is time_ratio.
struct NodeType {
  int count = 1;            ///< N_j >= 1
  double time_ratio = 1.0;  ///< R_j > 0 (R_1 = 1 for the reference type)
};

/// Relative speeds of P ranks. A value type; O(1) memory when uniform.
class Speeds {
 public:
  /// P ranks of speed 1. Throws Error unless ranks >= 1.
  static Speeds uniform(int ranks);
  /// One finite speed > 0 per rank; throws Error naming the first bad entry.
  static Speeds from_values(std::vector<double> speeds);
  /// Swartz §4 node types, in order: types[0].count ranks first, and so on.
  static Speeds from_node_types(const std::vector<NodeType>& types);
  /// Speeds from a calibration run in which every rank did the same work:
  /// rank r took seconds[r], so its speed is max_k seconds[k] / seconds[r]
  /// (the slowest rank has speed 1, as type 1 does in Swartz §4). Throws Error
  /// naming the first time that is not finite and > 0.
  static Speeds from_times(std::span<const double> seconds);

  /// Number of ranks P.
  int ranks() const noexcept { return ranks_; }
  /// True when every speed is 1.
  bool is_uniform() const noexcept { return prefix_.empty(); }
  /// Speed s_rank of one rank, 0 <= rank < P.
  double speed(int rank) const;
  /// S = s_0 + … + s_{P−1}.
  double total() const noexcept;
  /// S_i / S for 0 <= i <= P: the share of all work owned by ranks below i.
  double fraction_before(int i) const;
  /// All P speeds (materialised).
  std::vector<double> values() const;

 private:
  int ranks_ = 1;
  std::vector<double> speeds_;  // s_0..s_{P-1} when not uniform
  std::vector<double> prefix_;  // S_0..S_P when not uniform
};

/// Settings for a partition.
struct PartitionOptions {
  /// Root-finder settings for every cut.
  CutOptions cut;
  /// Integer domain: lo and hi must be integers; cell n covers [n, n+1) and
  /// costs t(n+1) − t(n); every cut becomes the integer b minimising
  /// |t(b) − target| (ties to the smaller b), so ranks own the half-open
  /// integer ranges [b_i, b_{i+1}) that cover [lo, hi) exactly. Discrete models
  /// are always integer.
  bool integer = false;
  /// partition(): guess each cut by extrapolating from the previous two and
  /// bracket it by the previous cut. false: every cut starts from the linear
  /// guess on the whole domain, exactly as rank_range() does.
  bool warm_start = true;
  /// Optional starting guesses, one per cut (P + 1 values, e.g. the current
  /// partition when repartitioning from measurements): cut i starts from
  /// initial_cuts[i] (clamped into its bracket) instead of the extrapolated or
  /// linear guess. Must be empty or hold P + 1 finite values.
  std::vector<double> initial_cuts;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("cut", self.cut);
    v("integer", self.integer);
    v("warm_start", self.warm_start);
    v("initial_cuts", self.initial_cuts);
  }
  /// True if every field is usable (the count of initial_cuts is checked
  /// against P by partition()); otherwise describes the first bad field.
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("partition options: …") unless is_valid().
  void validate() const { validate_options(*this, "partition options"); }
};

/// One rank's own range, computed without communication.
struct RankRange {
  int rank = 0;
  double lo = 0;     ///< x_rank
  double hi = 0;     ///< x_{rank+1}
  double cost = 0;   ///< t(hi) − t(lo) as evaluated
  double time = 0;   ///< cost / speed
  CutSummary lower;  ///< the solve for lo
  CutSummary upper;  ///< the solve for hi
};

/// Rank `rank`'s range [x_rank, x_{rank+1}) from two root finds, each started from
/// the linear guess, so rank_range(i).hi == rank_range(i+1).lo bit for bit and
/// the ranges of all ranks tile the domain. Not collective: no communication.
RankRange rank_range(const CostModel& model, int rank, const Speeds& speeds,
                     const PartitionOptions& options = {});

/// All cuts of a partition and what they predict.
struct Partition {
  std::vector<double> cuts;           ///< P+1 cuts: cuts[0] = lo, cuts[P] = hi
  std::vector<double> cost;           ///< per rank: t(x_{i+1}) − t(x_i) as evaluated
  std::vector<double> time;           ///< per rank: cost / speed
  std::vector<CutSummary> summaries;  ///< per cut, P+1 entries
  double total_cost = 0;              ///< TT
  double speed_total = 0;             ///< S
  double predicted_le = 0;            ///< L_E of `time` (Swartz eq. 3), percent
  double max_abs_residual = 0;        ///< max_i |t(x_i) − target_i|, before rounding
  int max_iterations = 0;             ///< over all cuts
  std::size_t fallbacks = 0;          ///< cuts whose fallback is not none
  bool integer = false;               ///< cuts are integers (used: discrete models force it)
  PartitionOptions options;           ///< the options given
  /// converged; failed when some cut's tolerance could not be confirmed;
  /// else iteration_limit when some cut ran out of iterations (its summary
  /// says which).
  Termination termination = Termination::converged;
  bool converged() const noexcept { return termination == Termination::converged; }

  /// Number of ranks P.
  int ranks() const noexcept { return static_cast<int>(cost.size()); }
  /// One line: ranks, TT, predicted L_E, residual, iterations, termination.
  std::string brief_report() const;
  /// Several lines: the brief report, the residual and fallbacks, and every
  /// cut that did not converge.
  std::string full_report() const;
};

/// All P+1 cuts at once. With warm_start (default) each solve is bracketed by the
/// previous cut and guessed from its neighbours, which is what makes P = 10^6
/// cheap. Cuts are nondecreasing, cuts[0] = lo and cuts[P] = hi.
Partition partition(const CostModel& model, const Speeds& speeds,
                    const PartitionOptions& options = {});

/// The chains-on-chains optimum of a discrete model (per-cell weights) as a
/// Partition: the least possible heaviest part max_k cost_k / s_k with the
/// ranks in order, every part non-empty when P <= n cells — the cuts of
/// bottleneck_cuts(prefix sums, speeds, P <= n ? 1 : 0) — instead of
/// partition()'s cuts nearest the targets. Built by partition_from_cuts():
/// each summary keeps its target TT·S_i/S and gets the residual at the
/// optimal boundary, termination exact or optimum; no root is found, so
/// options.cut is validated and kept but not used. Throws Error for a model
/// that is not discrete or P above kMaxParts.
Partition partition_optimal(const CostModel& model, const Speeds& speeds,
                            const PartitionOptions& options = {});

/// Optimal contiguous split of per-cell weights w into parts with capacities
/// s_j (the chains-on-chains problem): returns the P + 1 boundaries b (b_0 = 0,
/// b_P = n) minimising max_j (w[b_j] + … + w[b_{j+1} − 1]) / s_j, each part at
/// least `min_cells` long; of the optimal splits, the one whose boundaries are
/// latest. An exact bisection on the bottleneck (its bounds move to attained
/// values: about log2(heaviest cell) + 3 probes for integer weights and unit
/// capacities; detail::search_bottleneck, shared with
/// mpi::partition_weights()), each probe O(P log n) by the greedy split
/// without widths and with min_cells = 1 (non-empty parts), O(P·n) for wider
/// minimums. At unequal capacities with min_cells = 1, a probe the capped
/// greedy split cannot decide (a part cannot hold the cell it is forced to
/// take) is decided by the boundaries the parts can reach, kept as intervals
/// over each part's useful window, with O(n/63) memory beyond them: O(P +
/// their count), which is about the cells too heavy for a part within its
/// window — up to P·n/100 for spikes every 100 cells that slow parts cannot
/// hold while fast ones leave wide windows (bench_cut's
/// BM_BottleneckCuts_SpikesUnequalSpeeds). Without widths, parts may be
/// empty where the cells are fewer than the parts or a heavy cell sets the
/// bottleneck; pass min_cells = 1 to keep every part non-empty when P <= n
/// (10^6 spiky cells into 65 536 parts: BM_BottleneckCuts_Spikes). Throws
/// Error if P·min_cells > n. partition_optimal() gives its cuts of a
/// discrete model as a Partition; decompose() cuts each level of a grid with
/// it (decompose.hpp).
std::vector<std::int64_t> bottleneck_cuts(std::span<const double> prefix_sums,
                                          std::span<const double> capacities,
                                          std::int64_t min_cells = 0);

/// The Partition of integer cuts placed without root finding (by
/// bottleneck_cuts(), a search in prefix sums, or mpi::partition_weights()),
/// so that every such partition is reported the one way: cut i is cell
/// boundary cuts[i] (x_i = lo + cuts[i]) where t = t_at_cuts[i], part i costs
/// t_at_cuts[i+1] − t_at_cuts[i] and takes that / s_i. Cut i's summary holds
/// the target TT·S_i/S (TT = t_at_cuts[P], as partition() sets it), the
/// residual t(x_i) − target and the termination: exact where the residual is
/// 0, else `placed` (nearest_integer or optimum); iterations 0, method
/// binary_search. The result is integer, converged, with `options` kept.
/// Throws Error unless there are P + 1 cuts and values (P = speeds.ranks()
/// <= kMaxParts), the cuts nondecreasing, the values finite, nondecreasing
/// and t_at_cuts[0] = 0, and `placed` is nearest_integer or optimum.
Partition partition_from_cuts(std::span<const std::int64_t> cuts, std::span<const double> t_at_cuts,
                              const Speeds& speeds, CutTermination placed,
                              const PartitionOptions& options = {}, double lo = 0);

}  // namespace isocost
