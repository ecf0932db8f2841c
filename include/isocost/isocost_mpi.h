/* isocost/isocost_mpi.h — the MPI part of the C interface (target isocost::c,
 * built when isocost is configured with ISOCOST_BUILD_MPI).
 *
 * Valid C99 and C++; includes <mpi.h>, <stddef.h> and "isocost/isocost.h",
 * whose conventions hold here too: int status codes, this thread's
 * isocost_last_error(), no C++ exception crosses, NULL checks name the
 * argument, outputs untouched on failure (a constructor sets *out = NULL).
 * See docs/c_api_mpi.md.
 *
 * Collective calls. A function marked "Collective over comm" must be called
 * by every rank of the communicator (for a balancer: of the one it was
 * created on), in the same order. Its arguments are checked on every rank
 * first — the pointers, the counts, and what the comment says must agree
 * across ranks — and a problem on any rank gives the SAME status and the
 * SAME message on every rank, naming the bad ranks, e.g.
 *   "isocost_partition_weights: arguments: invalid input on 1 rank (rank 2:
 *    cuts is NULL)"
 * so that no rank is left waiting. Only two problems cannot be agreed, as
 * there is nothing to communicate over, and return at once on the rank that
 * has them: comm == MPI_COMM_NULL, and a NULL balancer.
 *
 *   isocost_balancer* b = NULL;
 *   isocost_balancer_create(MPI_COMM_WORLD, n, NULL, NULL, &b);   // collective
 *   for (step …) {
 *     isocost_balancer_begin_step(b); compute(…); isocost_balancer_end_step(b);
 *     isocost_balancer_decision d;
 *     isocost_balancer_check(b, 16, &d);                          // collective
 *     if (d.action != ISOCOST_ACTION_NONE) {
 *       double* x2 = malloc(d.new_local_count * sizeof *x2); …     // new arrays
 *       isocost_balancer_migrate(b, 2, olds, news, bytes);         // collective
 *       free(x); x = x2; …
 *     }
 *   }
 *   isocost_balancer_free(b);                                      // collective
 */
#ifndef ISOCOST_ISOCOST_MPI_H
#define ISOCOST_ISOCOST_MPI_H

#include <mpi.h>
#include <stddef.h>

#include "isocost/isocost.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * The balancer over a 1-D block distribution (isocost::mpi::BlockBalancer)
 *
 * N elements, rank r owning the global indices [o_r, o_{r+1}). The code
 * times its steps, calls isocost_balancer_check() every step, and when a
 * check decides to move, migrates its arrays to the new distribution. */

/** An opaque balancer; one per communicator and data set. */
typedef struct isocost_balancer isocost_balancer;

/** What a balancer may do once a check fired and rebalancing pays. */
enum isocost_policy {
  ISOCOST_POLICY_CHOOSE = 0,   /**< Pearce's cost model picks none, global or diffusion */
  ISOCOST_POLICY_GLOBAL = 1,   /**< always the global repartition */
  ISOCOST_POLICY_DIFFUSION = 2 /**< always the diffusive repartition */
};

/** What a check decided. */
enum isocost_action {
  ISOCOST_ACTION_NONE = 0,     /**< nothing moves */
  ISOCOST_ACTION_GLOBAL = 1,   /**< a global repartition: call isocost_balancer_migrate() */
  ISOCOST_ACTION_DIFFUSION = 2 /**< a diffusive one: call isocost_balancer_migrate() */
};

/** Balancer settings (a subset of isocost::mpi::BlockBalancerOptions; the
 *  rest keep the library's defaults). Fill with isocost_balancer_options_init()
 *  first, then change fields. Every field must be the same on every rank
 *  (compared at creation, naming the fields that differ). */
