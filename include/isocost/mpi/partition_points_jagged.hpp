// isocost/mpi/partition_points_jagged.hpp — weighted points that no single
// rank holds cut into P parts by MultiJagged-style recursive sectioning of
// their coordinates (as Zoltan2's MultiJagged): level l cuts every
// piece of the previous level into grid.counts[l] slabs along axis
// grid.axes[l], as decompose() cuts a density, each slab getting its piece's
// weight times its ranks' share of the piece's speed. All cuts of all pieces
// of a level are refined together by one histogram reduction per round,
// until every cut is exact to one point.
//
// Usage: pick a grid, or let jagged_points_grid() pick one from P and the
// extents of the points' global bounding box (an MPI_Allreduce of min/max);
// partition; then send each point, with all its arrays, to its part:
//
//   const double extent[] = {hx - lx, hy - ly, hz - lz};
//   auto g = isocost::mpi::jagged_points_grid(P, 3, extent);
//   auto p = isocost::mpi::partition_points_jagged(comm, 3, xyz, w, g,
//                                                  isocost::Speeds::uniform(P));
//   // p.part[i]: point i's part; part k's box: p.part_lo/part_hi[3k … 3k+2]
//   isocost::mpi::exchange(comm, std::span<const int>(p.part), {}, ids, w, xyz3);
//
// Each part's weight is within levels × the heaviest point of its target
// (see partition_points_jagged()); the same points give the same parts
// whatever ranks hold them, up to ties of equal coordinates.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/options.hpp"
#include "isocost/partition.hpp"
#include "isocost/result.hpp"

namespace isocost::mpi {

/// Settings for partition_points_jagged(). Must be the same on every rank
/// (compared).
struct JaggedPointsOptions {
  /// Key buckets per key range and refinement round, in [2, 65536], as
  /// PointsPartitionOptions::buckets: each round narrows every cut's
  /// coordinate-key range by this factor, in one MPI_Allreduce of (distinct
  /// ranges) × buckets doubles, at least 2^20 and at most 2^26 doubles (an
  /// MPI_Allgatherv of the non-empty buckets when they are fewer than half).
  int buckets = 256;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("buckets", self.buckets, closed(2, 65536));
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("partition_points_jagged: …") unless is_valid().
  void validate() const { validate_options(*this, "partition_points_jagged"); }
};

/// What partition_points_jagged() found; fields marked global are the same
/// on every rank.
struct JaggedPointsPartition {
  /// Per local point: its part in [0, P), numbered as decompose() numbers
  /// ranks (lexicographically by slab index per level, the last fastest).
  std::vector<int> part;
  ProcessGrid grid;            ///< the sectioning used, global
  std::vector<double> lo, hi;  ///< the points' bounding box, global
  /// Per part, its box: dims values each (part k's axis a at [k·dims + a]).
  /// Inner faces are the cut planes (the coordinate of the cut's point: points
  /// on a plane may lie in either neighbour, by (rank, index)); outer faces
  /// are the bounding box's. Global.
  std::vector<double> part_lo, part_hi;
  std::vector<double> part_weight;      ///< per part, global
  std::int64_t points = 0;              ///< over all ranks, global
  double total = 0;                     ///< TT, global
  double max_time = 0, ideal_time = 0;  ///< max_k weight_k / s_k and TT / S, global
  double max_point = 0;                 ///< the heaviest point's weight, global
  int rounds = 0;                       ///< histogram refinements over all levels, global
  /// Always converged: every cut is its piece's boundary nearest its target.
  Termination termination = Termination::converged;
  bool converged() const noexcept { return termination == Termination::converged; }
  JaggedPointsOptions options;  ///< the options used

  double imbalance() const noexcept;  ///< max_time / ideal_time − 1
  std::string brief_report() const;   ///< one line
};

/// A default grid for P parts of points in `dims` (1–3) dimensions whose
/// bounding box has the given extents (hi − lo per axis). Rule: the prime
/// factors of P, largest first, each go to the axis with the longest extent
/// per part so far (extent / parts on that axis; ties to the lower axis);
/// the levels are the axes with more than one part, longest extent first
/// (ties to the lower axis). P = 1 gives the empty grid (one part). Throws
/// Error for P < 1, dims outside 1–3, extents that are negative or not
/// finite, or a size mismatch.
ProcessGrid jagged_points_grid(int P, int dims, std::span<const double> extents);

/// Partitions the points of every rank into P = grid.ranks() = speeds.ranks()
/// parts. `coords` holds this rank's points, `dims` (1–3) values each;
/// `weights` one each, finite and >= 0.
///
/// Level l cuts every piece (at level 0 all points) into m = grid.counts[l]
/// slabs along a = grid.axes[l]. Slab j's ranks are those decompose()
/// gives it, and its target is W·C_j/C: W the piece's weight, C_j the speeds
/// of slabs 0 … j−1's ranks, C the piece's. In the total order (x_a, rank,
/// local index) of the piece's points (−0 counted as +0), cut j is the
/// boundary whose cumulative weight is nearest W·C_j/C (ties to the earlier).
///
/// Bound: a boundary nearest its target is within half a point's weight of
/// it, so each slab is within max_point of its target inside its piece
/// (half a point at each of its two cuts). Over levels the errors compound:
/// with f_l the slab's share of its piece's speed at level l (its ranks'
/// speeds over the piece's), a part's error against TT·s_k/S is at most
/// E_L, where E_0 = 0 and E_l = f_l·E_{l−1} + max_point; so at most
/// levels × max_point (tested).
///
/// Collective over `comm`. `dims`, `grid`, `speeds` and `options` must be
/// the same on every rank (compared). Communication: a bounding-box and a
/// total reduction; per level a reduction of the pieces' weights, per
/// refinement round an MPI_Allgather of one int and one MPI_Allreduce of all
/// the level's cut ranges × buckets (or with few points an MPI_Allgatherv of
/// the non-empty buckets), then one exclusive scan and one nearest-boundary reduction (two
/// more when some point weighs 0); at the end one reduction of the parts'
/// weights. Per-rank memory O(local points + P·buckets). Throws the same
/// Error on every rank for coordinates or weights that are not finite,
/// negative weights, sizes that do not match, no points, a total weight of
/// 0, a grid that does not fit `dims` or whose ranks differ from
/// speeds.ranks(), P beyond kMaxParts, or inputs that differ between ranks.
JaggedPointsPartition partition_points_jagged(MPI_Comm comm, int dims,
                                              std::span<const double> coords,
                                              std::span<const double> weights,
                                              const ProcessGrid& grid, const Speeds& speeds,
                                              const JaggedPointsOptions& options = {});

/// As above with the grid jagged_points_grid() gives for P = speeds.ranks()
/// and the extents of the points' bounding box (which the call reduces
/// anyway: no extra communication). Collective, with the same agreement.
JaggedPointsPartition partition_points_jagged(MPI_Comm comm, int dims,
                                              std::span<const double> coords,
                                              std::span<const double> weights, const Speeds& speeds,
                                              const JaggedPointsOptions& options = {});

}  // namespace isocost::mpi
