// Diffusion benchmarks (issue 5): steps and total Jacobi sweeps to converge
// versus mesh size for each scheme, from a single hot spot and from random
// loads, and the serial time per diffuse(). Report medians:
//   bench_diffusion --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
// After the timed runs, a table on stderr compares the second-order scheme's
// Jacobi sweeps with the first-order one's (Watts's claim), at α = 0.05 (the
// timed cases) and, untimed, at α = 0.01 and on tori. `--table` prints only
// that table.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "isocost/diffusion.hpp"

namespace {

using isocost::DiffusionOptions;
using isocost::DiffusionScheme;

enum class Loads { hot_spot, random };

const char* name(Loads l) { return l == Loads::hot_spot ? "hot" : "random"; }

std::string mesh_name(const std::vector<int>& dims) {
  std::string s;
  for (std::size_t a = 0; a < dims.size(); ++a) s += (a ? "x" : "") + std::to_string(dims[a]);
  return s;
}

// Hot spot: the whole load N on the centre node (coordinates M_a/2), zero
// elsewhere, so u_avg = 1. Random: U[0, 1) per node (mt19937_64, seed 1).
std::vector<double> make_loads(const isocost::ProcessGraph& g, Loads kind) {
  std::vector<double> u(static_cast<std::size_t>(g.nodes), 0.0);
  if (kind == Loads::hot_spot) {
    long long centre = 0;
    for (int m : g.mesh) centre = centre * m + m / 2;
    u[static_cast<std::size_t>(centre)] = g.nodes;
  } else {
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> d(0.0, 1.0);
    for (auto& v : u) v = d(rng);
  }
  return u;
}

const std::vector<std::vector<int>> kMeshes{{8, 8}, {32, 32}, {128, 128}, {16, 16, 16}};
const DiffusionScheme kSchemes[] = {DiffusionScheme::explicit_euler, DiffusionScheme::implicit,
                                    DiffusionScheme::crank_nicolson,
                                    DiffusionScheme::least_squares};

void BM_Diffuse(benchmark::State& state, std::vector<int> dims, Loads kind,
                DiffusionScheme scheme) {
  const auto g = isocost::mesh_graph(dims, false);
  const auto u = make_loads(g, kind);
  DiffusionOptions o;  // α = 0.05
  o.scheme = scheme;
  isocost::DiffusionSummary r;
  for (auto _ : state) {
    r = isocost::diffuse(g, u, o);
    benchmark::DoNotOptimize(r.transfers.data());
  }
  state.counters["steps"] = r.steps;
  state.counters["nu"] = r.sweeps_per_step;
  state.counters["sweeps"] = static_cast<double>(r.jacobi_sweeps);
  state.counters["imbalance"] = r.final_imbalance;
  state.counters["converged"] = r.converged() ? 1 : 0;
  if (r.steps > 0)
    state.counters["per_step"] = benchmark::Counter(
        r.steps, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Watts's claim: Crank–Nicolson (second order, time step ᾱ = √α) needs fewer
// Jacobi sweeps in all than the first-order implicit scheme (time step α).
void print_table() {
  std::fprintf(stderr,
               "\nSteps / total Jacobi sweeps to u_max <= (1 + alpha) u_avg (mesh: no wrap)\n"
               "%-14s %-7s %-6s %16s %16s %16s %10s %12s\n",
               "mesh", "loads", "alpha", "explicit", "implicit", "cn", "lsq CG/1", "cn/implicit");
  for (double alpha : {0.05, 0.01})
    for (bool torus : {false, true})
      for (const auto& dims : kMeshes)
        for (auto kind : {Loads::hot_spot, Loads::random}) {
          const auto g = isocost::mesh_graph(dims, torus);
          const auto u = make_loads(g, kind);
          std::map<DiffusionScheme, isocost::DiffusionSummary> r;
          for (auto scheme : kSchemes) {
            DiffusionOptions o;
            o.scheme = scheme;
            o.alpha = alpha;
            o.max_steps = 1000000;
            r[scheme] = isocost::diffuse(g, u, o);
          }
          auto cell = [&](DiffusionScheme s) {
            const auto& x = r[s];
            char buf[64];
            std::snprintf(buf, sizeof buf, "%d/%lld%s", x.steps, x.jacobi_sweeps,
                          x.converged() ? "" : "!");
            return std::string(buf);
          };
          const double ratio =
              static_cast<double>(r[DiffusionScheme::crank_nicolson].jacobi_sweeps) /
              static_cast<double>(r[DiffusionScheme::implicit].jacobi_sweeps);
          std::fprintf(stderr, "%-14s %-7s %-6g %16s %16s %16s %10s %12.3f\n",
                       (mesh_name(dims) + (torus ? " torus" : "")).c_str(), name(kind), alpha,
                       cell(DiffusionScheme::explicit_euler).c_str(),
                       cell(DiffusionScheme::implicit).c_str(),
                       cell(DiffusionScheme::crank_nicolson).c_str(),
                       cell(DiffusionScheme::least_squares).c_str(), ratio);
        }
  std::fprintf(stderr,
               "(steps/sweeps; explicit has no sweeps, lsq reports CG iterations, 0 when "
               "direct; '!' = not converged)\n");
}

}  // namespace

int main(int argc, char** argv) {
  bool table_only = false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--table") == 0) table_only = true;
  if (table_only) {
    print_table();
    return 0;
  }
  for (const auto& dims : kMeshes)
    for (auto kind : {Loads::hot_spot, Loads::random})
      for (auto scheme : kSchemes)
        benchmark::RegisterBenchmark(("BM_Diffuse/" + mesh_name(dims) + "/" + name(kind) + "/" +
                                      std::string(to_string(scheme)))
                                         .c_str(),
                                     BM_Diffuse, dims, kind, scheme)
            ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
