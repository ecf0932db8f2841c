// isocost/mpi/exchange_engine.hpp — the machinery of exchange() (exchange.hpp).
// Internal: not part of the stable API.
//
// An exchange costs what a hand-written one costs (issue #24): one pass of an
// inlined owner test over the keys (a range or box compare; only the elements
// that leave look their owner up), typed copies of the leaving elements into
// the send buffer, block moves to close the gaps they leave, and block copies
// of what arrives. Nothing is type-erased per element. The collective part
// (agreement, counts, MPI_Alltoallv) is compiled once, in exchange.cpp.
//
// Buffers: one record per element, its element of every array in order
// (Σ sizeof bytes), grouped by destination (source) rank in rank order and,
// within a rank, in the elements' order: MPI_Alltoallv counts records of one
// contiguous datatype.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "isocost/mpi/distribution.hpp"

namespace isocost::mpi {

struct ExchangeOptions;
struct ExchangeSummary;

namespace detail {

/// A second transfer riding on a redistribution's collective (the
/// residents' exchange of a rebalance step, so that one MPI_Alltoallw moves
/// both): per peer, where its records start in the send and receive buffers
/// and how many. The redistribution sets `carried` once they are sent.
struct Rider {
  std::size_t record = 0;  ///< bytes per record
  std::vector<const std::byte*> send;
  std::vector<std::byte*> recv;
  std::vector<int> send_count, recv_count;
  bool carried = false;
};

/// The elements that leave this rank, in their order: index and destination.
struct Departures {
  std::vector<std::size_t> index;
  std::vector<int> to;
};

/// One exchange in flight on one rank, from exchange_start() to
/// exchange_end().
struct ExchangeState {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, ranks = 0;
  std::size_t n = 0;                                 ///< local elements before
  std::size_t record = 0;                            ///< Σ element sizes
  std::vector<std::int64_t> send_count, recv_count;  ///< records, per rank
  std::vector<std::size_t> send_start;               ///< records before rank q's, per rank
  std::vector<std::byte> send, recv;
  std::size_t kept = 0, received = 0, total = 0;
  int memory_flag = 0, memory_any = 0;  ///< the memory agreement's words
  MPI_Request memory_request = MPI_REQUEST_NULL;
  std::int64_t global_elements = 0, global_moved = 0;
  double t0 = 0;
};

/// The exchange's start on this rank: `s` gets the communicator, rank,
/// size and start time. Throws (locally) for MPI_COMM_NULL.
void exchange_start(MPI_Comm comm, const char* what, ExchangeState& s);
/// Validates and agrees, collectively: `problem` (this rank's own, "" if
/// none), the arrays' lengths against `n`, the options, element sizes and
/// distribution (`owner_hash`; 0 without one) the same on every rank. The
/// common path is one MPI_Alltoall that carries the checks, the counts and
/// the totals. Throws the agreed Error, nothing moved. Then allocates the
/// buffers; returns "" or this rank's allocation failure (to agree with
/// exchange_memory_post()).
std::string exchange_begin(ExchangeState& s, const char* what, std::size_t n,
                           std::span<const std::size_t> lengths, std::span<const std::size_t> sizes,
                           const Departures& leaving, const ExchangeOptions& options,
                           std::string problem, std::uint64_t owner_hash);
/// Collective, nonblocking: posts the agreement on `memory` (this rank's
/// allocation problem, "" if none); exchange_memory_ok() completes it, so the
/// packing runs while it travels.
void exchange_memory_post(ExchangeState& s, const std::string& memory);
/// Completes exchange_memory_post(): true when no rank has a problem.
bool exchange_memory_ok(ExchangeState& s);
/// Collective, after exchange_memory_ok() was false on every rank: throws
/// "out of memory (nothing moved) on …" everywhere, naming the ranks.
[[noreturn]] void exchange_memory_fail(const ExchangeState& s, const char* what,
                                       const std::string& memory);
/// Collective: the MPI_Alltoallv of the packed records.
void exchange_transfer(ExchangeState& s);
/// `out`, the summary; with `verify`, collective: compares the global
/// count and checksum of the elements before and after (throws on a mismatch).
void exchange_end(const ExchangeState& s, bool verify, std::uint64_t before, std::uint64_t after,
                  ExchangeSummary& out);
/// The order-independent hash of one record's bytes (verification).
std::uint64_t record_hash(const std::byte* record, std::size_t bytes);

/// "element I's key: expected an index in [0, N), got K".
std::string key_out_of_range(std::size_t i, std::int64_t key, std::int64_t size, bool cells);

/// scan()'s result, or the problem an exception from it makes: no memory for
/// the departures, or what the code's key function threw.
template <class Scan>
std::string guarded(const Departures& out, Scan&& scan) {
  try {
    return scan();
  } catch (const std::bad_alloc&) {
    return "could not allocate the list of " + std::to_string(out.index.size()) +
           "+ leaving elements";
  } catch (const std::exception& e) {
    return std::string("the key function threw: ") + e.what();
  }
}

/// Every element's key through `key(i)`: the ones outside this rank's block
/// of `d` go into `out` with their owner. `d` must be valid with a part per
/// rank (checked before). "" or the first key out of range, or what `key`
/// threw.
template <class Key>
std::string depart_block(const BlockDistribution& d, int rank, std::size_t n, Key&& key,
                         Departures& out) {
  const std::int64_t lo = d.offsets[static_cast<std::size_t>(rank)],
                     hi = d.offsets[static_cast<std::size_t>(rank) + 1], size = d.size();
  return guarded(out, [&]() -> std::string {
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t k = key(i);
      if (k >= lo && k < hi) continue;  // stays: the one test most elements take
      if (k < 0 || k >= size) return key_out_of_range(i, k, size, false);
      const auto it = std::upper_bound(d.offsets.begin(), d.offsets.end(), k);
      out.index.push_back(i);
      out.to.push_back(static_cast<int>(it - d.offsets.begin()) - 1);
    }
    return {};
  });
}

/// Quotient of a key by a cell count through a double product and one
/// correction each way: exact for keys below 2^50, and a few cycles where a
/// 64-bit division costs tens (a loop-invariant divisor is not strength-reduced).
struct CellDivider {
  std::int64_t d = 1;
  double inverse = 1;
  explicit CellDivider(std::int64_t divisor)
      : d(divisor), inverse(1.0 / static_cast<double>(divisor)) {}
  std::int64_t operator()(std::int64_t c) const {
    std::int64_t q = static_cast<std::int64_t>(static_cast<double>(c) * inverse);
    if (q * d > c) --q;
    if ((q + 1) * d <= c) ++q;
    return q;
  }
};

/// As depart_block() for the cells' linear keys i + nx·(j + ny·k) of a box
/// distribution: the test is this rank's box; the owners of the leaving
/// cells come from CellOwners, built only if one leaves.
template <class Key>
std::string depart_boxes(const BoxDistribution& d, int rank, std::size_t n, Key&& key,
                         Departures& out) {
  const CellBox& b = d.boxes[static_cast<std::size_t>(rank)];
  const std::int64_t nx = d.cells[0], ny = d.cells[1], size = d.size();
  if (size >= (std::int64_t{1} << 50)) {  // beyond CellDivider: one lookup per key
    const CellOwners owners(d);
    return guarded(out, [&]() -> std::string {
      for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t k = key(i);
        const int q = owners.owner(k);
        if (q < 0) return key_out_of_range(i, k, size, true);
        if (q == rank) continue;
        out.index.push_back(i);
        out.to.push_back(q);
      }
      return {};
    });
  }
  const CellDivider by_x(nx), by_xy(nx * ny);
  std::vector<CellOwners> owners;  // built at the first departure
  return guarded(out, [&]() -> std::string {
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t k = key(i);
      if (k < 0 || k >= size) return key_out_of_range(i, k, size, true);
      const std::int64_t z = by_xy(k), rest = k - z * nx * ny, y = by_x(rest), x = rest - y * nx;
      if (x >= b.lo[0] && x < b.hi[0] && y >= b.lo[1] && y < b.hi[1] && z >= b.lo[2] && z < b.hi[2])
        continue;
      if (owners.empty()) owners.emplace_back(d);
      out.index.push_back(i);
      out.to.push_back(owners[0].owner(x, y, z));
    }
    return {};
  });
}

