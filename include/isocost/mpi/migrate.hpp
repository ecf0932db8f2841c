// isocost/mpi/migrate.hpp — moving elements that are not trivially copyable
// (task state) between ranks with pack/unpack/free callbacks (mpi layer;
// Watts ch. 3, immobile tasks §3.2.6). Trivially copyable arrays move with
// redistribute.hpp instead.
//
//   auto sel = isocost::select_tasks(graph, tasks, transfers);   // the same on every rank
//   auto m = isocost::mpi::migrate(comm, my_ids, sel.moves, callbacks);
//   tasks = isocost::apply_moves(tasks, isocost::mpi::completed_moves(sel.moves, m.failed));
//   for (auto& list : tasks) isocost::mpi::mark_immobile(list, m.failed);  // then re-plan
//
// migrate() is collective over its communicator and validates before it
// calls any callback: every rank checks its own input, one MPI_Allreduce (of
// an error flag and a hash of the moves and options, which must agree across
// ranks) tells every rank whether any input was bad, and then all ranks throw
// the same isocost::Error naming the bad ranks. The other functions here are
// not collective.
#pragma once

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "isocost/mpi/transfer_options.hpp"
#include "isocost/options.hpp"
#include "isocost/tasks.hpp"

namespace isocost::mpi {

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
  /// BlockBalancer::apply(plan, callbacks), which is all or nothing, also
  /// calls it on a receiver, for each copy it unpacked, when the migration
  /// is rolled back.
  std::function<void(std::int64_t id)> free;
};

/// Settings for migrate() (transfer_options.hpp).
using MigrateOptions = TransferOptions;

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
