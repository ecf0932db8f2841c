// rebalance_global() with its history of earlier rounds merged (merge_runs():
// proportional fitting on the atoms all rounds' cuts make), against the plan
// from the current round alone (history 0), at P ranks on a smooth peak, with
// exact loads (the rounds agree: the merge starts at the answer) and with
// ±1 % noise (they disagree: the sweeps run to their limit); and
// learn_speeds() on the same rounds, what a check that learns adds.
//   bench_rebalance --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "isocost/learn_speeds.hpp"
#include "isocost/rebalance.hpp"

namespace {

constexpr std::int64_t kElements = 1 << 22;

double cost(double a, double b) {  // ∫ 1 + 20·exp(−((x − 0.6N)/0.05N)²)
  const double s = 0.05 * kElements, c = 0.6 * kElements;
  const auto T = [&](double x) { return x + 20 * s * std::sqrt(M_PI) / 2 * std::erf((x - c) / s); };
  return T(b) - T(a);
}

// A round: P ranges (shifted by `round` so the rounds' cuts differ) and
// their loads, each off by up to ±noise.
isocost::BlockRound make_round(int P, int round, double noise, std::mt19937& gen) {
  std::uniform_real_distribution<> u(-1, 1);
  isocost::BlockRound r;
  r.offsets.push_back(0);
  for (int k = 1; k < P; ++k)
    r.offsets.push_back(kElements * k / P + (round * 37 % 101) * (kElements / P) / 200);
  r.offsets.push_back(kElements);
  for (int k = 0; k < P; ++k)
    r.loads.push_back(cost(static_cast<double>(r.offsets[static_cast<std::size_t>(k)]),
                           static_cast<double>(r.offsets[static_cast<std::size_t>(k) + 1])) *
                      (1 + noise * u(gen)));
  return r;
}

void BM_RebalanceGlobal(benchmark::State& state) {
  const int P = static_cast<int>(state.range(0));
  const int history = static_cast<int>(state.range(1));
  const double noise = static_cast<double>(state.range(2)) / 100;
  std::mt19937 gen(7);
  std::vector<isocost::BlockRound> rounds;
  for (int k = 0; k <= history; ++k) rounds.push_back(make_round(P, k, noise, gen));
  const isocost::BlockRound now = rounds.back();
  rounds.pop_back();
  isocost::GlobalRebalanceOptions o;
  o.history = history;
  o.history_tolerance = 1;  // keep every round: the merge is what is timed
  const auto speeds = isocost::Speeds::uniform(P);
  for (auto _ : state) {
    auto plan = isocost::rebalance_global(now.offsets, now.loads, speeds, o, rounds);
    benchmark::DoNotOptimize(plan.offsets.data());
  }
  state.SetLabel("P=" + std::to_string(P) + " history=" + std::to_string(history) +
                 " noise=" + std::to_string(state.range(2)) + "%");
}
BENCHMARK(BM_RebalanceGlobal)
    ->ArgsProduct({{4, 64, 1024, 4096}, {0, 4}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

// learn_speeds() on the rounds a BlockBalancer with learn_speeds fits at a
// check: its history (4) and the current round, equal speeds, exact or ±1 %
// loads. Beside BM_RebalanceGlobal's plan at the same P: what learning adds
// to a check.
void BM_LearnSpeeds(benchmark::State& state) {
  const int P = static_cast<int>(state.range(0));
  const double noise = static_cast<double>(state.range(1)) / 100;
  std::mt19937 gen(7);
  std::vector<isocost::BlockRound> rounds;
  for (int k = 0; k <= 4; ++k) rounds.push_back(make_round(P, k, noise, gen));
  isocost::LearnedSpeeds l;
  for (auto _ : state) {
    l = isocost::learn_speeds(rounds);
    benchmark::DoNotOptimize(l.speeds.data());
  }
  state.SetLabel("P=" + std::to_string(P) + " noise=" + std::to_string(state.range(1)) + "% " +
                 (l.identifiable ? "learned" : "not learned") + ", " +
                 std::to_string(l.iterations) + " iterations");
}
BENCHMARK(BM_LearnSpeeds)->ArgsProduct({{4, 16, 64}, {0, 1}})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
