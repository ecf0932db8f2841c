// bench_decompose — Google Benchmark timings and balance of isocost's
// multi-dimensional decompositions (issue 4, "Benchmarks").
//
// The project reports MEDIANS: run with
//   bench_decompose --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
// (see bench/README.md). Repetitions are not fixed here so that the CTest smoke
// test (--benchmark_min_time=0.01 on the 1024² cases) stays fast.
//
// 1. 1024² weighted cells into 16×16 jagged parts (16 columns in x, then 16
//    parts in y inside each column) for six weight patterns (fixed seeds):
//    isocost's decompose() against the plain prefix-sum jagged split
//    (decompose_patterns.hpp, with the weight patterns);
//    max/avg part cost of both as counters (both from the raw weights).
// 2. 64×64 jagged parts over 4096² cells: goal decompose <= 50 ms.
// 3. 16×16×16 parts over 256³ cells (x slabs, y in each slab, z in each
//    column): goal <= 500 ms, peak memory <= 2× the weight grid (measured in a
//    fresh child process, see BM_EndToEndMemory).
// 4. Analytic rho = 1 + x·y + sin(3x)·cos(2y) on [0,2]², 32×32 jagged, by
//    Gauss–Kronrod, tanh-sinh and the closed-form antiderivative.
// The summed-area table (grid_density) is timed apart from decompose().

#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/partition.hpp"

#include "decompose_patterns.hpp"

