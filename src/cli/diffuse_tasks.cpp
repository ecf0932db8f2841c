// `isocost diffuse --tasks`: diffusion on the ranks' task sums, then task
// selection (tasks.hpp): which task moves from which rank to which.
#include <algorithm>
#include <numeric>

#include "arguments.hpp"
#include "cli.hpp"
#include "diffuse.hpp"
#include "isocost/io.hpp"
#include "isocost/tasks.hpp"
#include "json_stream.hpp"
#include "output.hpp"

namespace isocost::cli::diffuse {

void run_tasks(const Args& a, const DiffusionOptions& options,
               const std::optional<std::vector<int>>& dims) {
  TaskSelectionOptions so;
  if (!a.selection.empty()) {
    try {
      so.method = parse_task_selection_method(a.selection);
    } catch (const Error& e) {
      throw Error(std::string("--selection: ") + e.what());
    }
  }
  if (!a.exhaustive_limit.empty())
    so.exhaustive_limit = parse_int(a.exhaustive_limit, "--exhaustive-limit", 0);
  if (so.exhaustive_limit > 40)
    throw Error("--exhaustive-limit: expected an integer in [0, 40], got '" + a.exhaustive_limit +
                "'");
  if (!a.trim_epsilon.empty()) {
    so.trim_epsilon = parse_double(a.trim_epsilon, "--trim-epsilon");
    if (!(so.trim_epsilon > 0 && so.trim_epsilon <= 1))
      throw Error("--trim-epsilon: expected a number in (0, 1], got '" + a.trim_epsilon + "'");
  }
  std::vector<std::vector<Task>> tasks = read_tasks(a.tasks);
  const ProcessGraph g = process_graph(a, dims, -1);
  if (dims) {
    if (static_cast<int>(tasks.size()) > g.nodes)
      throw Error(a.tasks + ": tasks on rank " + std::to_string(tasks.size() - 1) + ", but the " +
                  mesh_name(*dims) + " mesh has ranks 0.." + std::to_string(g.nodes - 1));
  } else {
    if (static_cast<int>(tasks.size()) > g.nodes)
      throw Error(a.tasks + ": tasks on rank " + std::to_string(tasks.size() - 1) + ", but " +
                  a.graph + " has nodes 0.." + std::to_string(g.nodes - 1));
  }
  tasks.resize(static_cast<std::size_t>(g.nodes));  // ranks without tasks
  const std::vector<double> loads = node_loads(tasks);
  const double total = std::accumulate(loads.begin(), loads.end(), 0.0);
  if (!(total > 0)) throw Error(a.tasks + ": every task's load is zero; nothing to balance");
  const double avg = total / static_cast<double>(g.nodes);
  const DiffusionSummary d = isocost::diffuse(g, loads, options);
  const TaskSelection s = select_tasks(g, tasks, d.transfers, so);
  const double after = *std::max_element(s.loads.begin(), s.loads.end()) / avg - 1;
  std::vector<int> count_before(static_cast<std::size_t>(g.nodes)), count_after;
  std::size_t immobile = 0, n_tasks = 0;
  for (int v = 0; v < g.nodes; ++v) {
    count_before[v] = static_cast<int>(tasks[v].size());
    n_tasks += tasks[v].size();
    for (const auto& t : tasks[v]) immobile += t.immobile ? 1 : 0;
  }
  count_after = count_before;
  for (const auto& mv : s.moves) {
    --count_after[mv.from];
    ++count_after[mv.to];
  }
  // Streamed: the moves and the per-rank rows are written one at a time.
  emit_to(a.output, [&](std::ostream& out) {
    if (a.json) {
      JsonStream j(out);
      j.member("command", "diffuse");
      j.member("mode", "tasks");
      j.member("graph", graph_json(g, a.graph));
      j.member("tasks", n_tasks);
      j.member("immobile", immobile);
      j.member("scheme", to_string(options.scheme));
      j.member("alpha", options.alpha);
      j.member("diffusion", diffusion_json(d));
      j.member("selection", {{"method", to_string(so.method)},
                             {"exhaustive_limit", so.exhaustive_limit},
                             {"passes", s.passes},
                             {"exchanges", s.exchanges},
                             {"exhaustive_searches", s.exhaustive_searches},
                             {"approximate_searches", s.approximate_searches},
                             {"marker_hops", s.marker_hops},
                             {"requested_volume", s.requested_volume},
                             {"achieved_volume", s.achieved_volume},
                             {"error_volume", s.error_volume},
                             {"max_edge_error", s.max_edge_error},
                             {"max_task_load", s.max_task_load},
                             {"terminated", s.converged()}});
      j.member("total_load", total);
      j.member("average_load", avg);
      j.member(
          "imbalance",
          {{"initial", d.initial_imbalance}, {"diffused", d.final_imbalance}, {"tasks", after}});
      j.array("moves", s.moves.size(), [&](std::size_t k) {
        const auto& mv = s.moves[k];
        return json{{"id", mv.id}, {"from", mv.from}, {"to", mv.to}, {"load", mv.load}};
      });
      j.array("ranks", static_cast<std::size_t>(g.nodes), [&](std::size_t v) {
        return json{{"rank", v},
                    {"tasks_before", count_before[v]},
                    {"load_before", loads[v]},
                    {"diffused", d.loads[v]},
                    {"tasks_after", count_after[v]},
                    {"load_after", s.loads[v]}};
      });
      j.finish();
      return;
    }
    out << graph_line(g, a.graph) << "tasks: " << n_tasks << " (" << immobile
        << " immobile), total load " << num(total) << ", average " << num(avg) << "\n"
        << diffusion_line(d, options.alpha) << s.brief_report() << "\n"
        << "imbalance (max/avg - 1): " << num(d.initial_imbalance, 6) << " -> diffusion "
        << num(d.final_imbalance, 6) << " -> tasks " << num(after, 6) << "\n\n";
    if (!s.moves.empty()) {
      write_table(out, {"task", "from", "to", "load"}, s.moves.size(), [&](std::size_t k) {
        const auto& mv = s.moves[k];
        return std::vector<std::string>{std::to_string(mv.id), std::to_string(mv.from),
                                        std::to_string(mv.to), num(mv.load)};
      });
      out << "\n";
    }
    write_table(out, {"rank", "tasks", "load", "diffused", "tasks after", "load after"},
                static_cast<std::size_t>(g.nodes), [&](std::size_t v) {
                  return std::vector<std::string>{
                      std::to_string(v), std::to_string(count_before[v]), num(loads[v]),
                      num(d.loads[v]),   std::to_string(count_after[v]),  num(s.loads[v])};
                });
  });
  if (!d.converged())
    throw NotConverged("diffusion did not reach alpha within --max-steps " +
                       std::to_string(options.max_steps) + " (final imbalance " +
                       num(d.final_imbalance, 6) + ")");
  if (!s.converged()) throw NotConverged("task selection did not terminate within its pass limit");
}

}  // namespace isocost::cli::diffuse
