// Inputs read in parts with MPI-IO, and parts written back (mpi/files.hpp).
#include "isocost/mpi/files.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "isocost/detail/file.hpp"
#include "isocost/error.hpp"
#include "isocost/points.hpp"
#include "mpi/agreement.hpp"

namespace isocost::mpi {

namespace {

constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();

// Every rank throws the message of the smallest `key` any rank reports
// (kNone: no problem here), so the error names the first bad value of the
// file whichever rank read it. One MPI_Allreduce when all is well.
void agree_first(MPI_Comm comm, std::int64_t key, const std::string& message) {
  std::int64_t least = kNone;
  MPI_Allreduce(&key, &least, 1, MPI_INT64_T, MPI_MIN, comm);
  if (least == kNone) return;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine = key == least ? rank : std::numeric_limits<int>::max(), owner = 0;
  MPI_Allreduce(&mine, &owner, 1, MPI_INT, MPI_MIN, comm);
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, owner, comm);
  std::string text = rank == owner ? message : std::string(static_cast<std::size_t>(length), ' ');
  MPI_Bcast(text.data(), length, MPI_CHAR, owner, comm);
  throw Error(text);
}

// Runs `read` on every rank; an Error on any rank becomes the same Error on
// all of them (the lowest failing rank's).
template <class F>
auto on_every_rank(MPI_Comm comm, F read) -> decltype(read()) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  decltype(read()) out{};
  std::string problem;
  try {
    out = read();
  } catch (const std::exception& e) {
    problem = e.what();
  }
  agree_first(comm, problem.empty() ? kNone : rank, problem);
  return out;
}

// [⌊r·n/R⌋, ⌊(r+1)·n/R⌋): this rank's share of n items.
std::pair<std::int64_t, std::int64_t> share(MPI_Comm comm, std::int64_t n) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const auto part = [&](int r) {
    // ⌊r·n/R⌋ without the product's overflow.
    return n / size * r + n % size * r / size;
  };
  return {part(rank), part(rank + 1)};
}

struct Probe {
  std::vector<char> head;
  std::uintmax_t size = 0;
};

// The first bytes and size of the file, on every rank (a clear "cannot open
// 'PATH': reason" from the serial opener, agreed).
Probe probe(MPI_Comm comm, const std::string& path, const char* what) {
  detail::check_comm(comm, what);
  detail::Same same[] = {detail::same_text("path", path)};
  detail::agree(comm, what, "", same);
  return on_every_rank(comm, [&] {
    auto in = isocost::detail::open_for_reading(path);
    Probe p;
    p.head = isocost::detail::read_head(in, path, p.size);
    return p;
  });
}

