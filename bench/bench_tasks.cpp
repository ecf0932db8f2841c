// Task selection benchmarks (issue 5): the cost of turning diffusion transfers
// into task moves. Report medians:
//   bench_tasks --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
//
//  - BM_ExhaustivePair/n: one edge, n tasks split over its two ranks, the
//    meet-in-the-middle exhaustive exchange (Watts §3.2.5 uses it below 20
//    tasks; we allow up to 40). Loads U[0.1, 10), transfer 7.3.
//  - BM_SelectOnMesh/<method>/k: diffusion's transfers on an 8x8 mesh with a
//    hot spot (rank 0 holds 10k tasks, the others k/2..k), turned into moves
//    by first-fit exchange or subset-sum trimming (ε = 0.01); the exhaustive
//    search stays on for edges under 20 tasks. Counters: moves, passes,
//    and the imbalance left over (max/avg − 1 of the loads after the moves).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "isocost/diffusion.hpp"
#include "isocost/tasks.hpp"

namespace {

using isocost::Task;
using isocost::TaskSelectionMethod;
using isocost::TaskSelectionOptions;
using Tasks = std::vector<std::vector<Task>>;

void BM_ExhaustivePair(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> load(0.1, 10);
  Tasks tasks(2);
  for (int k = 0; k < n; ++k) tasks[k % 2].push_back({k, load(rng), false});
  const auto g = isocost::edge_graph(2, {{0, 1}});
  TaskSelectionOptions o;
  o.exhaustive_limit = n + 1;
  const std::vector<double> t{7.3};
  isocost::TaskSelection s;
  for (auto _ : state) {
    s = isocost::select_tasks(g, tasks, t, o);
    benchmark::DoNotOptimize(s.moves.data());
  }
  state.counters["error"] = s.error_volume;
  state.counters["searches"] = static_cast<double>(s.exhaustive_searches);
}
BENCHMARK(BM_ExhaustivePair)->Arg(10)->Arg(19)->Arg(29)->Arg(39)->Unit(benchmark::kMicrosecond);

void BM_SelectOnMesh(benchmark::State& state, TaskSelectionMethod method) {
  const int k = static_cast<int>(state.range(0));
  const auto g = isocost::mesh_graph({8, 8}, false);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> load(0.2, 1.0);
  Tasks tasks(static_cast<std::size_t>(g.nodes));
  std::int64_t id = 0;
  for (int v = 0; v < g.nodes; ++v) {
    const int count = v == 0 ? 10 * k : std::uniform_int_distribution<int>(k / 2, k)(rng);
    for (int c = 0; c < count; ++c) tasks[v].push_back({id++, load(rng), false});
  }
  const auto d = isocost::diffuse(g, isocost::node_loads(tasks));
  TaskSelectionOptions o;
  o.method = method;
  isocost::TaskSelection s;
  for (auto _ : state) {
    s = isocost::select_tasks(g, tasks, d.transfers, o);
    benchmark::DoNotOptimize(s.moves.data());
  }
  const double avg = std::accumulate(s.loads.begin(), s.loads.end(), 0.0) / g.nodes;
  state.counters["moves"] = static_cast<double>(s.moves.size());
  state.counters["passes"] = s.passes;
  state.counters["imbalance"] = *std::max_element(s.loads.begin(), s.loads.end()) / avg - 1;
  state.counters["diffused"] = d.final_imbalance;
}
BENCHMARK_CAPTURE(BM_SelectOnMesh, first_fit, TaskSelectionMethod::first_fit_exchange)
    ->Arg(8)
    ->Arg(40)
    ->Arg(200)
    ->Unit(benchmark::kMillisecond);
// Trimming only at k = 8 (rank 0: 80 tasks): its lists grow as n²/ε, and at
// k = 40 (400 tasks on rank 0) one call takes seconds (see bench/README.md).
BENCHMARK_CAPTURE(BM_SelectOnMesh, trimming, TaskSelectionMethod::trimming)
    ->Arg(8)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
