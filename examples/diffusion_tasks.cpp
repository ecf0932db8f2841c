// Diffusive balancing with indivisible tasks (Watts ch. 2, §2.4): 9 ranks on a
// 3 × 3 mesh hold tasks of different loads, the corner rank far too many.
// diffuse() computes how much load should cross each edge of the process graph;
// select_tasks() picks which tasks carry it; apply_moves() gives the new lists.
// Exits 1 if a task is lost or duplicated, load is not conserved, or the
// imbalance after is above 10 %.   Run: ./diffusion_tasks
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "isocost/diffusion.hpp"
#include "isocost/metrics.hpp"
#include "isocost/tasks.hpp"

using TaskLists = std::vector<std::vector<isocost::Task>>;

namespace {

// The number of tasks and the sum of their ids, over all ranks.
std::int64_t id_sum(const TaskLists& tasks, std::int64_t* count) {
  std::int64_t sum = 0;
  *count = 0;
  for (const auto& list : tasks)
    for (const isocost::Task& t : list) {
      sum += t.id;
      ++*count;
    }
  return sum;
}

}  // namespace

int main() {
  // The process graph: a 3 × 3 mesh, not wrapped (ranks in C order).
  const isocost::ProcessGraph graph = isocost::mesh_graph({3, 3}, /*torus=*/false);

  // Tasks: rank 0 holds 60, every other rank 12; loads between 0.5 and 1.4.
  TaskLists tasks(static_cast<std::size_t>(graph.nodes));
  std::int64_t next_id = 0;
  for (int r = 0; r < graph.nodes; ++r)
    for (int k = 0; k < (r == 0 ? 60 : 12); ++k, ++next_id)
      tasks[r].push_back({next_id, 0.5 + static_cast<double>(next_id * 37 % 10) / 10.0});
  std::int64_t count_before = 0;
  const std::int64_t ids_before = id_sum(tasks, &count_before);
  const std::vector<double> before = isocost::node_loads(tasks);

  // 1. Diffusion: the load each edge should carry (Crank–Nicolson by default).
  isocost::DiffusionOptions options;
  options.alpha = 0.02;  // iterate until u_max <= 1.02·u_avg
  const isocost::DiffusionSummary diffusion = isocost::diffuse(graph, before, options);
  std::printf("diffusion: %s\n", diffusion.brief_report().c_str());

  // 2. Task selection: which tasks cross which edges to meet those transfers.
  const isocost::TaskSelection selection = isocost::select_tasks(graph, tasks, diffusion.transfers);
  std::printf("selection: %s\n", selection.brief_report().c_str());
  for (std::size_t m = 0; m < selection.moves.size() && m < 3; ++m)
    std::printf("  e.g. task %lld (load %.1f) moves from rank %d to rank %d\n",
                static_cast<long long>(selection.moves[m].id), selection.moves[m].load,
                selection.moves[m].from, selection.moves[m].to);

  // 3. Carry the moves out (in a real code: migrate the tasks' data).
  const TaskLists after_tasks = isocost::apply_moves(tasks, selection.moves);
  const std::vector<double> after = isocost::node_loads(after_tasks);
  std::int64_t count_after = 0;
  const std::int64_t ids_after = id_sum(after_tasks, &count_after);

  const double imbalance_before = isocost::imbalance(before);
  const double imbalance_after = isocost::imbalance(after);
  std::printf("imbalance (max/mean - 1): before %.1f %%, after %.1f %%; %zu of %lld tasks moved\n",
              100 * imbalance_before, 100 * imbalance_after, selection.moves.size(),
              static_cast<long long>(count_after));

  double sum_before = 0, sum_after = 0;
  for (double u : before) sum_before += u;
  for (double u : after) sum_after += u;
  if (count_after != count_before || ids_after != ids_before ||
      std::abs(sum_after - sum_before) > 1e-9 * sum_before || imbalance_after > 0.10) {
    std::printf("FAIL: tasks or load not conserved, or imbalance above 10 %%\n");
    return 1;
  }
  return 0;
}
