// particles — Watts §4.1 and §4.2 as a real MPI program: a DSMC-like cell
// grid whose particles move every step (A Practical Approach to Dynamic Load
// Balancing, Caltech 1995, ch. 4).
//
// Half the cells are dead, and where particles fly their density varies
// tenfold (particles_model.hpp). Cells are block-distributed in Morton order;
// each step the particles move, exchange() sends each to the owner of its
// cell, and the cells do their work. Six runs of the same particles:
//   §4.1, one phase (DSMC: move, collide ∝ particles)
//     no balancing        the equal split of the cells throughout
//     per-cell costs      the BlockBalancer, every k steps, cuts the cell
//                         order on per-cell costs (each rank's measured time
//                         spread over its cells by their particles) and
//                         migrates the cells; the particles follow them
//   §4.2, two phases (PIC: push ∝ particles, field solve ∝ cells)
//     no balancing
//     total               the same on each cell's total, α·particles + β
//     balance_phases      the BlockBalancer's per-phase plan, one block a rank
//     vector              the library's plan_pieces() (isocost/pieces.hpp):
//                         chunks of cells re-ordered so that particle-rich
//                         and particle-poor ones alternate (Watts Fig. 4.12:
//                         several partitions per computer) and cut by their
//                         measured phase costs, then balance_phases
// Every run must end with every particle once, on the owner of its cell, and
// with the same bits of state (position, work result) as the unbalanced run
// of its kind, and every cell with the unbalanced run's value: exit 1 if not.
//
//   mpiexec -n 4 particles [--grid 256] [--steps 100] [--json F|-] [--plot DIR]
//
// Times are per-rank CPU time (4 ranks share 2 cores). A step's time is the
// slowest rank's busy time (PIC: Σ over phases of the slowest rank's, the
// phases being synchronised by the particle exchange); a run's time adds its
// rebalances. Exit 0; 1 a check failed; 2 bad arguments.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "example_main.hpp"
#include "example_support.hpp"
#include "isocost/error.hpp"
#include "particles_model.hpp"
#include "particles_plot.hpp"
#include "particles_run.hpp"

