// Tests for the weight files of gridded densities (isocost/density.hpp):
// read_grid_density() of text and raw files, write_grid_weights(), and every
// parse and validation error with its file, line or byte offset.
#include "core/multidim/density_grid_test.hpp"

namespace {

// ---------------------------------------------------------------------------
// Weight files.

// A path in the test temp directory, removed at scope exit.
class TempPath {
 public:
  explicit TempPath(const std::string& stem) {
    std::random_device rd;
    path_ = (std::filesystem::path(testing::TempDir()) /
             ("isocost_test_density_grid_" + stem + "_" + std::to_string(rd())))
                .string();
  }
  TempPath(const std::string& stem, const std::string& contents) : TempPath(stem) {
    std::ofstream out(path_, std::ios::binary);
    out << contents;
  }
  ~TempPath() { std::remove(path_.c_str()); }
  TempPath(const TempPath&) = delete;
  TempPath& operator=(const TempPath&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Checks a ParseError's file, line and message fragments.
template <class F>
void ExpectParseError(F&& f, const std::string& file, std::size_t line,
                      std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "expected isocost::ParseError";
  } catch (const isocost::ParseError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.file(), file) << msg;
    EXPECT_EQ(e.line(), line) << msg;
    for (const auto& p : parts)
      EXPECT_NE(msg.find(p), std::string::npos) << "missing '" << p << "' in: " << msg;
  }
}

TEST(ReadGridDensity, TextWithCommentsBlankLinesAndCrlf) {
  TempPath f("text", "# 3x2 weights\n1, 2, 3\r\n\n   # y = 1\n4\t5 6\n\n");
  const auto d = isocost::read_grid_density(f.path(), Shape(3, 2));
  EXPECT_EQ(d.total(), 21);
  ForEachRange(Shape(3, 2), [&](const Cells& c0, const Cells& c1) {
    EXPECT_EQ(d.cell_mass(c0, c1), static_cast<double>(BruteCells(k3x2, Shape(3, 2), c0, c1)));
  });
  EXPECT_EQ(d.describe(), "grid 3x2 cells on [0, 3] x [0, 2]");
}

TEST(ReadGridDensity, Text3DRowsInYThenZOrder) {
  TempPath f("text3", "1 2\n3 4\n# z = 1\n5 6\n7 8\n");
  const auto d = isocost::read_grid_density(f.path(), Shape(2, 2, 2));
  EXPECT_EQ(d.cell_mass({1, 0, 1}, {2, 1, 2}), 6);
  EXPECT_EQ(d.cell_mass({0, 1, 0}, {1, 2, 1}), 3);
  EXPECT_EQ(isocost::detail::grid_table(d).back(), 36);
}

TEST(ReadGridDensity, RawRoundTrip) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0, 1);
  const GridShape s = Shape(6, 5, 4);
  std::vector<double> w(static_cast<std::size_t>(s.count()));
  for (auto& v : w) v = unit(rng);
  w[17] = 0;
  TempPath f("raw");
  isocost::write_grid_weights(f.path(), w, s);
  EXPECT_EQ(std::filesystem::file_size(f.path()), 8u + 4 + 3 * 8 + 8 * w.size());
  {
    std::ifstream in(f.path(), std::ios::binary);
    char magic[8];
    in.read(magic, 8);
    EXPECT_EQ(std::string(magic, 8), "ISOCOSTW");
  }
  const auto read = isocost::read_grid_density(f.path(), s);
  const auto direct = isocost::grid_density(w, s);
  // The same weights bit for bit give the same table bit for bit.
  const auto a = isocost::detail::grid_table(read), b = isocost::detail::grid_table(direct);
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()));
  EXPECT_EQ(read.describe(), "grid 6x5x4 cells on [0, 6] x [0, 5] x [0, 4]");
  // No temporary left beside the target.
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(f.path()).parent_path()))
    EXPECT_EQ(e.path().filename().string().find(".isocost-"), std::string::npos) << e.path();
}