typedef struct isocost_balancer_options {
  int check_every;         /**< check every this many steps, >= 1 (trigger.every; 10) */
  double drift_threshold;  /**< fire when (T_max − T_min)/T_avg exceeds it (Swartz §6);
                                0.10; < 0: off */
  double min_efficiency;   /**< fire when T_avg/T_max is below it, in (0, 1]; 0: off (0) */
  int window;              /**< steps of the monitor's timing window, >= 1 (10) */
  int cpu_clock;           /**< nonzero: time steps with the thread's CPU clock, not the
                                wall clock (0) */
  int steps_ahead;         /**< Pearce's horizon: steps a rebalance must pay off in, >= 1 (100) */
  int policy;              /**< an isocost_policy (ISOCOST_POLICY_CHOOSE) */
  double decision_seconds; /**< the seconds one decision is taken to cost (Pearce eq. 5);
                                < 0: measured (-1). Set it for reproducible decisions. */
  double comm_latency;     /**< seconds per message (Pearce eq. 6); with comm_per_byte, both
                                >= 0: given; either < 0: measured at creation (-1) */
  double comm_per_byte;    /**< seconds per byte (-1) */
  int verify;              /**< nonzero: verify each migration's count and checksum (0) */
  const char* log_path;    /**< JSON-lines log written by rank 0, one line per check;
                                NULL or "": none (NULL). Copied at creation. */
  int profit_trigger;      /**< nonzero: also fire when a rebalance is predicted to pay for
                                itself within steps_ahead (Pearce), not only on drift (1) */
  int edges;               /**< nonzero: a global plan locates the edges of steep peaks among
                                the merged rounds (GlobalRebalanceOptions::edges) (1) */
} isocost_balancer_options;

/** Sets the defaults given above. Not collective. */
int isocost_balancer_options_init(isocost_balancer_options* options) ISOCOST_NOEXCEPT;

/** Creates a balancer for `n` >= 0 elements. Collective over comm (which is
 *  duplicated: the caller may free its own).
 *  - offsets: NULL for near-equal blocks (the first n mod P ranks one
 *    longer), or P + 1 nondecreasing offsets from 0 to n (P = the size of
 *    comm); must agree across ranks.
 *  - options: NULL for the defaults; must agree across ranks.
 *  - n must agree across ranks. On failure *out = NULL on every rank. */
int isocost_balancer_create(MPI_Comm comm, int64_t n, const int64_t* offsets,
                            const isocost_balancer_options* options,
                            isocost_balancer** out) ISOCOST_NOEXCEPT;

/** isocost_balancer_create() from a Fortran communicator handle (converted
 *  with MPI_Comm_f2c). */
int isocost_balancer_create_f(MPI_Fint comm, int64_t n, const int64_t* offsets,
                              const isocost_balancer_options* options,
                              isocost_balancer** out) ISOCOST_NOEXCEPT;

/** Releases a balancer. Collective over its communicator: every rank frees
 *  its balancer at the same point, before MPI_Finalize. NULL is a no-op
 *  (then on every rank). Returns nothing, like free(). */
void isocost_balancer_free(isocost_balancer* balancer) ISOCOST_NOEXCEPT;

/** Starts timing one step of this rank's work. Not collective. A step must
 *  not be open already. */
int isocost_balancer_begin_step(isocost_balancer* balancer) ISOCOST_NOEXCEPT;
/** Ends the open step; its time is this rank's load for the step. Not
 *  collective. */
int isocost_balancer_end_step(isocost_balancer* balancer) ISOCOST_NOEXCEPT;
/** Records one step timed by the caller: `seconds` finite and >= 0, no step
 *  open. Not collective. */
int isocost_balancer_record_step(isocost_balancer* balancer, double seconds) ISOCOST_NOEXCEPT;

/** This rank's own cost of each of its `count` local elements, in order
 *  (e.g. particles per cell): the next check that fires plans on them
 *  instead of the per-rank loads (the trigger still uses the measured
 *  loads). Copied; kept until replaced or the next migration. Not
 *  collective; the values (finite, >= 0) and count (the local count) are
 *  checked, agreed, by the next check. count 0 with costs NULL clears them. */
