// isocost/tasks.hpp — task selection: turning diffusion's per-edge transfer
// vectors into task moves when each rank holds indivisible tasks (Watts §2.4,
// §3.2.5–3.2.6).
//
// For each edge (i, j) with a transfer t_e (t_e > 0: i sends t_e to j, as in
// diffusion.hpp) the two ranks exchange tasks so that the net load moved
// approaches t_e:
//   - exhaustive exchange search (all subsets S of the sender's tasks and R of
//     the receiver's, minimising |(ΣS − ΣR) − t_e|) when the two ranks hold
//     fewer than `exhaustive_limit` mobile tasks together (Watts §3.2.5: "less
//     than 20"); a meet-in-the-middle search, so 39 tasks cost ~2^20 steps;
//   - above that, first-fit exchange (Watts §2.4.2), or the one-way subset-sum
//     trimming approximation of Cormen et al. (Watts §2.4.2 "Subset
//     Trimming") if chosen.
// What moves is a marker (Watts §3.2.5): a task that reached j may move on to
// k in a later edge or pass if (j, k) still needs work. Passes over the edges
// repeat with the unsatisfied part of each transfer until no marker moves;
// then each task moves once, directly from its origin to where its marker
// ended (§3.2.6). A task whose marker came home does not move. Immobile tasks
// are never selected.
//
//   std::vector<std::vector<isocost::Task>> tasks = ...;   // per rank
//   auto d = isocost::diffuse(g, isocost::node_loads(tasks));
//   auto s = isocost::select_tasks(g, tasks, d.transfers);
//   for (const auto& m : s.moves) send(m.id, m.from, m.to);
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "isocost/diffusion.hpp"

