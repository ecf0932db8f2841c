// drift — Swartz §6: a load that changes as the run goes on, checked every
// k-th step and repartitioned when (T_max − T_min)/T_avg exceeds a threshold
// (Load balancing using Newton's method on MPP systems, §6).
//
// N cells on [0, 1) in blocks; cell i does w(x_i, t) = 1 + A·(t/T)·x_i^3 units
// of real floating-point work in step t, so the load starts even and drifts
// towards the right end. The same run is made without balancing and with a
// BlockBalancer for each threshold (Swartz's 10 % among them): its trigger
// checks every --every steps, fires on drift, and a global repartition
// follows when the cost model says it pays. Each run's cells carry their
// global index and their value, both migrated; at the end every rank must
// hold exactly its block of indices, and the order-free hash of (index,
// value) must equal the unbalanced run's: nothing lost, duplicated or
// computed differently.
//
//   mpiexec -n 4 drift [--steps 300] [--thresholds 0.05,0.1,0.2,0.4] [--json F] [--plot DIR]
//
// Times are per-rank CPU time; a step's time is the slowest rank's, and the
// total adds the balancer's calls. Exit 0; 1 a check failed; 2 bad arguments.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "example_main.hpp"
#include "example_support.hpp"
#include "isocost/error.hpp"
#include "isocost/mpi/block_balancer.hpp"
#include "isocost/mpi/samples.hpp"
#include "plot/gnuplot.hpp"