int isocost_balancer_set_costs(isocost_balancer* balancer, const double* costs,
                               int64_t count) ISOCOST_NOEXCEPT;

/** What a check decided: the same on every rank, except new_local_*. */
typedef struct isocost_balancer_decision {
  long long step;             /**< steps completed when the check ran */
  int checked;                /**< this call was a check step (and so was collective) */
  int fired;                  /**< the trigger fired (drift or efficiency) */
  int drift_fired;            /**< drift > drift_threshold */
  int efficiency_fired;       /**< efficiency < min_efficiency */
  double t_min, t_avg, t_max; /**< the ranks' window loads, seconds */
  double drift;               /**< (T_max − T_min)/T_avg (Swartz §6) */
  double efficiency;          /**< T_avg/T_max (Watts) */
  int action;                 /**< an isocost_action */
  double decision_seconds;    /**< the decision's cost, max over ranks */
  int64_t new_local_begin;    /**< this rank's first global index after the migration */
  int64_t new_local_count;    /**< this rank's element count after it (the arrays to allocate) */
  char reason[256];           /**< why, in a phrase (truncated to 255 bytes) */
} isocost_balancer_decision;

/** Decides whether and how to rebalance (the pipeline of
 *  isocost/mpi/balancer.hpp: trigger, choice, profitability). Call it every
 *  step on every rank, outside a step. Collective over the balancer's
 *  communicator on check steps (every check_every steps); no communication
 *  otherwise. bytes_per_element: what moving one element costs in bytes
 *  (the sum of the arrays' element sizes); must agree across ranks. out:
 *  the decision, or NULL (then isocost_balancer_last_decision() has it).
 *  When the action is not NONE, a migration is pending: call
 *  isocost_balancer_migrate() next (a further check abandons it, as
 *  BlockBalancer::decide() does, and decides anew on the old distribution). */
int isocost_balancer_check(isocost_balancer* balancer, double bytes_per_element,
                           isocost_balancer_decision* out) ISOCOST_NOEXCEPT;

/** The latest check's decision (all zero, action NONE, before the first
 *  check). Not collective. */
int isocost_balancer_last_decision(const isocost_balancer* balancer,
                                   isocost_balancer_decision* out) ISOCOST_NOEXCEPT;

/** Carries out the pending migration: `narrays` >= 0 contiguous arrays, array
 *  k of element_bytes[k] >= 1 bytes per element, move together in one
 *  exchange of only the elements that change owner. old_arrays[k] holds this
 *  rank's local_count elements (in global order); new_arrays[k], allocated by
 *  the caller with new_local_count elements (the decision's), receives the
 *  new range. Old and new arrays must not overlap. A pointer may be NULL when
 *  its count is 0; old_arrays, new_arrays and element_bytes may be NULL when
 *  narrays is 0 (the balancer then only adopts the new distribution: the code
 *  moves its data itself). Then the balancer adopts the new distribution and
 *  clears its timing window and costs.
 *  Collective over the balancer's communicator. narrays and element_bytes
 *  must agree across ranks. With no migration pending (the same on every
 *  rank), an error without communication. On any error, every rank's old
 *  arrays and the distribution are unchanged and the migration stays
 *  pending; new arrays may have been written. */
int isocost_balancer_migrate(isocost_balancer* balancer, int narrays, const void* const* old_arrays,
                             void* const* new_arrays, const size_t* element_bytes) ISOCOST_NOEXCEPT;

/** This rank's range [begin, begin + count) in the current distribution.
 *  Either pointer may be NULL. Not collective. */
int isocost_balancer_local(const isocost_balancer* balancer, int64_t* begin,
                           int64_t* count) ISOCOST_NOEXCEPT;

/** The current distribution's P + 1 offsets (P = the communicator's size),
 *  the same on every rank. Not collective. */
