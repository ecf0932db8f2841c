// isocost/mpi/redistribute.hpp — moving trivially copyable data after a
// rebalance (mpi layer): a copy between two distributions (Eijkhout §1.1:
// load balancing "as a copy operation between a distributed object, and the
// same object on a new distribution").
//
//   // 1-D: N elements, rank r owns [o_r, o_{r+1}) before and [n_r, n_{r+1}) after
//   isocost::mpi::BlockDistribution from{{0, 40, 70, 100}}, to{{0, 30, 60, 100}};
//   auto [data, s] = isocost::mpi::redistribute(comm, from, to, my_values);  // collective
//   // data: this rank's new range; s.elements_sent: what left this rank
//
//   // 2-D/3-D: boxes of grid cells, local arrays x fastest
//   auto to_boxes = isocost::mpi::BoxDistribution::from_decomposition(decompose(grid, pg, speeds));
//   auto [cells, s2] = isocost::mpi::redistribute(comm, old_boxes, to_boxes, my_cells);
//
// Every function here is collective over its communicator and validates
// before it moves anything: each rank checks its own input, one MPI_Allreduce
// (of an error flag and a hash of the inputs that must agree across ranks)
// tells every rank whether any input was bad, and then all ranks throw the
// same isocost::Error naming the bad ranks — no rank is left waiting, nothing
// moves. redistribute_arrays() (and so the balancers' apply()) is all or
// nothing: the caller's arrays are replaced only after the exchange succeeded
// on every rank (a failed allocation on one rank leaves every rank's arrays
// as they were).
//
// Communication per redistribute(): that MPI_Allreduce, one MPI_Alltoallv of
// exactly the elements that change owner (skipped when the distributions are
// equal), one MPI_Allreduce of the totals (and checksums). Every allocation
// (the result, staging buffers) happens before the agreement, so running out
// of memory is agreed too. Counts go to MPI in units of g elements, g = 1
// unless a rank holds more than ~INT_MAX elements: then g is the smallest
// power of two keeping every count and displacement within int, and the data
// are staged in buffers with each peer's segment padded to whole units. With
// g = 1, pieces that are contiguous in the local array (1-D ranges; boxes
// spanning whole rows or planes) go straight from it / into the result; other
// box pieces are packed row by row (x rows are contiguous).
#pragma once

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <ranges>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "isocost/detail/text.hpp"
#include "isocost/mpi/distribution.hpp"
#include "isocost/mpi/transfer_options.hpp"
#include "isocost/options.hpp"

namespace isocost::mpi {

/// Settings for redistribute() (transfer_options.hpp).
using RedistributeOptions = TransferOptions;

/// What redistribute() did, seen from one rank. Fields marked global are
/// identical on every rank.
struct RedistributeSummary {
  int rank = 0;
  int ranks = 0;
  std::size_t element_size = 0;    ///< sizeof(T), bytes
  std::int64_t elements_kept = 0;  ///< owned by this rank before and after
  std::int64_t elements_sent = 0;  ///< left this rank (their owner changed)
  std::int64_t elements_received = 0;
  std::int64_t bytes_sent = 0;  ///< elements_sent × element_size
  std::int64_t bytes_received = 0;
  int peers_sent_to = 0;  ///< ranks this rank sent a non-empty piece to
  int peers_received_from = 0;
  /// The transfer unit in elements (g above): 1 unless a rank holds more
  /// elements than max_mpi_count allows; global.
  std::int64_t unit_elements = 1;
  bool staged = false;  ///< data copied through send/receive buffers

  std::int64_t global_elements = 0;        ///< N, global
  std::int64_t global_elements_moved = 0;  ///< Σ elements_sent: the minimum possible, global
  std::int64_t global_bytes_moved = 0;     ///< global
  bool verified = false;                   ///< verification ran and passed (global)
  std::uint64_t checksum = 0;              ///< the verified global checksum (0 when not verifying)
  double seconds = 0;                      ///< wall time of the call on this rank

