// Gridded densities: per-cell weights turned into a summed-area table in
// place, O(1) box masses from it, and the text/raw weight file formats.
//
// Summed-area table. S(i, j, k) = mass of cells [0, i) × [0, j) × [0, k) for
// 0 <= i <= nx etc. It is stored over the weights themselves: entry
// (i, j, k) of the array holds S(i + 1, j + 1, k + 1), and S with any index 0
// is the implicit zero border. So the table costs no memory beyond the moved-in
// weights (DESIGN: ≤ 2× the grid for 256³).
//
// Precision. The table is built by running sums in double along x, then y,
// then z. With nonnegative weights each entry carries a relative error of at
// most ((nx − 1) + (ny − 1) + (nz − 1))·2^-53 (recursive summation, three
// times), and is exact when every partial sum is representable, e.g. integer
// weights with a total ≤ 2^53. A box mass is a signed combination of table
// entries, so its absolute error is a few ulps of the total, not of the box:
// a tiny box far from the origin has a large relative error. Masses are
// clamped at 0 so that rounding never yields a negative cost.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "core/data/records.hpp"
#include "core/multidim/grid_impl.hpp"
#include "isocost/density.hpp"
#include "isocost/detail/file.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/points.hpp"

namespace isocost {

using detail::exact;

namespace {

using Cells = std::array<std::int64_t, kMaxDims>;

// Keeps the byte count of a raw file (8 per cell plus the header) in an int64.
constexpr std::int64_t kMaxCells = std::numeric_limits<std::int64_t>::max() / 16;

using detail::cell_text;
using detail::shape_text;
std::string shape_text(const GridShape& shape) { return shape_text(shape.dims, shape.cells); }

void validate_shape(const GridShape& shape, const std::string& what) {
  if (shape.dims < 1 || shape.dims > kMaxDims)
    throw Error(detail::expected_got(what, "1 to 3 dimensions", std::to_string(shape.dims)));
  std::int64_t count = 1;
  for (int a = 0; a < shape.dims; ++a) {
    const std::int64_t n = shape.cells[a];
    if (n < 1)
      throw Error(detail::expected_got(what + ": cells along " + detail::axis_name(a), ">= 1",
                                       std::to_string(n)));
    if (n > kMaxCells / count)
      throw Error(what + ": shape " + shape_text(shape) + " has more than " +
                  std::to_string(kMaxCells) + " cells");
    count *= n;
  }
}

// Unused axes get one cell, so the table code can treat every grid as 3-D.
GridShape normalized(GridShape shape) {
  for (int a = shape.dims; a < kMaxDims; ++a) shape.cells[a] = 1;
  return shape;
}

using detail::valid_weight;

// The first negative or non-finite weight, as an error naming its cell;
// `where` prefixes the message (a file and byte offset for raw files).
void check_weights(const std::vector<double>& w, const GridShape& shape,
                   const std::string& where = "", std::int64_t first_byte = -1) {
  const std::size_t bad =
      static_cast<std::size_t>(std::find_if_not(w.begin(), w.end(), valid_weight) - w.begin());
  if (bad == w.size()) return;
  const std::string at =
      first_byte < 0 ? where
                     : where + "byte " + std::to_string(first_byte + 8 * std::int64_t(bad)) + ": ";
  throw Error(at + detail::expected_got(
                       "grid density: weight of cell " +
                           cell_text(shape.dims, shape.cells, static_cast<std::int64_t>(bad)),
                       "a finite value >= 0", exact(w[bad])));
}

// Running sums along x, then y, then z, over the weights themselves. Each
// pass walks memory contiguously (whole rows, then whole slices), so the
// inner loops vectorise.
void build_table(std::vector<double>& w, const Cells& n) {
  const std::int64_t nx = n[0], ny = n[1], nz = n[2];
  double* s = w.data();
  for (std::int64_t r = 0; r < ny * nz; ++r) {
    double* row = s + r * nx;
    for (std::int64_t i = 1; i < nx; ++i) row[i] += row[i - 1];
  }
  for (std::int64_t k = 0; k < nz; ++k)
    for (std::int64_t j = 1; j < ny; ++j) {
      double* row = s + nx * (j + ny * k);
      const double* previous = row - nx;
      for (std::int64_t i = 0; i < nx; ++i) row[i] += previous[i];
    }
  const std::int64_t plane = nx * ny;
  for (std::int64_t k = 1; k < nz; ++k) {
    double* slice = s + plane * k;
    const double* previous = slice - plane;
    for (std::int64_t q = 0; q < plane; ++q) slice[q] += previous[q];
  }
}

// --------------------------------------------------------------------------
// The summed-area table of every cell: S at 1-based grid line indices.
class DenseTable {
 public:
  DenseTable(std::vector<double> sat, const GridShape& shape)
      : sat_(std::move(sat)), nx_(shape.cells[0]), ny_(shape.cells[1]) {}
  double operator()(std::int64_t i, std::int64_t j, std::int64_t k) const {
    // S(i, j, k) with indices from 1 sits at (i − 1) + nx·((j − 1) + ny·(k − 1)).
    return sat_[static_cast<std::size_t>((i - 1) + nx_ * ((j - 1) + ny_ * (k - 1)))];
  }
  std::span<const double> values() const { return sat_; }

