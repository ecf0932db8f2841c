// LoadMonitor overhead (issue 6; target <= 1 µs per step scope). Report medians:
//   bench_monitor --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
//
//  - BM_ClockRead/<clock>: one reading of the clock, for scale (a step scope
//    reads it twice, each phase scope twice more).
//  - BM_StepScope/<clock>: an empty StepScope (begin + end + window update).
//  - BM_StepScope3Phases/<clock>: a StepScope holding three PhaseScopes.
//  - BM_RecordStep: the deterministic entry point with three phase times.
//  - BM_Estimate/<window>: the load estimate over the window (what the
//    balancer asks for once per check, every k steps).
// <clock> is wall (steady_clock) or cpu (CLOCK_THREAD_CPUTIME_ID).
#include <benchmark/benchmark.h>

#include <vector>

#include "isocost/monitor.hpp"

namespace {

using isocost::LoadMonitor;
using isocost::MonitorClock;
using isocost::MonitorOptions;

MonitorOptions with(MonitorClock clock, int window = 10) {
  MonitorOptions o;
  o.clock = clock;
  o.window = window;
  return o;
}

void BM_ClockRead(benchmark::State& state, MonitorClock clock) {
  const LoadMonitor m(with(clock));
  for (auto _ : state) benchmark::DoNotOptimize(m.now());
}
BENCHMARK_CAPTURE(BM_ClockRead, wall, MonitorClock::wall);
BENCHMARK_CAPTURE(BM_ClockRead, cpu, MonitorClock::cpu);

void BM_StepScope(benchmark::State& state, MonitorClock clock) {
  LoadMonitor m(with(clock));
  for (auto _ : state) {
    isocost::StepScope step(m);
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(m.mean_busy());
}
BENCHMARK_CAPTURE(BM_StepScope, wall, MonitorClock::wall);
BENCHMARK_CAPTURE(BM_StepScope, cpu, MonitorClock::cpu);

void BM_StepScope3Phases(benchmark::State& state, MonitorClock clock) {
  LoadMonitor m(with(clock));
  const auto a = m.add_phase("force"), b = m.add_phase("halo"), c = m.add_phase("integrate");
  for (auto _ : state) {
    isocost::StepScope step(m);
    { isocost::PhaseScope p(m, a); }
    { isocost::PhaseScope p(m, b); }
    { isocost::PhaseScope p(m, c); }
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(m.phase_means());
}
BENCHMARK_CAPTURE(BM_StepScope3Phases, wall, MonitorClock::wall);
BENCHMARK_CAPTURE(BM_StepScope3Phases, cpu, MonitorClock::cpu);

void BM_RecordStep(benchmark::State& state) {
  LoadMonitor m(with(MonitorClock::wall));
  m.add_phase("force");
  m.add_phase("halo");
  m.add_phase("integrate");
  const std::vector<double> phases{0.25, 0.125, 0.0625};
  for (auto _ : state) m.record_step(0.5, phases);
  benchmark::DoNotOptimize(m.mean_busy());
}
BENCHMARK(BM_RecordStep);

void BM_Estimate(benchmark::State& state) {
  LoadMonitor m(with(MonitorClock::wall, static_cast<int>(state.range(0))));
  for (int k = 0; k < state.range(0); ++k) m.record_step(0.5 + 0.001 * k);
  for (auto _ : state) benchmark::DoNotOptimize(m.estimate());
}
BENCHMARK(BM_Estimate)->Arg(10)->Arg(100)->Arg(1000);

}  // namespace

BENCHMARK_MAIN();
