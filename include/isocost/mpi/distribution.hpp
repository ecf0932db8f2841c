// isocost/mpi/distribution.hpp — where data live: a 1-D block distribution
// of N elements over P ranks, or a box distribution of a grid of cells over
// P ranks (mpi layer; plain values, nothing here is collective).
//
//   auto from = isocost::mpi::BlockDistribution::uniform(100, 4);     // 25 each
//   isocost::mpi::BlockDistribution to{{0, 10, 40, 70, 100}};
//   int r = to.owner(42);                                               // 2
//
//   auto boxes = isocost::mpi::BoxDistribution::from_decomposition(decompose(grid, pg, speeds));
//
// The functions that take an MPI_Comm (redistribute.hpp, the balancers)
// validate distributions collectively, so a rank may hold an invalid one and
// every rank still learns of it.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "isocost/decompose.hpp"

namespace isocost::mpi {

/// A 1-D block distribution of N elements over P ranks: P + 1 offsets with
/// 0 = o_0 <= o_1 <= … <= o_P = N; rank r owns the global indices [o_r, o_{r+1})
/// (possibly none). The functions taking an MPI_Comm validate it collectively,
/// so a rank may hold an invalid one and every rank still learns of it.
struct BlockDistribution {
  std::vector<std::int64_t> offsets;

  /// N elements in P near-equal blocks (the first N mod P ranks one longer).
  /// Throws Error for N < 0 or P < 1.
  static BlockDistribution uniform(std::int64_t n, int parts);
  /// Blocks of the given lengths (each >= 0), in rank order. Throws Error
  /// for a negative count, an empty list or a total beyond INT64_MAX.
  static BlockDistribution from_counts(std::span<const std::int64_t> counts);

  /// P (0 when there are no offsets).
  int parts() const noexcept;
  /// N = o_P (0 when there are no offsets).
  std::int64_t size() const noexcept;
  std::int64_t begin(int rank) const { return offsets.at(static_cast<std::size_t>(rank)); }
  std::int64_t end(int rank) const { return offsets.at(static_cast<std::size_t>(rank) + 1); }
  std::int64_t count(int rank) const { return end(rank) - begin(rank); }
  /// The rank owning global index i in [0, N) (binary search). Throws Error
  /// outside [0, N).
  int owner(std::int64_t index) const;

  /// True if valid; otherwise false and, if `error` is given, a message naming
  /// the first bad offset and what was expected.
  bool is_valid(std::string* error) const;
  /// Throws Error unless is_valid().
  void validate() const;
  /// A hash of the offsets (equal distributions hash equal).
  std::uint64_t hash() const noexcept;
};

/// A box of grid cells [lo, hi) along x, y, z (a 2-D box has z range [0, 1)).
/// Empty when hi <= lo along any axis.
struct CellBox {
  std::array<std::int64_t, 3> lo{0, 0, 0};
  std::array<std::int64_t, 3> hi{0, 0, 0};

  std::int64_t extent(int axis) const noexcept;  ///< max(hi − lo, 0)
  std::int64_t volume() const noexcept;          ///< cells in the box (0 if empty)
  bool empty() const noexcept { return volume() == 0; }
  bool operator==(const CellBox&) const = default;
};

/// The common part of two boxes (empty if they do not meet). Not collective.
CellBox intersect(const CellBox& a, const CellBox& b) noexcept;

/// A box distribution of an nx × ny × nz grid of cells (2-D: nz = 1) over P
/// ranks: rank r owns boxes[r]. The boxes must tile the grid exactly (every
/// cell owned by exactly one rank); empty boxes are allowed. Rank r's local
/// array holds its box's cells x fastest, as isocost/density.hpp's grids:
/// cell (i, j, k) at (i − lo_x) + e_x·((j − lo_y) + e_y·(k − lo_z)), e = extents;
/// global index of a cell: i + nx·(j + ny·k).
struct BoxDistribution {
  std::array<std::int64_t, 3> cells{1, 1, 1};  ///< nx, ny, nz, each >= 1
  std::vector<CellBox> boxes;                  ///< one per rank

  /// The parts of a decomposition of a gridded density (cuts on grid lines),
  /// in rank order. Throws Error if `d` is not on grid lines or has no parts.
  static BoxDistribution from_decomposition(const Decomposition& d);

  int parts() const noexcept { return static_cast<int>(boxes.size()); }
  /// nx·ny·nz (saturates at INT64_MAX; is_valid() refuses that).
  std::int64_t size() const noexcept;
  std::int64_t count(int rank) const { return boxes.at(static_cast<std::size_t>(rank)).volume(); }

  /// True if every cell count is >= 1 (product within int64), every box lies
  /// inside the grid with lo <= hi, and the boxes tile the grid. The tiling
  /// test is exact and O(P) expected: the signed corners of the boxes
  /// (sign (−1)^(number of hi coordinates)) must cancel except at the grid's
  /// own corners, which holds iff Σ_r 1_{box_r} = 1_grid pointwise, i.e.
  /// no gap and no overlap. On failure the message names two overlapping
  /// ranks (an O(P·A) sweep along x, A = boxes crossing a plane) or the
  /// number of cells left uncovered.
  bool is_valid(std::string* error) const;
  /// Throws Error unless is_valid().
  void validate() const;
  /// A hash of the cell counts and boxes.
  std::uint64_t hash() const noexcept;
};

/// The rank owning each cell of a box distribution: O(P log P) to build,
/// then O(log P + k) a look-up, k the boxes that meet the cell's x slab
/// (py·pz on a jagged or sectioned grid). Not collective.
class CellOwners {
 public:
  /// The distribution must be valid (BoxDistribution::validate()).
  explicit CellOwners(const BoxDistribution& d);
  /// The owner of cell (i, j, k), or -1 outside the grid.
  int owner(std::int64_t i, std::int64_t j, std::int64_t k) const;
  /// The owner of the cell with linear index i + nx·(j + ny·k), or -1 outside.
  int owner(std::int64_t cell) const;

 private:
  std::array<std::int64_t, 3> cells_{1, 1, 1};
  std::vector<CellBox> boxes_;
  std::vector<std::int64_t> xs_;         // sorted distinct x boundaries of the boxes
  std::vector<std::vector<int>> slabs_;  // the boxes meeting [xs_[s], xs_[s + 1])
};

}  // namespace isocost::mpi