namespace isocost {

/// One indivisible unit of work held by a rank (a "node" in Watts's Graph
/// Library wording).
struct Task {
  std::int64_t id = 0;    ///< unique across all ranks
  double load = 0;        ///< finite, >= 0
  bool immobile = false;  ///< never selected for a move (Watts §3.2.6)
};

/// The selector used for an edge whose two ranks hold at least
/// `exhaustive_limit` mobile tasks together.
enum class TaskSelectionMethod {
  /// Watts §2.4.2: traverse the sender's tasks, heaviest first, take those
  /// that fit the unsatisfied transfer; one that is too large is taken only
  /// if a first-fit transfer of the receiver's tasks back offsets it well
  /// enough to improve the transfer. O(M·N) per edge.
  first_fit_exchange,
  /// Cormen et al.'s APPROX-SUBSET-SUM (Watts §2.4.2 "Subset Trimming"):
  /// one-way only (the receiver sends nothing back); the load sent is at
  /// least y*/(1 + trim_epsilon), y* the largest sum of the sender's tasks not
  /// exceeding the transfer, and never exceeds the transfer.
  /// O(n²·ln(t/x_min)/ε) time and O(n²·ln(t/x_min)/ε) bits of memory per
  /// edge (n: the sender's mobile tasks, x_min the lightest): meant for tens
  /// to a few hundred tasks per rank (300 tasks, ε = 0.01: ~0.1 s).
  trimming,
};
/// "first-fit", "trimming".
std::string_view to_string(TaskSelectionMethod method);
TaskSelectionMethod parse_task_selection_method(std::string_view name);

/// Settings for select_tasks().
struct TaskSelectionOptions {
  /// Exhaustive exchange search on an edge whose two ranks hold fewer than
  /// this many mobile tasks of positive load together (Watts §3.2.5 uses 20).
  /// 0 turns it off. At most 40 (the search is then ~2·2^20 subset sums).
  int exhaustive_limit = 20;
  /// The selector above the limit.
  TaskSelectionMethod method = TaskSelectionMethod::first_fit_exchange;
  /// ε of the trimming method, in (0, 1]: the approximation factor 1 + ε.
  double trim_epsilon = 0.01;
  /// An exchange is made only if it reduces the edge's unsatisfied transfer
  /// |r_e| by more than gain_tolerance × the largest task load (>= 0, < 1).
  /// Guards against rounding ping-pong and makes the termination bound
  /// explicit (see TaskSelection::termination); with 0, only max_passes
  /// bounds the passes.
  double gain_tolerance = 1e-9;
  /// Safety net on passes over the edges; running out is reported
  /// (termination iteration_limit), not an error.
  int max_passes = 1000;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("exhaustive_limit", self.exhaustive_limit, closed(0, 40));
    v("method", self.method);
    v("trim_epsilon", self.trim_epsilon, left_open(0, 1));
    v("gain_tolerance", self.gain_tolerance, right_open(0, 1));
    v("max_passes", self.max_passes, at_least(1));
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("task selection: …") unless is_valid().
  void validate() const { validate_options(*this, "task selection"); }
};

/// A task's one move, from its origin rank straight to its final rank.
struct TaskMove {
  std::int64_t id = 0;
  int from = 0;  ///< the rank that held the task on input
  int to = 0;    ///< where its marker ended
  double load = 0;
};

/// What select_tasks() did.
struct TaskSelection {
  /// Tasks that change rank, each once, in input order (rank by rank, then
  /// the rank's list order).
  std::vector<TaskMove> moves;
  /// Per rank: the sum of the loads of the tasks it holds after the moves,
  /// bit for bit node_loads(apply_moves(tasks, moves)).
  std::vector<double> loads;
  std::vector<double> initial_loads;  ///< per rank, before
  /// Per edge: net load the markers carried from i to j (signed like t_e).
  std::vector<double> achieved;
  /// Per edge: t_e − achieved_e, the unsatisfied transfer (|·| is the error).
  std::vector<double> remaining;
  double requested_volume = 0;         ///< Σ_e |t_e|
  double achieved_volume = 0;          ///< Σ_e |achieved_e|
  double error_volume = 0;             ///< Σ_e |remaining_e|
  double max_edge_error = 0;           ///< max_e |remaining_e|
  double max_task_load = 0;            ///< the largest load of any task
  int passes = 0;                      ///< passes over the edges, the last moving no marker
  long long exchanges = 0;             ///< per-edge selections that moved markers
  long long marker_hops = 0;           ///< marker moves over single edges
  long long exhaustive_searches = 0;   ///< selections by exhaustive search
  long long approximate_searches = 0;  ///< by first fit or trimming
  /// converged when a pass moved no marker. Each exchange lowers Σ_e |r_e|
  /// by more than gain_tolerance × max_task_load (Watts §3.2.5: each exchange
  /// reduces a transfer vector by at least some minimum amount), so at most
  /// Σ_e |t_e| / (gain_tolerance · max_task_load) exchanges happen;
  /// iteration_limit only if max_passes ran out first.
  Termination termination = Termination::converged;
  TaskSelectionOptions options;  ///< the options given
  bool converged() const noexcept { return termination == Termination::converged; }

  std::string brief_report() const;
};

/// Chooses the tasks to move to meet `transfers` (one per graph edge, t_e > 0
/// sending from edge.i to edge.j) on `graph` (validated), given the tasks each
/// rank holds (one list per node). Task ids must be unique; loads finite and
/// >= 0. Serial; deterministic.
TaskSelection select_tasks(const ProcessGraph& graph, std::span<const std::vector<Task>> tasks,
                           std::span<const double> transfers,
                           const TaskSelectionOptions& options = {});

/// Per rank, the sum of its tasks' loads (in list order): the u_i for diffuse().
std::vector<double> node_loads(std::span<const std::vector<Task>> tasks);

/// The task lists after `moves`: each moved task leaves its `from` list and is
/// appended to its `to` list (in the order of `moves`). Throws Error if a move
/// names a task that is not on its `from` rank or a rank out of range.
std::vector<std::vector<Task>> apply_moves(std::span<const std::vector<Task>> tasks,
                                           std::span<const TaskMove> moves);

}  // namespace isocost
