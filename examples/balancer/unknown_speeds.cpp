// A cluster whose speeds nobody told the balancer (issue #27): N cells on
// [0, 1), cell i needs 1 + 4·x_i^1.43 units of real work per step (a fixed
// floating-point loop, sieve-like: Swartz eq. 4's growth), and rank r runs
// every unit `repeat_r` times — 1 or 3, as Swartz §4's node types — so its
// speed is 1/repeat_r. At mid-run rank 0 doubles its repeat count (halves
// its speed). The same run is made four times:
//   none     the cells stay in equal blocks;
//   equal    the Balancer, speeds assumed equal (loads alone);
//   given    the Balancer told the starting speeds (true until the change);
//   learned  the Balancer learning them (learn_speeds).
//
//   mpiexec -n 4 unknown_speeds [--cells-per-rank 2000] [--steps 60] [--every 2]
//                               [--repeats 1,1,1,3] [--change-at 30] [--clock ops|cpu]
//                               [--json F|-] [--plot DIR] [--check]
//
// --clock ops (default) records each rank's counted units as its load, so a
// run decides the same every time; cpu records its CPU time. Every cell
// carries its global index; each run must end with every rank holding exactly
// its range (exit 1 otherwise). --check: exit 3 unless learning ends within
// 2 % of the given speeds' last efficiency before the change, and within 2 %
// of its own best after it.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "example_main.hpp"
#include "example_support.hpp"
#include "isocost/error.hpp"
#include "isocost/mpi/block_balancer.hpp"
#include "plot/gnuplot.hpp"