namespace {

using json = nlohmann::ordered_json;

struct Settings {
  long long cells_per_rank = 8000;
  int steps = 300;
  double amplitude = 12;
  int every = 10;
  std::vector<double> thresholds{0.05, 0.10, 0.20, 0.40};
  std::string json_path, plot_dir;
};

// One unit of work; the result feeds the next call so nothing is elided.
double work(double v) {
  for (int k = 0; k < 48; ++k) v = std::sqrt(v * v + 1.0) - 0.999;
  return v;
}

struct Check {  // one check of the balanced run
  long long step;
  double drift, efficiency;
  bool fired;
  std::string action, reason;
};

struct Outcome {
  double threshold = -1;  // < 0: no balancing
  double total = 0, balancing = 0, mean_efficiency = 0;
  int checks = 0, fired = 0, rebalances = 0;
  long long moved = 0;
  std::uint64_t hash = 0;  // XOR over cells of examples::mix64(index ^ examples::mix64(value bits))
  bool blocks_ok = true;   // every rank holds exactly its block of indices
  std::vector<Check> trace;
  std::vector<double> efficiency;  // per step: T_avg/T_max
};

Outcome run(const Settings& s, double threshold, MPI_Comm comm) {
  int rank = 0, P = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  const long long N = s.cells_per_rank * P;
  isocost::mpi::BlockBalancerOptions o;
  o.pipeline.monitor.clock = isocost::MonitorClock::cpu;
  o.pipeline.monitor.window = 3;
  o.pipeline.trigger.every = s.every;
  o.pipeline.trigger.drift_threshold = threshold >= 0 ? threshold : 0.1;
  o.pipeline.profit_trigger = false;  // the threshold alone: it is what the runs compare
  o.pipeline.policy = isocost::mpi::BalancePolicy::global;  // Swartz: repartition
  isocost::mpi::BlockBalancer b(comm, isocost::mpi::BlockDistribution::uniform(N, P), o);
  const long long lo0 = b.distribution().begin(rank);
  std::vector<double> value(static_cast<std::size_t>(b.distribution().count(rank)), 0.5);
  std::vector<std::int64_t> index(value.size());
  for (std::size_t k = 0; k < index.size(); ++k) index[k] = lo0 + static_cast<long long>(k);
  Outcome out;
  out.threshold = threshold;
  for (int step = 0; step < s.steps; ++step) {
    const double growth = s.amplitude * step / s.steps;
    {
      auto scope = b.step();
      for (std::size_t k = 0; k < value.size(); ++k) {
        const double x = (static_cast<double>(index[k]) + 0.5) / static_cast<double>(N);
        const int units = 1 + static_cast<int>(growth * x * x * x + 0.5);
        for (int u = 0; u < units; ++u) value[k] = work(value[k]);
      }
    }
    const auto stats = isocost::mpi::gather_load_stats(comm, b.monitor().last_step());
    out.total += stats.max;
    out.efficiency.push_back(stats.efficiency);
    out.mean_efficiency += stats.efficiency;
    if (threshold < 0) continue;
    isocost::mpi::BlockEvent e;
    const double slowest =
        examples::slowest_cpu_seconds(comm, [&] { e = b.maybe_rebalance(value, index); });
    out.total += slowest;
    out.balancing += slowest;
    if (e.checked) {
      ++out.checks;
      const bool fired = e.check.drift_fired || e.check.efficiency_fired;
      out.fired += fired ? 1 : 0;
      out.trace.push_back({e.check.step, e.check.drift, e.check.efficiency, fired,
                           std::string(isocost::to_string(e.action)), e.reason});
    }
    if (e.action != isocost::Strategy::none) {
      ++out.rebalances;
      if (e.migration) out.moved += e.migration->global_elements_moved;
    }
  }
  out.mean_efficiency /= s.steps;
  // The checks: this rank holds exactly its block, and the cells' results.
  const long long lo = b.distribution().begin(rank);
  int ok = static_cast<long long>(index.size()) == b.distribution().count(rank) ? 1 : 0;
  std::uint64_t h = 0;
  for (std::size_t k = 0; k < index.size(); ++k) {
    ok = ok && index[k] == lo + static_cast<long long>(k);
    h ^= examples::mix64(static_cast<std::uint64_t>(index[k]) ^
                         examples::mix64(std::bit_cast<std::uint64_t>(value[k])));
  }
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(&h, &out.hash, 1, MPI_UINT64_T, MPI_BXOR, comm);
  out.blocks_ok = all_ok == 1;
  return out;
}

std::string name_of(const Outcome& o);

// The efficiency of every step of every run, and the checks that rebalanced
// in the shown run as vertical lines.
void plot(const std::string& dir, const std::vector<Outcome>& runs, const Outcome& shown) {
  std::filesystem::create_directories(dir);
  isocost::plot::Figure f;
  f.title = "A drifting load (Swartz §6): efficiency T_avg/T_max of every step";
  f.xlabel = "step";
  f.ylabel = "efficiency";
  for (const auto& r : runs) f.series.push_back(isocost::plot::per_step(name_of(r), r.efficiency));
  for (const auto& c : shown.trace)
    if (c.action != "none") f.vertical_lines.push_back(static_cast<double>(c.step));
  f.vertical_label = "rebalances of " + name_of(shown);
  isocost::plot::render_png(f, dir + "/drift_efficiency.png");
}

std::string name_of(const Outcome& o) {
  if (o.threshold < 0) return "no balancing";
  std::ostringstream s;
  s << "drift > " << 100 * o.threshold << " %";
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  Settings s;
  CLI::App app("Swartz §6: a drifting load, checked every k steps, repartitioned past a threshold");
  app.add_option("--cells-per-rank", s.cells_per_rank, "cells per rank")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--steps", s.steps, "time steps")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--amplitude", s.amplitude, "A: extra work at x = 1 by the last step")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--every", s.every, "check every k steps (Swartz: every 10th)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--thresholds", s.thresholds, "drift thresholds to compare")
      ->delimiter(',')
      ->check(CLI::NonNegativeNumber);
  app.add_option("--json", s.json_path, "write the summary as JSON to this file ('-': stdout)");
  app.add_option("--plot", s.plot_dir, "write a PNG of the efficiency per step into this folder");
  return examples::parse_and_run(app, argc, argv, "drift", [&] {
    std::vector<Outcome> runs{run(s, -1, MPI_COMM_WORLD)};
    for (const double t : s.thresholds) runs.push_back(run(s, t, MPI_COMM_WORLD));
    bool ok = true;
    for (const auto& r : runs) ok = ok && r.blocks_ok && r.hash == runs.front().hash;
    if (rank == 0) {
      std::ostringstream out;
      char line[200];
      out << "drift (Swartz §6): " << P << " ranks, " << s.cells_per_rank * P << " cells, "
          << s.steps << " steps, w = 1 + A(t/T)x^3 with A = " << s.amplitude << ", check every "
          << s.every << " steps (per-rank CPU time)\n";
      std::snprintf(line, sizeof line, "%-16s %10s %13s %15s %7s %6s %11s %12s  %s\n", "run",
                    "total (s)", "balancing (s)", "mean efficiency", "checks", "fired",
                    "rebalances", "cells moved", "cells");
      out << line;
      for (const auto& r : runs) {
        std::snprintf(line, sizeof line, "%-16s %10.4f %13.4f %15.3f %7d %6d %11d %12lld  %s\n",
                      name_of(r).c_str(), r.total, r.balancing, r.mean_efficiency, r.checks,
                      r.fired, r.rebalances, r.moved,
                      r.blocks_ok && r.hash == runs.front().hash ? "ok" : "WRONG");
        out << line;
      }
      // The trace of Swartz's 10 % (or the first threshold given).
      const Outcome* shown = runs.size() > 1 ? &runs[1] : &runs.front();
      for (const auto& r : runs)
        if (r.threshold == 0.10) shown = &r;
      if (shown->threshold >= 0) {
        out << "\nchecks of the run with " << name_of(*shown) << ":\n";
        std::snprintf(line, sizeof line, "%6s %9s %11s %6s %10s  %s\n", "step", "drift %",
                      "efficiency", "fired", "action", "reason");
        out << line;
        for (const auto& c : shown->trace) {
          std::snprintf(line, sizeof line, "%6lld %9.2f %11.3f %6s %10s  %s\n", c.step,
                        100 * c.drift, c.efficiency, c.fired ? "yes" : "no", c.action.c_str(),
                        c.reason.c_str());
          out << line;
        }
      }
      if (s.json_path != "-") std::cout << out.str();
      if (!s.json_path.empty()) {
        json j_runs = json::array();
        for (const auto& r : runs) {
          json trace = json::array();
          for (const auto& c : r.trace)
            trace.push_back({{"step", c.step},
                             {"drift", c.drift},
                             {"efficiency", c.efficiency},
                             {"fired", c.fired},
                             {"action", c.action},
                             {"reason", c.reason}});
          j_runs.push_back({{"name", name_of(r)},
                            {"threshold", r.threshold < 0 ? json(nullptr) : json(r.threshold)},
                            {"total", r.total},
                            {"balancing", r.balancing},
                            {"mean_efficiency", r.mean_efficiency},
                            {"checks", r.checks},
                            {"fired", r.fired},
                            {"rebalances", r.rebalances},
                            {"cells_moved", r.moved},
                            {"check_ok", r.blocks_ok && r.hash == runs.front().hash},
                            {"trace", trace}});
        }
        const Outcome& best = *shown;
        const json j = {{"example", "drift"},
                        {"ranks", P},
                        {"efficiency_before", runs.front().mean_efficiency},
                        {"efficiency_after", best.mean_efficiency},
                        {"time_none", runs.front().total},
                        {"time_balanced", best.total},
                        {"check_ok", ok},
                        {"runs", j_runs}};
        examples::write_summary(s.json_path, j.dump(2) + "\n");
      }
      if (!s.plot_dir.empty()) plot(s.plot_dir, runs, *shown);
      if (!ok) std::cerr << "drift: a run lost, duplicated or changed cells\n";
    }
    return ok ? 0 : 1;
  });
}
