// isocost/mpi/task_balancer.hpp — diffusive balancing of indivisible tasks
// under MPI, with Watts's failure re-plan (mpi layer; Watts §3.2.4–3.2.6).
//
// Each rank holds tasks (id, load, immobile) and the state behind them, moved
// by the MigrationCallbacks of migrate.hpp. balance_tasks() gathers every
// rank's task list to every rank (in rank order), so each rank computes the
// same plan without further communication: diffuse() on the process graph
// (one node per rank), then select_tasks(). Then migrate() moves the state.
// A task whose move fails (its size/pack/unpack failed, e.g. out of memory)
// stays with its owner, intact; it is marked immobile and the balancing
// restarts from the new holdings (Watts §3.2.6: "it is marked as 'immobile',
// and the load balancing process is restarted"). Each failure removes at
// least one task from all later selections, so the loop ends after at most as
// many re-plans as there are mobile tasks; options.max_replans caps it
// further. Nothing is ever lost: a task is dropped by its sender only after
// its receiver confirmed the unpack.
//
//   isocost::mpi::TaskBalanceOptions o;            // Crank–Nicolson, α = 0.05
//   auto g = isocost::mesh_graph({P}, false);      // one node per rank
//   auto r = isocost::mpi::balance_tasks(comm, g, my_tasks, callbacks, o);
//   // my_tasks: what this rank holds now; r.rounds[k]: plan, moved, failed
//
// Memory and work: every rank holds every task's (id, load, flag), 24 bytes
// a task, and runs the serial diffusion and selection on the whole graph —
// meant for up to some millions of tasks and thousands of ranks.
//
// Communication: one MPI_Allreduce (input agreement), MPI_Allgather +
// MPI_Allgatherv of the task lists, then per round the collectives of one
// migrate() (skipped when the round plans no move: every rank knows that),
// and with options.verify two MPI_Allreduce at the end.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "isocost/diffusion.hpp"
#include "isocost/monitor.hpp"
#include "isocost/mpi/migrate.hpp"
#include "isocost/tasks.hpp"

namespace isocost::mpi {

/// Settings for balance_tasks(). Must be the same on every rank (compared
/// through the agreement hash).
struct TaskBalanceOptions {
  /// The transfer computation (Watts §3.2.4 uses the second-order scheme with
  /// α = 1 − mineff).
  DiffusionOptions diffusion;
  /// Turning transfers into task moves (Watts §3.2.5).
  TaskSelectionOptions selection;
  /// Passed to every migrate() (verify: the receivers' checksums of the
  /// records are compared with the senders' before anything is unpacked).
  MigrateOptions migration;
  /// Re-plans after failed moves, >= 0 (Watts §3.2.6; "in practice, the
  /// process typically repeats at most twice"). 0: failures are reported and
  /// marked immobile, no re-plan.
  int max_replans = 4;
  /// After the last round, check that no task was lost or duplicated: two
  /// MPI_Allreduce of the task count and order-independent checksums of the
  /// ids and (id, rank) pairs every rank holds, compared with the gathered
  /// input and with every rank's copy of the plan's bookkeeping.
  /// A mismatch (a bug, or ranks that computed different plans) throws the
  /// same Error on every rank. Also turns on migration.verify.
  bool verify = false;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("diffusion", self.diffusion);
    v("selection", self.selection);
    v("migration", self.migration);
    v("max_replans", self.max_replans, at_least(0));
    v("verify", self.verify);
  }
  /// False, with a message naming the field, its value and the constraint,
  /// if an option is out of range.
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("task balance: …") unless is_valid().
  void validate() const { validate_options(*this, "task balance"); }
};

/// One plan-and-migrate round: round 0 is the first plan, round k >= 1 the
/// k-th re-plan after failures. Identical on every rank except `migration`.
struct TaskBalanceRound {
  int index = 0;                         ///< 0, 1, …
  std::vector<double> loads_before;      ///< per rank, at the start of the round
  DiffusionSummary diffusion;            ///< the transfers (diffusion.loads: the target)
  TaskSelection selection;               ///< selection.moves: the plan; .loads: planned loads
  std::vector<TaskMove> moved;           ///< the moves that happened, in plan order
  std::vector<MigrationFailure> failed;  ///< the moves that did not (sorted by id);
                                         ///< these tasks are now immobile
  std::vector<double> loads_after;       ///< per rank, after the round's migration
  bool migrated = false;                 ///< migrate() ran (the plan had moves)
  MigrateSummary migration;              ///< this rank's view (default when !migrated)
};

