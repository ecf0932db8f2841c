// isocost/mpi/diffusion.hpp — the diffusion schemes of diffusion.hpp run
// distributed on an MPI Cartesian communicator (mpi layer): each rank owns one
// node of the mesh and talks only to its neighbours.
//
// The arithmetic is the serial diffuse()'s, in the same order of operations,
// so on any rank count the transfers are bit for bit those of
// isocost::diffuse(mesh_graph(dims, torus), loads, options):
//
//   MPI_Comm cart = isocost::mpi::mesh_communicator(MPI_COMM_WORLD, {0, 0}, false);
//   isocost::DiffusionOptions o;                        // Crank–Nicolson, α = 0.05
//   auto r = isocost::mpi::diffuse(cart, my_load, o);   // collective
//   for (const auto& nb : r.neighbours) send(nb.rank, nb.transfer);  // > 0: I send
//   MPI_Comm_free(&cart);
//
// Communication per call (P ranks, n neighbours each):
//  - set-up: one MPI_Bcast of rank 0's options and one MPI_Allreduce of an error
//    flag (collective error agreement), then one MPI_Allgather of the loads —
//    the average is their sum in rank order, exactly as the serial code sums
//    it (O(P) doubles per rank, once);
//  - per step: neighbour exchanges only (MPI_Neighbor_allgather of one double
//    on the Cartesian topology): 1 for the explicit scheme, ν + 1 for the
//    first-order implicit one, ν + 2 for Crank–Nicolson; then ONE MPI_Allreduce
//    (MAX of the loads) for the convergence test u_max <= (1 + α)·u_avg;
//  - at the end: one MPI_Allreduce (max of the final loads and the transfer
//    volume) for the summary.
// Least squares (T = Aᵀ(AAᵀ)⁻¹L̄, Eijkhout §2) is a global solve, not a
// neighbour-only scheme: rank 0 solves with the serial code from the gathered
// loads (O(P) memory and a serial sparse Cholesky or CG on rank 0) and scatters
// each rank its transfers (MPI_Scatterv), plus one MPI_Bcast of the counts.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "isocost/diffusion.hpp"

namespace isocost::mpi {

/// A Cartesian communicator over all of `comm` for a mesh M_0 × … × M_{d−1}
/// (1 <= d <= 3), wrapping in every dimension when `torus`. Zeros in `dims`
/// are filled by MPI_Dims_create; the product must equal the size of `comm`.
/// No reordering: rank r of the result is rank r of `comm`, and ranks are
/// numbered in C order (the last coordinate fastest), as mesh_graph() numbers
/// nodes. The caller frees the result with MPI_Comm_free.
/// Collective over `comm`. Throws the same Error on every rank (no deadlock)
/// if any rank's dims are invalid or differ from rank 0's (dims or torus).
MPI_Comm mesh_communicator(MPI_Comm comm, const std::vector<int>& dims, bool torus);

/// The serial process graph of a Cartesian communicator: mesh_graph(dims,
/// torus). Not collective (local topology queries only). Throws Error if
/// `cart` has no Cartesian topology, more than 3 dimensions (mesh_graph's
/// limit) or mixed periods.
ProcessGraph cart_graph(MPI_Comm cart);

/// One neighbour of this rank's node, as the serial graph has it: the edges
/// to it merged (weight 2 for the two links of a periodic dimension of
/// length 2).
struct NeighbourTransfer {
  int rank = MPI_PROC_NULL;  ///< the neighbour's rank in the Cartesian communicator
  double weight = 1.0;       ///< the serial graph's edge weight (1 or 2)
  /// Accumulated work this rank sends to the neighbour (receives when < 0).
  /// With i = min(rank, me), j = max: the serial t_e of edge (i, j) if this
  /// rank is i, and exactly −t_e if it is j.
  double transfer = 0.0;
};

/// What mpi::diffuse() did, seen from one rank. The global fields (steps,
/// sweeps, imbalances, converged) are identical on every rank and equal the
/// serial DiffusionSummary's.
struct RankDiffusionSummary {
  DiffusionScheme scheme = DiffusionScheme::crank_nicolson;
  int rank = 0;             ///< this rank = its node in mesh_graph(dims, torus)
  std::vector<int> dims;    ///< the mesh M_0 × …
  bool torus = false;       ///< wraps in every dimension
  std::vector<int> coords;  ///< this rank's coordinates

  /// This rank's neighbours in increasing rank order (the serial stencil's
  /// order); none on a single rank.
  std::vector<NeighbourTransfer> neighbours;
  /// Per direction: entry 2a is toward coordinate −1 along axis a, entry
  /// 2a + 1 toward +1 (MPI_Cart_shift's source and destination). The rank
  /// is MPI_PROC_NULL (transfer 0) past a non-periodic boundary and on an axis
  /// of length 1. On a periodic axis of length 2 both directions reach the
  /// same neighbour and each carries half its merged transfer (exact: a
  /// division by 2).
  std::vector<int> direction_ranks;
  std::vector<double> direction_transfers;

  double initial_load = 0;  ///< this rank's load before
  /// This rank's load after applying the transfers, accumulated in the serial
  /// graph's edge order: equal to the serial DiffusionSummary::loads[rank].
  double load = 0;

  int steps = 0;                ///< diffusion steps (least squares: as serial, 1)
  int sweeps_per_step = 0;      ///< ν (0 for explicit and least squares)
  long long jacobi_sweeps = 0;  ///< total Jacobi sweeps (or rank 0's CG iterations)
  /// Σ_e |t_e| over all edges, from a reduction: equal to the serial value to
  /// rounding (summed in another order), identical on every rank.
  double transfer_volume = 0;
  double initial_imbalance = 0;  ///< u_max/u_avg − 1 before (exactly the serial value)
  double final_imbalance = 0;    ///< u_max/u_avg − 1 after (exactly the serial value)
  Termination termination = Termination::converged;  ///< as the serial summary
  DiffusionOptions options;                          ///< the options given
  bool converged() const noexcept { return termination == Termination::converged; }

  long long neighbour_exchanges = 0;  ///< MPI_Neighbor_allgather calls made
  long long allreduces = 0;           ///< MPI_Allreduce calls made (agreement included)

  std::string brief_report() const;  ///< one line, like DiffusionSummary's
};

/// Balances the loads over a Cartesian communicator: each rank passes its own
/// load (finite, >= 0; not all zero) and the same options; every rank returns
/// its transfers to its neighbours, equal bit for bit to the serial diffuse()
/// on cart_graph(cart) with the loads in rank order.
///
/// `cart` must come from MPI_Cart_create (e.g. mesh_communicator()) with
/// 1 to 3 dimensions (mesh_graph()'s range) and periods all true (a torus) or
/// all false (a mesh); anything else throws Error on every rank alike.
///
/// Collective over `cart`. Bad input — a negative, NaN or infinite load on
/// any rank, options invalid on any rank (α outside (0, 1), …) or different
/// from rank 0's, an explicit α beyond its stability limit 1/n, all loads
/// zero — makes every rank throw the same Error naming the bad ranks, with no
/// rank left waiting in a collective. Running out of max_steps is reported
/// (termination iteration_limit), as in the serial code.
RankDiffusionSummary diffuse(MPI_Comm cart, double my_load, const DiffusionOptions& options = {});

}  // namespace isocost::mpi
