// The cost_model example's outcome per scenario and its report: the table,
// the summary, --json and --plot (see cost_model.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "cost_model_scenarios.hpp"

namespace cost_model {

/// The command line.
struct Settings {
  /// Initial T_max/T_avg, ramp and hot spot alternately (at most P).
  std::vector<double> imbalances{1.05, 1.1, 1.2, 1.35, 1.6, 2.2, 3.5};
  std::vector<long long> elements_per_rank{250, 1000, 4000};  ///< N/P
  std::vector<int> steps{5, 25, 200};                         ///< S, the first step included
  double tolerance = 0.03;  ///< a choice this close to the fastest is a tie
  int repeats = 2;          ///< lockstep repeats; each strategy's fastest counts
  std::string json_path, plot_dir;
};

inline constexpr std::array<isocost::Strategy, 3> kStrategies{
    isocost::Strategy::none, isocost::Strategy::global, isocost::Strategy::diffusion};

/// One scenario's outcome: each strategy's fastest repeat, the model's
/// verdict, and whether it was the fastest.
struct Row {
  Scenario scenario;
  Calibration calibration;  // C_global's parts, measured just before
  std::array<Run, 3> runs;  // none, global, diffusion
  Verdict verdict;
  isocost::Strategy fastest = isocost::Strategy::none;
  double lost = 0;  // time(choice)/time(fastest) − 1
  bool strict = false, tolerant = false, cells_ok = false;
  double time(isocost::Strategy s) const { return runs[static_cast<std::size_t>(s)].total; }
  // The model's prediction of the whole run: the first step as measured,
  // then eqs 9–11 for the remaining S − 1 steps.
  double predicted(isocost::Strategy s) const {
    const auto& c = verdict.choice;
    const double rest = s == isocost::Strategy::none     ? c.time_none
                        : s == isocost::Strategy::global ? c.time_global
                                                         : c.time_diffusion;
    return verdict.first_step + rest;
  }
};

/// Rank 0 prints the table and the summary and writes --json and --plot;
/// every rank returns the exit code: 0, or 1 if a run lost or changed cells.
int report(const Settings& s, int P, double unit_seconds, const std::vector<Row>& rows, double wall,
           int rank);

}  // namespace cost_model
