// Weighted points on file (points.hpp): CSV text and the raw "ISOCOSTP"
// layout, the 1-D weights reader, and the raw header shared with the MPI-IO
// readers (mpi/files.cpp), so that a bad file gets the same words on one rank
// as on many.
#include "isocost/points.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "core/data/records.hpp"
#include "isocost/detail/file.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/io.hpp"

namespace isocost {

using detail::exact;

namespace {

constexpr char kPointsMagic[8] = {'I', 'S', 'O', 'C', 'O', 'S', 'T', 'P'};
// Keeps a raw file's byte count in an int64.
constexpr std::int64_t kMaxValues = std::numeric_limits<std::int64_t>::max() / 16;

template <class T>
T load(std::span<const char> head, std::size_t at) {
  T v;
  std::memcpy(&v, head.data() + at, sizeof v);
  return v;
}

std::string field_name(int dims, int value) {
  return value < dims ? detail::axis_name(value) : "w";
}

}  // namespace

namespace detail {

void require_little_endian(const std::string& path) {
  if constexpr (std::endian::native != std::endian::little)
    throw Error("'" + path +
                "': raw files hold little-endian values, and this host is not little-endian "
                "(unsupported for raw files; use the text format)");
}

std::vector<char> read_head(std::ifstream& in, const std::string& path, std::uintmax_t& size) {
  in.seekg(0, std::ios::end);
  const auto end = in.tellg();
  if (end < 0) throw Error("'" + path + "': cannot determine the file size");
  size = static_cast<std::uintmax_t>(end);
  in.seekg(0);
  std::vector<char> head(std::min<std::uintmax_t>(size, kRawHeadBytes));
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  if (!in) throw Error("'" + path + "': read error in the first bytes");
  in.seekg(0);
  return head;
}

bool is_raw(std::span<const char> head) {
  return head.size() >= 8 && (std::memcmp(head.data(), kWeightsMagic, 8) == 0 ||
                              std::memcmp(head.data(), kPointsMagic, 8) == 0);
}

std::string shape_text(int dims, const std::array<std::int64_t, kMaxDims>& cells) {
  std::string s;
  for (int a = 0; a < dims; ++a) s += (a ? "x" : "") + std::to_string(cells[a]);
  return s;
}

std::string cell_text(int dims, const std::array<std::int64_t, kMaxDims>& n, std::int64_t index) {
  const std::array<std::int64_t, kMaxDims> c{index % n[0], (index / n[0]) % n[1],
                                             index / (n[0] * n[1])};
  std::string s = "(";
  for (int a = 0; a < dims; ++a) s += (a ? ", " : "") + std::to_string(c[a]);
  return s + ")";
}

RawLayout raw_layout(std::span<const char> head, std::uintmax_t file_size,
                     const std::string& path) {
  require_little_endian(path);
  const std::string at = path + ": ";
  RawLayout L;
  L.points = head.size() >= 8 && std::memcmp(head.data(), kPointsMagic, 8) == 0;
  auto truncated = [&](std::uintmax_t need) {
    return Error(at + "truncated header: the file has " + std::to_string(file_size) +
                 " bytes, the header needs " + std::to_string(need));
  };
  if (file_size < 12 || head.size() < 12) throw truncated(12);
  const auto dims = load<std::uint32_t>(head, 8);
  if (dims < 1 || dims > kMaxDims)
    throw Error(at + detail::expected_got("byte 8: header dims", "1 to 3", std::to_string(dims)));
  L.dims = static_cast<int>(dims);
  const std::uintmax_t header = L.points ? 20 : 12 + 8 * dims;
  if (file_size < header || head.size() < header) throw truncated(header);
  std::string what;
  if (L.points) {
    L.count = load<std::int64_t>(head, 12);
    L.record_values = L.dims + 1;
    if (L.count < 1 || L.count > kMaxValues / L.record_values)
      throw Error(at + detail::expected_got(
                           "byte 12: header count",
                           "1 to " + std::to_string(kMaxValues / L.record_values) + " points",
                           std::to_string(L.count)));
    what = std::to_string(L.count) + " points in " + std::to_string(L.dims) + "-D";
  } else {
    L.count = 1;
    for (int a = 0; a < L.dims; ++a) {
      const auto n = load<std::int64_t>(head, 12 + 8 * static_cast<std::size_t>(a));
      if (n < 1 || n > kMaxValues / L.count)
        throw Error(at + detail::expected_got("byte " + std::to_string(12 + 8 * a) +
                                                  ": header cells along " + detail::axis_name(a),
                                              "1 to " + std::to_string(kMaxValues / L.count),
                                              std::to_string(n)));
      L.cells[static_cast<std::size_t>(a)] = n;
      L.count *= n;
    }
    what = shape_text(L.dims, L.cells) + " grid";
  }
  L.data_offset = header;
  const auto values = static_cast<std::uintmax_t>(L.count * L.record_values);
  const std::uintmax_t expected = header + 8 * values;
  if (file_size != expected)
    throw Error(at + "file size " + std::to_string(file_size) + " bytes does not match the " +
                what + ": expected " + std::to_string(expected) + " bytes (" +
                std::to_string(header) + "-byte header + 8 bytes x " + std::to_string(values) +
                (L.points ? " values)" : " cells)"));
  return L;
}

std::string raw_weight_error(const std::string& path, const RawLayout& L, std::int64_t index,
                             double value) {
  return path + ": byte " + std::to_string(L.data_offset + 8 * static_cast<std::uint64_t>(index)) +
         ": " +
         detail::expected_got("grid density: weight of cell " + cell_text(L.dims, L.cells, index),
                              "a finite value >= 0", exact(value));
}

std::string raw_point_error(const std::string& path, const RawLayout& L, std::int64_t index,
                            int value, double v) {
  const bool weight = value == L.dims;
  return path + ": byte " +
         std::to_string(L.data_offset +
                        8 * static_cast<std::uint64_t>(index * L.record_values + value)) +
         ": " +
         detail::expected_got(field_name(L.dims, value) + " of point " + std::to_string(index),
                              weight ? "a finite weight >= 0" : "a finite number", exact(v));
}

}  // namespace detail

namespace {

PointSet read_raw_points(std::ifstream& in, const std::string& path, const detail::RawLayout& L) {
  PointSet p;
  p.dims = L.dims;
  const auto n = static_cast<std::size_t>(L.count);
  const auto d = static_cast<std::size_t>(L.dims);
  std::vector<double> records(n * (d + 1));
  in.seekg(static_cast<std::streamoff>(L.data_offset));
  in.read(reinterpret_cast<char*>(records.data()),
          static_cast<std::streamsize>(8 * records.size()));
  if (!in) throw Error(path + ": read error in the points");
  p.coords.resize(n * d);
  p.weights.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t a = 0; a <= d; ++a) {
      const double v = records[i * (d + 1) + a];
      const bool ok = a < d ? std::isfinite(v) : detail::valid_weight(v);
      if (!ok)
        throw Error(
            detail::raw_point_error(path, L, static_cast<std::int64_t>(i), static_cast<int>(a), v));
    }
    std::memcpy(&p.coords[i * d], &records[i * (d + 1)], 8 * d);
    p.weights[i] = records[i * (d + 1) + d];
  }
  return p;
}