namespace {

using json = nlohmann::ordered_json;
using particles::Outcome;
using particles::Scheme;

// Means over the steps after the first rebalance (Watts Fig. 4.4 compares
// the steps before and after balancing), or all steps of an unbalanced run.
struct Means {
  double efficiency, push, field, synchronised, all_steps;
};
Means means(const Outcome& o) {
  const int from = std::max(o.balanced_from, 0);
  return {particles::mean_from(o.efficiency, from), particles::mean_from(o.push, from),
          particles::mean_from(o.field, from), particles::mean_from(o.synchronised, from),
          particles::mean_from(o.pic ? o.synchronised : o.efficiency)};
}

bool checked(const Outcome& o, const Outcome& reference) {
  return o.ids_ok && o.placed_ok && o.cells_ok && o.particle_hash == reference.particle_hash &&
         o.cell_hash == reference.cell_hash;
}

json to_json(const Outcome& o, const Outcome& reference) {
  const Means m = means(o);
  json j = {{"name", particles::name_of(o.scheme)},
            {"time", o.time},
            {"balancing", o.balancing},
            {"rebalances", o.rebalances},
            {"reorders", o.reorders},
            {"cells_moved", o.cells_moved},
            {"balanced_from_step", o.balanced_from},
            {"efficiency", m.efficiency}};
  if (o.pic) {
    j["push_efficiency"] = m.push;
    j["field_efficiency"] = m.field;
    j["synchronised_efficiency"] = m.synchronised;
    j["synchronised_efficiency_all_steps"] = m.all_steps;
  } else {
    j["efficiency_all_steps"] = m.all_steps;
  }
  j["check_ok"] = checked(o, reference);
  j["per_step"] = o.pic ? json{{"total", o.efficiency},
                               {"push", o.push},
                               {"field", o.field},
                               {"synchronised", o.synchronised}}
                        : json{{"efficiency", o.efficiency}};
  return j;
}

std::string report(const particles::Model& model, const particles::RunOptions& ro, int P,
                   const std::vector<Outcome>& runs, bool ok) {
  std::ostringstream out;
  char line[256];
  out << "particles (Watts §4.1–4.2): " << P << " ranks, " << model.n << "x" << model.n
      << " cells in Morton order (half dead), " << model.particles() << " particles ("
      << model.vortex_particles() << " in a disc " << model.contrast << "x as dense), " << ro.steps
      << " steps, checks every " << ro.every << " (mineff " << ro.mineff
      << "); per-rank CPU time\n";
  out << "efficiency: T_avg/T_max per step, mean over the steps after the first rebalance "
         "(all steps without balancing)\n\n";
  std::snprintf(line, sizeof line, "%-22s %10s %10s %9s %13s %10s %12s  %s\n", "DSMC (one phase)",
                "efficiency", "all steps", "time (s)", "balancing (s)", "rebalances", "cells moved",
                "check");
  out << line;
  for (std::size_t k = 0; k < 2; ++k) {
    const Means m = means(runs[k]);
    std::snprintf(line, sizeof line, "%-22s %10.3f %10.3f %9.3f %13.3f %10d %12lld  %s\n",
                  particles::name_of(runs[k].scheme).c_str(), m.efficiency, m.all_steps,
                  runs[k].time, runs[k].balancing, runs[k].rebalances, runs[k].cells_moved,
                  checked(runs[k], runs[0]) ? "ok" : "WRONG");
    out << line;
  }
  if (runs.size() > 2) {
    std::snprintf(line, sizeof line, "\n%-22s %6s %6s %6s %13s %9s %13s %10s  %s\n",
                  "PIC (two phases)", "push", "field", "total", "synchronised", "time (s)",
                  "balancing (s)", "rebalances", "check");
    out << line;
    for (std::size_t k = 2; k < runs.size(); ++k) {
      const Means m = means(runs[k]);
      const std::string moves =
          std::to_string(runs[k].rebalances) +
          (runs[k].reorders ? "+" + std::to_string(runs[k].reorders) + "R" : "");
      std::snprintf(line, sizeof line, "%-22s %6.3f %6.3f %6.3f %13.3f %9.3f %13.3f %10s  %s\n",
                    particles::name_of(runs[k].scheme).c_str(), m.push, m.field, m.efficiency,
                    m.synchronised, runs[k].time, runs[k].balancing, moves.c_str(),
                    checked(runs[k], runs[2]) ? "ok" : "WRONG");
      out << line;
    }
    out << "(synchronised: Σ_phases T_avg / Σ_phases T_max, Watts §4.2; R: re-orders of the "
           "vector run)\n";
    const Outcome& v = runs.back();
    if (v.reorders > 0) {
      std::snprintf(line, sizeof line,
                    "vector: plan_pieces() predicted synchronised %.3f on the measured chunk "
                    "costs, one block per rank %.3f\n",
                    v.planned_synchronised, v.planned_block_synchronised);
      out << line;
    }
  }
  // The efficiency of every k-th step.
  out << "\n";
  std::snprintf(line, sizeof line, "%6s %10s %10s", "step", "DSMC none", "DSMC costs");
  out << line;
  const char* pic_names[] = {"PIC none", "PIC total", "PIC phases", "PIC vector"};
  for (std::size_t k = 2; k < runs.size(); ++k) {
    std::snprintf(line, sizeof line, " %10s", pic_names[k - 2]);
    out << line;
  }
  out << "\n";
  for (int s = 0; s < ro.steps; ++s) {
    if (s % ro.every != 0 && s != ro.steps - 1) continue;
    std::snprintf(line, sizeof line, "%6d %10.3f %10.3f", s + 1, runs[0].efficiency[s],
                  runs[1].efficiency[s]);
    out << line;
    for (std::size_t k = 2; k < runs.size(); ++k) {
      std::snprintf(line, sizeof line, " %10.3f", runs[k].synchronised[s]);
      out << line;
    }
    out << "\n";
  }
  out << "(PIC columns: the phase-synchronised efficiency)\n";
  const Means before = means(runs[0]), after = means(runs[1]);
  std::snprintf(line, sizeof line,
                "\nWatts §4.1 (DSMC, 256 Paragon nodes): 11 %% -> 86 %%.  Here, %d ranks: "
                "%.1f %% -> %.1f %%, time %.3f s -> %.3f s (%+.0f %%)\n",
                P, 100 * before.efficiency, 100 * after.efficiency, runs[0].time, runs[1].time,
                100 * (runs[1].time / runs[0].time - 1));
  out << line;
  out << (ok ? "checks: every run conserved its particles and cells, bit for bit\n"
             : "checks: FAILED\n");
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  particles::Model model;
  particles::RunOptions ro;
  bool dsmc_only = false;
  std::string json_path, plot_dir;
  CLI::App app("Watts §4.1-4.2: particles that move every step, balanced by cells and by phases");
  app.add_option("--grid", model.n, "cells per side (a power of 2)")
      ->check(CLI::Range(16, 4096))
      ->capture_default_str();
  app.add_option("--per-cell", model.per_cell, "background particles per live cell")
      ->check(CLI::Range(0.1, 1000.0))
      ->capture_default_str();
  app.add_option("--contrast", model.contrast, "the vortex disc's density over the background's")
      ->check(CLI::Range(1.0, 1000.0))
      ->capture_default_str();
  app.add_option("--steps", ro.steps, "time steps")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--every", ro.every, "check every k steps")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--mineff", ro.mineff, "Watts's mineff: a check fires below this efficiency")
      ->check(CLI::Range(0.01, 1.0))
      ->capture_default_str();
  app.add_option("--chunk", ro.chunk, "cells per chunk of the vector run's order (a power of 4)")
      ->capture_default_str();
  app.add_option("--collide-units", model.collide_units, "DSMC work per particle and step")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  app.add_option("--push-units", model.push_units, "PIC push work per particle and step")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  app.add_option("--field-units", model.field_units, "PIC field work per cell and step")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  app.add_flag("--dsmc-only", dsmc_only, "only the one-phase runs (§4.1)");
  app.add_flag("--learn-speeds", ro.learn_speeds,
               "the balancers learn the ranks' speeds from the loads (equal here)");
  app.add_option("--json", json_path, "write the summary as JSON to this file ('-': stdout)");
  app.add_option("--plot", plot_dir, "write PNGs of the efficiency per step into this folder");
  return examples::parse_and_run(app, argc, argv, "particles", [&] {
    const auto power_of = [](std::int64_t v, int base) {
      while (v > 1 && v % base == 0) v /= base;
      return v == 1;
    };
    if (!power_of(model.n, 2))
      throw isocost::Error("--grid " + std::to_string(model.n) + ": expected a power of 2");
    if (ro.chunk < 1 || !power_of(ro.chunk, 4) || ro.chunk > model.cells() / P)
      throw isocost::Error(
          "--chunk " + std::to_string(ro.chunk) +
          ": expected a power of 4 of at most cells/ranks = " + std::to_string(model.cells() / P));
    std::vector<Outcome> runs;
    for (const Scheme s : {Scheme::none, Scheme::costs}) {
      ro.scheme = s;
      ro.pic = false;
      runs.push_back(particles::run(model, ro, MPI_COMM_WORLD));
    }
    if (!dsmc_only)
      for (const Scheme s : {Scheme::none, Scheme::total, Scheme::phases, Scheme::vector}) {
        ro.scheme = s;
        ro.pic = true;
        runs.push_back(particles::run(model, ro, MPI_COMM_WORLD));
      }
    bool ok = true;
    for (std::size_t k = 0; k < runs.size(); ++k) ok = ok && checked(runs[k], runs[k < 2 ? 0 : 2]);
    if (rank == 0) {
      const std::string text = report(model, ro, P, runs, ok);
      if (json_path != "-") std::cout << text;
      if (!json_path.empty()) {
        json dsmc = json::array(), pic = json::array();
        for (std::size_t k = 0; k < runs.size(); ++k)
          (k < 2 ? dsmc : pic).push_back(to_json(runs[k], runs[k < 2 ? 0 : 2]));
        json j = {{"example", "particles"},
                  {"ranks", P},
                  {"cells", model.cells()},
                  {"particles", model.particles()},
                  {"steps", ro.steps},
                  {"every", ro.every},
                  {"clock", "cpu"},
                  {"efficiency_before", means(runs[0]).efficiency},
                  {"efficiency_after", means(runs[1]).efficiency},
                  {"efficiency_after_all_steps", means(runs[1]).all_steps},
                  {"time_none", runs[0].time},
                  {"time_balanced", runs[1].time},
                  {"check_ok", ok},
                  {"watts", {{"efficiency_before", 0.11}, {"efficiency_after", 0.86}}},
                  {"dsmc", dsmc}};
        if (runs.size() == 6) {
          const auto phase = [&](const Outcome& o) {
            const Means m = means(o);
            return json{{"push", m.push},
                        {"field", m.field},
                        {"total", m.efficiency},
                        {"synchronised", m.synchronised},
                        {"time", o.time}};
          };
          j["phases"] = {{"none", phase(runs[2])},
                         {"total_balanced", phase(runs[3])},
                         {"balance_phases", phase(runs[4])},
                         {"vector_balanced", phase(runs[5])},
                         {"vector_planned",
                          {{"synchronised", runs[5].planned_synchronised},
                           {"one_block_per_rank", runs[5].planned_block_synchronised}}},
                         {"runs", pic}};
        }
        examples::write_summary(json_path, j.dump(2) + "\n");
      }
      if (!plot_dir.empty()) particles::plot(plot_dir, runs, P);
      if (!ok) std::cerr << "particles: a run lost, misplaced or changed particles or cells\n";
    }
    return ok ? 0 : 1;
  });
}
