// bench_cut — Google Benchmark timings of isocost's cut solvers and partitioner.
//
// The project reports MEDIANS: run with
//   bench_cut --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
// (see bench/README.md). Repetitions are not fixed here so that the CTest smoke
// test (--benchmark_min_time=0.01 on a quick subset) stays fast.
//
// Sieve model: Swartz eq. (4), t(x) = A·x^p/(ln x − c), A = 3.9098e-7, p = 1.43,
// c = 1.08366, on [6, 2^28]; derivative eq. (5) / FUNCD in Appendix B.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <tuple>
#include <vector>

#include <boost/math/tools/roots.hpp>

#ifdef __linux__
#include <sys/mman.h>
#endif

#include "isocost/cost_model.hpp"
#include "isocost/cut.hpp"
#include "isocost/decompose.hpp"
#include "isocost/partition.hpp"

namespace {

constexpr double kLo = 6.0;
constexpr double kHi = 268435456.0;  // 2^28

isocost::SieveParams sieve_params() { return {.A = 3.9098e-7, .p = 1.43, .c = 1.08366}; }

const isocost::CostModel& sieve() {
  static const isocost::CostModel model = isocost::sieve_model(sieve_params(), kLo, kHi);
  return model;
}

// ---------------------------------------------------------------------------
// The baseline: a bare Boost newton_raphson_iterate on the same formula as the
// library's SieveImpl::evaluate (r = 1/(ln x − c), T = A·x^p·r, T' = T·(p − r)/x,
// cost = T − T(lo)), the same bracket [lo, hi], the same linear initial guess,
// the same digits and iteration budget (CutOptions defaults).
struct BareSieve {
  double A, p, c, t_lo;
  double raw(double x) const { return A * std::pow(x, p) / (std::log(x) - c); }
};

BareSieve bare_sieve() {
  const auto sp = sieve_params();
  BareSieve s{sp.A, sp.p, sp.c, 0.0};
  // Keep the parameters opaque to the optimiser, as they are in the library
  // (runtime members of SieveImpl), so neither side gets constant-folded.
  benchmark::DoNotOptimize(s);
  s.t_lo = s.raw(kLo);
  return s;
}

// Cut i of P with Boost Newton; `evaluations` receives Boost's count of f calls.
// Like rank_range(), cut 0 is lo and cut P is hi without any solve.
inline double bare_cut(const BareSieve& s, double TT, int i, int P, std::uintmax_t* evaluations) {
  if (i == 0) return kLo;
  if (i == P) return kHi;
  const double target = TT * i / P;
  auto f = [&s, target](double x) {
    const double r = 1.0 / (std::log(x) - s.c);
    const double T = s.A * std::pow(x, s.p) * r;
    return std::make_tuple(T - s.t_lo - target, T * (s.p - r) / x);
  };
  std::uintmax_t max_iter = 100;
  const double guess = kLo + (kHi - kLo) * i / P;
  const double x = boost::math::tools::newton_raphson_iterate(
      f, guess, kLo, kHi, std::numeric_limits<double>::digits - 2, max_iter);
  if (evaluations) *evaluations += max_iter;
  return x;
}

// ---------------------------------------------------------------------------
// 1. rank_range: each rank computes its own two cuts (Swartz §2), cycling ranks.
void BM_RankRange_Sieve(benchmark::State& state) {
  const int P = static_cast<int>(state.range(0));
  const auto& model = sieve();
  const auto speeds = isocost::Speeds::uniform(P);
  // Untimed pre-pass: average work per call over one cycle of ranks.
  double evaluations = 0, iterations = 0;
  for (int r = 0; r < P; ++r) {
    const auto rr = isocost::rank_range(model, r, speeds);
    evaluations += rr.lower.evaluations + rr.upper.evaluations;
    iterations += rr.lower.iterations + rr.upper.iterations;
  }
  int rank = 0;
  for (auto _ : state) {
    auto rr = isocost::rank_range(model, rank, speeds);
    benchmark::DoNotOptimize(rr);
    if (++rank == P) rank = 0;
  }
  state.counters["evals_per_call"] = evaluations / P;
  state.counters["iters_per_call"] = iterations / P;
}
BENCHMARK(BM_RankRange_Sieve)->Arg(16)->Arg(1024)->Unit(benchmark::kNanosecond);

// 2. The same two cuts per rank with a bare Boost Newton loop (the baseline).
void BM_BareBoostNewton_Sieve(benchmark::State& state) {
  const int P = static_cast<int>(state.range(0));
  const BareSieve s = bare_sieve();
  const double TT = s.raw(kHi) - s.t_lo;
  std::uintmax_t evaluations = 0;
  for (int r = 0; r < P; ++r) {
    bare_cut(s, TT, r, P, &evaluations);
    bare_cut(s, TT, r + 1, P, &evaluations);
  }
  int rank = 0;
  for (auto _ : state) {
    double lo = bare_cut(s, TT, rank, P, nullptr);
    double hi = bare_cut(s, TT, rank + 1, P, nullptr);
    benchmark::DoNotOptimize(lo);
    benchmark::DoNotOptimize(hi);
    if (++rank == P) rank = 0;
  }
  state.counters["evals_per_call"] = static_cast<double>(evaluations) / P;
  state.counters["iters_per_call"] = static_cast<double>(evaluations) / P;
}
BENCHMARK(BM_BareBoostNewton_Sieve)->Arg(16)->Arg(1024)->Unit(benchmark::kNanosecond);

// One sieve evaluation (t and t'): through the library's virtual interface
// and inline, to turn evaluation counts into time.
std::vector<double> sample_points() {
  std::vector<double> xs(64);
  for (std::size_t k = 0; k < xs.size(); ++k)
    xs[k] = kLo + (kHi - kLo) * (static_cast<double>(k) + 0.5) / static_cast<double>(xs.size());
  return xs;
}

void BM_SieveEvaluate_Library(benchmark::State& state) {
  const auto& impl = sieve().impl();
  const auto xs = sample_points();
  std::size_t k = 0;
  for (auto _ : state) {
    auto p = impl.evaluate(xs[k]);
    benchmark::DoNotOptimize(p);
    k = (k + 1) & 63;
  }
}
BENCHMARK(BM_SieveEvaluate_Library)->Unit(benchmark::kNanosecond);

void BM_SieveEvaluate_Bare(benchmark::State& state) {
  const BareSieve s = bare_sieve();
  const auto xs = sample_points();
  std::size_t k = 0;
  for (auto _ : state) {
    const double x = xs[k];
    const double r = 1.0 / (std::log(x) - s.c);
    const double T = s.A * std::pow(x, s.p) * r;
    double cost = T - s.t_lo, density = T * (s.p - r) / x;
    benchmark::DoNotOptimize(cost);
    benchmark::DoNotOptimize(density);
    k = (k + 1) & 63;
  }
}
BENCHMARK(BM_SieveEvaluate_Bare)->Unit(benchmark::kNanosecond);

// 5. One sieve cut by each CutMethod, cycling over the 15 interior cuts of P = 16
// (solve_cut on the whole domain, Newton/secant from the linear guess).
void BM_SolveCut_Sieve(benchmark::State& state, isocost::CutMethod method) {
  const auto& model = sieve();
  constexpr int P = 16;
  std::vector<double> targets;
  for (int i = 1; i < P; ++i) targets.push_back(model.total() * i / P);
  isocost::CutOptions opt;
  opt.method = method;
  double evaluations = 0, iterations = 0;
  for (double t : targets) {
    const auto s = isocost::solve_cut(model, t, opt);
    evaluations += s.evaluations;
    iterations += s.iterations;
  }
  std::size_t k = 0;
  for (auto _ : state) {
    auto s = isocost::solve_cut(model, targets[k], opt);
    benchmark::DoNotOptimize(s);
    if (++k == targets.size()) k = 0;
  }
  state.counters["evals_per_cut"] = evaluations / static_cast<double>(targets.size());
  state.counters["iters_per_cut"] = iterations / static_cast<double>(targets.size());
}
BENCHMARK_CAPTURE(BM_SolveCut_Sieve, newton, isocost::CutMethod::newton)
    ->Unit(benchmark::kNanosecond);
BENCHMARK_CAPTURE(BM_SolveCut_Sieve, secant, isocost::CutMethod::secant)
    ->Unit(benchmark::kNanosecond);
BENCHMARK_CAPTURE(BM_SolveCut_Sieve, bisection, isocost::CutMethod::bisection)
    ->Unit(benchmark::kNanosecond);
BENCHMARK_CAPTURE(BM_SolveCut_Sieve, toms748, isocost::CutMethod::toms748)
    ->Unit(benchmark::kNanosecond);

// Shared by the partition benchmarks: per-cut time (the P−1 solved cuts) and
// the average work per cut of the last result.
void partition_counters(benchmark::State& state, const isocost::Partition& part) {
  const int P = part.ranks();
  const double cuts = P > 1 ? P - 1 : 1;
  state.counters["per_cut"] = benchmark::Counter(
      cuts, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  double evaluations = 0, iterations = 0;
  for (const auto& s : part.summaries) {
    evaluations += s.evaluations;
    iterations += s.iterations;
  }
  state.counters["evals_per_cut"] = evaluations / cuts;
  state.counters["iters_per_cut"] = iterations / cuts;
}

// The timed loop shared by the partition benchmarks.
void time_partition(benchmark::State& state, const isocost::CostModel& model, int P) {
  const auto speeds = isocost::Speeds::uniform(P);
  isocost::Partition part;
  for (auto _ : state) {
    part = isocost::partition(model, speeds);
    benchmark::DoNotOptimize(part.cuts.data());
    benchmark::ClobberMemory();
  }
  partition_counters(state, part);
}

// 3. partition() with warm start (default): each cut bracketed by the previous
// one and guessed by extrapolation. per_cut = time / (P − 1).
void BM_Partition_Sieve_WarmStart(benchmark::State& state) {
  const int P = static_cast<int>(state.range(0));
  const auto& model = sieve();
  time_partition(state, model, P);
}
BENCHMARK(BM_Partition_Sieve_WarmStart)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond);

// 4. Discrete model over 10^7 random positive weights (fixed seed), built once.
constexpr std::size_t kCells = 10'000'000;

const std::vector<double>& discrete_weights() {
  static const std::vector<double> w = [] {
    std::vector<double> v(kCells);
    std::mt19937_64 rng(20240607);
    std::uniform_real_distribution<double> dist(0.5, 1.5);
    for (auto& x : v) x = dist(rng);
    return v;
  }();
  return w;
}

const isocost::CostModel& discrete() {
  static const isocost::CostModel model = isocost::discrete_model(discrete_weights());
  return model;
}

// Construction: validation and compensated prefix sums over 10^7 cells. The
// copy of the weights (discrete_model takes them by value) and the destruction
// of the previous model are outside the timed region.
void BM_DiscreteModel_Build(benchmark::State& state) {
  const auto& weights = discrete_weights();
  std::optional<isocost::CostModel> model;
  for (auto _ : state) {
    state.PauseTiming();
    model.reset();
    std::vector<double> w = weights;
    state.ResumeTiming();
    model.emplace(isocost::discrete_model(std::move(w)));
    benchmark::DoNotOptimize(*model);
  }
  state.counters["per_cell"] = benchmark::Counter(
      static_cast<double>(kCells),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_DiscreteModel_Build)->Unit(benchmark::kMillisecond);

// The floor the build is measured against (issue #13: within 2x of it): a
// bare double prefix pass over the same weights into a preallocated array,
// no validation and no compensation.
void BM_BarePrefixPass(benchmark::State& state) {
  const auto& weights = discrete_weights();
  std::vector<double> prefix(weights.size() + 1, 0.0);
  for (auto _ : state) {
    double sum = 0;
    for (std::size_t k = 0; k < weights.size(); ++k) prefix[k + 1] = sum += weights[k];
    benchmark::DoNotOptimize(prefix.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_BarePrefixPass)->Unit(benchmark::kMillisecond);

// The same pass with Neumaier's compensation (the textbook step, as
// detail::CompensatedSum takes it), still without validation and into the
// preallocated array: what compensated sums cost by themselves, the floor of
// a build that keeps them.
void BM_NeumaierPrefixPass(benchmark::State& state) {
  const auto& weights = discrete_weights();
  std::vector<double> prefix(weights.size() + 1, 0.0);
  for (auto _ : state) {
    double sum = 0, c = 0;
    for (std::size_t k = 0; k < weights.size(); ++k) {
      const double x = weights[k], t = sum + x;
      c += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;
      sum = t;
      prefix[k + 1] = sum + c;
    }
    benchmark::DoNotOptimize(prefix.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_NeumaierPrefixPass)->Unit(benchmark::kMillisecond);

// The same bare pass into a fresh, uninitialised array, as a model must own
// one: the first touch of its pages (the kernel zeroes each) is timed, its
// release is not. The floor for the build, whose allocation is fresh too.
void BM_BarePrefixPass_FreshArray(benchmark::State& state) {
  const auto& weights = discrete_weights();
  for (auto _ : state) {
    std::unique_ptr<double[]> prefix(new double[weights.size() + 1]);
    prefix[0] = 0;
    double sum = 0;
    for (std::size_t k = 0; k < weights.size(); ++k) prefix[k + 1] = sum += weights[k];
    benchmark::DoNotOptimize(prefix.get());
    benchmark::ClobberMemory();
    state.PauseTiming();
    prefix.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_BarePrefixPass_FreshArray)->Unit(benchmark::kMillisecond);

// The bare pass into fresh memory allocated as the model allocates its own
// (2 MiB aligned, advised as transparent huge pages): the floor of any build
// that owns its prefix sums, here the bare pass's arithmetic plus the
// kernel's zeroing of fresh pages at first touch.
void BM_BarePrefixPass_FreshHugePages(benchmark::State& state) {
  const auto& weights = discrete_weights();
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  const std::size_t bytes = (weights.size() + 1) * sizeof(double);
  const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
  for (auto _ : state) {
    auto* prefix = static_cast<double*>(std::aligned_alloc(kHuge, rounded));
    if (prefix == nullptr) {
      state.SkipWithError("out of memory");
      break;
    }
#ifdef __linux__
    ::madvise(prefix, rounded, MADV_HUGEPAGE);
#endif
    prefix[0] = 0;
    double sum = 0;
    for (std::size_t k = 0; k < weights.size(); ++k) prefix[k + 1] = sum += weights[k];
    benchmark::DoNotOptimize(prefix);
    benchmark::ClobberMemory();
    state.PauseTiming();
    std::free(prefix);
    state.ResumeTiming();
  }
}
BENCHMARK(BM_BarePrefixPass_FreshHugePages)->Unit(benchmark::kMillisecond);

void BM_Partition_Discrete(benchmark::State& state) {
  const int P = static_cast<int>(state.range(0));
  const auto& model = discrete();
  time_partition(state, model, P);
}
BENCHMARK(BM_Partition_Discrete)->Arg(16)->Arg(1024)->Arg(65536)->Unit(benchmark::kMicrosecond);

// The exact chains-on-chains optimum (bottleneck_cuts(), issue #13) of n
// spiky cells (100 with probability 1 %, else 1), with min_cells =
// state.range(0): 0 (parts may be empty) or 1 (none empty).
std::vector<double> spiky_prefix(int n) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> p{0};
  for (int i = 0; i < n; ++i) p.push_back(p.back() + (u(rng) < 0.01 ? 100 : 1));
  return p;
}

void time_bottleneck_cuts(benchmark::State& state, const std::vector<double>& prefix,
                          const std::vector<double>& capacity) {
  const auto min_cells = static_cast<std::int64_t>(state.range(0));
  std::int64_t empty = 0;
  for (auto _ : state) {
    const auto cuts = isocost::bottleneck_cuts(prefix, capacity, min_cells);
    empty = 0;
    for (std::size_t j = 0; j + 1 < cuts.size(); ++j) empty += cuts[j + 1] == cuts[j] ? 1 : 0;
    benchmark::DoNotOptimize(cuts.data());
  }
  state.counters["empty_parts"] = static_cast<double>(empty);
}

// 10^6 cells into 65 536 parts of equal speeds.
void BM_BottleneckCuts_Spikes(benchmark::State& state) {
  static const std::vector<double> prefix = spiky_prefix(1'000'000);
  time_bottleneck_cuts(state, prefix, std::vector<double>(65536, 1.0));
}
BENCHMARK(BM_BottleneckCuts_Spikes)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// At speeds 1, 3 and 0.25 in turn, where the capped greedy probe cannot
// decide non-empty parts and the reachable boundaries do (reach.hpp): their
// cost grows with parts × the heavy cells in their windows, so a smaller
// case, 2·10^5 cells into 16 384 parts.
void BM_BottleneckCuts_SpikesUnequalSpeeds(benchmark::State& state) {
  static const std::vector<double> prefix = spiky_prefix(200'000);
  std::vector<double> capacity(16384);
  for (std::size_t j = 0; j < capacity.size(); ++j)
    capacity[j] = j % 3 == 0 ? 1 : (j % 3 == 1 ? 3 : 0.25);
  time_bottleneck_cuts(state, prefix, capacity);
}
BENCHMARK(BM_BottleneckCuts_SpikesUnequalSpeeds)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// 10^8 spiky cells into 16 parts (state.range(1)), where the search's own
// probes cost O(P log N) and a pass over the cells would be the whole cost
// (issue #28: 60 ms at 10^8, 0.086 ms the round before), and into 65 536.
void BM_BottleneckCuts_Large(benchmark::State& state) {
  static const std::vector<double> prefix = spiky_prefix(100'000'000);
  time_bottleneck_cuts(state, prefix,
                       std::vector<double>(static_cast<std::size_t>(state.range(1)), 1.0));
}
BENCHMARK(BM_BottleneckCuts_Large)
    ->ArgsProduct({{0, 1}, {16, 65536}})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
