// Inputs read in parts (mpi/files.hpp): the slices of every rank put together
// are the serial reader's values, raw (MPI-IO) and text alike; a bad file is
// the same Error on every rank, with the serial reader's words; and the parts
// written back are every point's, in file order.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "isocost/mpi/files.hpp"
#include "isocost/points.hpp"
#include "mpi_test_support.hpp"

namespace isocost::testing {
namespace {

namespace fs = std::filesystem;

// A directory every rank sees, named by rank 0.
class Files : public ::testing::Test {
 protected:
  fs::path dir;
  void SetUp() override {
    std::string name;
    if (rank_of() == 0) {
      name = (fs::temp_directory_path() /
              ("isocost_mpi_files_" + std::to_string(::getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                 .string();
      fs::create_directories(name);
    }
    int n = static_cast<int>(name.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    name.resize(static_cast<std::size_t>(n));
    MPI_Bcast(name.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
    dir = name;
  }
  void TearDown() override {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_of() == 0) fs::remove_all(dir);
  }
  // Rank 0 writes, every rank waits for it.
  template <class F>
  std::string on_root(const std::string& name, F write) {
    const auto path = (dir / name).string();
    if (rank_of() == 0) write(path);
    MPI_Barrier(MPI_COMM_WORLD);
    return path;
  }
};

// Every rank's values, in rank order.
std::vector<double> gathered(const std::vector<double>& mine) {
  const int size = size_of();
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(counts.size(), 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r)
    offsets[static_cast<std::size_t>(r)] =
        offsets[static_cast<std::size_t>(r) - 1] + counts[static_cast<std::size_t>(r) - 1];
  std::vector<double> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  MPI_Allgatherv(mine.data(), n, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE,
                 MPI_COMM_WORLD);
  return all;
}

std::vector<double> spiky(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<double> w(n);
  for (auto& x : w) x = gen() % 100 == 0 ? 100.0 : 0.25 * static_cast<double>(gen() % 8);
  return w;
}

void expect_contiguous(std::int64_t first, std::size_t count, std::int64_t total) {
  // Slices follow each other in rank order and cover [0, total).
  const std::int64_t end = first + static_cast<std::int64_t>(count);
  std::int64_t previous_end = 0;
  MPI_Exscan(&end, &previous_end, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (rank_of() == 0) previous_end = 0;
  EXPECT_EQ(first, previous_end);
  std::int64_t last = 0;
  MPI_Allreduce(&end, &last, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(last, total);
}

TEST_F(Files, WeightsRawAndTextAreTheSerialValues) {
  for (const std::size_t n : {1u, 5u, 7u, 1000u}) {
    const auto w = spiky(n, static_cast<unsigned>(n));
    const auto raw = on_root("w.bin", [&](const std::string& p) {
      write_grid_weights(p, w, GridShape{1, {static_cast<std::int64_t>(n), 1, 1}});
    });
    const auto text = on_root("w.txt", [&](const std::string& p) {
      std::ofstream out(p);
      out << "weight\n";
      for (const double x : w) out << x << "\n";
    });
    for (const auto& path : {raw, text}) {
      const auto s = mpi::read_weights(MPI_COMM_WORLD, path);
      EXPECT_EQ(s.raw, path == raw);
      EXPECT_EQ(s.total, static_cast<std::int64_t>(n));
      expect_contiguous(s.first, s.weights.size(), s.total);
      EXPECT_EQ(gathered(s.weights), w) << path << " n = " << n;
    }
  }
}

TEST_F(Files, GridBoxesTileTheGrid) {
  for (const GridShape shape : {GridShape{2, {7, 5, 1}}, GridShape{3, {4, 3, 6}},
                                GridShape{2, {3, 1, 1}}, GridShape{1, {9, 1, 1}}}) {
    const auto w = spiky(static_cast<std::size_t>(shape.count()), 11);
    const auto raw =
        on_root("g.bin", [&](const std::string& p) { write_grid_weights(p, w, shape); });
    const auto text = on_root("g.txt", [&](const std::string& p) {
      std::ofstream out(p);
      for (std::size_t i = 0; i < w.size(); ++i)
        out << w[i] << ((i + 1) % static_cast<std::size_t>(shape.cells[0]) ? "," : "\n");
    });
    for (const auto& path : {raw, text}) {
      const auto box = mpi::read_grid(MPI_COMM_WORLD, path, shape);
      std::int64_t cells = 1;
      for (int a = 0; a < 3; ++a) cells *= box.hi[a] - box.lo[a];
      EXPECT_EQ(static_cast<std::int64_t>(box.weights.size()), cells);
      // Slabs along the last axis, in rank order: together the file's values.
      EXPECT_EQ(gathered(box.weights), w) << path;
    }
  }
}

TEST_F(Files, PointsRawAndCsvAreTheSerialPoints) {
  PointSet p;
  p.dims = 3;
  std::mt19937 gen(4);
  std::normal_distribution<double> g(0.5, 0.1);
  for (int i = 0; i < 501; ++i) {
    for (int a = 0; a < 3; ++a) p.coords.push_back(g(gen));
    p.weights.push_back(static_cast<double>(1 + gen() % 5));
  }
  const auto raw = on_root("p.bin", [&](const std::string& path) { write_points(path, p); });
  const auto csv = on_root("p.csv", [&](const std::string& path) {
    std::ofstream out(path);
    out.precision(17);
    out << "x,y,z,w\n";
    for (std::size_t i = 0; i < p.size(); ++i)
      out << p.coords[3 * i] << "," << p.coords[3 * i + 1] << "," << p.coords[3 * i + 2] << ","
          << p.weights[i] << "\n";
  });
  for (const auto& path : {raw, csv}) {
    const auto s = mpi::read_points(MPI_COMM_WORLD, path);
    EXPECT_EQ(s.dims, 3);
    EXPECT_EQ(s.total, 501);
    expect_contiguous(s.first, s.weights.size(), s.total);
    EXPECT_EQ(gathered(s.weights), p.weights);
    EXPECT_EQ(gathered(s.coords), p.coords);
  }
}

// The serial reader's message, from rank 0 (every rank can read the file).
std::string serial_message(const std::function<void()>& read) {
  std::string m = error_of(read);
  EXPECT_FALSE(m.empty());
  return m;
}

TEST_F(Files, BadFilesAreTheSameErrorOnEveryRank) {
  const std::size_t n = 50;
  auto w = spiky(n, 3);
  // The bad value near the end: held by the last rank, not rank 0.
  w[47] = std::numeric_limits<double>::quiet_NaN();
  const auto nan_file = on_root("nan.bin", [&](const std::string& p) {
    std::ofstream out(p, std::ios::binary);
    const std::uint32_t dims = 1;
    const std::int64_t cells = static_cast<std::int64_t>(n);
    out.write("ISOCOSTW", 8);
    out.write(reinterpret_cast<const char*>(&dims), 4);
    out.write(reinterpret_cast<const char*>(&cells), 8);
    out.write(reinterpret_cast<const char*>(w.data()), static_cast<std::streamsize>(8 * n));
  });
  const std::string expected = serial_message([&] { read_weights(nan_file); });
  expect_has(expected,
             "byte 396: grid density: weight of cell (47): expected a finite value >= 0, got nan");
  std::string msg = error_of([&] { mpi::read_weights(MPI_COMM_WORLD, nan_file); });
  EXPECT_EQ(msg, expected);
  expect_agreed_error(msg, "cell (47)");

  const auto shorter = on_root("short.bin", [&](const std::string& p) {
    std::ofstream out(p, std::ios::binary);
    out << std::ifstream(nan_file, std::ios::binary).rdbuf();
    out.seekp(0);
  });
  fs::resize_file(shorter, 300);  // every rank: the same size (idempotent)
  MPI_Barrier(MPI_COMM_WORLD);
  msg = error_of([&] { mpi::read_weights(MPI_COMM_WORLD, shorter); });
  EXPECT_EQ(msg, serial_message([&] { read_weights(shorter); }));
  expect_agreed_error(msg, "file size 300 bytes does not match the 50 grid");

  const auto missing = (dir / "missing.bin").string();
  msg = error_of([&] { mpi::read_points(MPI_COMM_WORLD, missing); });
  expect_agreed_error(msg, "cannot open '" + missing + "': no such file or directory");

  const auto grid = on_root("g.bin", [&](const std::string& p) {
    write_grid_weights(p, std::vector<double>(12, 1.0), GridShape{2, {4, 3, 1}});
  });
  msg = error_of([&] { mpi::read_grid(MPI_COMM_WORLD, grid, GridShape{2, {3, 4, 1}}); });
  expect_agreed_error(msg, "header shape 4x3 differs from the expected shape 3x4");
  msg = error_of([&] { mpi::read_points(MPI_COMM_WORLD, grid); });
  expect_agreed_error(msg, "a raw weights file (ISOCOSTW), expected points");

  const auto text =
      on_root("bad.csv", [&](const std::string& p) { std::ofstream(p) << "1,2,3\n4,5,-6\n"; });
  msg = error_of([&] { mpi::read_points(MPI_COMM_WORLD, text); });
  expect_agreed_error(msg, text + ":2: weight: expected a value >= 0, got -6");

  // A path that differs between ranks is named, not read.
  if (size_of() > 1) {
    msg = error_of([&] { mpi::read_weights(MPI_COMM_WORLD, rank_of() == 0 ? nan_file : shorter); });
    expect_agreed_error(msg, "path");
  }
}

TEST_F(Files, PartsAreWrittenInFileOrder) {
  const std::int64_t total = 1001;
  const int R = size_of(), r = rank_of();
  const std::int64_t first = total * r / R, end = total * (r + 1) / R;
  std::vector<int> part;
  for (std::int64_t i = first; i < end; ++i) part.push_back(static_cast<int>((i * 7) % 13));
  const auto path = (dir / "parts.txt").string();
  mpi::write_parts(MPI_COMM_WORLD, path, first, part);
  if (r == 0) {
    std::ifstream in(path);
    std::int64_t i = 0;
    for (int k; in >> k; ++i) EXPECT_EQ(k, (i * 7) % 13) << "line " << i + 1;
    EXPECT_EQ(i, total);
    // Nothing else left in the directory: the temporary was renamed.
    int files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
    EXPECT_EQ(files, 1);
  }
  // A directory is not a file to write parts to: the same error everywhere,
  // and nothing created.
  const std::string msg =
      error_of([&] { mpi::write_parts(MPI_COMM_WORLD, dir.string(), first, part); });
  expect_agreed_error(msg, "expected a regular file");
  // Slices out of rank order: named, nothing written.
  const auto other = (dir / "other.txt").string();
  const std::string order =
      error_of([&] { mpi::write_parts(MPI_COMM_WORLD, other, first + 1, part); });
  expect_agreed_error(order, "first point");
  if (r == 0) {
    EXPECT_FALSE(fs::exists(other));
  }
}

}  // namespace
}  // namespace isocost::testing
