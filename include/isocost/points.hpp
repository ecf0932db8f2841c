// isocost/points.hpp — weighted points on file (particles, the cell centres
// of an unstructured mesh) and the raw binary layouts that ranks read their
// own parts of with MPI-IO (mpi/files.hpp).
//
// Text: CSV/whitespace rows "x,y[,z],w" (1 to 3 coordinates, then the
// weight), the common rules of io.hpp (an optional header such as "x,y,w",
// '#' comments, blank lines). Every row has the same number of fields.
//
// Raw points ("ISOCOSTP"), little-endian:
//   bytes 0–7   "ISOCOSTP"
//   bytes 8–11  uint32 dims (1–3)
//   bytes 12–19 int64 count (>= 1)
//   then count records of dims + 1 float64: x[, y[, z]], w
// Raw weights ("ISOCOSTW", density.hpp): uint32 dims, int64 cells[dims], then
// float64 weights, x fastest.
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "isocost/density.hpp"

namespace isocost {

/// Points in `dims` dimensions: point i at coords[i·dims …], weight weights[i].
struct PointSet {
  int dims = 0;
  std::vector<double> coords;
  std::vector<double> weights;
  std::size_t size() const noexcept { return weights.size(); }
};

/// Reads points from CSV text or the raw format (detected from the first 8
/// bytes). Coordinates must be finite, weights finite and >= 0; a file
/// without points is an Error. Errors name the file and the line (text) or
/// byte (raw).
PointSet read_points(const std::string& path);
/// Writes `points` in the raw format (atomically: a temporary renamed over
/// the file). Throws Error for dims outside 1–3, sizes that do not match, or
/// a value read_points would refuse.
void write_points(const std::string& path, const PointSet& points);

/// Reads 1-D per-cell weights: the raw weights format with dims 1, or text,
/// one weight per line (read_column()). Weights must be finite and >= 0.
std::vector<double> read_weights(const std::string& path);

/// Per-cell weights of a grid of `shape`, text or raw, as read_grid_density()
/// reads them, without building the density (x fastest).
std::vector<double> read_grid_weights(const std::string& path, const GridShape& shape);

namespace detail {

/// Where the values of a raw file lie, from its header.
struct RawLayout {
  bool points = false;  ///< "ISOCOSTP" (else "ISOCOSTW")
  int dims = 0;
  std::array<std::int64_t, kMaxDims> cells{1, 1, 1};  ///< weights: cells per axis
  std::int64_t count = 0;                             ///< values (weights) or records (points)
  std::int64_t record_values = 1;                     ///< doubles per record: 1, or dims + 1
  std::uint64_t data_offset = 0;                      ///< the first value's byte
};
/// The number of header bytes raw_layout() needs at most.
inline constexpr std::size_t kRawHeadBytes = 36;
/// The raw weights format's first 8 bytes.
inline constexpr char kWeightsMagic[8] = {'I', 'S', 'O', 'C', 'O', 'S', 'T', 'W'};
/// The file's first min(size, kRawHeadBytes) bytes, for is_raw() and
/// raw_layout(); `size` gets the file's size, and `in` is left at byte 0.
/// Throws Error "'PATH': …" when the size or the bytes cannot be read.
std::vector<char> read_head(std::ifstream& in, const std::string& path, std::uintmax_t& size);
/// Throws Error naming `path` on a host that is not little-endian (raw files
/// hold little-endian values).
void require_little_endian(const std::string& path);
/// True if `head` starts with either magic.
bool is_raw(std::span<const char> head);
/// Parses and checks a raw header: `head` holds the file's first
/// min(file_size, kRawHeadBytes) bytes. Throws Error "PATH: …" for a
/// truncated header, bad dims or count, or a file size that does not match.
RawLayout raw_layout(std::span<const char> head, std::uintmax_t file_size, const std::string& path);
/// A grid density's describe(): "grid 512x512 cells on [0, 512] x [0, 512]"
/// (also the words of the command for a grid no rank holds whole).
std::string grid_description(const GridShape& shape, const Box& box);
/// "512x512".
std::string shape_text(int dims, const std::array<std::int64_t, kMaxDims>& cells);
/// "(i, j[, k])" of cell `index` (x fastest).
std::string cell_text(int dims, const std::array<std::int64_t, kMaxDims>& cells,
                      std::int64_t index);
/// The message for a bad weight of a raw grid file at value `index`:
/// "PATH: byte B: grid density: weight of cell (…): expected a finite value
/// >= 0, got V", as read_grid_density() words it.
std::string raw_weight_error(const std::string& path, const RawLayout& layout, std::int64_t index,
                             double value);
/// The message for a bad coordinate or weight of point `index` of a raw
/// points file (value `value` of the record, 0-based).
std::string raw_point_error(const std::string& path, const RawLayout& layout, std::int64_t index,
                            int value, double v);
/// True for a weight >= 0 and finite.
inline bool valid_weight(double w) { return w >= 0 && w <= 1.7976931348623157e308; }

}  // namespace detail
}  // namespace isocost
