// Pieces both data movers share (redistribute.cpp, migrate.cpp): hashing
// for checksums and agreement, the transfer unit for INT_MAX-safe MPI counts,
// the units' MPI_Alltoallv and aligned staging buffers.
//
// Large transfers: MPI counts and displacements are int. Data travel in units
// of g elements (MPI_Type_contiguous of g·size bytes), g the smallest power of
// two with ceil(n_max/g) + P <= max_mpi_count, where n_max bounds what any rank
// sends or receives and is known to every rank without communication (the
// largest part of either distribution; for tasks, the global send total from
// the size exchange). With g > 1 every peer's segment is padded to whole
// units in staging buffers.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "isocost/mpi/distribution.hpp"
#include "isocost/mpi/exchange_engine.hpp"

namespace isocost::mpi::detail {

using i64 = std::int64_t;
using u64 = std::uint64_t;

// splitmix64's finaliser: a bijection of 64-bit words with good avalanche.
inline u64 mix(u64 x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// An order-dependent hash of a sequence of words.
struct Hasher {
  u64 h = 0x6a09e667f3bcc908ULL;
  void add(u64 v) { h = mix(h ^ v); }
  void add(i64 v) { add(static_cast<u64>(v)); }
};

// Hash of one element: its global index (or id) and its bytes. Summed mod 2^64
// over elements it gives an order-independent checksum.
u64 element_hash(i64 index, const std::byte* p, std::size_t n);

inline i64 ceil_div(i64 a, i64 b) { return a == 0 ? 0 : (a - 1) / b + 1; }
inline i64 round_up(i64 a, i64 b) { return ceil_div(a, b) * b; }

// "[0, 4) x [2, 8) x [0, 1)".
std::string box_text(const CellBox& b);

// The transfer unit g (a power of two) for a largest per-rank volume of
// `n_max` items: ceil(n_max/g) + P <= max_count bounds every count and
// displacement (at most one unit of padding per peer).
i64 choose_unit(i64 n_max, int P, i64 max_count);

// "" or why max_count cannot serve P ranks.
std::string check_max_count(i64 max_count, int P);

// One MPI_Alltoallv: counts and displacements in units (already bounded by
// max_mpi_count, hence by INT_MAX).
void alltoallv_units(MPI_Comm comm, const std::byte* send, const std::vector<i64>& scount,
                     const std::vector<i64>& sdispl, std::byte* recv,
                     const std::vector<i64>& rcount, const std::vector<i64>& rdispl,
                     i64 unit_bytes);

// As alltoallv_units(), and `rider`'s records in the same collective: one
// MPI_Alltoallw whose per-peer datatype holds both pieces at their absolute
// addresses. Sets rider->carried. With a null rider, alltoallv_units().
void alltoallv_units(MPI_Comm comm, const std::byte* send, const std::vector<i64>& scount,
                     const std::vector<i64>& sdispl, std::byte* recv,
                     const std::vector<i64>& rcount, const std::vector<i64>& rdispl, i64 unit_bytes,
                     Rider* rider);

// A 16-byte aligned byte buffer (record payloads are handed out aligned);
// allocation may throw std::bad_alloc, which callers catch.
inline constexpr std::align_val_t kBufferAlign{16};
struct AlignedDelete {
  void operator()(std::byte* p) const noexcept { ::operator delete[](p, kBufferAlign); }
};
using Buffer = std::unique_ptr<std::byte[], AlignedDelete>;
Buffer allocate(i64 bytes);

}  // namespace isocost::mpi::detail