namespace {

using isocost::bench::Balance;
using isocost::bench::balance;
using isocost::bench::cell_boxes;
using isocost::bench::CellBox;
using isocost::bench::Grid;
using isocost::bench::make_pattern_2d;
using isocost::bench::make_pattern_3d;
using isocost::bench::Pattern;
using isocost::bench::pattern_name;
using isocost::bench::plain_jagged;
using isocost::bench::sat_error;

// A grid and its density (built from a copy), created once per process.
struct Case {
  Grid raw;
  std::optional<isocost::Density> density;
};

const Case& cached(const std::string& key, const std::function<Grid()>& make) {
  static std::map<std::string, std::unique_ptr<Case>> cache;
  auto& c = cache[key];
  if (!c) {
    c = std::make_unique<Case>();
    c->raw = make();
    c->density.emplace(isocost::grid_density(c->raw.w, c->raw.shape));
  }
  return *c;
}

const Case& case_2d(Pattern p, std::int64_t n) {
  return cached(std::string(pattern_name(p)) + "/" + std::to_string(n),
                [=] { return make_pattern_2d(p, n); });
}

const Case& case_3d(std::int64_t n) {
  return cached("3d/" + std::to_string(n), [=] { return make_pattern_3d(n); });
}

isocost::ProcessGrid sectioning(std::vector<int> counts) {
  isocost::ProcessGrid g;
  for (std::size_t l = 0; l < counts.size(); ++l) {
    g.counts.push_back(counts[l]);
    g.axes.push_back(static_cast<int>(l));  // x, then y, then z
  }
  return g;
}

// Full-precision balance lines for the end of the run (counters print only a
// few digits). Keyed by benchmark, so repetitions overwrite each other.
std::map<std::string, std::string>& summary() {
  static std::map<std::string, std::string> s;
  return s;
}

template <class... A>
std::string fmt(const char* f, A... a) {
  char buf[160];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

// ---------------------------------------------------------------------------
// Timed loops.

// decompose() on a prebuilt grid density, then (untimed) its balance and the
// plain split's from the raw weights. Counters: max_avg (isocost),
// plain_max_avg, isocost_le_plain (1 when isocost is at least as balanced).
void time_grid_decompose(benchmark::State& state, const Case& c, const isocost::ProcessGrid& pg,
                         const std::string& label) {
  const auto speeds = isocost::Speeds::uniform(pg.ranks());
  const auto& density = *c.density;
  isocost::Decomposition d;
  for (auto _ : state) {
    d = isocost::decompose(density, pg, speeds);
    benchmark::DoNotOptimize(d.parts.data());
    benchmark::ClobberMemory();
  }
  const auto boxes = cell_boxes(d, c.raw.shape.dims);
  const Balance mine = balance(c.raw, boxes);
  const Balance plain = balance(c.raw, plain_jagged(c.raw, pg));
  if (mine.cells != c.raw.shape.count()) {
    state.SkipWithError("isocost's parts do not cover the grid");
    return;
  }
  const double err = sat_error(c.raw, d, boxes);
  const bool ok = mine.max_over_avg <= plain.max_over_avg;
  state.counters["max_avg"] = mine.max_over_avg;
  state.counters["plain_max_avg"] = plain.max_over_avg;
  state.counters["isocost_le_plain"] = ok ? 1 : 0;
  summary()[label] = fmt("isocost %.6f  plain %.6f  diff %+.2e", mine.max_over_avg,
                         plain.max_over_avg, mine.max_over_avg - plain.max_over_avg) +
                     (ok ? "  ok" : "  ISOCOST WORSE") +
                     fmt("  (SAT vs raw part cost: %.1e of a part)", err);
}

void time_plain(benchmark::State& state, const Case& c, const isocost::ProcessGrid& pg) {
  std::vector<CellBox> parts;
  for (auto _ : state) {
    parts = plain_jagged(c.raw, pg);
    benchmark::DoNotOptimize(parts.data());
    benchmark::ClobberMemory();
  }
  state.counters["max_avg"] = balance(c.raw, parts).max_over_avg;
}

// grid_density() (validation and the in-place summed-area table); copying the
// weights in and freeing the previous density are not timed.
void time_build(benchmark::State& state, const Grid& g) {
  std::optional<isocost::Density> density;
  for (auto _ : state) {
    state.PauseTiming();
    density.reset();
    std::vector<double> w = g.w;
    state.ResumeTiming();
    density.emplace(isocost::grid_density(std::move(w), g.shape));
    benchmark::DoNotOptimize(density->total());
  }
  state.counters["per_cell"] = benchmark::Counter(
      static_cast<double>(g.w.size()),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// 1. 1024² cells, 16×16 jagged: isocost and the plain split, per pattern.
void BM_Jagged1024_Isocost(benchmark::State& state, Pattern p) {
  time_grid_decompose(state, case_2d(p, 1024), sectioning({16, 16}),
                      std::string("1024^2 16x16 ") + pattern_name(p));
}
void BM_Jagged1024_Plain(benchmark::State& state, Pattern p) {
  time_plain(state, case_2d(p, 1024), sectioning({16, 16}));
}

#define ISOCOST_PATTERN_BENCH(fn, unit)                                   \
  BENCHMARK_CAPTURE(fn, uniform, Pattern::uniform)->Unit(unit);           \
  BENCHMARK_CAPTURE(fn, gaussian, Pattern::gaussian)->Unit(unit);         \
  BENCHMARK_CAPTURE(fn, gradient, Pattern::gradient)->Unit(unit);         \
  BENCHMARK_CAPTURE(fn, hotspots, Pattern::hotspots)->Unit(unit);         \
  BENCHMARK_CAPTURE(fn, checkerboard, Pattern::checkerboard)->Unit(unit); \
  BENCHMARK_CAPTURE(fn, band, Pattern::band)->Unit(unit)

ISOCOST_PATTERN_BENCH(BM_Jagged1024_Isocost, benchmark::kMicrosecond);
ISOCOST_PATTERN_BENCH(BM_Jagged1024_Plain, benchmark::kMicrosecond);

// The summed-area table: 1024² and 4096² (2-D), 256³ (3-D); weights U[0, 1)
// resp. the 3-D pattern (the time does not depend on the values).
void BM_GridDensityBuild_2D(benchmark::State& state) {
  time_build(state, case_2d(Pattern::uniform, state.range(0)).raw);
}
BENCHMARK(BM_GridDensityBuild_2D)->Arg(1024)->Arg(4096)->Unit(benchmark::kMillisecond);

void BM_GridDensityBuild_3D(benchmark::State& state) {
  time_build(state, case_3d(state.range(0)).raw);
}
BENCHMARK(BM_GridDensityBuild_3D)->Arg(256)->Unit(benchmark::kMillisecond);

// 2. 4096² cells, 64×64 jagged. Goal: decompose <= 50 ms.
void BM_Jagged4096_Isocost(benchmark::State& state, Pattern p) {
  time_grid_decompose(state, case_2d(p, 4096), sectioning({64, 64}),
                      std::string("4096^2 64x64 ") + pattern_name(p));
}
void BM_Jagged4096_Plain(benchmark::State& state, Pattern p) {
  time_plain(state, case_2d(p, 4096), sectioning({64, 64}));
}
BENCHMARK_CAPTURE(BM_Jagged4096_Isocost, uniform, Pattern::uniform)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Jagged4096_Isocost, hotspots, Pattern::hotspots)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Jagged4096_Plain, uniform, Pattern::uniform)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Jagged4096_Plain, hotspots, Pattern::hotspots)->Unit(benchmark::kMillisecond);

// 3. 256³ cells, 16×16×16 (x slabs, y in each slab, z in each column).
// Goal: <= 500 ms.
void BM_Sections3D_Isocost(benchmark::State& state) {
  const auto n = state.range(0);
  time_grid_decompose(state, case_3d(n), sectioning({16, 16, 16}),
                      std::to_string(n) + "^3 16x16x16");
}
void BM_Sections3D_Plain(benchmark::State& state) {
  time_plain(state, case_3d(state.range(0)), sectioning({16, 16, 16}));
}
BENCHMARK(BM_Sections3D_Isocost)->Arg(256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Sections3D_Plain)->Arg(256)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------
// Peak memory, in a fresh process (this one holds every cached grid). The
// child (this binary, `--memory-child <case>`) reads VmHWM, makes the weights,
// then runs grid_density(std::move(weights)) and decompose(), and reports
//   peak_x   (VmHWM at the end − VmHWM at the start) / grid bytes: everything,
//            the weights included (1.0 = nothing beyond the weights)
//   extra_x  (VmHWM at the end − VmRSS after making the weights) / grid bytes
// plus the build and decompose times. Goal (3-D): peak_x <= 2.

std::int64_t status_kb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::size_t len = std::strlen(field);
  while (std::getline(in, line))
    if (line.compare(0, len, field) == 0 && line.size() > len && line[len] == ':')
      return std::stoll(line.substr(len + 1));
  return -1;
}

