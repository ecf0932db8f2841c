// Internal to the mpi layer: migrate() with an all-or-nothing mode, for
// BlockBalancer::apply(plan, callbacks), where an element cannot be left
// behind (a block distribution has no place for it).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>

#include "isocost/mpi/migrate.hpp"

namespace isocost::mpi::detail {

/// What an all-or-nothing migration did when some element failed.
struct RollBack {
  bool rolled_back = false;      ///< some element failed: nothing moved (global)
  std::int64_t free_errors = 0;  ///< discarded copies whose free() threw (global)
};

/// migrate(), `what` naming it in messages. With `all_or_nothing` null it is
/// migrate(). Otherwise two-phase: every element is unpacked, then one
/// reduction tells every rank whether all arrived; if so the senders free
/// theirs (commit); if not, each receiver calls free() on the copies it
/// unpacked (roll back), no sender frees anything, every rank returns the
/// same summary (failed filled) and *all_or_nothing says so — every element
/// is where it was.
MigrateSummary migrate_elements(MPI_Comm comm, std::span<const std::int64_t> held,
                                std::span<const TaskMove> moves,
                                const MigrationCallbacks& callbacks, const MigrateOptions& options,
                                const char* what, RollBack* all_or_nothing);

}  // namespace isocost::mpi::detail
