// `isocost diffuse --tasks`: diffusion on the ranks' task sums, then task
// selection (tasks.hpp): which task moves from which rank to which.
#include <algorithm>
#include <numeric>

#include "diffuse.hpp"
#include "isocost/io.hpp"
#include "isocost/tasks.hpp"
#include "json_stream.hpp"

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
  std::string text;
  if (a.json) {
    json moves = json::array(), rows = json::array();
    for (const auto& mv : s.moves)
      moves.push_back({{"id", mv.id}, {"from", mv.from}, {"to", mv.to}, {"load", mv.load}});
    for (int v = 0; v < g.nodes; ++v)
      rows.push_back({{"rank", v},
                      {"tasks_before", count_before[v]},
                      {"load_before", loads[v]},
                      {"diffused", d.loads[v]},
                      {"tasks_after", count_after[v]},
                      {"load_after", s.loads[v]}});
    const json j = {
        {"command", "diffuse"},
        {"mode", "tasks"},
        {"graph", graph_json(g, a.graph)},
        {"tasks", n_tasks},
        {"immobile", immobile},
        {"scheme", to_string(options.scheme)},
        {"alpha", options.alpha},
        {"diffusion", diffusion_json(d)},
        {"selection",
         {{"method", to_string(so.method)},
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
          {"terminated", s.converged()}}},
        {"total_load", total},
        {"average_load", avg},
        {"imbalance",
         {{"initial", d.initial_imbalance}, {"diffused", d.final_imbalance}, {"tasks", after}}},
        {"moves", moves},
        {"ranks", rows}};
    text = json_text(j) + "\n";
  } else {
    text = graph_line(g, a.graph);
    text += "tasks: " + std::to_string(n_tasks) + " (" + std::to_string(immobile) +
            " immobile), total load " + num(total) + ", average " + num(avg) + "\n";
    text += diffusion_line(d, options.alpha);
    text += s.brief_report() + "\n";
    text += "imbalance (max/avg - 1): " + num(d.initial_imbalance, 6) + " -> diffusion " +
            num(d.final_imbalance, 6) + " -> tasks " + num(after, 6) + "\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& mv : s.moves)
      rows.push_back(
          {std::to_string(mv.id), std::to_string(mv.from), std::to_string(mv.to), num(mv.load)});
    if (!rows.empty()) text += table({"task", "from", "to", "load"}, rows) + "\n";
    rows.clear();
    for (int v = 0; v < g.nodes; ++v)
      rows.push_back({std::to_string(v), std::to_string(count_before[v]), num(loads[v]),
                      num(d.loads[v]), std::to_string(count_after[v]), num(s.loads[v])});
    text += table({"rank", "tasks", "load", "diffused", "tasks after", "load after"}, rows);
  }
  emit(text, a.output);
  if (!d.converged())
    throw NotConverged("diffusion did not reach alpha within --max-steps " +
                       std::to_string(options.max_steps) + " (final imbalance " +
                       num(d.final_imbalance, 6) + ")");
  if (!s.converged()) throw NotConverged("task selection did not terminate within its pass limit");
}

}  // namespace isocost::cli::diffuse