struct ChildCase {
  Grid (*make)();
  std::vector<int> counts;
};

ChildCase child_case(int which) {
  if (which == 3) return {[] { return make_pattern_3d(256); }, {16, 16, 16}};
  return {[] { return make_pattern_2d(Pattern::hotspots, 4096); }, {64, 64}};
}

int memory_child(int which) {
  using clock = std::chrono::steady_clock;
  const auto c = child_case(which);
  const std::int64_t hwm0 = status_kb("VmHWM");
  Grid g = c.make();
  const double grid_bytes = static_cast<double>(g.bytes());
  const std::int64_t rss1 = status_kb("VmRSS");
  const auto t0 = clock::now();
  const auto density = isocost::grid_density(std::move(g.w), g.shape);
  const auto t1 = clock::now();
  const auto pg = sectioning(c.counts);
  const auto d = isocost::decompose(density, pg, isocost::Speeds::uniform(pg.ranks()));
  const auto t2 = clock::now();
  benchmark::DoNotOptimize(d.parts.data());
  const std::int64_t hwm = status_kb("VmHWM");
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("%.17g %.17g %.17g %.17g %.17g\n", (hwm - hwm0) * 1024.0 / grid_bytes,
              (hwm - rss1) * 1024.0 / grid_bytes, std::chrono::duration<double>(t1 - t0).count(),
              std::chrono::duration<double>(t2 - t1).count(),
              static_cast<double>(ru.ru_maxrss) * 1024.0 / grid_bytes);
  return 0;
}

std::string self_exe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return {};
  return std::string(buf, static_cast<std::size_t>(n));
}