PointSet read_text_points(std::ifstream& in, const std::string& path) {
  const auto records = detail::read_records(in, path);
  PointSet p;
  std::size_t start = 0;
  if (!records.empty() && detail::is_header(records[0])) start = 1;
  for (std::size_t r = start; r < records.size(); ++r) {
    const auto& rec = records[r];
    const auto fields = rec.fields.size();
    if (p.dims == 0) {
      if (fields < 2 || fields > 4)
        throw ParseError(path, rec.line,
                         "expected x,w or x,y,w or x,y,z,w (1 to 3 coordinates and a weight), "
                         "got " +
                             std::to_string(fields) + " fields");
      p.dims = static_cast<int>(fields) - 1;
    } else if (fields != static_cast<std::size_t>(p.dims) + 1) {
      throw ParseError(path, rec.line,
                       "expected " + std::to_string(p.dims + 1) +
                           " fields (as the first point), got " + std::to_string(fields));
    }
    for (int a = 0; a <= p.dims; ++a) {
      const std::string& f = rec.fields[static_cast<std::size_t>(a)];
      double v;
      const bool weight = a == p.dims;
      if (!detail::parse_number(f, v) || !std::isfinite(v))
        throw ParseError(
            path, rec.line,
            field_name(p.dims, a) + ": expected a finite number, got " + detail::quote(f));
      if (weight && v < 0)
        throw ParseError(path, rec.line, detail::expected_got("weight", "a value >= 0", exact(v)));
      (weight ? p.weights : p.coords).push_back(v);
    }
  }
  if (p.weights.empty())
    throw ParseError(path, records.empty() ? 1 : records.back().line, "no points in the file");
  return p;
}

}  // namespace