std::string mpi_error(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

// Reads `count` doubles from byte `offset` with MPI-IO (independent reads of
// at most 2^27 doubles, since MPI counts are int). Collective (open, close).
std::vector<double> read_doubles(MPI_Comm comm, const std::string& path, std::uint64_t offset,
                                 std::int64_t count) {
  MPI_File fh = MPI_FILE_NULL;
  int rc = MPI_File_open(comm, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  agree_first(comm, rc == MPI_SUCCESS ? kNone : rank,
              "'" + path + "': MPI_File_open failed: " + mpi_error(rc));
  MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
  std::vector<double> values;
  std::string problem;
  try {
    values.resize(static_cast<std::size_t>(count));
  } catch (const std::bad_alloc&) {
    problem = path + ": out of memory for " + std::to_string(count) + " values on rank " +
              std::to_string(rank);
  }
  constexpr std::int64_t kChunk = std::int64_t{1} << 27;
  for (std::int64_t done = 0; problem.empty() && done < count; done += kChunk) {
    const int n = static_cast<int>(std::min(kChunk, count - done));
    MPI_Status status;
    rc =
        MPI_File_read_at(fh, static_cast<MPI_Offset>(offset + 8 * static_cast<std::uint64_t>(done)),
                         values.data() + done, n, MPI_DOUBLE, &status);
    int got = 0;
    if (rc == MPI_SUCCESS) MPI_Get_count(&status, MPI_DOUBLE, &got);
    if (rc != MPI_SUCCESS || got != n)
      problem =
          path + ": read error at byte " +
          std::to_string(offset + 8 * static_cast<std::uint64_t>(done)) +
          (rc != MPI_SUCCESS ? ": " + mpi_error(rc) : ": the file is shorter than its header says");
  }
  MPI_File_close(&fh);
  agree_first(comm, problem.empty() ? kNone : rank, problem);
  return values;
}

}  // namespace

WeightsSlice read_weights(MPI_Comm comm, const std::string& path) {
  const Probe p = probe(comm, path, "read_weights");
  WeightsSlice s;
  if (!isocost::detail::is_raw(p.head)) {
    // Text: every rank parses it all (same errors), and keeps its share.
    std::vector<double> all = on_every_rank(comm, [&] { return isocost::read_weights(path); });
    s.total = static_cast<std::int64_t>(all.size());
    const auto [b, e] = share(comm, s.total);
    s.first = b;
    s.weights.assign(all.begin() + b, all.begin() + e);
    return s;
  }
  const auto L = on_every_rank(comm, [&] {
    auto l = isocost::detail::raw_layout(p.head, p.size, path);
    if (l.points || l.dims != 1)
      throw Error(path + ": a raw " +
                  (l.points ? std::string("points file")
                            : isocost::detail::shape_text(l.dims, l.cells) + " grid") +
                  ", expected 1-D weights (ISOCOSTW with dims 1, or one weight per line)");
    return l;
  });
  s.raw = true;
  s.total = L.count;
  const auto [b, e] = share(comm, s.total);
  s.first = b;
  s.weights = read_doubles(comm, path, L.data_offset + 8 * static_cast<std::uint64_t>(b), e - b);
  const auto bad =
      std::find_if_not(s.weights.begin(), s.weights.end(), isocost::detail::valid_weight);
  const std::int64_t at = bad == s.weights.end() ? kNone : b + (bad - s.weights.begin());
  agree_first(comm, at, at == kNone ? "" : isocost::detail::raw_weight_error(path, L, at, *bad));
  return s;
}

GridBox read_grid(MPI_Comm comm, const std::string& path, const GridShape& shape) {
  detail::check_comm(comm, "read_grid");
  GridBox box;
  box.shape = shape;
  for (int a = shape.dims; a < kMaxDims; ++a) box.shape.cells[a] = 1;
  std::string text;
  for (int a = 0; a < kMaxDims; ++a) text += std::to_string(box.shape.cells[a]) + " ";
  detail::Same same[] = {detail::same_text("shape", std::to_string(shape.dims) + ": " + text)};
  detail::agree(comm, "read_grid", "", same);
  const Probe p = probe(comm, path, "read_grid");
  const int last = shape.dims - 1;
  const std::int64_t plane = box.shape.count() / box.shape.cells[last];
  const auto [b, e] = share(comm, box.shape.cells[last]);
  for (int a = 0; a < kMaxDims; ++a) box.hi[a] = box.shape.cells[a];
  box.lo[last] = b;
  box.hi[last] = e;
  if (!isocost::detail::is_raw(p.head)) {
    std::vector<double> all =
        on_every_rank(comm, [&] { return read_grid_weights(path, box.shape); });
    box.weights.assign(all.begin() + b * plane, all.begin() + e * plane);
    return box;
  }
  const auto L = on_every_rank(comm, [&] {
    auto l = isocost::detail::raw_layout(p.head, p.size, path);
    if (l.points)
      throw Error(path +
                  ": a raw points file (ISOCOSTP), expected grid weights (ISOCOSTW or text)");
    bool same_shape = l.dims == shape.dims;
    for (int a = 0; same_shape && a < shape.dims; ++a) same_shape = l.cells[a] == shape.cells[a];
    if (!same_shape)
      throw Error(path + ": byte 12: header shape " + isocost::detail::shape_text(l.dims, l.cells) +
                  " differs from the expected shape " +
                  isocost::detail::shape_text(shape.dims, shape.cells));
    return l;
  });
  box.raw = true;
  box.weights = read_doubles(comm, path, L.data_offset + 8 * static_cast<std::uint64_t>(b * plane),
                             (e - b) * plane);
  const auto bad =
      std::find_if_not(box.weights.begin(), box.weights.end(), isocost::detail::valid_weight);
  const std::int64_t at =
      bad == box.weights.end() ? kNone : b * plane + (bad - box.weights.begin());
  agree_first(comm, at, at == kNone ? "" : isocost::detail::raw_weight_error(path, L, at, *bad));
  return box;
}

PointsSlice read_points(MPI_Comm comm, const std::string& path) {
  const Probe p = probe(comm, path, "read_points");
  PointsSlice s;
  if (!isocost::detail::is_raw(p.head)) {
    PointSet all = on_every_rank(comm, [&] { return isocost::read_points(path); });
    s.dims = all.dims;
    s.total = static_cast<std::int64_t>(all.size());
    const auto [b, e] = share(comm, s.total);
    s.first = b;
    s.weights.assign(all.weights.begin() + b, all.weights.begin() + e);
    s.coords.assign(all.coords.begin() + b * s.dims, all.coords.begin() + e * s.dims);
    return s;
  }
  const auto L = on_every_rank(comm, [&] {
    auto l = isocost::detail::raw_layout(p.head, p.size, path);
    if (!l.points)
      throw Error(path +
                  ": a raw weights file (ISOCOSTW), expected points (ISOCOSTP or "
                  "x,y[,z],w text)");
    return l;
  });
  s.raw = true;
  s.dims = L.dims;
  s.total = L.count;
  const auto [b, e] = share(comm, s.total);
  s.first = b;
  const std::int64_t rv = L.record_values;
  const std::vector<double> records = read_doubles(
      comm, path, L.data_offset + 8 * static_cast<std::uint64_t>(b * rv), (e - b) * rv);
  const auto n = static_cast<std::size_t>(e - b), d = static_cast<std::size_t>(s.dims);
  s.coords.resize(n * d);
  s.weights.resize(n);
  std::int64_t at = kNone;
  std::string problem;
  for (std::size_t i = 0; i < n && at == kNone; ++i) {
    for (std::size_t a = 0; a <= d && at == kNone; ++a) {
      const double v = records[i * (d + 1) + a];
      if (a < d ? std::isfinite(v) : isocost::detail::valid_weight(v)) continue;
      at = b + static_cast<std::int64_t>(i);
      problem = isocost::detail::raw_point_error(path, L, at, static_cast<int>(a), v);
    }
    std::copy_n(&records[i * (d + 1)], d, &s.coords[i * d]);
    s.weights[i] = records[i * (d + 1) + d];
  }
  agree_first(comm, at, problem);
  return s;
}

void write_parts(MPI_Comm comm, const std::string& path, std::int64_t first,
                 std::span<const int> part) {
  detail::check_comm(comm, "write_parts");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  namespace fs = std::filesystem;
  // The target must be a regular file or not exist: the rename replaces it.
  std::string problem;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (path.empty())
    problem = "expected a file name, got an empty one";
  else if (fs::exists(status) && !fs::is_regular_file(status))
    problem = "'" + path + "': expected a regular file (new or existing) for the parts";
  // The slices must follow each other in rank order: the lines are written
  // where the ranks before have ended.
  const auto count = static_cast<std::int64_t>(part.size());
  std::int64_t before = 0;
  MPI_Exscan(&count, &before, 1, MPI_INT64_T, MPI_SUM, comm);
  if (rank == 0) before = 0;
  if (problem.empty() && first != before)
    problem = isocost::detail::expected_got(
        "first point", std::to_string(before) + " (the points of the ranks before, in rank order)",
        std::to_string(first));
  detail::Same same[] = {detail::same_text("path", path)};
  detail::agree(comm, "write_parts", problem, same);
  // Rank 0 names the temporary, beside the file so that the rename stays on
  // one file system.
  std::string temp;
  if (rank == 0) temp = path + ".tmp-" + std::to_string(::getpid());
  int length = static_cast<int>(temp.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  temp.resize(static_cast<std::size_t>(length));
  MPI_Bcast(temp.data(), length, MPI_CHAR, 0, comm);

  std::string text;
  text.reserve(part.size() * 4);
  for (const int k : part) (text += std::to_string(k)) += '\n';
  const auto bytes = static_cast<std::int64_t>(text.size());
  std::int64_t offset = 0;
  MPI_Exscan(&bytes, &offset, 1, MPI_INT64_T, MPI_SUM, comm);
  if (rank == 0) offset = 0;

  MPI_File fh = MPI_FILE_NULL;
  int rc = MPI_File_open(comm, temp.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  agree_first(comm, rc == MPI_SUCCESS ? kNone : rank,
              "'" + path + "': cannot create the temporary '" + temp + "': " + mpi_error(rc));
  MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
  constexpr std::int64_t kChunk = std::int64_t{1} << 30;
  for (std::int64_t done = 0; problem.empty() && done < bytes; done += kChunk) {
    const int n = static_cast<int>(std::min(kChunk, bytes - done));
    MPI_Status st;
    rc = MPI_File_write_at(fh, static_cast<MPI_Offset>(offset + done), text.data() + done, n,
                           MPI_CHAR, &st);
    if (rc != MPI_SUCCESS) problem = "'" + path + "': write error: " + mpi_error(rc);
  }
  rc = MPI_File_close(&fh);
  if (rc != MPI_SUCCESS && problem.empty())
    problem = "'" + path + "': close failed: " + mpi_error(rc);
  // Rank 0 renames only when every rank wrote; otherwise removes.
  int bad = problem.empty() ? 0 : 1, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
  if (rank == 0) {
    if (!any) {
      fs::rename(temp, path, ec);
      if (ec) {
        problem = "'" + path + "': cannot rename the temporary over it: " + ec.message();
        fs::remove(temp, ec);
      }
    } else {
      fs::remove(temp, ec);
    }
  }
  agree_first(comm, problem.empty() ? kNone : rank, problem);
}

}  // namespace isocost::mpi
