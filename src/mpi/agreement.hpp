// Collective error agreement for the mpi layer: every rank checks its own
// input, one reduction tells every rank whether any input was bad, and then
// every rank throws the same Error naming the bad ranks — no rank is left
// waiting in a collective (DESIGN.md, "Conventions"). Also the input checks
// the layer's entry points share.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>

namespace isocost::mpi {
struct MigrationCallbacks;
}

namespace isocost::mpi::internal {

/// Throws (locally: there is nothing to agree over) "what: expected a valid
/// communicator, got MPI_COMM_NULL" if `comm` is MPI_COMM_NULL.
void check_comm(MPI_Comm comm, const char* what);

/// "empty callbacks: pack free; expected all four (size, pack, unpack, free)"
/// naming the empty ones, or "" if none is empty.
std::string empty_callbacks(const MigrationCallbacks& cb);

/// Collective over `comm`. If any rank's `problem` is non-empty, or one of
/// `hashes` differs between ranks (named by `hash_names`, as "… not equal to
/// rank 0's"), every rank throws one Error: "what: kind N ranks (rank r: …;
/// ranks a-b: …)", ranks with the same message grouped. The common (all good)
/// path costs one MPI_Allreduce of 1 + 2·hashes.size() words. `allreduces`,
/// if given, is incremented for that reduction.
void agree(MPI_Comm comm, const std::string& what, std::string problem,
           std::span<const std::uint64_t> hashes = {}, std::span<const char* const> hash_names = {},
           const char* kind = "invalid input on", long long* allreduces = nullptr);

/// The error path alone, for callers whose own reduction already carried the
/// "someone is bad" flag: collective over `comm` (every rank must call it),
/// gathers every rank's `problem` and throws the agreed Error.
[[noreturn]] void throw_agreed(MPI_Comm comm, const std::string& what, const std::string& problem,
                               const char* kind = "invalid input on");

/// "0, 2-5, 7": sorted ranks with runs collapsed.
std::string rank_list(std::span<const int> ranks);

}  // namespace isocost::mpi::internal
