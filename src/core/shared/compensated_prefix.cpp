// Neumaier's compensated prefix sums (compensated_sum.hpp), as
// CompensatedSum::add() computes them bit for bit, at close to the cost of a
// plain prefix pass: what discrete_model() and mpi::partition_weights() build.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/shared/compensated_sum.hpp"

namespace isocost::detail {
namespace {

// Whether any of w[0..n) has its sign bit set: an OR over the bit patterns,
// in 128-bit vectors (SSE2 on x86-64, NEON on AArch64) — GCC's -O2 does not
// vectorise the plain loop, and scalar it costs a cell as much as a step.
bool any_sign_bit(const double* w, std::size_t n) {
  using Bits = std::uint64_t __attribute__((vector_size(16)));
  Bits a{}, b{};
  std::size_t k = 0;
  for (; k + 4 <= n; k += 4) {
    Bits u, v;
    std::memcpy(&u, w + k, sizeof u);
    std::memcpy(&v, w + k + 2, sizeof v);
    a |= u;
    b |= v;
  }
  a |= b;
  std::uint64_t bits = a[0] | a[1];
  for (; k < n; ++k) bits |= std::bit_cast<std::uint64_t>(w[k]);
  return (bits >> 63) != 0;
}

std::size_t first_bad(const double* w, std::size_t b, std::size_t e) {
  for (std::size_t k = b; k < e; ++k)
    if (!(w[k] >= 0) || !std::isfinite(w[k])) return k;
  return e;
}

// Blocks of 1024 cells: the block is re-read from L1 by the checks.
constexpr std::size_t kBlock = 1024;

template <bool kStore>
std::size_t prefix(std::span<const double> weights, CompensatedSum& run, double* out) {
  const double* const w = weights.data();
  const std::size_t n = weights.size();
  double sum = run.sum, compensation = run.compensation;
  // The output needs no running maximum to stay sorted: the error term of
  // each step is exact (Fast2Sum, or Neumaier's ordered form), so sum +
  // compensation grows by w[k] + δ, where δ is the rounding of the
  // compensation's own addition. Either the sum did not move (then the
  // compensation grew by w[k] ≥ 0) or w[k] ≥ ulp(sum)/2, far above |δ| ≤
  // ulp(compensation)/2 while |compensation| < |sum| (fewer than 2^51
  // cells). Rounding sum + compensation is monotone.
  for (std::size_t b = 0; b < n; b += kBlock) {
    const std::size_t e = std::min(n, b + kBlock);
    // First Fast2Sum's step (three operations fewer a cell than Neumaier's),
    // exact and equal to Neumaier's while every weight lies in [0, the sum it
    // is added to]. It held if no sign bit is set and the block's total is
    // at most half the sum before it (a margin far above the total's
    // rounding); a NaN or +inf weight fails the second test. Before any
    // weight > 0 it cannot hold.
    if (sum > 0) {
      const double sum0 = sum, compensation0 = compensation;
      for (std::size_t k = b; k < e; ++k) {
        const double x = w[k], t = sum + x;
        compensation += (sum - t) + x;
        sum = t;
        if constexpr (kStore) out[k] = sum + compensation;
      }
      if (sum - sum0 <= 0.5 * sum0 && !any_sign_bit(w + b, e - b)) continue;
      sum = sum0;
      compensation = compensation0;
    }
    // Otherwise the block again with Neumaier's step; for weights >= 0 the
    // larger magnitude of sum and w[k] is the larger value.
    for (std::size_t k = b; k < e; ++k) {
      const double x = w[k], t = sum + x;
      compensation += (std::max(sum, x) - t) + std::min(sum, x);
      sum = t;
      if constexpr (kStore) out[k] = sum + compensation;
    }
    if (std::isfinite(sum) && !any_sign_bit(w + b, e - b)) continue;
    if (const std::size_t bad = first_bad(w, b, e); bad < e) return bad;
    // The sum overflowed: only a bad weight later on is reported before that.
    if (!std::isfinite(sum)) {
      if (const std::size_t bad = first_bad(w, e, n); bad < n) return bad;
      break;
    }
  }
  run.sum = sum;
  run.compensation = compensation;
  return n;
}

}  // namespace

std::size_t compensated_prefix(std::span<const double> w, CompensatedSum& run, double* out) {
  return prefix<true>(w, run, out);
}

std::size_t compensated_add(std::span<const double> w, CompensatedSum& run) {
  return prefix<false>(w, run, nullptr);
}

}  // namespace isocost::detail