/// The departing elements' records into the send buffer, grouped by
/// destination: one pass, every array's element copied at its offset.
template <class... T>
void pack_records(ExchangeState& s, const Departures& leaving, const std::vector<T>&... a) {
  std::vector<std::size_t> next(s.send_start);
  std::byte* const send = s.send.data();
  const std::size_t record = s.record;
  for (std::size_t j = 0; j < leaving.index.size(); ++j) {
    const std::size_t i = leaving.index[j];
    std::byte* p = send + next[static_cast<std::size_t>(leaving.to[j])]++ * record;
    ((std::memcpy(p, &a[i], sizeof(T)), p += sizeof(T)), ...);
  }
}

/// Array `a` closes up over its departed elements, in order: runs between
/// departures move down (std::memmove for long runs, a loop for short ones).
template <class T>
void close_up(std::size_t n, const Departures& leaving, std::vector<T>& a) {
  T* const data = a.data();
  const std::size_t L = leaving.index.size();
  std::size_t w = L > 0 ? leaving.index[0] : n;
  for (std::size_t j = 0; j < L; ++j) {
    const std::size_t from = leaving.index[j] + 1, to = j + 1 < L ? leaving.index[j + 1] : n;
    if (to - from >= 16) {
      std::memmove(data + w, data + from, (to - from) * sizeof(T));
      w += to - from;
    } else {
      for (std::size_t i = from; i < to; ++i) std::memcpy(data + w++, data + i, sizeof(T));
    }
  }
}

