// One run of examples/particles: the particle model stepped on every rank of
// a communicator under one balancing scheme, with its per-step efficiencies,
// its cost and its correctness checks.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "particles_model.hpp"

namespace particles {

/// How a run balances.
enum class Scheme {
  none,    ///< the equal split of the Morton order throughout
  costs,   ///< DSMC: the BlockBalancer cut on per-cell costs (Watts §4.1)
  total,   ///< PIC: cut on each cell's modelled total time, push + field
  phases,  ///< PIC: the BlockBalancer's balance_phases on one block per rank
  vector,  ///< PIC: plan_pieces()'s chunk order, then balance_phases (Watts §4.2)
};

struct RunOptions {
  Scheme scheme = Scheme::none;
  bool pic = false;           ///< two phases (push, field solve); else DSMC, one
  int steps = 100;            ///< time steps
  int every = 5;              ///< check every k steps
  double mineff = 0.9;        ///< Watts's mineff: check fires below it
  std::int64_t chunk = 16;    ///< cells per chunk of the vector scheme's order
  bool learn_speeds = false;  ///< the balancer learns the ranks' speeds (equal here)
};

/// What a run measured and checked; the same on every rank.
struct Outcome {
  Scheme scheme = Scheme::none;
  bool pic = false;
  // Per step: T_avg/T_max of the ranks' busy time (CPU), and for PIC runs
  // of each phase, and Σ_p avg_p / Σ_p max_p (phases synchronised, Watts §4.2).
  std::vector<double> efficiency, push, field, synchronised;
  double time = 0;       ///< Σ steps (DSMC: max_r T; PIC: Σ_p max_r T_p) + balancing
  double balancing = 0;  ///< Σ of the rebalances' CPU time, max over ranks
  int rebalances = 0;    ///< plans carried out (cells migrated)
  int reorders = 0;      ///< vector scheme: plan_pieces() plans built and moved to
  /// Vector scheme, the last plan_pieces(): its predicted synchronised
  /// efficiency, and one block per rank's on the same costs.
  double planned_synchronised = 0, planned_block_synchronised = 0;
  long long cells_moved = 0;
  int balanced_from = -1;  ///< the first step after the first rebalance (-1: none)
  // The checks.
  long long particles = 0;          ///< held at the end, all ranks
  bool ids_ok = false;              ///< the ids' order-free hash is that of 0 … N_p − 1
  bool placed_ok = false;           ///< every particle on the owner of its cell
  bool cells_ok = false;            ///< every rank holds exactly its elements, in order
  std::uint64_t particle_hash = 0;  ///< of (id, x, y, a, b, w): the unbalanced run's
  std::uint64_t cell_hash = 0;      ///< of (cell, value): the unbalanced run's
};

/// "no balancing", "per-cell costs", … (a table's and the plot's name).
std::string name_of(Scheme scheme);

/// Runs the model under `options`. Collective over `comm`.
Outcome run(const Model& model, const RunOptions& options, MPI_Comm comm);

/// Mean of v[from …]; 0 when empty.
double mean_from(const std::vector<double>& v, int from = 0);

}  // namespace particles
