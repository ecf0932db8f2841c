// Weighted cuts of 64-bit keys held by many ranks, exact to one point: the
// histogram refinement shared by partition_points() (Hilbert keys) and
// partition_points_jagged() (coordinates). Internal.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace isocost::mpi::detail {

/// This rank's points, sorted by (group, key, local index), and the cuts to
/// place. A group is a set of points cut on its own (one piece of a jagged
/// level; all points for a curve); its cumulative weight starts at 0. Every
/// rank passes the same groups, cuts, targets, key range and buckets.
struct KeyCutInput {
  std::span<const std::uint64_t> keys;       ///< sorted as above
  std::span<const std::size_t> index;        ///< each sorted point's local index
  std::span<const double> prefix;            ///< running weight, keys.size() + 1 values
  std::span<const std::size_t> group_begin;  ///< per group, its first sorted point; + end
  std::span<const std::size_t> cut_group;    ///< per cut, its group (non-decreasing)
  std::span<const double> target;            ///< per cut, non-decreasing within a group
  std::uint64_t key_lo = 0, key_hi = ~std::uint64_t{0};  ///< every key is in [lo, hi]
  int buckets = 256;                                     ///< per range and round (see the options)
  bool zero_weights = true;  ///< some rank holds a point of weight 0 (then two more reductions)
};

/// A cut: the boundary right before the position (key, rank, index) of the
/// total order (key, rank, local index). That is a point, or (rank = the
/// communicator's size) after every point of `key`, or (rank = −1) before
/// every point, or, for a cut moved to an earlier tie, right after the point
/// (key, rank, index − 1). `value` is the group's cumulative weight there
/// (as summed by the histograms).
struct KeyCut {
  std::uint64_t key = 0;
  std::int64_t rank = 0, index = 0;
  double value = 0;
};

struct KeyCuts {
  std::vector<KeyCut> cuts;
  int rounds = 0;  ///< histogram reductions
};

/// Collective over `comm`. Every cut is the boundary of its group nearest
/// its target (ties to the earlier), found by histograms of key ranges
/// refined together, one histogram reduction per round (an MPI_Allgather of
/// counts, then an MPI_Allreduce of the histogram or, when fewer than half its
/// buckets hold a point, an MPI_Allgatherv of those), then one exclusive scan
/// for the ties within the last key and one nearest-boundary reduction.
KeyCuts key_cuts(MPI_Comm comm, const KeyCutInput& in);

/// The number of `cuts` (one group's, in order) at or before the point
/// (key, rank, index): its slab within the group.
std::size_t cuts_before(std::span<const KeyCut> cuts, std::uint64_t key, std::int64_t rank,
                        std::int64_t index);

/// The points' checks shared by the point partitioners: `dims` in 1–3,
/// dims coordinates per weight, all finite, weights >= 0; "" if good.
std::string check_points(int dims, std::span<const double> coords, std::span<const double> w);

/// The points of every rank summarised: their bounding box, count, total
/// and heaviest weight (four reductions).
struct PointsSummary {
  std::vector<double> lo, hi;
  std::int64_t points = 0;
  double total = 0, heaviest = 0;
  bool zero_weights = false;  ///< some point has weight 0
};

/// Collective over `comm`, after the input was agreed good. Throws the same
/// Error "what: …" on every rank if no rank holds a point or the total is 0
/// or beyond the double range.
PointsSummary summarise_points(MPI_Comm comm, const char* what, int dims,
                               std::span<const double> coords, std::span<const double> weights);

}  // namespace isocost::mpi::detail
