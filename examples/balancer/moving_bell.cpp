// Eijkhout's moving bell (User level load balancing in IMP, §4) under the
// isocost Balancer: N cells on [0, 1), cell i costs
//   w(x_i, t) = 1 + A·exp(−((x_i − s(t))/σ)²)
// units of real work per step (a fixed floating-point loop), with the peak
// s(t) moving from 0.1 to 0.9 over the run. The same run is made three times:
// without balancing (the cells stay in equal blocks), with the Balancer
// planning from the last window's loads, and with its forecast (`predict`:
// the trend of each cut through the last plans, issue #12), which keeps up
// with the moving load instead of lagging it.
//
//   mpiexec -n 4 moving_bell [--cells-per-rank 2000] [--steps 200] [--every 2]
//                            [--predict 8] [--log bell.jsonl] [--json F|-] [--plot DIR]
//
// Every cell carries its global index through the migrations; each run must
// end with every rank holding exactly its range, in order, with the values
// the unbalanced run computed (an order-free hash of (index, value)).
//
// Times are each rank's CPU time (CLOCK_THREAD_CPUTIME_ID; the Balancer's
// monitor uses the same clock): with more ranks than cores a rank's wall time
// is mostly waiting for the others to be scheduled. A step's time is the
// slowest rank's; "total" adds the steps and the maybe_rebalance() calls
// (checks, plans, migrations: the slowest rank's CPU time in each). Exit 0;
// 1 when a run lost, misplaced or changed a cell; with --check, exit 3 unless
// balancing raised the mean efficiency by 0.05 (a test that holds on a loaded
// machine, where the total's balancing share — collectives polling among
// oversubscribed ranks — is noisy).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <bit>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "example_support.hpp"
#include "isocost/error.hpp"
#include "isocost/mpi/block_balancer.hpp"
#include "plot/gnuplot.hpp"