TEST(ReadGridDensity, TextErrors) {
  {
    TempPath f("len", "1 2 3\n# c\n4 5\n");
    ExpectParseError([&] { isocost::read_grid_density(f.path(), Shape(3, 2)); }, f.path(), 3,
                     {"expected 3 values", "got 2"});
  }
  {
    TempPath f("num", "1 2 x\n4 5 6\n");
    ExpectParseError([&] { isocost::read_grid_density(f.path(), Shape(3, 2)); }, f.path(), 1,
                     {"value 3", "'x'"});
  }
  {
    TempPath f("empty_field", "1,,3\n4,5,6\n");
    ExpectParseError([&] { isocost::read_grid_density(f.path(), Shape(3, 2)); }, f.path(), 1,
                     {"value 2", "''"});
  }
  {
    TempPath f("nan", "1 2 3\n4 nan 6\n");
    ExpectParseError([&] { isocost::read_grid_density(f.path(), Shape(3, 2)); }, f.path(), 2,
                     {"finite number", "'nan'"});
  }
  {
    TempPath f("neg", "1 2 3\n\n4 -5 6\n");
    ExpectParseError([&] { isocost::read_grid_density(f.path(), Shape(3, 2)); }, f.path(), 3,
                     {"cell (1, 1)", "-5", ">= 0"});
  }
  {
    TempPath f("few", "1 2 3\n");
    ExpectParseError([&] { isocost::read_grid_density(f.path(), Shape(3, 2)); }, f.path(), 1,
                     {"expected 2 rows", "ny = 2", "got 1"});
  }
  {
    TempPath f("many", "1 2\n3 4\n5 6\n7 8\n# extra\n9 10\n11 12\n");
    ExpectParseError([&] { isocost::read_grid_density(f.path(), Shape(2, 2, 2)); }, f.path(), 6,
                     {"expected 4 rows", "ny*nz = 2*2", "got 6"});
  }
  {
    TempPath f("none", "# nothing\n");
    ExpectParseError([&] { isocost::read_grid_density(f.path(), Shape(3, 2)); }, f.path(), 1,
                     {"expected 2 rows", "got 0"});
  }
  {
    TempPath f("zero", "0 0 0\n0 0 0\n");
    expect_error([&] { isocost::read_grid_density(f.path(), Shape(3, 2)); },
                 {"all weights are zero"});
  }
  expect_error([] { isocost::read_grid_density("/nonexistent/isocost/w.txt", Shape(3, 2)); },
               {"cannot open", "/nonexistent/isocost/w.txt"});
  {
    TempPath f("shape", "1 2 3\n4 5 6\n");
    expect_error([&] { isocost::read_grid_density(f.path(), Shape(3, -1)); },
                 {"cells along y", "got -1"});
  }
}

std::string RawBytes(const std::vector<std::int64_t>& cells, const std::vector<double>& w) {
  std::string s = "ISOCOSTW";
  const auto dims = static_cast<std::uint32_t>(cells.size());
  s.append(reinterpret_cast<const char*>(&dims), 4);
  s.append(reinterpret_cast<const char*>(cells.data()), 8 * cells.size());
  s.append(reinterpret_cast<const char*>(w.data()), 8 * w.size());
  return s;
}

TEST(ReadGridDensity, RawErrors) {
  {
    TempPath f("hdr");
    isocost::write_grid_weights(f.path(), std::vector<double>(12, 1.0), Shape(4, 3));
    expect_error([&] { isocost::read_grid_density(f.path(), Shape(3, 4)); },
                 {f.path(), "header shape 4x3", "expected shape 3x4"});
    expect_error(
        [&] {
          isocost::read_grid_density(f.path(), GridShape{1, {12, 1, 1}});
        },
        {"header shape 4x3", "expected shape 12"});
    // Truncated: one weight short.
    std::filesystem::resize_file(f.path(), std::filesystem::file_size(f.path()) - 8);
    expect_error([&] { isocost::read_grid_density(f.path(), Shape(4, 3)); },
                 {f.path(), "file size 116 bytes", "4x3", "expected 124 bytes"});
    std::filesystem::resize_file(f.path(), 20);
    expect_error([&] { isocost::read_grid_density(f.path(), Shape(4, 3)); },
                 {"truncated header", "20 bytes", "needs 28"});
  }
  {
    TempPath f("long", RawBytes({3, 2}, {1, 2, 3, 4, 5, 6, 7}));
    expect_error([&] { isocost::read_grid_density(f.path(), Shape(3, 2)); },
                 {"file size 84 bytes", "expected 76 bytes"});
  }
  {
    TempPath f("dims", RawBytes({3, 2, 1, 1}, {}));
    expect_error([&] { isocost::read_grid_density(f.path(), Shape(3, 2)); },
                 {"byte 8: header dims: expected 1 to 3, got 4"});
  }
  {
    TempPath f("neg", RawBytes({3, 2}, {1, 2, 3, 4, -5, 6}));
    // Header 8 + 4 + 16 = 28 bytes; cell (1, 1) is value 4, at 28 + 32.
    expect_error([&] { isocost::read_grid_density(f.path(), Shape(3, 2)); },
                 {f.path(), "byte 60", "cell (1, 1)", "-5"});
  }
  {
    TempPath f("nan", RawBytes({2}, {std::numeric_limits<double>::quiet_NaN(), 1}));
    expect_error(
        [&] {
          isocost::read_grid_density(f.path(), GridShape{1, {2, 1, 1}});
        },
        {"byte 20", "cell (0)", "nan"});
  }
  {
    TempPath f("zero", RawBytes({2}, {0, 0}));
    expect_error(
        [&] {
          isocost::read_grid_density(f.path(), GridShape{1, {2, 1, 1}});
        },
        {"all weights are zero"});
  }
}

TEST(WriteGridWeights, Errors) {
  TempPath f("bad");
  expect_error(
      [&] {
        isocost::write_grid_weights(f.path(), {1, 2, 3}, Shape(2, 2));
      },
      {"3 weights", "2x2", "4 cells"});
  expect_error(
      [&] {
        isocost::write_grid_weights(f.path(), {1, -2, 3, 4}, Shape(2, 2));
      },
      {"cell (1, 0)", "-2"});
  EXPECT_FALSE(std::filesystem::exists(f.path()));
  expect_error(
      [] {
        isocost::write_grid_weights("/nonexistent/isocost/w.bin", {1, 2, 3, 4}, Shape(2, 2));
      },
      {"cannot write", "/nonexistent/isocost/w.bin"});
}

}  // namespace