 private:
  std::vector<double> sat_;
  std::int64_t nx_, ny_;
};

Box default_box(const GridShape& shape) {
  Box b;
  b.dims = shape.dims;
  for (int a = 0; a < shape.dims; ++a) b.hi[a] = static_cast<double>(shape.cells[a]);
  return b;
}

// `weights_checked`: the readers have already validated every value (and
// named the line or byte offset), so skip the second scan.
Density make_grid(std::vector<double> weights, const GridShape& raw_shape, const Box& box,
                  bool weights_checked) {
  validate_shape(raw_shape, "grid shape");
  const GridShape shape = normalized(raw_shape);
  if (static_cast<std::uint64_t>(weights.size()) != static_cast<std::uint64_t>(shape.count()))
    throw Error("grid density: " + std::to_string(weights.size()) + " weights do not match the " +
                shape_text(shape) + " grid, which has " + std::to_string(shape.count()) + " cells");
  if (box.dims != shape.dims)
    throw Error("grid density: the box has " + std::to_string(box.dims) +
                " dimensions, the grid shape " + std::to_string(shape.dims));
  box.validate("grid density box");
  if (!weights_checked) check_weights(weights, shape);
  build_table(weights, shape.cells);
  const double total = weights.back();
  if (total == 0) throw Error("grid density: all weights are zero; the total must be > 0");
  if (!std::isfinite(total))
    throw Error(
        detail::expected_got("grid density: the weights' sum", "a finite number", exact(total)));
  return Density(std::make_shared<detail::GridImpl<DenseTable>>(
                     DenseTable(std::move(weights), shape), shape, box),
                 box, std::make_shared<GridShape>(shape));
}

std::string rows_text(const GridShape& s) {
  if (s.dims == 1) return "one row";
  if (s.dims == 2) return "ny = " + std::to_string(s.cells[1]);
  return "ny*nz = " + std::to_string(s.cells[1]) + "*" + std::to_string(s.cells[2]);
}

// One record per row of nx values along x; rows in y, then z order. Lines go
// one at a time through the shared splitter, so memory stays at one row of
// text however large the grid.
std::vector<double> read_text(std::istream& in, const std::string& path, const GridShape& shape,
                              std::uintmax_t file_size) {
  const std::int64_t nx = shape.cells[0], rows = shape.count() / nx;
  std::vector<double> w;
  // Each value needs at least two characters, so a short file cannot ask for
  // a huge allocation through a huge shape.
  w.reserve(static_cast<std::size_t>(
      std::min<std::uintmax_t>(static_cast<std::uintmax_t>(shape.count()), file_size / 2 + 1)));
  std::string text;
  std::size_t line = 0, first_extra = 0;
  std::int64_t row = 0;
  while (std::getline(in, text)) {
    ++line;
    if (line == 1) detail::strip_bom(text);
    std::istringstream one(text);
    const auto records = detail::read_records(one, path);
    if (records.empty()) continue;  // blank or comment
    const auto& fields = records.front().fields;
    if (row >= rows) {  // count the surplus for the message, parse nothing
      if (!first_extra) first_extra = line;
      ++row;
      continue;
    }
    if (static_cast<std::int64_t>(fields.size()) != nx)
      throw ParseError(path, line,
                       "expected " + std::to_string(nx) + " values (one row of the " +
                           shape_text(shape) + " grid along x), got " +
                           std::to_string(fields.size()));
    for (std::int64_t i = 0; i < nx; ++i) {
      const std::string& f = fields[static_cast<std::size_t>(i)];
      double v;
      if (!detail::parse_number(f, v) || !std::isfinite(v))
        throw ParseError(path, line,
                         "value " + std::to_string(i + 1) + ": expected a finite number, got " +
                             detail::quote(f));
      if (v < 0)
        throw ParseError(path, line,
                         detail::expected_got(
                             "weight of cell " + cell_text(shape.dims, shape.cells, row * nx + i),
                             "a value >= 0", exact(v)));
      w.push_back(v);
    }
    ++row;
  }
  if (in.bad()) throw Error("'" + path + "': read error");
  if (row != rows)
    throw ParseError(path, row > rows ? first_extra : std::max<std::size_t>(line, 1),
                     "expected " + std::to_string(rows) + " rows of " + std::to_string(nx) +
                         " values for the " + shape_text(shape) + " grid (" + rows_text(shape) +
                         "), got " + std::to_string(row));
  return w;
}

// "ISOCOSTW", uint32 dims, int64 cells[dims], float64 weights, little-endian;
// the header is read by the layout shared with the MPI-IO reader (points.hpp).
std::vector<double> read_raw(std::istream& in, const std::string& path, const GridShape& shape,
                             std::span<const char> head, std::uintmax_t file_size) {
  const std::string at = path + ": ";
  const detail::RawLayout L = detail::raw_layout(head, file_size, path);
  if (L.points)
    throw Error(at + "a raw points file (ISOCOSTP), expected grid weights (ISOCOSTW or text)");
  bool same = L.dims == shape.dims;
  for (int a = 0; same && a < shape.dims; ++a) same = L.cells[a] == shape.cells[a];
  if (!same)
    throw Error(at + "byte 12: header shape " + shape_text(L.dims, L.cells) +
                " differs from the expected shape " + shape_text(shape));
  const std::uintmax_t count = static_cast<std::uintmax_t>(shape.count());
  std::vector<double> w(static_cast<std::size_t>(count));
  in.seekg(static_cast<std::streamoff>(L.data_offset));
  in.read(reinterpret_cast<char*>(w.data()), static_cast<std::streamsize>(8 * count));
  if (!in) throw Error(at + "read error in the weights");
  check_weights(w, shape, at, static_cast<std::int64_t>(L.data_offset));
  return w;
}

}  // namespace

// ---------------------------------------------------------------------------
Density grid_density(std::vector<double> weights, const GridShape& shape) {
  validate_shape(shape, "grid shape");
  return make_grid(std::move(weights), shape, default_box(shape), false);
}

Density grid_density(std::vector<double> weights, const GridShape& shape, const Box& box) {
  return make_grid(std::move(weights), shape, box, false);
}

std::vector<double> read_grid_weights(const std::string& path, const GridShape& raw_shape) {
  validate_shape(raw_shape, "grid shape");
  const GridShape shape = normalized(raw_shape);
  auto in = detail::open_for_reading(path);
  std::uintmax_t file_size = 0;
  const std::vector<char> head = detail::read_head(in, path, file_size);
  const bool raw = detail::is_raw(head);
  return raw ? read_raw(in, path, shape, head, file_size) : read_text(in, path, shape, file_size);
}

Density read_grid_density(const std::string& path, const GridShape& raw_shape) {
  auto weights = read_grid_weights(path, raw_shape);
  const GridShape shape = normalized(raw_shape);
  return make_grid(std::move(weights), shape, default_box(shape), true);
}

void write_grid_weights(const std::string& path, const std::vector<double>& weights,
                        const GridShape& raw_shape) {
  detail::require_little_endian(path);
  validate_shape(raw_shape, "grid shape");
  const GridShape shape = normalized(raw_shape);
  if (static_cast<std::uint64_t>(weights.size()) != static_cast<std::uint64_t>(shape.count()))
    throw Error("write_grid_weights: " + std::to_string(weights.size()) +
                " weights do not match the " + shape_text(shape) + " grid, which has " +
                std::to_string(shape.count()) + " cells");
  // Never write a file that read_grid_density would refuse.
  check_weights(weights, shape);

  detail::write_atomically(path, [&](std::ostream& out) {
    const auto dims = static_cast<std::uint32_t>(shape.dims);
    out.write(detail::kWeightsMagic, sizeof detail::kWeightsMagic);
    out.write(reinterpret_cast<const char*>(&dims), sizeof dims);
    out.write(reinterpret_cast<const char*>(shape.cells.data()),
              static_cast<std::streamsize>(8 * dims));
    out.write(reinterpret_cast<const char*>(weights.data()),
              static_cast<std::streamsize>(8 * weights.size()));
  });
}

namespace detail {
std::string grid_description(const GridShape& shape, const Box& box) {
  std::string s = "grid " + shape_text(shape.dims, shape.cells) + " cells on ";
  for (int a = 0; a < shape.dims; ++a)
    s += (a ? " x [" : "[") + exact(box.lo[a]) + ", " + exact(box.hi[a]) + "]";
  return s;
}
}  // namespace detail

namespace detail {
/// The summed-area table of a gridded density, empty for other densities.
/// Not in a header: tests use it to check the table reuses the weights'
/// memory; fast paths may use it later.
std::span<const double> grid_table(const Density& density) {
  const auto* grid = dynamic_cast<const detail::GridImpl<DenseTable>*>(&density.impl());
  return grid ? grid->table().values() : std::span<const double>{};
}
}  // namespace detail

}  // namespace isocost