namespace {

struct Settings {
  long long cells_per_rank = 2000;
  int steps = 200;
  double amplitude = 9;
  double sigma = 0.05;
  int every = 2;
  int predict = 8;
  std::string log, json_path, plot_dir;
  bool check = false;
  bool learn_speeds = false;  // learn the ranks' speeds (all equal here: it should change nothing)
};

// One unit of work; the result feeds the next call so nothing is elided.
double work(double v) {
  for (int k = 0; k < 64; ++k) v = std::sqrt(v * v + 1.0) - 0.999;
  return v;
}

struct Outcome {
  double total = 0;            // Σ_steps max_r T_r + Σ_calls max_r (CPU in maybe_rebalance)
  double balancing = 0;        // the second sum
  double mean_efficiency = 0;  // mean over steps of T_avg/T_max
  int rebalances = 0;
  long long moved = 0;             // cells that changed owner, over all rebalances
  std::vector<double> efficiency;  // per step
  std::uint64_t hash = 0;          // XOR over cells of mix64(index, value bits)
  bool placed = false;             // every rank holds exactly its range, in order
};

Outcome run(const Settings& s, bool balance, int predict, MPI_Comm comm) {
  int rank = 0, P = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  const long long N = s.cells_per_rank * P;
  isocost::mpi::BlockBalancerOptions o;
  o.pipeline.monitor.clock = isocost::MonitorClock::cpu;
  o.pipeline.monitor.window = 3;
  o.pipeline.trigger.every = s.every;
  o.pipeline.profit_trigger = false;  // the drift trigger alone, as the runs were measured
  o.predict = predict;
  o.learn_speeds = s.learn_speeds;
  if (balance && predict == 0) o.pipeline.log_path = s.log;
  isocost::mpi::BlockBalancer b(comm, isocost::mpi::BlockDistribution::uniform(N, P), o);
  std::vector<double> cells(static_cast<std::size_t>(b.distribution().count(rank)), 0.5);
  std::vector<long long> index(cells.size());
  for (std::size_t k = 0; k < index.size(); ++k)
    index[k] = b.distribution().begin(rank) + static_cast<long long>(k);
  Outcome out;
  double sink = 0;
  for (int step = 0; step < s.steps; ++step) {
    const double peak = 0.1 + 0.8 * step / s.steps;
    const long long lo = b.distribution().begin(rank);
    {
      auto scope = b.step();
      for (std::size_t k = 0; k < cells.size(); ++k) {
        const double x = (static_cast<double>(lo) + static_cast<double>(k) + 0.5) / N;
        const double z = (x - peak) / s.sigma;
        const int units = 1 + static_cast<int>(s.amplitude * std::exp(-z * z) + 0.5);
        for (int u = 0; u < units; ++u) cells[k] = work(cells[k]);
      }
    }
    sink += cells.empty() ? 0 : cells[0];
    // The step's times, for the report (not for the balancer).
    const double mine = b.monitor().last_step();
    double max = 0, sum = 0;
    MPI_Allreduce(&mine, &max, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    out.total += max;
    out.efficiency.push_back(max > 0 ? sum / P / max : 1);
    out.mean_efficiency += out.efficiency.back();
    if (!balance) continue;
    isocost::mpi::BlockEvent e;
    const double slowest =
        examples::slowest_cpu_seconds(comm, [&] { e = b.maybe_rebalance(cells, index); });
    out.total += slowest;
    out.balancing += slowest;
    if (e.action != isocost::Strategy::none) {
      ++out.rebalances;
      if (e.migration) out.moved += e.migration->global_elements_moved;
    }
  }
  out.mean_efficiency /= s.steps;
  if (sink == 42) std::printf(" ");  // keep the work observable
  int placed = 1;
  for (std::size_t k = 0; k < cells.size(); ++k) {
    placed = placed && index[k] == b.distribution().begin(rank) + static_cast<long long>(k);
    out.hash ^= examples::mix64(static_cast<std::uint64_t>(index[k]) ^
                                examples::mix64(std::bit_cast<std::uint64_t>(cells[k])));
  }
  MPI_Allreduce(MPI_IN_PLACE, &placed, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &out.hash, 1, MPI_UINT64_T, MPI_BXOR, comm);
  out.placed = placed == 1;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  Settings s;
  CLI::App app("Eijkhout's moving bell with and without the isocost Balancer");
  app.add_option("--cells-per-rank", s.cells_per_rank, "cells per rank [2000]")
      ->check(CLI::PositiveNumber);
  app.add_option("--steps", s.steps, "time steps [200]")->check(CLI::PositiveNumber);
  app.add_option("--amplitude", s.amplitude, "A: extra work at the peak [9]")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--sigma", s.sigma, "σ: width of the bell [0.05]")->check(CLI::PositiveNumber);
  app.add_option("--every", s.every, "check every k steps [2]")->check(CLI::PositiveNumber);
  app.add_option("--predict", s.predict, "plans in the forecast's trend, >= 2 [8]")
      ->check(CLI::Range(2, 1000));
  app.add_option("--log", s.log, "JSON-lines log of the balanced run's checks (rank 0)");
  app.add_option("--json", s.json_path, "write the summary as JSON to this file ('-': stdout)");
  app.add_option("--plot", s.plot_dir, "write a PNG of the efficiency per step into this folder");
  app.add_flag("--check", s.check,
               "exit 3 unless balancing raises the mean efficiency by at least 0.05");
  app.add_flag("--learn-speeds", s.learn_speeds,
               "the balancers learn the ranks' speeds from the loads (equal here)");
  int code = 0;
  try {
    app.parse(argc, argv);
    const Outcome none = run(s, false, 0, MPI_COMM_WORLD);
    const Outcome bal = run(s, true, 0, MPI_COMM_WORLD);
    const Outcome ahead = run(s, true, s.predict, MPI_COMM_WORLD);
    const auto ok = [&](const Outcome& o) { return o.placed && o.hash == none.hash; };
    const bool all_ok = ok(none) && ok(bal) && ok(ahead);
    if (rank == 0 && s.json_path != "-") {
      std::printf(
          "moving bell: %d ranks, %lld cells, %d steps, A = %g, sigma = %g "
          "(per-rank CPU time)\n",
          P, s.cells_per_rank * P, s.steps, s.amplitude, s.sigma);
      std::printf("%-14s %12s %14s %16s %11s %12s  %s\n", "run", "total (s)", "balancing (s)",
                  "mean efficiency", "rebalances", "cells moved", "cells");
      const auto row = [&](const char* name, const Outcome& o) {
        std::printf("%-14s %12.4f %14.4f %16.3f %11d %12lld  %s\n", name, o.total, o.balancing,
                    o.mean_efficiency, o.rebalances, o.moved, ok(o) ? "ok" : "WRONG");
      };
      row("no balancing", none);
      row("Balancer", bal);
      row("+ forecast", ahead);
      std::printf("total time %+.1f %% (Balancer), %+.1f %% (with the forecast)\n",
                  100 * (bal.total / none.total - 1), 100 * (ahead.total / none.total - 1));
    }
    if (rank == 0 && !s.json_path.empty()) {
      using nlohmann::json;
      const auto run_json = [&](const Outcome& o) {
        return json{{"total", o.total},
                    {"balancing", o.balancing},
                    {"mean_efficiency", o.mean_efficiency},
                    {"rebalances", o.rebalances},
                    {"cells_moved", o.moved},
                    {"check_ok", ok(o)},
                    {"efficiency", o.efficiency}};
      };
      const json j = {
          {"example", "moving_bell"},
          {"ranks", P},
          {"cells", s.cells_per_rank * P},
          {"steps", s.steps},
          {"every", s.every},
          {"predict", s.predict},
          {"clock", "cpu"},
          {"efficiency_before", none.mean_efficiency},
          {"efficiency_after", ahead.mean_efficiency},
          {"time_none", none.total},
          {"time_balanced", ahead.total},
          {"check_ok", all_ok},
          {"runs",
           {{"none", run_json(none)}, {"balancer", run_json(bal)}, {"forecast", run_json(ahead)}}}};
      examples::write_summary(s.json_path, j.dump(2) + "\n");
    }
    if (rank == 0 && !s.plot_dir.empty()) {
      std::filesystem::create_directories(s.plot_dir);
      isocost::plot::Figure f;
      f.title = "Eijkhout's moving bell: efficiency T_avg/T_max of every step";
      f.xlabel = "step";
      f.ylabel = "efficiency";
      const std::pair<const char*, const Outcome*> named[] = {
          {"no balancing", &none}, {"Balancer", &bal}, {"with the forecast", &ahead}};
      for (const auto& [name, o] : named)
        f.series.push_back(isocost::plot::per_step(name, o->efficiency));
      isocost::plot::render_png(f, s.plot_dir + "/moving_bell_efficiency.png");
    }
    if (!all_ok) {
      if (rank == 0) std::fprintf(stderr, "moving_bell: a run lost, misplaced or changed cells\n");
      code = 1;
    }
    if (code == 0 && s.check && !(bal.mean_efficiency >= none.mean_efficiency + 0.05)) code = 3;
  } catch (const CLI::ParseError& e) {
    code = rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
  } catch (const isocost::Error& e) {
    if (rank == 0) std::fprintf(stderr, "moving_bell: error: %s\n", e.what());
    code = 2;
  }
  MPI_Finalize();
  return code;
}