/// After the transfer: the kept elements close up, the arrivals' records
/// follow them (by source rank, each source's in its order), and every
/// array ends with `total` elements (it held at least max(n, total)).
template <class... T>
void unpack_records(const ExchangeState& s, const Departures& leaving, std::vector<T>&... a) {
  (close_up(s.n, leaving, a), ...);
  const std::byte* p = s.recv.data();
  for (std::size_t w = s.kept; w < s.total; ++w)
    ((std::memcpy(&a[w], p, sizeof(T)), p += sizeof(T)), ...);
  (a.resize(s.total), ...);
}

/// Σ record_hash over the first `count` elements of the arrays (element i's
/// bytes of every array, in order, as one record).
template <class... T>
std::uint64_t arrays_hash(std::size_t count, std::size_t record, const std::vector<T>&... a) {
  std::vector<std::byte> one(record);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::byte* p = one.data();
    ((std::memcpy(p, &a[i], sizeof(T)), p += sizeof(T)), ...);
    sum += record_hash(one.data(), record);
  }
  return sum;
}

/// The records of a prepared exchange (exchange_prepare()) as a Rider: per
/// peer, its records in s.send and s.recv.
Rider exchange_rider(ExchangeState& s);

/// An exchange of typed arrays up to its transfer, once exchange_start() ran
/// and the departures are known: the agreement, room for the arrivals, the
/// packed records and the memory agreement (throws the agreed Error, nothing
/// moved). Returns the checksum of the elements before (with `verify`).
template <class... T>
std::uint64_t exchange_prepare(ExchangeState& s, const char* what, std::size_t n,
                               const Departures& leaving, const ExchangeOptions& options,
                               bool verify, std::string problem, std::uint64_t owner_hash,
                               std::vector<T>&... arrays) {
  static_assert((std::is_trivially_copyable_v<T> && ...),
                "exchange() copies bytes: every element type must be trivially copyable");
  const std::size_t lengths[] = {arrays.size()...};
  const std::size_t sizes[] = {sizeof(T)...};
  std::string memory =
      exchange_begin(s, what, n, lengths, sizes, leaving, options, std::move(problem), owner_hash);
  // Room for the arrivals before anything moves. Packing only reads the
  // arrays, so it runs while the ranks agree that every one found room.
  std::size_t grown = 0;
  if (memory.empty()) {
    try {
      ((arrays.resize(std::max(s.total, n)), ++grown), ...);
    } catch (const std::exception& e) {  // std::bad_alloc, or an element's constructor
      memory = "could not allocate room for " + std::to_string(s.total) + " elements of " +
               std::to_string(s.record) + " B (" + e.what() + ")";
    }
  }
  exchange_memory_post(s, memory);
  std::uint64_t before = 0;
  if (memory.empty()) {
    before = verify ? arrays_hash(n, s.record, arrays...) : 0;
    pack_records(s, leaving, arrays...);
  }
  if (!exchange_memory_ok(s)) {
    // The arrays grown here shrink back (no allocation; their first n
    // elements are untouched) on every rank, then all throw the same Error.
    std::size_t k = 0;
    ((k++ < grown ? arrays.resize(n) : void()), ...);
    exchange_memory_fail(s, what, memory);
  }
  return before;
}

/// After the transfer: the arrays unpacked, the summary (and verification).
template <class... T>
void exchange_finish(const ExchangeState& s, const Departures& leaving, bool verify,
                     std::uint64_t before, ExchangeSummary& out, std::vector<T>&... arrays) {
  unpack_records(s, leaving, arrays...);
  const std::uint64_t after = verify ? arrays_hash(s.total, s.record, arrays...) : 0;
  exchange_end(s, verify, before, after, out);
}

/// The whole exchange of typed arrays, once exchange_start() ran and the
/// departures are known; `verify` is options.verify (ExchangeOptions is
/// complete in exchange.hpp).
template <class... T>
void exchange_typed(ExchangeState& s, const char* what, std::size_t n, const Departures& leaving,
                    const ExchangeOptions& options, bool verify, std::string problem,
                    std::uint64_t owner_hash, ExchangeSummary& out, std::vector<T>&... arrays) {
  const std::uint64_t before = exchange_prepare(s, what, n, leaving, options, verify,
                                                std::move(problem), owner_hash, arrays...);
  exchange_transfer(s);
  exchange_finish(s, leaving, verify, before, out, arrays...);
}

}  // namespace detail
}  // namespace isocost::mpi