// Manual time: grid_density + decompose, as measured in the child.
void BM_EndToEndMemory(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const std::string exe = self_exe();
  double peak = 0, extra = 0, build = 0, dec = 0, maxrss = 0;
  for (auto _ : state) {
    const std::string cmd = "'" + exe + "' --memory-child " + std::to_string(which);
    FILE* f = popen(cmd.c_str(), "r");
    const int got =
        f ? std::fscanf(f, "%lf %lf %lf %lf %lf", &peak, &extra, &build, &dec, &maxrss) : 0;
    const int status = f ? pclose(f) : -1;
    if (got != 5 || status != 0) {
      state.SkipWithError("the memory child failed");
      return;
    }
    state.SetIterationTime(build + dec);
  }
  state.counters["peak_x"] = peak;
  state.counters["extra_x"] = extra;
  state.counters["maxrss_x"] = maxrss;
  state.counters["build_ms"] = build * 1e3;
  state.counters["decompose_ms"] = dec * 1e3;
  state.SetLabel(which == 3 ? "256^3 16x16x16" : "4096^2 64x64 hotspots");
}
BENCHMARK(BM_EndToEndMemory)
    ->Arg(3)
    ->Arg(2)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------
// 4. Analytic density, 32×32 jagged: rho = 1 + x·y + sin(3x)·cos(2y) >= x·y >= 0
// on [0, 2]², with its antiderivative
//   F(x, y) = x·y + x²y²/4 + (1 − cos 3x)/3 · sin(2y)/2.

double rho_2d(std::span<const double> p) {
  return 1 + p[0] * p[1] + std::sin(3 * p[0]) * std::cos(2 * p[1]);
}
double F_2d(std::span<const double> p) {
  const double x = p[0], y = p[1];
  return x * y + x * x * y * y / 4 + (1 - std::cos(3 * x)) / 3 * std::sin(2 * y) / 2;
}

enum class Analytic { gauss_kronrod, tanh_sinh, antiderivative };

void BM_Analytic2D_32x32(benchmark::State& state, Analytic how) {
  using clock = std::chrono::steady_clock;
  isocost::DensityOptions o;
  o.quadrature = how == Analytic::tanh_sinh ? isocost::Quadrature::tanh_sinh
                                            : isocost::Quadrature::gauss_kronrod;
  const auto box = isocost::Box::of({0, 0}, {2, 2});
  const auto t0 = clock::now();
  const auto density = isocost::analytic_density(
      rho_2d, box, o,
      how == Analytic::antiderivative ? std::function<double(std::span<const double>)>(F_2d)
                                      : std::function<double(std::span<const double>)>());
  const double build = std::chrono::duration<double>(clock::now() - t0).count();
  const auto pg = sectioning({32, 32});
  const auto speeds = isocost::Speeds::uniform(pg.ranks());
  isocost::Decomposition d;
  for (auto _ : state) {
    d = isocost::decompose(density, pg, speeds);
    benchmark::DoNotOptimize(d.parts.data());
  }
  // Balance from the closed form, whatever the density used.
  double total = 0, worst = 0;
  for (const auto& p : d.parts) {
    const double lo[2] = {p.box.lo[0], p.box.lo[1]}, hi[2] = {p.box.hi[0], p.box.hi[1]};
    const double a[2] = {hi[0], hi[1]}, b[2] = {lo[0], hi[1]}, c[2] = {hi[0], lo[1]};
    const double m = F_2d(a) - F_2d(b) - F_2d(c) + F_2d(lo);
    total += m;
    worst = std::max(worst, m);
  }
  const double ratio = worst / (total / static_cast<double>(d.parts.size()));
  state.counters["max_avg_minus_1"] = ratio - 1;
  state.counters["build_ms"] = build * 1e3;
  summary()[std::string("analytic 32x32 ") + (how == Analytic::gauss_kronrod ? "gauss_kronrod"
                                              : how == Analytic::tanh_sinh   ? "tanh_sinh"
                                                                             : "antiderivative")] =
      fmt("max/avg - 1 = %.3e (closed form)  density build %.3f ms", ratio - 1, build * 1e3);
}
BENCHMARK_CAPTURE(BM_Analytic2D_32x32, gauss_kronrod, Analytic::gauss_kronrod)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Analytic2D_32x32, tanh_sinh, Analytic::tanh_sinh)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Analytic2D_32x32, antiderivative, Analytic::antiderivative)
    ->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--memory-child") == 0)
    return memory_child(std::atoi(argv[2]));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!summary().empty()) {
    std::fprintf(stderr, "\nBalance: max/avg part cost (grids: from the raw weights)\n");
    for (const auto& [k, v] : summary()) std::fprintf(stderr, "  %-28s %s\n", k.c_str(), v.c_str());
  }
  return 0;
}
