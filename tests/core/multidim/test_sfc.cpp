// Tests for isocost/sfc.hpp: the Hilbert key is a bijection of the grid onto
// [0, 2^(dims·bits)), and walking the keys in order steps between cells that
// share a face (Manhattan distance 1) — the two properties that define the
// curve, checked exhaustively on small grids. The 2x2 order is the curve's
// first level: (0,0), (0,1), (1,1), (1,0) with axis 0 the key's high bit.
#include "isocost/sfc.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "support/expect_error.hpp"

namespace {

using isocost::hilbert_key;
using isocost::HilbertGrid;
using isocost::testing::expect_error;
using Cell = std::array<std::uint64_t, 3>;

void expect_curve(const HilbertGrid& g) {
  const std::uint64_t side = std::uint64_t{1} << g.bits;
  const std::uint64_t cells = std::uint64_t{1} << (g.dims * g.bits);
  std::vector<Cell> at(cells);
  std::vector<char> seen(cells, 0);
  Cell c{0, 0, 0};
  for (std::uint64_t k = 0; k < cells; ++k) {
    std::uint64_t r = k;
    for (int a = 0; a < g.dims; ++a, r /= side) c[static_cast<std::size_t>(a)] = r % side;
    const std::uint64_t key = hilbert_key(g, c);
    ASSERT_LT(key, cells);
    ASSERT_FALSE(seen[key]) << "key " << key << " twice";
    seen[key] = 1;
    at[key] = c;
  }
  for (std::uint64_t key = 1; key < cells; ++key) {
    std::uint64_t d = 0;
    for (int a = 0; a < g.dims; ++a) {
      const auto u = static_cast<long long>(at[key][static_cast<std::size_t>(a)]);
      const auto v = static_cast<long long>(at[key - 1][static_cast<std::size_t>(a)]);
      d += static_cast<std::uint64_t>(std::llabs(u - v));
    }
    ASSERT_EQ(d, 1u) << "keys " << key - 1 << " and " << key << " are not face neighbours";
  }
}

TEST(HilbertKey, IsAContinuousBijectionIn2D) {
  for (int bits = 1; bits <= 6; ++bits) expect_curve({2, bits});
}

TEST(HilbertKey, IsAContinuousBijectionIn3D) {
  for (int bits = 1; bits <= 4; ++bits) expect_curve({3, bits});
}

TEST(HilbertKey, FirstLevelOrderAndOneDimension) {
  const HilbertGrid g{2, 1};
  EXPECT_EQ(hilbert_key(g, {0, 0, 0}), 0u);
  EXPECT_EQ(hilbert_key(g, {0, 1, 0}), 1u);
  EXPECT_EQ(hilbert_key(g, {1, 1, 0}), 2u);
  EXPECT_EQ(hilbert_key(g, {1, 0, 0}), 3u);
  EXPECT_EQ(hilbert_key({1, 64}, {12345, 0, 0}), 12345u);
  // The largest grids fill 64 bits: the corner cells are the curve's ends.
  const HilbertGrid big{2, 32};
  EXPECT_EQ(hilbert_key(big, {0, 0, 0}), 0u);
  EXPECT_EQ(hilbert_key(big, {0xFFFFFFFFu, 0, 0}), ~std::uint64_t{0});
}

TEST(HilbertGrid, BadShapesAreNamed) {
  expect_error(
      [] {
        HilbertGrid{4, 8}.validate();
      },
      {"Hilbert grid: dims: expected 1, 2 or 3, got 4"});
  expect_error(
      [] {
        HilbertGrid{3, 22}.validate();
      },
      {"Hilbert grid: bits per axis: expected 1 to 21 in 3 dimensions, got 22"});
  expect_error(
      [] {
        HilbertGrid{2, 0}.validate();
      },
      {"bits per axis: expected 1 to 32 in 2 dimensions, got 0"});
}

}  // namespace