  /// One line: moved, kept, bytes, unit, verification.
  std::string brief_report() const;
};

/// The new local data and the summary.
template <class T>
struct Redistributed {
  std::vector<T> data;
  RedistributeSummary summary;
};

namespace detail {
/// Resizes the caller's std::vector<T> (type-erased) to `count` elements and
/// returns its data. May throw (std::bad_alloc).
using ResizeFn = std::byte* (*)(void* vector, std::size_t count);

/// The type-erased implementations behind redistribute(). `local` holds
/// `count` elements of `element_size` bytes; `aliased` is true when the output
/// vector's storage overlaps `local` (an agreed error); a non-empty `problem`
/// is this rank's own input error, agreed with the others. A `rider`'s
/// records travel in the same collective as the elements (exchange_engine.hpp).
struct Rider;
RedistributeSummary redistribute_bytes(MPI_Comm comm, const BlockDistribution& from,
                                       const BlockDistribution& to, const std::byte* local,
                                       std::size_t count, std::size_t element_size, void* out,
                                       ResizeFn resize, bool aliased,
                                       const RedistributeOptions& options, std::string problem = {},
                                       Rider* rider = nullptr);
RedistributeSummary redistribute_bytes(MPI_Comm comm, const BoxDistribution& from,
                                       const BoxDistribution& to, const std::byte* local,
                                       std::size_t count, std::size_t element_size, void* out,
                                       ResizeFn resize, bool aliased,
                                       const RedistributeOptions& options, std::string problem = {},
                                       Rider* rider = nullptr);

/// One array of redistribute_rows(): rows of `row_bytes` bytes, one per
/// element; `from` holds this rank's from-elements, `to` has room for its
/// to-elements. Arrays whose element size is known only at run time (the C
/// and Python interfaces' arrays).
struct RowArray {
  const void* from = nullptr;
  void* to = nullptr;
  std::size_t row_bytes = 0;
};
/// Moves every array's rows from `from` to `to` together (element i of every
/// array as one record), as redistribute_arrays() does for std::vectors.
/// Collective; the arrays' count and row sizes must agree across ranks (the
/// caller agrees them first). A non-empty `problem` is this rank's own input
/// error: every rank throws the same Error and nothing moves. The `to` rows
/// are written only after the transfer succeeded.
RedistributeSummary redistribute_rows(MPI_Comm comm, const BlockDistribution& from,
                                      const BlockDistribution& to, std::span<const RowArray> arrays,
                                      const RedistributeOptions& options, std::string problem = {});
RedistributeSummary redistribute_rows(MPI_Comm comm, const BoxDistribution& from,
                                      const BoxDistribution& to, std::span<const RowArray> arrays,
                                      const RedistributeOptions& options, std::string problem = {});

/// Several arrays of one distribution's elements, moved as one record per
/// element: the bytes of element i of every array, in order.
struct Records {
  std::vector<std::byte> bytes;
  std::size_t record_size = 0;
};
/// Resizes a Records (passed as `vector`) to `count` records.
std::byte* resize_records(void* records, std::size_t count);

/// Every array's element sizes and lengths, and "" or why the lengths differ.
template <class... T>
std::string check_arrays(std::size_t& count, const std::vector<T>&... arrays) {
  const std::size_t sizes[] = {arrays.size()...};
  count = sizes[0];
  std::string lengths;
  bool equal = true;
  for (std::size_t s : sizes) {
    equal = equal && s == count;
    lengths += (lengths.empty() ? "" : ", ") + std::to_string(s);
  }
  return equal ? std::string()
               : isocost::detail::expected_got("the arrays' lengths", "equal lengths", lengths);
}

/// Packs element i of every array into record i.
template <class... T>
Records pack_records(std::size_t count, const std::vector<T>&... arrays) {
  Records r;
  r.record_size = (sizeof(T) + ...);
  r.bytes.resize(count * r.record_size);
  for (std::size_t i = 0; i < count; ++i) {
    std::byte* p = r.bytes.data() + i * r.record_size;
    ((std::memcpy(p, &arrays[i], sizeof(T)), p += sizeof(T)), ...);
  }
  return r;
}

/// Unpacks every record into the arrays (resized to the record count).
template <class... T>
void unpack_records(const Records& r, std::vector<T>&... arrays) {
  const std::size_t count = r.record_size ? r.bytes.size() / r.record_size : 0;
  (arrays.resize(count), ...);
  for (std::size_t i = 0; i < count; ++i) {
    const std::byte* p = r.bytes.data() + i * r.record_size;
    ((std::memcpy(&arrays[i], p, sizeof(T)), p += sizeof(T)), ...);
  }
}

template <class T>
std::byte* resize_vector(void* vector, std::size_t count) {
  auto& v = *static_cast<std::vector<T>*>(vector);
  v.resize(count);
  return reinterpret_cast<std::byte*>(v.data());
}

/// The arriving records of redistribute_arrays() and the new arrays they are
/// unpacked into, allocated together before the agreement (so that a failed
/// allocation is agreed and the caller's arrays stay as they were).
template <class... T>
struct StagedArrays {
  Records records;
  std::tuple<std::vector<T>...> arrays;
};

/// Resizes a StagedArrays<T...> (passed as `staged`) to `count` records and
/// elements. May throw (std::bad_alloc, or an element's constructor).
template <class... T>
std::byte* resize_staged(void* staged, std::size_t count) {
  auto& s = *static_cast<StagedArrays<T...>*>(staged);
  std::apply([count](auto&... a) { (a.resize(count), ...); }, s.arrays);
  return resize_records(&s.records, count);
}

template <class R, class T, class Distribution>
RedistributeSummary redistribute_into(MPI_Comm comm, const Distribution& from,
                                      const Distribution& to, const R& local, std::vector<T>& out,
                                      const RedistributeOptions& options) {
  using V = std::ranges::range_value_t<R>;
  static_assert(std::is_same_v<V, T>, "the output vector's type must be the range's value type");
  static_assert(std::is_trivially_copyable_v<T>,
                "redistribute() copies bytes: T must be trivially copyable; use migrate() with "
                "pack/unpack callbacks otherwise");
  const auto* in = reinterpret_cast<const std::byte*>(std::ranges::data(local));
  const auto n = static_cast<std::size_t>(std::ranges::size(local));
  const auto* o = reinterpret_cast<const std::byte*>(out.data());
  // Overlap of [in, in + n) with the output's whole capacity (resize may reuse it).
  const auto a0 = reinterpret_cast<std::uintptr_t>(in), a1 = a0 + n * sizeof(T);
  const auto b0 = reinterpret_cast<std::uintptr_t>(o), b1 = b0 + out.capacity() * sizeof(T);
  const bool aliased = n > 0 && out.capacity() > 0 && a0 < b1 && b0 < a1;
  return redistribute_bytes(comm, from, to, in, n, sizeof(T), &out, &resize_vector<T>, aliased,
                            options);
}
/// redistribute_arrays() with `rider`'s records in the same collective.
template <class Distribution, class... T>
RedistributeSummary redistribute_arrays_with(MPI_Comm comm, const Distribution& from,
                                             const Distribution& to,
                                             const RedistributeOptions& options, Rider* rider,
                                             std::vector<T>&... arrays) {
  static_assert(sizeof...(T) >= 1, "redistribute_arrays() needs at least one array");
  static_assert((std::is_trivially_copyable_v<T> && ...),
                "redistribute_arrays() copies bytes: every element type must be trivially "
                "copyable; use migrate() with pack/unpack callbacks otherwise");
  std::size_t count = 0;
  std::string problem = detail::check_arrays(count, arrays...);
  detail::Records in;
  if (problem.empty()) {
    try {
      in = detail::pack_records(count, arrays...);
    } catch (const std::bad_alloc&) {
      problem = "could not allocate " + std::to_string(count) + " records of " +
                std::to_string((sizeof(T) + ...)) + " bytes to stage the outgoing elements";
    }
  }
  detail::StagedArrays<T...> out;
  out.records.record_size = (sizeof(T) + ...);
  const RedistributeSummary s = detail::redistribute_bytes(
      comm, from, to, in.bytes.data(), problem.empty() ? count : 0, out.records.record_size, &out,
      &detail::resize_staged<T...>, false, options, std::move(problem), rider);
  // Commit: the new arrays were allocated above, so nothing here can fail.
  std::apply(
      [&](auto&... fresh) {
        detail::unpack_records(out.records, fresh...);
        (arrays.swap(fresh), ...);
      },
      out.arrays);
  return s;
}
}  // namespace detail

/// Moves several arrays of the same elements together (a struct of arrays:
/// positions, velocities, ids …) from distribution `from` to `to`, in one
/// exchange: element i of every array travels as one record. Every array
/// holds this rank's from-elements (1-D: its range; boxes: its box, x
/// fastest) and is replaced by its to-elements. Elements may be of any
/// trivially copyable types, one type per array.
///
/// Collective over `comm`. Errors as redistribute() (the same Error on every
/// rank, nothing moved), and for arrays of different lengths on any rank.
/// All or nothing: the records and the new arrays are allocated before the
/// agreement and the arrays are swapped in only after the exchange (and its
/// verification) succeeded everywhere, so on any Error — a failed allocation
/// on one rank included — every rank's arrays are exactly as they were.
/// Memory: records staged out and in, and the new arrays: about three times
/// the arrays' bytes on top.
template <class Distribution, class... T>
RedistributeSummary redistribute_arrays(MPI_Comm comm, const Distribution& from,
                                        const Distribution& to, const RedistributeOptions& options,
                                        std::vector<T>&... arrays) {
  return detail::redistribute_arrays_with(comm, from, to, options, nullptr, arrays...);
}

/// Copies 1-D block-distributed data from distribution `from` to `to`:
/// `local` holds this rank's elements [from.begin(rank), from.end(rank)) in
/// order; the result holds [to.begin(rank), to.end(rank)). Only elements
/// whose owner changes travel (one MPI_Alltoallv, straight from `local` into
/// the result when the unit is 1); the rest are copied locally.
///
/// Collective over `comm`. T must be trivially copyable (its bytes are
/// copied, padding included). Throws the same Error on every rank, having
/// moved nothing, if on any rank: a distribution is invalid or does not have
/// one part per rank of `comm`; `from` and `to` cover different N; `local`
/// does not hold from.count(rank) elements; the distributions or options
/// differ from another rank's (hash); the options are invalid; the result or
/// the staging buffers cannot be allocated. With options.verify, a failed
/// verification throws the same Error on every rank (after the copy).
template <std::ranges::contiguous_range R>
Redistributed<std::ranges::range_value_t<R>> redistribute(MPI_Comm comm,
                                                          const BlockDistribution& from,
                                                          const BlockDistribution& to,
                                                          const R& local,
                                                          const RedistributeOptions& options = {}) {
  Redistributed<std::ranges::range_value_t<R>> r;
  r.summary = detail::redistribute_into(comm, from, to, local, r.data, options);
  return r;
}

/// As redistribute() for 1-D blocks, into `out` (resized to to.count(rank);
/// its capacity is reused, so a loop of rebalances does not reallocate).
/// `out` must not share storage with `local` (an agreed Error). On Error,
/// `out` may have been resized and its contents are unspecified. Collective.
template <std::ranges::contiguous_range R, class T>
RedistributeSummary redistribute_into(MPI_Comm comm, const BlockDistribution& from,
                                      const BlockDistribution& to, const R& local,
                                      std::vector<T>& out,
                                      const RedistributeOptions& options = {}) {
  return detail::redistribute_into(comm, from, to, local, out, options);
}

/// Copies a 2-D/3-D grid array from box distribution `from` to `to`: `local`
/// holds this rank's from-box x fastest (see BoxDistribution); the result its
/// to-box. Only cells whose owner changes travel: the intersections of this
/// rank's old box with the others' new boxes (packed row by row unless
/// contiguous), in one MPI_Alltoallv; the intersection with its own new box
/// is copied directly.
///
/// Collective over `comm`. Errors as for 1-D blocks (a box distribution that
/// does not tile its grid, different grids, a local size other than the
/// from-box's volume, …): the same Error on every rank, nothing moved.
template <std::ranges::contiguous_range R>
Redistributed<std::ranges::range_value_t<R>> redistribute(MPI_Comm comm,
                                                          const BoxDistribution& from,
                                                          const BoxDistribution& to, const R& local,
                                                          const RedistributeOptions& options = {}) {
  Redistributed<std::ranges::range_value_t<R>> r;
  r.summary = detail::redistribute_into(comm, from, to, local, r.data, options);
  return r;
}

/// As redistribute() for boxes, into `out` (see the 1-D redistribute_into).
/// Collective.
template <std::ranges::contiguous_range R, class T>
RedistributeSummary redistribute_into(MPI_Comm comm, const BoxDistribution& from,
                                      const BoxDistribution& to, const R& local,
                                      std::vector<T>& out,
                                      const RedistributeOptions& options = {}) {
  return detail::redistribute_into(comm, from, to, local, out, options);
}

}  // namespace isocost::mpi
