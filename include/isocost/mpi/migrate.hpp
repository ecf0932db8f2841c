// isocost/mpi/migrate.hpp — moving data after a rebalance (mpi layer): a copy
// between two distributions (Eijkhout §1.1: load balancing "as a copy operation between
// a distributed object, and the same object on a new distribution") and task migration with
// pack/unpack/free callbacks (Watts ch. 3, immobile tasks §3.2.6).
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
//   // Tasks that are not trivially copyable: size/pack/unpack/free callbacks
//   auto sel = isocost::select_tasks(graph, tasks, transfers);   // the same on every rank
//   auto m = isocost::mpi::migrate(comm, my_ids, sel.moves, callbacks);
//   tasks = isocost::apply_moves(tasks, isocost::mpi::completed_moves(sel.moves, m.failed));
//   for (auto& list : tasks) isocost::mpi::mark_immobile(list, m.failed);  // then re-plan
//
// Every function that takes an MPI_Comm is collective over it and validates
// before it moves anything: each rank checks its own input, one MPI_Allreduce
// (of an error flag and a hash of the inputs that must agree across ranks)
// tells every rank whether any input was bad, and then all ranks throw the same
// isocost::Error naming the bad ranks — no rank is left waiting, nothing moves.
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

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/tasks.hpp"

namespace isocost::mpi {

// ---------------------------------------------------------------------------
// Distributions (plain values; not collective)

/// A 1-D block distribution of N elements over P ranks: P + 1 offsets with
/// 0 = o_0 <= o_1 <= … <= o_P = N; rank r owns the global indices [o_r, o_{r+1})
/// (possibly none). The functions taking an MPI_Comm validate it collectively,
/// so a rank may hold an invalid one and every rank still learns of it.
struct BlockDistribution {
  std::vector<std::int64_t> offsets;

  /// N elements in P near-equal blocks (the first N mod P ranks one longer).
  /// Throws Error for N < 0 or P < 1.
  static BlockDistribution uniform(std::int64_t n, int parts);
  /// Blocks of the given lengths (each >= 0), in rank order. Throws Error
  /// for a negative count, an empty list or a total beyond INT64_MAX.
  static BlockDistribution from_counts(std::span<const std::int64_t> counts);

  /// P (0 when there are no offsets).
  int parts() const noexcept;
  /// N = o_P (0 when there are no offsets).
  std::int64_t size() const noexcept;
  std::int64_t begin(int rank) const { return offsets.at(static_cast<std::size_t>(rank)); }
  std::int64_t end(int rank) const { return offsets.at(static_cast<std::size_t>(rank) + 1); }
  std::int64_t count(int rank) const { return end(rank) - begin(rank); }
  /// The rank owning global index i in [0, N) (binary search). Throws Error
  /// outside [0, N).
  int owner(std::int64_t index) const;

  /// True if valid; otherwise false and, if `error` is given, a message naming
  /// the first bad offset and what was expected.
  bool is_valid(std::string* error) const;
  /// Throws Error unless is_valid().
  void validate() const;
  /// A hash of the offsets (equal distributions hash equal).
  std::uint64_t hash() const noexcept;
};

/// A box of grid cells [lo, hi) along x, y, z (a 2-D box has z range [0, 1)).
/// Empty when hi <= lo along any axis.
struct CellBox {
  std::array<std::int64_t, 3> lo{0, 0, 0};
  std::array<std::int64_t, 3> hi{0, 0, 0};

  std::int64_t extent(int axis) const noexcept;  ///< max(hi − lo, 0)
  std::int64_t volume() const noexcept;          ///< cells in the box (0 if empty)
  bool empty() const noexcept { return volume() == 0; }
  bool operator==(const CellBox&) const = default;
};

/// The common part of two boxes (empty if they do not meet). Not collective.
CellBox intersect(const CellBox& a, const CellBox& b) noexcept;

/// A box distribution of an nx × ny × nz grid of cells (2-D: nz = 1) over P
/// ranks: rank r owns boxes[r]. The boxes must tile the grid exactly (every
/// cell owned by exactly one rank); empty boxes are allowed. Rank r's local
/// array holds its box's cells x fastest, as isocost/density.hpp's grids:
/// cell (i, j, k) at (i − lo_x) + e_x·((j − lo_y) + e_y·(k − lo_z)), e = extents;
/// global index of a cell: i + nx·(j + ny·k).
struct BoxDistribution {
  std::array<std::int64_t, 3> cells{1, 1, 1};  ///< nx, ny, nz, each >= 1
  std::vector<CellBox> boxes;                  ///< one per rank

  /// The parts of a decomposition of a gridded density (cuts on grid lines),
  /// in rank order. Throws Error if `d` is not on grid lines or has no parts.
  static BoxDistribution from_decomposition(const Decomposition& d);

