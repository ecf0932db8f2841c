// Collective error agreement for the mpi layer: every rank checks its own
// input, one reduction tells every rank whether any input was bad, and then
// every rank throws the same Error naming the bad ranks — no rank is left
// waiting in a collective (docs/guarantees.md §5). Also the input checks
// the layer's entry points share.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>

#include "isocost/options.hpp"
#include "isocost/partition.hpp"

namespace isocost::mpi {
struct MigrationCallbacks;
}

namespace isocost::mpi::detail {

/// Throws (locally: there is nothing to agree over) "what: expected a valid
/// communicator, got MPI_COMM_NULL" if `comm` is MPI_COMM_NULL.
void check_comm(MPI_Comm comm, const char* what);

/// "empty callbacks: pack free; expected all four (size, pack, unpack, free)"
/// naming the empty ones, or "" if none is empty.
std::string empty_callbacks(const MigrationCallbacks& cb);

/// One input that must be the same on every rank: a hash of it, its name in
/// messages, and, for options, what writes its fields (options_lines()), so
/// that a difference names the fields: "options differ from rank 0's: alpha
/// 0.1 (rank 0: 0.05)". Without fields: "to distribution not equal to rank
/// 0's". The fields are written only on the error path: speeds of 10^7 ranks
/// are 10^7 numbers of text. A Same refers to its input: use it while the
/// input lives (in the call that checks it).
struct Same {
  std::uint64_t hash = 0;
  std::string name;
  std::function<std::string()> fields = {};
};

/// The options as a Same: options_hash() and options_lines().
template <class O>
Same same_options(const O& options, std::string name = "options") {
  return {options_hash(options), std::move(name), [&options] { return options_lines(options); }};
}

/// Speeds as a Same: their values hashed, named "speeds" field by field.
Same same_speeds(const Speeds& speeds);

/// Any input described by `text` (its sizes, a shape) as a Same named `name`:
/// a difference prints "name: text (rank 0: …)".
Same same_text(std::string name, const std::string& text);

/// Collective over `comm`. If any rank's `problem` is non-empty, or one of
/// `same` differs between ranks, every rank throws one Error: "what: kind N
/// ranks (rank r: …; ranks a-b: …)", ranks with the same message grouped. The
/// common (all good) path costs one MPI_Allreduce of 1 + 2·same.size() words;
/// rank 0's fields are broadcast only on the error path. `allreduces`, if
/// given, is incremented for that reduction.
void agree(MPI_Comm comm, const std::string& what, std::string problem,
           std::span<const Same> same = {}, const char* kind = "invalid input on",
           long long* allreduces = nullptr);

/// The error path alone, for callers whose own reduction already carried the
/// "someone is bad" flag: collective over `comm` (every rank must call it),
/// gathers every rank's `problem` and throws the agreed Error.
[[noreturn]] void throw_agreed(MPI_Comm comm, const std::string& what, const std::string& problem,
                               const char* kind = "invalid input on");

/// "0, 2-5, 7": sorted ranks with runs collapsed.
std::string rank_list(std::span<const int> ranks);

}  // namespace isocost::mpi::detail
