// isocost/mpi/files.hpp — inputs too big for one rank, read in parts: each
// rank reads its own contiguous share of a raw file with MPI-IO (the raw
// weights and points layouts of points.hpp), and a part per point is written
// back collectively. Text files are parsed whole on every rank by the serial
// readers (same errors everywhere), and each rank keeps only its share: they
// are for inputs that fit one rank; the raw layouts are for the rest.
//
//   auto s = isocost::mpi::read_weights(comm, "w.bin");      // cells [s.first, s.first + n)
//   auto p = isocost::mpi::partition_weights(comm, s.weights, speeds);
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "isocost/density.hpp"

namespace isocost::mpi {

/// A rank's contiguous slice of a 1-D weights file.
struct WeightsSlice {
  std::vector<double> weights;  ///< cells [first, first + weights.size())
  std::int64_t first = 0;       ///< this rank's first global cell
  std::int64_t total = 0;       ///< the file's cells, global
  bool raw = false;             ///< read with MPI-IO from the raw layout
};
/// Reads 1-D weights (read_weights() of points.hpp: raw with dims 1, or one
/// per line); rank r of R gets cells [⌊r·N/R⌋, ⌊(r+1)·N/R⌋). Collective;
/// `path` must be the same on every rank (compared). Throws the same Error on
/// every rank for an unreadable or malformed file, naming the first bad
/// value as the serial reader does.
WeightsSlice read_weights(MPI_Comm comm, const std::string& path);

/// A rank's box of a grid weights file.
struct GridBox {
  GridShape shape;                                ///< the grid, global
  std::array<std::int64_t, kMaxDims> lo{}, hi{};  ///< this rank's cells [lo, hi)
  std::vector<double> weights;                    ///< the box's weights, x fastest
  bool raw = false;
};
/// Reads per-cell weights of `shape` (read_grid_weights()); rank r of R gets
/// the slab of whole rows (2-D) or planes (3-D) [⌊r·n/R⌋, ⌊(r+1)·n/R⌋) along
/// the last axis — contiguous in the file, so one read per rank; ranks past
/// n get an empty box. Collective; `path` and `shape` must be the same on
/// every rank (compared). Errors as read_weights().
GridBox read_grid(MPI_Comm comm, const std::string& path, const GridShape& shape);

/// A rank's contiguous slice of a points file.
struct PointsSlice {
  int dims = 0;                 ///< global
  std::vector<double> coords;   ///< dims per point
  std::vector<double> weights;  ///< points [first, first + weights.size())
  std::int64_t first = 0;
  std::int64_t total = 0;  ///< global
  bool raw = false;
};
/// Reads points (read_points() of points.hpp); rank r of R gets points
/// [⌊r·N/R⌋, ⌊(r+1)·N/R⌋) in file order. Collective, as read_weights().
PointsSlice read_points(MPI_Comm comm, const std::string& path);

/// Writes one part number per line for the points of every rank, in global
/// order (this rank's `part` for points [first, first + part.size())), to
/// `path`: each rank writes its own bytes with MPI-IO into a temporary
/// beside `path`, which rank 0 renames over it when every rank has written —
/// a failure leaves no file behind. Collective; `path` must be the same on
/// every rank (compared) and name a regular file (new or existing), and the
/// slices must follow each other in rank order (`first` is checked against
/// the points of the ranks before). Throws the same Error on every rank.
void write_parts(MPI_Comm comm, const std::string& path, std::int64_t first,
                 std::span<const int> part);

}  // namespace isocost::mpi