/// What balance_tasks() did. Identical on every rank except the fields
/// marked "this rank" and each round's `migration`.
struct TaskBalanceResult {
  std::vector<TaskBalanceRound> rounds;  ///< empty when the total load is 0
  std::vector<double> initial_loads;     ///< per rank, before
  std::vector<double> final_loads;       ///< per rank, after the last round
  double initial_imbalance = 0;          ///< u_max/u_avg − 1 before (0 if all loads are 0)
  double final_imbalance = 0;            ///< u_max/u_avg − 1 after
  double largest_task = 0;               ///< the largest load of any task
  std::int64_t tasks = 0;                ///< tasks over all ranks (unchanged)
  std::int64_t moves_planned = 0;        ///< Σ rounds' planned moves
  std::int64_t tasks_moved = 0;          ///< Σ rounds' completed moves
  std::int64_t bytes_moved = 0;          ///< Σ rounds' payload bytes moved (global)
  int replans = 0;                       ///< rounds − 1 (0 with no rounds)
  /// Every failed move of every round, in round order; each of these tasks is
  /// now immobile and still with the rank that held it.
  std::vector<MigrationFailure> failed;
  /// converged when the last round's diffusion converged (u_max <= (1 + α)·u_avg
  /// for the transfers) and its selection terminated: the plan carried out
  /// last is the one the options asked for (also with no rounds);
  /// iteration_limit otherwise.
  Termination termination = Termination::converged;
  bool converged() const noexcept { return termination == Termination::converged; }
  /// True when the last round had no failed move, so the re-plan loop ended
  /// by itself (Watts §3.2.6); false when max_replans ran out with failures
  /// outstanding (the failed tasks' load then sits where it was).
  bool terminated = true;
  bool verified = false;               ///< options.verify ran and passed
  std::vector<std::int64_t> sent;      ///< this rank: ids that left it, by round
  std::vector<std::int64_t> received;  ///< this rank: ids that arrived, by round
  double seconds = 0;                  ///< this rank: wall time of the call

  /// One line: rounds, moves, failures, imbalance before and after.
  std::string brief_report() const;
};

/// Balances the tasks of every rank of `comm` over `graph` (one node per rank,
/// node r = rank r of comm) and migrates their state with `callbacks` (see
/// MigrationCallbacks). `my_tasks` lists this rank's tasks on input; on
/// return it lists what the rank holds: the tasks it kept in their order,
/// then the ones it received (in the order of the moves), loads and immobile
/// flags carried along, failed tasks marked immobile. It is updated after
/// every round, so it is right even if a later round throws.
///
/// Each round (Watts §3.2.4–3.2.6): diffuse(graph, node_loads, diffusion) →
/// select_tasks(…, selection) → migrate(); on failures, mark the failed tasks
/// immobile, keep the moves that completed, and re-plan from the new
/// holdings, up to max_replans times. A round whose diffusion finds the load
/// already balanced (u_max <= (1 + α)·u_avg) plans no move, so a failure that
/// leaves the balance acceptable ends the loop (Watts: re-plan only "if the
/// failure … results in a less-than-desirable efficiency"). When the total
/// load is 0 there is nothing to balance: no round, nothing moves.
///
/// How close the result gets: when the last round has no failure, rank i ends
/// at final_loads[i] = diffusion.loads[i] + Σ_{e=(i,j)} r_e − Σ_{e=(j,i)} r_e
/// (r = selection.remaining: the part of each transfer the indivisible tasks
/// could not meet; up to rounding), so |final − target| <= degree ×
/// selection.max_edge_error.
/// On the tests' hot spots the largest final load stays within one largest
/// task of the diffused target's largest load; that is observed, not proven.
/// Failed (immobile) tasks keep their load where it was.
///
/// Every rank computes the same plan from the same gathered lists; migrate()
/// compares a hash of the moves across ranks, so ranks that computed
/// different plans (e.g. different floating point) get an agreed Error
/// instead of a corrupt migration.
///
/// Collective over `comm`. Throws the same Error on every rank, having moved
/// nothing and called no callback, if on any rank: the options are invalid
/// (including migration.max_mpi_count <= P); the graph is invalid or does not
/// have one node per rank; a callback is empty; a task's load is negative or
/// not finite; my_tasks lists an id twice; the graph or options differ from
/// another rank's (hash); or if a task id is held by two ranks, or diffuse()
/// refuses the options for this graph (the explicit scheme's stability
/// limit; thrown alike on every rank, from the same data). Errors of a
/// later round's migrate() (agreed there) leave `my_tasks` as of the previous
/// round.
TaskBalanceResult balance_tasks(MPI_Comm comm, const ProcessGraph& graph,
                                std::vector<Task>& my_tasks, const MigrationCallbacks& callbacks,
                                const TaskBalanceOptions& options = {});

/// Sets each task's load to its measured load over `monitor`'s window
/// (LoadMonitor::task_loads(): mean seconds per step in which it ran), so the
/// balancer sees measured task costs (Watts §3.2.2). Tasks without timings in
/// the window (e.g. just arrived) keep their load. Returns how many were
/// updated. Not collective. After balance_tasks(), forget the ids in
/// TaskBalanceResult::sent in the monitor (LoadMonitor::forget_task).
std::size_t update_task_loads(std::span<Task> tasks, const LoadMonitor& monitor);

}  // namespace isocost::mpi