  int parts() const noexcept { return static_cast<int>(boxes.size()); }
  /// nx·ny·nz (saturates at INT64_MAX; is_valid() refuses that).
  std::int64_t size() const noexcept;
  std::int64_t count(int rank) const { return boxes.at(static_cast<std::size_t>(rank)).volume(); }

  /// True if every cell count is >= 1 (product within int64), every box lies
  /// inside the grid with lo <= hi, and the boxes tile the grid. The tiling
  /// test is exact and O(P) expected: the signed corners of the boxes
  /// (sign (−1)^(number of hi coordinates)) must cancel except at the grid's
  /// own corners, which holds iff Σ_r 1_{box_r} = 1_grid pointwise, i.e.
  /// no gap and no overlap. On failure the message names two overlapping
  /// ranks (an O(P·A) sweep along x, A = boxes crossing a plane) or the
  /// number of cells left uncovered.
  bool is_valid(std::string* error) const;
  /// Throws Error unless is_valid().
  void validate() const;
  /// A hash of the cell counts and boxes.
  std::uint64_t hash() const noexcept;
};

// ---------------------------------------------------------------------------
// Copying trivially copyable data between two distributions

/// Settings for redistribute(). Must be the same on every rank (compared
/// through the agreement hash).
struct RedistributeOptions {
  /// Verification: every rank sums a 64-bit hash of (global index, the
  /// element's bytes) over its elements before and after, together with the
  /// element counts, in the totals' MPI_Allreduce (no extra collective, one
  /// more pass over the data on each side). A mismatch throws the same Error
  /// on every rank.
  bool verify = false;
  /// The largest count or displacement handed to MPI, in [2, INT_MAX]. Only
  /// to exercise the large-transfer path (units of g > 1 elements) in tests
  /// with small data; leave the default otherwise. Must exceed P.
  std::int64_t max_mpi_count = INT_MAX;

  bool is_valid(std::string* error) const;
};

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
/// vector's storage overlaps `local` (an agreed error).
RedistributeSummary redistribute_bytes(MPI_Comm comm, const BlockDistribution& from,
                                       const BlockDistribution& to, const std::byte* local,
                                       std::size_t count, std::size_t element_size, void* out,
                                       ResizeFn resize, bool aliased,
                                       const RedistributeOptions& options);
RedistributeSummary redistribute_bytes(MPI_Comm comm, const BoxDistribution& from,
                                       const BoxDistribution& to, const std::byte* local,
                                       std::size_t count, std::size_t element_size, void* out,
                                       ResizeFn resize, bool aliased,
                                       const RedistributeOptions& options);

template <class T>
std::byte* resize_vector(void* vector, std::size_t count) {
  auto& v = *static_cast<std::vector<T>*>(vector);
  v.resize(count);
  return reinterpret_cast<std::byte*>(v.data());
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
}  // namespace detail

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

// ---------------------------------------------------------------------------
// Migrating tasks that are not trivially copyable (Watts ch. 3)

/// How to move one element (task state) between ranks: Watts §3.1's state
/// pack / state unpack and the free that follows a successful move. Called
/// only inside migrate(), on the calling thread, never concurrently. An
/// exception from size, pack or unpack (std::bad_alloc included) is caught
/// and fails that element only.
struct MigrationCallbacks {
  /// On the sender, once per outgoing element, in the moves' order: the number
  /// of bytes pack() will write.
  std::function<std::size_t(std::int64_t id)> size;
  /// On the sender, once per outgoing element after all size() calls, grouped
  /// by destination rank (increasing), moves' order within a destination:
  /// write the element's state into `buffer`, exactly size(id) bytes. The
  /// element must stay intact: it is freed only once its receiver has it.
  std::function<void(std::int64_t id, std::span<std::byte> buffer)> pack;
  /// On the receiver, once per arriving element, by source rank (increasing),
  /// then in the sender's packing order: rebuild the element from `bytes`
  /// (16-byte aligned, valid only during the call). Return false (or throw)
  /// if that is impossible, e.g. out of memory; then the receiver must keep
  /// no trace of it — the sender keeps the element (Watts §3.2.6).
  std::function<bool(std::int64_t id, std::span<const std::byte> bytes)> unpack;
  /// On the sender, once per element its receiver unpacked, after every
  /// unpack has been confirmed, in the moves' order: release the element.
  /// Should not throw; an exception is caught and the id listed in
  /// MigrateSummary::free_errors (the element has moved all the same).
  std::function<void(std::int64_t id)> free;
};

/// Settings for migrate(). Must be the same on every rank (hash-compared).
struct MigrateOptions {
  /// Before any unpack: the receivers' count and 64-bit checksum of (id,
  /// bytes) over the arrived records are compared with the senders' (one extra
  /// MPI_Allreduce); a mismatch or an id not expected from that sender throws
  /// the same Error on every rank with nothing unpacked or freed.
  bool verify = false;
  /// As RedistributeOptions::max_mpi_count (testing hook; must exceed P).
  std::int64_t max_mpi_count = INT_MAX;

