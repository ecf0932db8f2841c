// isocost/mpi/pieces.hpp — vector balancing with several pieces per rank
// (pieces.hpp, Watts §4.2) from chunk costs that the ranks hold in parts.
//
//   // chunk g of the domain: this rank's cost of it in each phase
//   auto plan = isocost::mpi::plan_pieces(comm, G, my_chunks, my_costs, 2, speeds);
//   for (i …) destination[i] = plan.owner[chunk_of(key[i])];
//   isocost::mpi::exchange(comm, std::span<const int>(destination), {}, key, cells);
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>

#include "isocost/pieces.hpp"

namespace isocost::mpi {

/// plan_pieces() of the whole domain's chunk costs, which the ranks hold in
/// parts. Each rank passes the chunks it has costs for: `ids[i]` in
/// [0, chunks), with `costs[i·phases + p]` its cost in phase p; a chunk named
/// by several ranks costs their sum (its particles may sit on several ranks),
/// a chunk named by none costs 0. One MPI_Allreduce of chunks × phases
/// doubles: per-rank memory O(chunks · phases + P), so chunks are the code's
/// coarse units (patches of cells), not its cells.
///
/// Collective over `comm`. `chunks`, `phases`, `speeds` (P = the
/// communicator's size) and `options` must be the same on every rank
/// (compared). Every rank returns the same plan, or every rank throws the
/// same Error: for a chunk id out of range, costs that are not ids.size() ×
/// phases, negative or non-finite (named with the rank), chunks outside
/// [1, kMaxParts], or as plan_pieces().
PiecePlan plan_pieces(MPI_Comm comm, std::int64_t chunks, std::span<const std::int64_t> ids,
                      std::span<const double> costs, std::size_t phases, const Speeds& speeds,
                      const PiecesOptions& options = {});

}  // namespace isocost::mpi
