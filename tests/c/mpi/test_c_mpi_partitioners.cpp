// The distributed partitioners of the C interface (include/isocost/isocost_mpi.h)
// under mpiexec -n 1…4: the same cuts, parts and bottlenecks as the C++
// isocost::mpi::partition_weights / partition_points / decompose_grid on the
// same slices, bit for bit, through MPI_Comm and through the Fortran handle
// (MPI_Comm_c2f); and every error path agreed across ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "isocost/isocost_mpi.h"
#include "isocost/mpi/decompose_grid.hpp"
#include "isocost/mpi/partition_points.hpp"
#include "isocost/mpi/partition_weights.hpp"

#include "c_mpi_support.hpp"

namespace {

using isocost::testing::expect_agreed;
using isocost::testing::outcome;
using isocost::testing::rank_of;
using isocost::testing::size_of;

using isocost::testing::kInvalid;

using isocost::testing::odd;
using isocost::testing::odd_name;
using isocost::testing::odd_rank;

// This rank's slice [begin, end) of n cells, uneven (rank r starts at n·r²/P²).
std::array<std::int64_t, 2> slice(std::int64_t n) {
  const std::int64_t P = size_of(), r = rank_of();
  return {n * r * r / (P * P), n * (r + 1) * (r + 1) / (P * P)};
}
std::vector<double> weights_of(std::int64_t begin, std::int64_t end) {
  std::vector<double> w;
  for (std::int64_t i = begin; i < end; ++i) w.push_back(static_cast<double>(1 + (i * 7919) % 13));
  return w;
}
isocost::Speeds speeds_of(const std::vector<double>& s, int parts) {
  return s.empty() ? isocost::Speeds::uniform(parts) : isocost::Speeds::from_values(s);
}

TEST(CPartitionWeights, SameCutsAsCpp) {
  const std::int64_t n = 37 * size_of() + 5;
  const auto [b, e] = slice(n);
  const std::vector<double> w = weights_of(b, e);
  const MPI_Fint f = MPI_Comm_c2f(MPI_COMM_WORLD);
  for (const std::vector<double>& speeds :
       {std::vector<double>{}, std::vector<double>{1, 2, 0.5, 3, 1}, std::vector<double>{2}}) {
    const int parts = speeds.empty() ? 4 : static_cast<int>(speeds.size());
    for (int optimal : {0, 1}) {
      isocost::mpi::WeightsPartitionOptions o;
      o.optimal = optimal != 0;
      const auto ref =
          isocost::mpi::partition_weights(MPI_COMM_WORLD, w, speeds_of(speeds, parts), o);
      std::vector<std::int64_t> cuts(static_cast<std::size_t>(parts) + 1, -1), cuts_f = cuts;
      double max_time = -1, max_time_f = -1;
      const double* s = speeds.empty() ? nullptr : speeds.data();
      ASSERT_EQ(
          isocost_partition_weights(MPI_COMM_WORLD, w.data(), static_cast<std::int64_t>(w.size()),
                                    parts, s, optimal, cuts.data(), &max_time),
          ISOCOST_OK)
          << isocost_last_error();
      ASSERT_EQ(isocost_partition_weights_f(f, w.data(), static_cast<std::int64_t>(w.size()), parts,
                                            s, optimal, cuts_f.data(), &max_time_f),
                ISOCOST_OK)
          << isocost_last_error();
      EXPECT_EQ(cuts, ref.cuts);
      EXPECT_EQ(cuts_f, ref.cuts);
      EXPECT_EQ(max_time, ref.max_time);
      EXPECT_EQ(max_time_f, ref.max_time);
      EXPECT_EQ(cuts.front(), 0);
      EXPECT_EQ(cuts.back(), n);
      // max_time NULL is allowed.
      EXPECT_EQ(
          isocost_partition_weights(MPI_COMM_WORLD, w.data(), static_cast<std::int64_t>(w.size()),
                                    parts, s, optimal, cuts.data(), nullptr),
          ISOCOST_OK);
    }
  }
}

// Points of rank r: ids r·100 + k, k < 20 + 3r; coordinates from the id.
TEST(CPartitionPoints, SamePartsAsCpp) {
  const int r = rank_of();
  const std::int64_t count = 20 + 3 * r;
  for (int dims : {1, 2, 3}) {
    std::vector<double> coords, weights;
    for (std::int64_t k = 0; k < count; ++k) {
      const std::int64_t id = r * 100 + k;
      for (int a = 0; a < dims; ++a)
        coords.push_back(static_cast<double>((id * (31 + 17 * a)) % 97) / 9.0);
      weights.push_back(static_cast<double>(1 + id % 5));
    }
    const std::vector<double> speeds{1, 3, 2};
    const auto ref = isocost::mpi::partition_points(MPI_COMM_WORLD, dims, coords, weights,
                                                    isocost::Speeds::from_values(speeds));
    std::vector<int> part(static_cast<std::size_t>(count), -1), part_f = part;
    double max_time = -1, max_time_f = -1;
    ASSERT_EQ(isocost_partition_points(MPI_COMM_WORLD, dims, coords.data(), weights.data(), count,
                                       3, speeds.data(), part.data(), &max_time),
              ISOCOST_OK)
        << isocost_last_error();
    ASSERT_EQ(isocost_partition_points_f(MPI_Comm_c2f(MPI_COMM_WORLD), dims, coords.data(),
                                         weights.data(), count, 3, speeds.data(), part_f.data(),
                                         &max_time_f),
              ISOCOST_OK)
        << isocost_last_error();
    EXPECT_EQ(part, ref.part);
    EXPECT_EQ(part_f, ref.part);
    EXPECT_EQ(max_time, ref.max_time);
    EXPECT_EQ(max_time_f, ref.max_time);
  }
}

// A 12 x 9 grid (and 6 x 5 x 4) of weights 1 + (x·y + z) mod 4, each rank
// holding a slab of rows along the last axis.
TEST(CDecomposeGrid, SamePartsAsCpp) {
  const int P = size_of(), r = rank_of();
  for (int dims : {2, 3}) {
    const std::array<std::int64_t, 3> cells =
        dims == 2 ? std::array<std::int64_t, 3>{12, 9, 1} : std::array<std::int64_t, 3>{6, 5, 4};
    const int last = dims - 1;
    std::array<std::int64_t, 3> lo{0, 0, 0}, hi = cells;
    lo[static_cast<std::size_t>(last)] = cells[static_cast<std::size_t>(last)] * r / P;
    hi[static_cast<std::size_t>(last)] = cells[static_cast<std::size_t>(last)] * (r + 1) / P;
    std::vector<double> w;
    for (std::int64_t z = lo[2]; z < hi[2]; ++z)
      for (std::int64_t y = lo[1]; y < hi[1]; ++y)
        for (std::int64_t x = lo[0]; x < hi[0]; ++x)
          w.push_back(static_cast<double>(1 + (x * y + z) % 4));
    const std::vector<int> counts = dims == 2 ? std::vector<int>{2, 3} : std::vector<int>{2, 2};
    const std::vector<int> axes = dims == 2 ? std::vector<int>{0, 1} : std::vector<int>{2, 0};
    const int parts = counts[0] * counts[1];
    const std::vector<double> speeds{1, 2, 1, 1.5, 1, 1};
    const isocost::GridShape shape{dims, cells};
    const auto ref = isocost::mpi::decompose_grid(
        MPI_COMM_WORLD, shape, lo, hi, w, isocost::ProcessGrid{counts, axes},
        isocost::Speeds::from_values(std::vector<double>(speeds.begin(), speeds.begin() + parts)));
    for (bool fortran : {false, true}) {
      std::vector<std::int64_t> plo(3 * static_cast<std::size_t>(parts), -1), phi = plo;
      double max_time = -1;
      const int status =
          fortran ? isocost_decompose_grid_f(MPI_Comm_c2f(MPI_COMM_WORLD), dims, cells.data(),
                                             lo.data(), hi.data(), w.data(), 2, counts.data(),
                                             axes.data(), speeds.data(), plo.data(), phi.data(),
                                             &max_time)
                  : isocost_decompose_grid(MPI_COMM_WORLD, dims, cells.data(), lo.data(), hi.data(),
                                           w.data(), 2, counts.data(), axes.data(), speeds.data(),
                                           plo.data(), phi.data(), &max_time);
      ASSERT_EQ(status, ISOCOST_OK) << isocost_last_error();
      ASSERT_EQ(ref.parts.size(), static_cast<std::size_t>(parts));
      for (std::size_t p = 0; p < ref.parts.size(); ++p)
        for (std::size_t a = 0; a < 3; ++a) {
          EXPECT_EQ(plo[p * 3 + a], ref.parts[p].cell_lo[a]) << "part " << p << " axis " << a;
          EXPECT_EQ(phi[p * 3 + a], ref.parts[p].cell_hi[a]) << "part " << p << " axis " << a;
        }
      EXPECT_EQ(max_time, ref.max_time);
    }
  }
}

TEST(CPartitionersErrors, Weights) {
  const std::vector<double> w{1, 2, 3};
  std::vector<std::int64_t> cuts(3, -7);
  const std::string head = "isocost_partition_weights: arguments: invalid input on 1 rank (";
  expect_agreed(outcome(isocost_partition_weights(MPI_COMM_WORLD, w.data(), 3, 2, nullptr, 0,
                                                  odd() ? nullptr : cuts.data(), nullptr)),
                kInvalid, head + odd_name() + "cuts is NULL)");
  expect_agreed(outcome(isocost_partition_weights(MPI_COMM_WORLD, odd() ? nullptr : w.data(), 3, 2,
                                                  nullptr, 0, cuts.data(), nullptr)),
                kInvalid, head + odd_name() + "weights is NULL)");
  expect_agreed(outcome(isocost_partition_weights(MPI_COMM_WORLD, w.data(), odd() ? -1 : 3, 2,
                                                  nullptr, 0, cuts.data(), nullptr)),
                kInvalid, head + odd_name() + "count: expected an integer >= 0, got -1)");
  expect_agreed(outcome(isocost_partition_weights(MPI_COMM_WORLD, w.data(), 3, odd() ? 0 : 2,
                                                  nullptr, 0, cuts.data(), nullptr)),
                kInvalid, head + odd_name() + "parts: expected an integer >= 1, got 0)");
  const double bad_speeds[] = {1, -2};
  expect_agreed(
      outcome(isocost_partition_weights(MPI_COMM_WORLD, w.data(), 3, 2,
                                        odd() ? bad_speeds : nullptr, 0, cuts.data(), nullptr)),
      kInvalid,
      head + odd_name() + "speeds: speed of rank 1: expected a finite number > 0, got -2)");
  const std::vector<double> zeros(3, 0.0);
  expect_agreed(
      outcome(isocost_partition_weights(MPI_COMM_WORLD, zeros.data(), 3, 2, nullptr, 0, cuts.data(),
                                        nullptr)),
      kInvalid,
      "isocost_partition_weights: partition_weights: all weights are zero; the total must be > 0");
  expect_agreed(outcome(isocost_partition_weights_f(MPI_Comm_c2f(MPI_COMM_NULL), w.data(), 3, 2,
                                                    nullptr, 0, cuts.data(), nullptr)),
                kInvalid, "isocost_partition_weights_f: comm is MPI_COMM_NULL");
  EXPECT_EQ(cuts, std::vector<std::int64_t>(3, -7));  // untouched by every failure
  if (size_of() < 2) return;
  std::vector<std::int64_t> room(4);
  expect_agreed(outcome(isocost_partition_weights(MPI_COMM_WORLD, w.data(), 3, odd() ? 3 : 2,
                                                  nullptr, 0, room.data(), nullptr)),
                kInvalid,
                "isocost_partition_weights: partition_weights: invalid input on 1 rank (" +
                    odd_name() + "speeds differ from rank 0's: speeds [1,1,1] (rank 0: [1,1]))");
  expect_agreed(outcome(isocost_partition_weights(MPI_COMM_WORLD, w.data(), 3, 2, nullptr,
                                                  odd() ? 1 : 0, room.data(), nullptr)),
                kInvalid,
                "isocost_partition_weights: partition_weights: invalid input on 1 rank (" +
                    odd_name() + "options differ from rank 0's: optimal true (rank 0: false))");
}

TEST(CPartitionersErrors, Points) {
  const std::vector<double> xy{0, 0, 1, 1}, w{1, 2};
  std::vector<int> part(2, -7);
  const std::string head = "isocost_partition_points: arguments: invalid input on 1 rank (";
  expect_agreed(outcome(isocost_partition_points(MPI_COMM_WORLD, odd() ? 4 : 2, xy.data(), w.data(),
                                                 2, 2, nullptr, part.data(), nullptr)),
                kInvalid, head + odd_name() + "dims: expected 1, 2 or 3, got 4)");
  expect_agreed(outcome(isocost_partition_points(MPI_COMM_WORLD, 2, xy.data(), w.data(), 2, 2,
                                                 nullptr, odd() ? nullptr : part.data(), nullptr)),
                kInvalid, head + odd_name() + "part is NULL)");
  expect_agreed(outcome(isocost_partition_points(MPI_COMM_WORLD, 2, odd() ? nullptr : xy.data(),
                                                 w.data(), 2, 2, nullptr, part.data(), nullptr)),
                kInvalid, head + odd_name() + "coords is NULL)");
  // A NaN with its sign bit set, printed "-nan" (0.0 / 0.0 is -nan on x86
  // at run time but +nan when the compiler folds it).
  const double nan_w[] = {1, -std::numeric_limits<double>::quiet_NaN()};
  expect_agreed(
      outcome(isocost_partition_points(MPI_COMM_WORLD, 2, xy.data(), odd() ? nan_w : w.data(), 2, 2,
                                       nullptr, part.data(), nullptr)),
      kInvalid,
      "isocost_partition_points: partition_points: invalid input on 1 rank (" + odd_name() +
          "weight of point 1: expected a finite number >= 0, got -nan)");
  EXPECT_EQ(part, std::vector<int>(2, -7));
}

TEST(CPartitionersErrors, Grid) {
  const int P = size_of(), r = rank_of();
  const std::int64_t cells[] = {4, P};
  const std::int64_t lo[] = {0, r}, hi[] = {4, r + 1};
  const std::vector<double> w(4, 1.0);
  const int counts[] = {2}, axes[] = {0}, zero[] = {0};
  std::vector<std::int64_t> plo(6, -7), phi(6, -7);
  const std::string head = "isocost_decompose_grid: arguments: invalid input on 1 rank (";
  expect_agreed(
      outcome(isocost_decompose_grid(MPI_COMM_WORLD, 2, cells, lo, hi, w.data(), odd() ? 3 : 1,
                                     counts, axes, nullptr, plo.data(), phi.data(), nullptr)),
      kInvalid, head + odd_name() + "levels: expected an integer in [1, 2], got 3)");
  expect_agreed(outcome(isocost_decompose_grid(MPI_COMM_WORLD, 2, cells, lo, hi, w.data(), 1,
                                               odd() ? zero : counts, axes, nullptr, plo.data(),
                                               phi.data(), nullptr)),
                kInvalid, head + odd_name() + "counts: expected integers >= 1, got 0)");
  expect_agreed(
      outcome(isocost_decompose_grid(MPI_COMM_WORLD, 2, cells, odd() ? nullptr : lo, hi, w.data(),
                                     1, counts, axes, nullptr, plo.data(), phi.data(), nullptr)),
      kInvalid, head + odd_name() + "lo is NULL)");
  expect_agreed(
      outcome(isocost_decompose_grid(MPI_COMM_WORLD, 0, cells, lo, hi, w.data(), 1, counts, axes,
                                     nullptr, plo.data(), phi.data(), nullptr)),
      kInvalid, "dims: expected 1, 2 or 3, got 0");
  // A box outside the grid on one rank (the others still tile it).
  const std::int64_t out_lo[] = {0, P}, out_hi[] = {4, P + 1};
  expect_agreed(outcome(isocost_decompose_grid(MPI_COMM_WORLD, 2, cells, odd() ? out_lo : lo,
                                               odd() ? out_hi : hi, w.data(), 1, counts, axes,
                                               nullptr, plo.data(), phi.data(), nullptr)),
                kInvalid,
                "isocost_decompose_grid: decompose_grid: invalid input on 1 rank (" + odd_name() +
                    "box along y: expected a range inside [0, " + std::to_string(P) + "), got [" +
                    std::to_string(P) + ", " + std::to_string(P + 1) + "))");
  EXPECT_EQ(plo, std::vector<std::int64_t>(6, -7));
}

}  // namespace