  bool is_valid(std::string* error) const;
};

/// Where an element's move failed. The element stays with its sender.
enum class MigrationStage {
  size,     ///< size() threw
  pack,     ///< pack() threw, or the send buffer could not be allocated
  receive,  ///< the receiver rejected the record (unexpected id, malformed)
  unpack,   ///< unpack() returned false or threw
};
/// "size", "pack", "receive", "unpack".
std::string to_string(MigrationStage stage);

/// An element that did not move: it is still held (intact) by `from`.
struct MigrationFailure {
  std::int64_t id = 0;
  int from = 0;
  int to = 0;
  MigrationStage stage = MigrationStage::unpack;
  bool operator==(const MigrationFailure&) const = default;
};

/// What migrate() did, seen from one rank. Fields marked global are
/// identical on every rank.
struct MigrateSummary {
  int rank = 0;
  int ranks = 0;
  std::int64_t elements_sent = 0;      ///< moved away from this rank (freed here)
  std::int64_t elements_received = 0;  ///< unpacked here
  std::int64_t bytes_sent = 0;         ///< Σ size() of the elements sent (payload)
  std::int64_t bytes_received = 0;     ///< payload bytes unpacked here
  std::int64_t wire_bytes_sent = 0;    ///< bytes handed to MPI (16-byte record headers, padding)
  std::int64_t unit_bytes = 16;        ///< the transfer unit (16·g), global

  std::int64_t global_moves = 0;        ///< moves requested (from != to), global
  std::int64_t global_moved = 0;        ///< elements that moved, global
  std::int64_t global_bytes_moved = 0;  ///< their payload bytes, global
  /// Every element that did not move, sorted by id: the same list on every
  /// rank (global). Mark these tasks immobile and re-plan (Watts §3.2.6).
  std::vector<MigrationFailure> failed;
  /// Ids whose free() threw on this rank (they moved all the same).
  std::vector<std::int64_t> free_errors;
  bool verified = false;  ///< verification ran and passed (global)
  double seconds = 0;     ///< wall time of the call on this rank

  /// One line: moved, failed, bytes.
  std::string brief_report() const;
};

/// Moves elements (tasks) between ranks: `held` lists the ids this rank holds
/// (unique), `moves` the moves (id, from, to) — the same list on every rank,
/// e.g. select_tasks().moves; a move with from == to is a no-op. Each element
/// is sized and packed on `from`, sent with one MPI_Alltoallv of 16-byte
/// aligned records (id, size, bytes), unpacked on `to`, and freed on `from`
/// only after its receiver reports success (a second, small MPI_Alltoallv of
/// one status byte per record). An element whose size, pack or unpack fails
/// is never freed: it stays with its sender, intact, and is listed in
/// MigrateSummary::failed on every rank — nothing is ever lost (Watts §3.2.6).
/// Nothing is sent back: the sender keeps the original until the receiver
/// confirms.
///
/// Collective over `comm`: MPI_Allreduce (agreement), MPI_Alltoall (record
/// sizes), MPI_Allreduce (receive buffers allocated), MPI_Alltoallv (records),
/// [MPI_Allreduce (verification)], MPI_Alltoallv (statuses), MPI_Allreduce
/// (totals); and, only if some element failed, MPI_Allgather + MPI_Allgatherv
/// of the failures.
///
/// Throws the same Error on every rank, having called no callback, if on any
/// rank: `held` has a duplicate id; a move names a rank outside [0, P), an id
/// twice, or an id its `from` rank does not hold; a callback is empty; the
/// moves or options differ from another rank's (hash); the options are
/// invalid. Throws the same Error on every rank, with nothing unpacked or
/// freed, if a receive buffer cannot be allocated or verification fails.
MigrateSummary migrate(MPI_Comm comm, std::span<const std::int64_t> held,
                       std::span<const TaskMove> moves, const MigrationCallbacks& callbacks,
                       const MigrateOptions& options = {});

/// Marks immobile every task whose id is among `failed` (Watts §3.2.6: a task
/// that failed to move is excluded from later selections); returns how many
/// were marked. Not collective.
std::size_t mark_immobile(std::span<Task> tasks, std::span<const MigrationFailure> failed);

/// The moves that happened: `moves` without no-ops and without the failed
/// ids, in order — so apply_moves(tasks, completed_moves(moves, s.failed)) is
/// the task lists after migrate(). Not collective.
std::vector<TaskMove> completed_moves(std::span<const TaskMove> moves,
                                      std::span<const MigrationFailure> failed);

}  // namespace isocost::mpi
