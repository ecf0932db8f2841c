// c/mpi/agree.hpp — the argument checks of the collective C functions
// (include/isocost/isocost_mpi.h): every rank collects its own problems, and
// one agreement (src/mpi/agreement.hpp) makes them the same error on every
// rank before any collective of the C++ layer runs, so a NULL pointer or a
// bad count on one rank cannot leave the others waiting.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "c/status.hpp"
#include "isocost/limits.hpp"
#include "isocost/partition.hpp"
#include "mpi/agreement.hpp"

namespace isocost::c::mpi {

/// This rank's problems with its arguments, "; "-separated.
struct Problems {
  std::string text;
  void add(const std::string& problem) { text += (text.empty() ? "" : "; ") + problem; }
  /// Adds "NAME is NULL" when p is NULL and `needed`.
  void need(const void* p, const char* name, bool needed = true) {
    if (needed && p == nullptr) add(std::string(name) + " is NULL");
  }
  /// Adds "NAME: expected an integer >= MIN, got N" when n < min.
  void at_least(std::int64_t n, std::int64_t min, const char* name) {
    if (n < min)
      add(detail::expected_got(name, "an integer >= " + std::to_string(min), std::to_string(n)));
  }
};

/// Throws Failure (locally: there is nothing to agree over) for MPI_COMM_NULL.
inline void require_comm(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) throw Failure{ISOCOST_ERROR_INVALID_ARGUMENT, "comm is MPI_COMM_NULL"};
}

/// Collective over comm: throws the same Error on every rank ("arguments:
/// invalid input on N ranks (rank r: …)") when any rank has a problem or one
/// of `same` differs between ranks.
inline void agree_arguments(MPI_Comm comm, const Problems& problems,
                            std::span<const isocost::mpi::detail::Same> same = {}) {
  isocost::mpi::detail::agree(comm, "arguments", problems.text, same);
}

/// The speeds of `parts` parts (NULL: uniform), or nullopt with the problem
/// added: Speeds' own check would throw on this rank alone.
inline std::optional<Speeds> speeds_of(int parts, const double* speeds, Problems& problems) {
  if (parts < 1) {
    problems.at_least(parts, 1, "parts");
    return std::nullopt;
  }
  if (parts > kMaxParts) {  // before reading `parts` speeds
    problems.add("parts: expected at most " + std::to_string(kMaxParts) + ", got " +
                 std::to_string(parts));
    return std::nullopt;
  }
  try {
    if (speeds == nullptr) return Speeds::uniform(parts);
    return Speeds::from_values(std::vector<double>(speeds, speeds + parts));
  } catch (const isocost::Error& e) {
    problems.add(e.what());  // "speeds: …"
    return std::nullopt;
  }
}

}  // namespace isocost::c::mpi