PointSet read_points(const std::string& path) {
  auto in = detail::open_for_reading(path);
  std::uintmax_t size = 0;
  const auto head = detail::read_head(in, path, size);
  if (!detail::is_raw(head)) return read_text_points(in, path);
  const auto L = detail::raw_layout(head, size, path);
  if (!L.points)
    throw Error(path +
                ": a raw weights file (ISOCOSTW), expected points (ISOCOSTP or x,y[,z],w "
                "text)");
  return read_raw_points(in, path, L);
}

void write_points(const std::string& path, const PointSet& p) {
  detail::require_little_endian(path);
  if (p.dims < 1 || p.dims > kMaxDims)
    throw Error(detail::expected_got("write_points: dims", "1 to 3", std::to_string(p.dims)));
  const auto d = static_cast<std::size_t>(p.dims);
  if (p.coords.size() != p.weights.size() * d || p.weights.empty())
    throw Error(detail::expected_got(
        "write_points: coordinates for " + std::to_string(p.weights.size()) + " points in " +
            std::to_string(p.dims) + "-D",
        "at least one point and " + std::to_string(p.dims) + " coordinates each",
        std::to_string(p.coords.size())));
  for (std::size_t i = 0; i < p.weights.size(); ++i) {
    for (std::size_t a = 0; a < d; ++a)
      if (!std::isfinite(p.coords[i * d + a]))
        throw Error(detail::expected_got(
            std::string("write_points: ") + detail::axis_name(a) + " of point " + std::to_string(i),
            "a finite number", exact(p.coords[i * d + a])));
    if (!detail::valid_weight(p.weights[i]))
      throw Error(detail::expected_got("write_points: weight of point " + std::to_string(i),
                                       "a finite weight >= 0", exact(p.weights[i])));
  }
  detail::write_atomically(path, [&](std::ostream& out) {
    const auto dims = static_cast<std::uint32_t>(p.dims);
    const auto count = static_cast<std::int64_t>(p.weights.size());
    out.write(kPointsMagic, sizeof kPointsMagic);
    out.write(reinterpret_cast<const char*>(&dims), sizeof dims);
    out.write(reinterpret_cast<const char*>(&count), sizeof count);
    std::vector<double> record(d + 1);
    for (std::size_t i = 0; i < p.weights.size(); ++i) {
      std::memcpy(record.data(), &p.coords[i * d], 8 * d);
      record[d] = p.weights[i];
      out.write(reinterpret_cast<const char*>(record.data()),
                static_cast<std::streamsize>(8 * record.size()));
    }
  });
}

std::vector<double> read_weights(const std::string& path) {
  std::uintmax_t size = 0;
  std::vector<char> head;
  {
    auto in = detail::open_for_reading(path);
    head = detail::read_head(in, path, size);
  }
  if (!detail::is_raw(head)) return read_column(path, "weight", true);
  const auto L = detail::raw_layout(head, size, path);
  if (L.points || L.dims != 1)
    throw Error(
        path + ": a raw " +
        (L.points ? std::string("points file") : detail::shape_text(L.dims, L.cells) + " grid") +
        ", expected 1-D weights (ISOCOSTW with dims 1, or one weight per line)");
  GridShape shape;
  shape.dims = 1;
  shape.cells = L.cells;
  return read_grid_weights(path, shape);
}

}  // namespace isocost
