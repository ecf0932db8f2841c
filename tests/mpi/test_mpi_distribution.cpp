// isocost/mpi/distribution.hpp: block offsets and box tilings are
// validated exactly (gaps, overlaps, out-of-grid boxes named), owners and
// hashes. Plain values: no collective (run as an MPI program for the library).
#include "isocost/mpi/distribution.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "isocost/error.hpp"
#include "mpi_test_support.hpp"

namespace {

using isocost::mpi::BlockDistribution;
using isocost::mpi::BoxDistribution;
using isocost::mpi::CellBox;
using isocost::testing::expect_has;
using i64 = std::int64_t;

// ---------------------------------------------------------------------------
// 1-D block distributions

TEST(BlockDistribution, ValidatesOffsets) {
  std::string e;
  EXPECT_TRUE((BlockDistribution{{0, 3, 3, 10}}).is_valid(&e)) << e;
  EXPECT_FALSE((BlockDistribution{{0, 5, 3, 10}}).is_valid(&e));
  expect_has(e,
             "offsets[2]: expected a value >= 5 (offsets[1]; nondecreasing offsets: blocks must "
             "not overlap), got 3");
  EXPECT_FALSE((BlockDistribution{{1, 5}}).is_valid(&e));
  expect_has(e, "offsets[0]: expected 0, got 1");
  EXPECT_FALSE((BlockDistribution{{0}}).is_valid(&e));
  expect_has(e, "offsets: expected P + 1 >= 2 of them, got 1");
  EXPECT_THROW((BlockDistribution{{0, -1}}).validate(), isocost::Error);

  const auto u = BlockDistribution::uniform(10, 4);
  EXPECT_EQ(u.offsets, (std::vector<i64>{0, 3, 6, 8, 10}));
  EXPECT_EQ(u.parts(), 4);
  EXPECT_EQ(u.size(), 10);
  EXPECT_EQ(u.count(3), 2);
  const i64 counts[] = {2, 0, 5};
  EXPECT_EQ(BlockDistribution::from_counts(counts).offsets, (std::vector<i64>{0, 2, 2, 7}));
  const i64 bad[] = {2, -1};
  EXPECT_THROW(BlockDistribution::from_counts(bad), isocost::Error);
  EXPECT_THROW(BlockDistribution::uniform(-1, 2), isocost::Error);

  // owner(): empty ranks own nothing.
  const BlockDistribution d{{0, 2, 2, 7}};
  EXPECT_EQ(d.owner(0), 0);
  EXPECT_EQ(d.owner(1), 0);
  EXPECT_EQ(d.owner(2), 2);
  EXPECT_EQ(d.owner(6), 2);
  EXPECT_THROW(d.owner(7), isocost::Error);
  EXPECT_NE(d.hash(), u.hash());
  EXPECT_EQ(d.hash(), (BlockDistribution{{0, 2, 2, 7}}).hash());
}

// ---------------------------------------------------------------------------
// Boxes

TEST(BoxDistribution, ValidatesTilings) {
  BoxDistribution d;
  d.cells = {4, 3, 1};
  d.boxes = {{{0, 0, 0}, {2, 3, 1}},
             {{2, 0, 0}, {4, 2, 1}},
             {{2, 2, 0}, {4, 3, 1}},
             {{0, 0, 0}, {0, 0, 0}}};
  std::string e;
  EXPECT_TRUE(d.is_valid(&e)) << e;
  EXPECT_EQ(d.size(), 12);
  EXPECT_EQ(d.count(0), 6);
  EXPECT_EQ(d.count(3), 0);

  auto overlap = d;
  overlap.boxes[2].lo[1] = 1;  // overlaps rank 1's box in one row
  overlap.boxes[1].hi[1] = 3;
  EXPECT_FALSE(overlap.is_valid(&e));
  expect_has(e, "boxes[1]");
  expect_has(e, "boxes[2]");
  expect_has(e, "overlap in [2, 4) x [1, 3) x [0, 1)");

  auto gap = d;
  gap.boxes[2].hi[0] = 3;
  EXPECT_FALSE(gap.is_valid(&e));
  expect_has(e, "cover 11 of the grid's 12 cells");

  // Same volume, but one cell twice and one never: only the corners can tell.
  auto shifted = d;
  shifted.boxes[2] = {{1, 2, 0}, {3, 3, 1}};
  shifted.boxes[0] = {{0, 0, 0}, {2, 3, 1}};
  EXPECT_FALSE(shifted.is_valid(&e));
  expect_has(e, "overlap");

  auto outside = d;
  outside.boxes[1].hi[0] = 5;
  EXPECT_FALSE(outside.is_valid(&e));
  expect_has(e, "boxes[1]: expected 0 <= lo <= hi <= 4 along x, got [2, 5) x [0, 2) x [0, 1)");

  auto inverted = d;
  inverted.boxes[3] = {{1, 0, 0}, {0, 0, 0}};
  EXPECT_FALSE(inverted.is_valid(&e));
  expect_has(e, "boxes[3]");

  auto flat = d;
  flat.cells[2] = 0;
  EXPECT_FALSE(flat.is_valid(&e));
  expect_has(e, "cells along z: expected >= 1, got 0");

  // 3-D: 2x2x2 octants tile; dropping one leaves a gap of 8 cells.
  BoxDistribution c;
  c.cells = {4, 4, 4};
  for (int m = 0; m < 8; ++m) {
    CellBox b;
    for (std::size_t a = 0; a < 3; ++a) {
      b.lo[a] = ((m >> a) & 1) * 2;
      b.hi[a] = b.lo[a] + 2;
    }
    c.boxes.push_back(b);
  }
  EXPECT_TRUE(c.is_valid(&e)) << e;
  c.boxes[5] = {};
  EXPECT_FALSE(c.is_valid(&e));
  expect_has(e, "cover 56 of the grid's 64 cells");
  EXPECT_EQ(isocost::mpi::intersect({{0, 0, 0}, {2, 2, 2}}, {{1, 1, 1}, {3, 3, 3}}),
            (CellBox{{1, 1, 1}, {2, 2, 2}}));
  EXPECT_TRUE(isocost::mpi::intersect({{0, 0, 0}, {1, 1, 1}}, {{1, 0, 0}, {2, 1, 1}}).empty());
}

}  // namespace
