// Whether the ranks' boxes tile a grid (mpi/tiling.hpp).
#include "mpi/tiling.hpp"

#include <cstdint>

namespace isocost::mpi::detail {

namespace {

__extension__ typedef unsigned __int128 u128;  // GCC and Clang

constexpr std::uint64_t kP = (std::uint64_t{1} << 61) - 1;  // a Mersenne prime

std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
  const u128 m = static_cast<u128>(a) * b;
  // 2^61 ≡ 1 (mod p): fold the high bits onto the low ones, twice.
  std::uint64_t r = static_cast<std::uint64_t>(m & kP) + static_cast<std::uint64_t>(m >> 61);
  r = (r & kP) + (r >> 61);
  return r >= kP ? r - kP : r;
}

std::uint64_t add(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t r = a + b;  // both < 2^61: no overflow
  return r >= kP ? r - kP : r;
}

std::uint64_t power(std::uint64_t base, std::uint64_t e) {
  std::uint64_t r = 1;
  for (; e; e >>= 1, base = mul(base, base))
    if (e & 1) r = mul(r, base);
  return r;
}

// x^lo + … + x^(hi−1) mod p, for x ≠ 1: x^lo·(x^(hi−lo) − 1)/(x − 1).
std::uint64_t series(std::uint64_t x, std::int64_t lo, std::int64_t hi) {
  if (hi <= lo) return 0;
  const auto n = static_cast<std::uint64_t>(hi - lo);
  const std::uint64_t inverse = power(x - 1, kP - 2);  // Fermat
  return mul(mul(power(x, static_cast<std::uint64_t>(lo)), add(power(x, n), kP - 1)), inverse);
}

// Fixed points, one per axis, far from 0 and 1 (any values in [2, p − 1) do).
constexpr std::array<std::uint64_t, kMaxDims> kPoint{
    0x1d8e4e27c47d124fULL % kP, 0x0b5ad4eceda1ce2aULL % kP, 0x15a3d4a8e1f9c6b7ULL % kP};

std::uint64_t fingerprint(const std::array<std::int64_t, kMaxDims>& lo,
                          const std::array<std::int64_t, kMaxDims>& hi) {
  std::uint64_t f = 1;
  for (int a = 0; a < kMaxDims; ++a) f = mul(f, series(kPoint[a], lo[a], hi[a]));
  return f;
}

void add_op(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const std::uint64_t*>(in);
  auto* b = static_cast<std::uint64_t*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = add(a[i], b[i]);
}

}  // namespace

std::string check_tiling(MPI_Comm comm, const std::array<std::int64_t, kMaxDims>& cells,
                         const std::array<std::int64_t, kMaxDims>& lo,
                         const std::array<std::int64_t, kMaxDims>& hi) {
  const std::uint64_t mine = fingerprint(lo, hi);
  std::uint64_t all = 0;
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(&add_op, /*commute=*/1, &op);
  MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, op, comm);
  MPI_Op_free(&op);
  if (all == fingerprint({0, 0, 0}, cells)) return {};
  return "the ranks' boxes hold as many cells as the grid, but some cell is in two boxes and "
         "another in none";
}

}  // namespace isocost::mpi::detail