int isocost_balancer_offsets(const isocost_balancer* balancer, int64_t* offsets) ISOCOST_NOEXCEPT;

/* ------------------------------------------------------------------------
 * Distributed partitioners. Every one is collective over comm; the _f forms
 * take a Fortran communicator handle (MPI_Comm_f2c). `parts` (P, which may
 * differ from the communicator's size) and `speeds` (P relative speeds, each
 * finite and > 0, or NULL for uniform) must agree across ranks. */

/** 1-D weights held in slices (isocost::mpi::partition_weights): this rank
 *  holds `count` >= 0 cells, following the lower ranks' cells. Writes the
 *  P + 1 integer cuts to `cuts` (0 = c_0 <= … <= c_P = N; part k owns cells
 *  [c_k, c_{k+1})) on every rank, and, unless NULL, the bottleneck
 *  max_k part cost / speed to *max_time. optimal: nonzero for the exact
 *  chains-on-chains optimum, 0 for the cells nearest the targets TT·S_k/S
 *  (must agree). weights may be NULL when count is 0. */
int isocost_partition_weights(MPI_Comm comm, const double* weights, int64_t count, int parts,
                              const double* speeds, int optimal, int64_t* cuts,
                              double* max_time) ISOCOST_NOEXCEPT;
int isocost_partition_weights_f(MPI_Fint comm, const double* weights, int64_t count, int parts,
                                const double* speeds, int optimal, int64_t* cuts,
                                double* max_time) ISOCOST_NOEXCEPT;

/** Weighted points along a Hilbert curve (isocost::mpi::partition_points):
 *  this rank's `count` >= 0 points, `dims` (1–3, must agree) coordinates each
 *  (point i at coords[i·dims …]) and one weight each. Writes each local
 *  point's part in [0, P) to part[i], and, unless NULL, the bottleneck to
 *  *max_time. Arrays may be NULL when count is 0. */
int isocost_partition_points(MPI_Comm comm, int dims, const double* coords, const double* weights,
                             int64_t count, int parts, const double* speeds, int* part,
                             double* max_time) ISOCOST_NOEXCEPT;
int isocost_partition_points_f(MPI_Fint comm, int dims, const double* coords, const double* weights,
                               int64_t count, int parts, const double* speeds, int* part,
                               double* max_time) ISOCOST_NOEXCEPT;

/** A grid of per-cell weights held in boxes, decomposed by a process grid
 *  (isocost::mpi::decompose_grid): `dims` (2 or 3) axes of cells[a] cells;
 *  this rank holds cells [lo[a], hi[a]) (possibly empty) with their weights
 *  x fastest; the boxes of all ranks tile the grid. The process grid cuts
 *  level l into counts[l] slabs along axis axes[l], for `levels` levels
 *  (1 ≤ levels ≤ dims, distinct axes); P = Π counts. Writes part r's cells
 *  [part_lo[r·3 + a], part_hi[r·3 + a]) for a < dims (entries past dims are
 *  0, as in struct isocost_part), each array 3·P long, and, unless NULL, the
 *  bottleneck to *max_time. dims, cells, counts, axes, speeds must agree. */
int isocost_decompose_grid(MPI_Comm comm, int dims, const int64_t* cells, const int64_t* lo,
                           const int64_t* hi, const double* weights, int levels, const int* counts,
                           const int* axes, const double* speeds, int64_t* part_lo,
                           int64_t* part_hi, double* max_time) ISOCOST_NOEXCEPT;
int isocost_decompose_grid_f(MPI_Fint comm, int dims, const int64_t* cells, const int64_t* lo,
                             const int64_t* hi, const double* weights, int levels,
                             const int* counts, const int* axes, const double* speeds,
                             int64_t* part_lo, int64_t* part_hi, double* max_time) ISOCOST_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* ISOCOST_ISOCOST_MPI_H */
