// Points on file and the raw layouts (points.hpp): round trips, the text
// form, and every malformed file named with its line or byte.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "isocost/error.hpp"
#include "isocost/points.hpp"

namespace isocost {
namespace {

namespace fs = std::filesystem;

class PointsFile : public ::testing::Test {
 protected:
  fs::path dir =
      fs::temp_directory_path() /
      ("isocost_points_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       ::testing::UnitTest::GetInstance()->current_test_info()->name());
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& bytes) {
    const auto p = (dir / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  static std::string raw_points(std::uint32_t dims, std::int64_t count,
                                const std::vector<double>& values) {
    std::string s = "ISOCOSTP";
    s.append(reinterpret_cast<const char*>(&dims), 4);
    s.append(reinterpret_cast<const char*>(&count), 8);
    s.append(reinterpret_cast<const char*>(values.data()), 8 * values.size());
    return s;
  }
  static std::string message(const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "(no error)";
  }
};

TEST_F(PointsFile, RawRoundTripKeepsEveryBit) {
  PointSet p;
  p.dims = 3;
  p.coords = {0.1, -2.5, 1e300, 3, 4, 5};
  p.weights = {0.0, 7.25};
  const auto path = (dir / "p.bin").string();
  write_points(path, p);
  EXPECT_EQ(fs::file_size(path), 20u + 8u * 8u);
  const PointSet q = read_points(path);
  EXPECT_EQ(q.dims, 3);
  EXPECT_EQ(q.coords, p.coords);
  EXPECT_EQ(q.weights, p.weights);
}

TEST_F(PointsFile, TextWithHeaderCommentsAndTwoDimensions) {
  const auto path = write("p.csv", "x,y,w\n# a comment\n1,2,3\n\n4 5 0.5\n");
  const PointSet q = read_points(path);
  EXPECT_EQ(q.dims, 2);
  EXPECT_EQ(q.coords, (std::vector<double>{1, 2, 4, 5}));
  EXPECT_EQ(q.weights, (std::vector<double>{3, 0.5}));
}

TEST_F(PointsFile, TextErrorsNameTheLine) {
  EXPECT_EQ(message([&] { read_points(write("a.csv", "1,2,3\n4,5\n")); }),
            (dir / "a.csv").string() + ":2: expected 3 fields (as the first point), got 2");
  EXPECT_NE(message([&] {
              read_points(write("b.csv", "1,2,-3\n"));
            }).find(":1: weight: expected a value >= 0, got -3"),
            std::string::npos);
  EXPECT_NE(message([&] { read_points(write("c.csv", "1,nan,3\n")); }).find(":1: y: expected"),
            std::string::npos);
  EXPECT_NE(message([&] { read_points(write("d.csv", "7\n")); }).find("got 1 fields"),
            std::string::npos);
  EXPECT_NE(message([&] { read_points(write("e.csv", "x,y,w\n")); }).find("no points"),
            std::string::npos);
}

TEST_F(PointsFile, RawErrorsNameTheByte) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Point 1's weight is value 3 of record 1: byte 20 + 8·(1·3 + 2) = 60.
  EXPECT_EQ(
      message([&] {
        read_points(write("w.bin", raw_points(2, 2, {0, 0, 1, 0, 0, -1})));
      }),
      (dir / "w.bin").string() + ": byte 60: w of point 1: expected a finite weight >= 0, got -1");
  EXPECT_EQ(
      message([&] {
        read_points(write("x.bin", raw_points(1, 1, {nan, 1})));
      }),
      (dir / "x.bin").string() + ": byte 20: x of point 0: expected a finite number, got nan");
  EXPECT_NE(message([&] {
              read_points(write("s.bin", raw_points(2, 3, {0, 0, 1})));
            }).find("file size 44 bytes does not match the 3 points in 2-D: expected 92 bytes"),
            std::string::npos);
  EXPECT_NE(message([&] { read_points(write("t.bin", "ISOCOSTP\x02")); }).find("truncated header"),
            std::string::npos);
  const std::string count = message([&] { read_points(write("c.bin", raw_points(2, 0, {}))); });
  EXPECT_NE(count.find("byte 12: header count: expected 1 to "), std::string::npos) << count;
  EXPECT_NE(count.find(" points, got 0"), std::string::npos) << count;
  EXPECT_NE(message([&] {
              read_points(write("d.bin", raw_points(4, 1, {0, 0, 0, 0, 1})));
            }).find("header dims: expected 1 to 3, got 4"),
            std::string::npos);
}

TEST_F(PointsFile, WeightsRawAndTextAgree) {
  const std::vector<double> w{3, 0, 1.5, 2};
  const auto text = write("w.txt", "weight\n3\n0\n1.5\n2\n");
  const auto raw = (dir / "w.bin").string();
  write_grid_weights(raw, w, GridShape{1, {4, 1, 1}});
  EXPECT_EQ(read_weights(text), w);
  EXPECT_EQ(read_weights(raw), w);
  // A 2-D grid is not a 1-D weights file, and points are not weights.
  const auto grid = (dir / "g.bin").string();
  write_grid_weights(grid, w, GridShape{2, {2, 2, 1}});
  EXPECT_NE(message([&] { read_weights(grid); }).find("a raw 2x2 grid, expected 1-D weights"),
            std::string::npos);
  PointSet p{1, {0.5}, {1}};
  const auto pts = (dir / "p.bin").string();
  write_points(pts, p);
  EXPECT_NE(message([&] { read_weights(pts); }).find("a raw points file"), std::string::npos);
  EXPECT_NE(message([&] {
              read_grid_weights(pts, GridShape{1, {1, 1, 1}});
            }).find("a raw points file (ISOCOSTP), expected grid weights"),
            std::string::npos);
  EXPECT_NE(message([&] { read_points(raw); }).find("a raw weights file (ISOCOSTW)"),
            std::string::npos);
}

TEST_F(PointsFile, WriterRefusesWhatTheReaderWould) {
  const auto path = (dir / "bad.bin").string();
  EXPECT_NE(message([&] {
              write_points(path, PointSet{2, {0, 0}, {-1}});
            }).find("weight of point 0: expected a finite weight >= 0, got -1"),
            std::string::npos);
  EXPECT_NE(message([&] {
              write_points(path, PointSet{2, {0}, {1}});
            })
                .find("coordinates for 1 points in 2-D: expected at least one point and 2 "
                      "coordinates each, got 1"),
            std::string::npos);
  EXPECT_NE(message([&] {
              write_points(path, PointSet{0, {}, {1}});
            }).find("write_points: dims: expected 1 to 3, got 0"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
}  // namespace isocost