namespace {

struct Settings {
  long long cells_per_rank = 2000;
  int steps = 60, every = 2, change_at = -1;
  std::vector<int> repeats;
  std::string clock = "ops", json_path, plot_dir;
  bool check = false;
};

double work(double v) {
  for (int k = 0; k < 32; ++k) v = std::sqrt(v * v + 1.0) - 0.999;
  return v;
}

enum class Mode { none, equal, given, learned };
const char* name(Mode m) {
  switch (m) {
    case Mode::none:
      return "none";
    case Mode::equal:
      return "equal";
    case Mode::given:
      return "given";
    default:
      return "learned";
  }
}

struct Outcome {
  std::vector<double> efficiency;  // per step, T_avg/T_max
  double total = 0;                // Σ_steps T_max (units or CPU seconds)
  int rebalances = 0;
  bool placed = false;
  std::string speeds;  // learned: the last estimate
};

Outcome run(const Settings& s, Mode mode, MPI_Comm comm) {
  int rank = 0, P = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  const long long N = s.cells_per_rank * P;
  isocost::mpi::BlockBalancerOptions o;
  o.pipeline.monitor.window = 1;
  o.pipeline.trigger.every = s.every;
  o.pipeline.decision_seconds = 0.0;
  o.pipeline.comm = isocost::CommModel{};
  o.pipeline.policy = isocost::mpi::BalancePolicy::global;
  std::vector<double> speeds;
  for (int r : s.repeats) speeds.push_back(1.0 / r);
  if (mode == Mode::given) o.speeds = isocost::Speeds::from_values(speeds);
  if (mode == Mode::learned) o.learn_speeds = true;
  isocost::mpi::BlockBalancer b(comm, isocost::mpi::BlockDistribution::uniform(N, P), o);
  std::vector<double> cells(static_cast<std::size_t>(b.local_count()), 0.5);
  std::vector<long long> index(cells.size());
  for (std::size_t k = 0; k < index.size(); ++k) index[k] = b.local_begin() + (long long)k;
  Outcome out;
  for (int step = 0; step < s.steps; ++step) {
    int repeat = s.repeats[static_cast<std::size_t>(rank)];
    if (rank == 0 && step >= s.change_at) repeat *= 2;
    const long long lo = b.local_begin();
    // This rank's load: its counted units, or its CPU time for them.
    double units = 0;
    const double t0 = examples::cpu_seconds();
    for (std::size_t k = 0; k < cells.size(); ++k) {
      const double x = (static_cast<double>(lo) + static_cast<double>(k) + 0.5) / N;
      const int n = (1 + static_cast<int>(4 * std::pow(x, 1.43) + 0.5)) * repeat;
      for (int u = 0; u < n; ++u) cells[k] = work(cells[k]);
      units += n;
    }
    const double mine = s.clock == "cpu" ? examples::cpu_seconds() - t0 : units;
    double max = 0, sum = 0;
    MPI_Allreduce(&mine, &max, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    out.total += max;
    out.efficiency.push_back(max > 0 ? sum / P / max : 1);
    if (mode == Mode::none) continue;
    b.record_step(mine);
    const isocost::mpi::BlockEvent e = b.maybe_rebalance(cells, index);
    if (e.moves()) ++out.rebalances;
    if (e.learned && e.learned->identifiable) out.speeds = e.learned->brief_report();
  }
  int placed = 1;
  for (std::size_t k = 0; k < index.size(); ++k)
    placed = placed && index[k] == b.local_begin() + static_cast<long long>(k);
  MPI_Allreduce(MPI_IN_PLACE, &placed, 1, MPI_INT, MPI_MIN, comm);
  out.placed = placed == 1;
  return out;
}

double mean(const std::vector<double>& v, std::size_t from, std::size_t to) {
  double s = 0;
  for (std::size_t k = from; k < to; ++k) s += v[k];
  return to > from ? s / static_cast<double>(to - from) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  Settings s;
  CLI::App app("Ranks of unknown speeds, balanced with and without learning them");
  app.add_option("--cells-per-rank", s.cells_per_rank, "cells per rank [2000]")
      ->check(CLI::PositiveNumber);
  app.add_option("--steps", s.steps, "time steps [60]")->check(CLI::Range(4, 100000));
  app.add_option("--every", s.every, "check every k steps [2]")->check(CLI::PositiveNumber);
  app.add_option("--repeats", s.repeats, "each rank's repeat count [the last third 3, else 1]")
      ->delimiter(',')
      ->check(CLI::Range(1, 100));
  app.add_option("--change-at", s.change_at, "the step rank 0 halves its speed [steps/2]");
  app.add_option("--clock", s.clock, "ops (counted units) or cpu [ops]")
      ->check(CLI::IsMember({"ops", "cpu"}));
  app.add_option("--json", s.json_path, "write the summary as JSON to this file ('-': stdout)");
  app.add_option("--plot", s.plot_dir, "write a PNG of the efficiency per step into this folder");
  app.add_flag("--check", s.check, "exit 3 unless learning reaches the speed-aware balance");
  return examples::parse_and_run(app, argc, argv, "unknown_speeds", [&] {
    if (s.repeats.empty())
      for (int r = 0; r < P; ++r) s.repeats.push_back(r >= P - (P + 2) / 3 ? 3 : 1);
    if (static_cast<int>(s.repeats.size()) != P)
      throw isocost::Error("--repeats: expected " + std::to_string(P) +
                           " counts, one per rank, got " + std::to_string(s.repeats.size()));
    if (s.change_at < 0) s.change_at = s.steps / 2;
    const Mode modes[] = {Mode::none, Mode::equal, Mode::given, Mode::learned};
    std::vector<Outcome> runs;
    for (Mode m : modes) runs.push_back(run(s, m, MPI_COMM_WORLD));
    const auto change = static_cast<std::size_t>(std::min(s.change_at, s.steps));
    // The steady states: the last quarter before the change, and the last
    // quarter of the run.
    const std::size_t q = std::max<std::size_t>(1, change / 4);
    const auto before = [&](const Outcome& o) { return mean(o.efficiency, change - q, change); };
    const auto after = [&](const Outcome& o) {
      return mean(o.efficiency, o.efficiency.size() - q, o.efficiency.size());
    };
    bool placed = true;
    for (const Outcome& o : runs) placed = placed && o.placed;
    const Outcome &given = runs[2], &learned = runs[3];
    const bool learned_ok = before(learned) >= 0.98 * before(given) && after(learned) >= 0.97;
    if (rank == 0 && s.json_path != "-") {
      std::printf("unknown speeds: %d ranks, repeats", P);
      for (int r : s.repeats) std::printf(" %d", r);
      std::printf("; rank 0 halves its speed at step %d of %d (%s clock)\n", s.change_at, s.steps,
                  s.clock.c_str());
      std::printf("%-8s %14s %18s %17s %11s\n", "run", "total", "efficiency before",
                  "efficiency after", "rebalances");
      for (std::size_t m = 0; m < runs.size(); ++m)
        std::printf("%-8s %14.6g %18.3f %17.3f %11d\n", name(modes[m]), runs[m].total,
                    before(runs[m]), after(runs[m]), runs[m].rebalances);
      std::printf("%s\n", learned.speeds.c_str());
      std::printf(
          "check: cells in place %s, learned %.3f >= 0.98 x given %.3f before the change, "
          "%.3f >= 0.97 after it: %s\n",
          placed ? "yes" : "NO", before(learned), before(given), after(learned),
          placed && learned_ok ? "PASS" : "FAIL");
    }
    if (rank == 0 && !s.json_path.empty()) {
      nlohmann::json j = {{"example", "unknown_speeds"},
                          {"ranks", P},
                          {"cells", s.cells_per_rank * P},
                          {"steps", s.steps},
                          {"repeats", s.repeats},
                          {"change_at", s.change_at},
                          {"clock", s.clock},
                          {"learned_speeds", learned.speeds},
                          {"check_ok", placed && learned_ok}};
      for (std::size_t m = 0; m < runs.size(); ++m)
        j["runs"][name(modes[m])] = {{"total", runs[m].total},
                                     {"efficiency_before", before(runs[m])},
                                     {"efficiency_after", after(runs[m])},
                                     {"rebalances", runs[m].rebalances},
                                     {"efficiency", runs[m].efficiency}};
      examples::write_summary(s.json_path, j.dump(2) + "\n");
    }
    if (rank == 0 && !s.plot_dir.empty()) {
      std::filesystem::create_directories(s.plot_dir);
      isocost::plot::Figure f;
      f.title = "Unknown speeds: efficiency T_avg/T_max of every step";
      f.xlabel = "step";
      f.ylabel = "efficiency";
      for (std::size_t m = 0; m < runs.size(); ++m)
        f.series.push_back(isocost::plot::per_step(name(modes[m]), runs[m].efficiency));
      isocost::plot::render_png(f, s.plot_dir + "/unknown_speeds_efficiency.png");
    }
    if (!placed) return 1;
    return s.check && !learned_ok ? 3 : 0;
  });
}
