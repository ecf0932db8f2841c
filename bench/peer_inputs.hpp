// The inputs bench_peers gives every partitioner (issue #13, "Peers and
// measured scale"): 1-D weights, 2-D grids of per-cell weights and clustered
// 3-D points. Every value is a function of its global index alone (a hashed
// counter, not a sequential generator), so each rank builds just its own
// slice and the inputs are the same at any rank count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace isocost::bench {

enum class Shape { sieve, bell, spikes, step };

const char* shape_name(Shape s);
/// The formula of a pattern, as printed with each case's input line.
const char* shape_formula(Shape s, int dims);

/// SplitMix64's finaliser: the counter-based hash every random input comes
/// from (element i's numbers do not depend on which rank makes them).
std::uint64_t mix(std::uint64_t z);
/// "sieve", "bell", "spikes" or "step"; throws isocost::Error otherwise.
Shape parse_shape(const std::string& name);

/// The weights of cells [lo, hi) of n, x = (i + 0.5)/n:
///   sieve   (i + 1)^0.43 / ln(i + 2)  (increasing, like a sieve's cost per block)
///   bell    0.05 + exp(−(x − 0.4)² / (2·0.08²))  (Eijkhout's bell: one Gaussian peak)
///   spikes  100 with probability 1 %, else 1  (hash of i, seed fixed)
///   step    1 for x < 0.37, else 10
std::vector<double> weights_1d(Shape s, std::int64_t n, std::int64_t lo, std::int64_t hi);

/// Rows [y0, y1) of an n×n grid of cell weights, x fastest; u, v the cell centres in [0, 1]:
///   sieve   the 1-D sieve of k = (u + v)/2·n²  (increasing along the diagonal)
///   bell    0.05 + exp(−|(u, v) − (0.4, 0.6)|² / (2·0.08²))
///   spikes  100 with probability 1 %, else 1  (hash of the cell index)
///   step    10 where u ≥ 0.37 and v ≥ 0.37, else 1
std::vector<double> weights_2d(Shape s, std::int64_t n, std::int64_t y0, std::int64_t y1);

/// Points [lo, hi) of a clustered 3-D set: three Gaussian clusters (σ 0.05)
/// at (0.25, 0.25, 0.25), (0.5, …) and (0.75, …), and a uniform background in
/// [0, 1)³, each a quarter of the points; weights 1–9.
struct Points {
  std::vector<double> xyz;  ///< x, y, z of each point
  std::vector<double> w;
};
Points clustered_points(std::int64_t lo, std::int64_t hi);

/// [lo, hi) of n items for `rank` of `size`: contiguous, in rank order.
struct Slice {
  std::int64_t lo = 0, hi = 0;
};
Slice slice_of(std::int64_t n, int rank, int size);

}  // namespace isocost::bench
