// Shared by the end-to-end tests of `isocost partition` and of the heat-map
// mode of `isocost plot` (test_cli_partition.cpp,
// test_cli_partition_errors.cpp): the fixture that runs the command as a child
// process (tests/support/cli_runner.hpp) and the gridded test densities, in
// text and raw weight files. Each test file includes it once; everything is in
// an anonymous namespace of that file.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"

namespace isocost::testing {

// One type for every file of the suite (GoogleTest requires it of a suite's
// fixture), so outside the anonymous namespace.
class Partition : public CliTest {
 protected:
  // `isocost partition ARGS --json`, which must succeed.
  json Run(const std::vector<std::string>& args) {
    return OkJson(Cat(Cat({"partition"}, args), {"--json"}));
  }
};

}  // namespace isocost::testing

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using isocost::testing::BadCase;
using isocost::testing::BadCaseName;
using isocost::testing::Cat;
using isocost::testing::GnuplotOnPath;
using isocost::testing::Has;
using isocost::testing::IsPng;
using isocost::testing::Lines;
using isocost::testing::Listing;
using isocost::testing::Num;
using isocost::testing::Outcome;
using isocost::testing::ReadFile;
using isocost::testing::Show;
using isocost::testing::Tokens;
using isocost::testing::WriteFile;

using isocost::testing::Partition;

// A gridded test density: weights (x fastest) and shape.
struct Weights {
  std::int64_t nx = 0, ny = 0;
  std::vector<double> w;
  double at(std::int64_t i, std::int64_t j) const { return w[i + nx * j]; }
  double sum(std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1) const {
    double s = 0;
    for (std::int64_t j = j0; j < j1; ++j)
      for (std::int64_t i = i0; i < i1; ++i) s += at(i, j);
    return s;
  }
  std::string shape() const { return std::to_string(nx) + "x" + std::to_string(ny); }
  // One row of nx values per line, rows in y order.
  std::string text() const {
    std::string s = "# test weights\n";
    for (std::int64_t j = 0; j < ny; ++j) {
      for (std::int64_t i = 0; i < nx; ++i) s += (i ? "," : "") + std::to_string(at(i, j));
      s += "\n";
    }
    return s;
  }
  // "ISOCOSTW", uint32 dims, int64 cells per axis, float64 weights (all
  // little-endian), as documented in isocost/density.hpp.
  std::string raw() const {
    static_assert(std::endian::native == std::endian::little, "the test writes native bytes");
    std::string s = "ISOCOSTW";
    auto put = [&s](const void* p, std::size_t n) { s.append(static_cast<const char*>(p), n); };
    const std::uint32_t dims = 2;
    put(&dims, 4);
    put(&nx, 8);
    put(&ny, 8);
    for (const double v : w) put(&v, 8);
    return s;
  }
};

// Integer weights 1..11 in a scrambled pattern, heavier towards high x.
Weights Scrambled(std::int64_t nx, std::int64_t ny) {
  Weights g{nx, ny, {}};
  for (std::int64_t j = 0; j < ny; ++j)
    for (std::int64_t i = 0; i < nx; ++i)
      g.w.push_back(static_cast<double>(1 + (7 * i + 3 * j * j + 5 + i * j) % 11 + i));
  return g;
}

}  // namespace
