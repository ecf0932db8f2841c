// isocost/mpi/partition_points.hpp — weighted points that no single rank
// holds (particles, the cell centres of an unstructured mesh) cut into P
// parts along a Hilbert space-filling curve (as Zoltan's HSFC):
// every point gets a Hilbert key in the points' global bounding box, and the
// cumulative weight in key order is cut at the targets TT·S_k/S by a
// histogram of keys refined until every cut is exact to one point.
//
//   auto p = isocost::mpi::partition_points(comm, 3, xyz, w, isocost::Speeds::uniform(P));
//   // p.part[i]: point i's part; then exchange(comm, p.part, {}, xyz, w, ids)
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

/// Settings for partition_points(). Must be the same on every rank (compared).
struct PointsPartitionOptions {
  /// Key buckets per key range and refinement round, in [2, 65536]: each
  /// round narrows every cut's key range by this factor, in one
  /// MPI_Allreduce of (distinct ranges) × buckets doubles (an MPI_Allgatherv
  /// of the non-empty buckets when they are fewer than half of them). Rounds
  /// with few distinct ranges (the first: one) use more, up to 2^20 doubles;
  /// rounds with very many use fewer, down to 2, to stay within 2^26.
  int buckets = 256;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("buckets", self.buckets, closed(2, 65536));
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("partition_points: …") unless is_valid().
  void validate() const { validate_options(*this, "partition_points"); }
};

/// What partition_points() found; fields marked global are the same on
/// every rank.
struct PointsPartition {
  /// Per local point: its part in [0, P).
  std::vector<int> part;
  /// Per local point: its Hilbert key, the cell floor((x_a − lo_a)/(hi_a −
  /// lo_a)·2^bits) on each axis a (clamped to 2^bits − 1; 0 on an axis with
  /// hi_a = lo_a) of the global bounding box [lo, hi], through hilbert_key().
  /// Points are ordered by (key, rank, local index).
  std::vector<std::uint64_t> key;
  int bits = 0;                         ///< bits per axis of the keys, global
  std::vector<double> lo, hi;           ///< the bounding box, global
  std::vector<double> part_weight;      ///< per part, global
  std::int64_t points = 0;              ///< over all ranks, global
  double total = 0;                     ///< TT, global
  double max_time = 0, ideal_time = 0;  ///< max_k weight_k / s_k and TT / S, global
  double max_point = 0;                 ///< the heaviest point's weight, global
  int rounds = 0;                       ///< histogram refinements, global
  /// Always converged: every cut is the boundary between two points nearest
  /// its target.
  Termination termination = Termination::converged;
  bool converged() const noexcept { return termination == Termination::converged; }
  PointsPartitionOptions options;  ///< the options used

  double imbalance() const noexcept;  ///< max_time / ideal_time − 1
  std::string brief_report() const;   ///< one line
};

/// Partitions the points of every rank into P = speeds.ranks() parts along a
/// Hilbert curve. `coords` holds this rank's points, `dims` (1–3) values each
/// (x, y, z of point i at coords[i·dims …]); `weights` one each, finite and
/// >= 0. In the total order (key, rank, local index), cut k is the boundary
/// between two points whose cumulative weight is nearest TT·S_k/S (ties to
/// the earlier boundary), so every part's weight is within one point's
/// weight of its target. Send the points to their parts with exchange()
/// (exchange.hpp) and `part` as the destinations.
///
/// Collective over `comm`. `dims`, `speeds` and `options` must be the same
/// on every rank (compared). Communication: a bounding-box and a total
/// reduction, then per refinement round an MPI_Allgather of one int and one
/// MPI_Allreduce of cuts × buckets doubles, or with few points an
/// MPI_Allgatherv of the non-empty buckets (64-bit keys: at most
/// ⌈64 / log2 buckets⌉ rounds), one exclusive
/// scan for the last key's ties (two more reductions when some point weighs
/// 0, for ties with earlier keys), and one reduction of the parts' weights;
/// per-rank memory O(local points + P·buckets). Throws the same Error on every
/// rank for coordinates or weights that are not finite (named with the rank
/// and point), negative weights, sizes that do not match, no points, a
/// total weight of 0, P beyond kMaxParts, or inputs that differ.
PointsPartition partition_points(MPI_Comm comm, int dims, std::span<const double> coords,
                                 std::span<const double> weights, const Speeds& speeds,
                                 const PointsPartitionOptions& options = {});

}  // namespace isocost::mpi
