// The scenarios of the cost_model example (Pearce §7.2) and one real run of
// each strategy on them: the work profile, the calibration of the rebalance
// cost (Pearce eqs 5–6) and the timed runs.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "isocost/mpi/block_balancer.hpp"
#include "isocost/strategy.hpp"

namespace cost_model {

/// A chain of N elements in blocks whose element i costs units(i) units of
/// real work per step, kMeanUnits on average whatever the shape, scaled so
/// that the heaviest uniform block holds `imbalance` times the mean block
/// (T_max/T_avg = 1 + λ, Pearce eq. 1's λ as a fraction).
struct Profile {
  std::string shape;       ///< "ramp": ∝ 1 + a·x; "hot": ∝ 1 + a·exp(−((x − c)/σ)²)
  double target = 1;       ///< the T_max/T_avg asked for
  double amplitude = 0;    ///< a, found by bisection
  double mean_f = 0;       ///< the shape's mean over the elements
  double imbalance = 1;    ///< the T_max/T_avg the integer units reach
  long long elements = 0;  ///< N
  int ranks = 1;           ///< P, where the hot spot sits
  int units(long long i) const;  ///< units of element i, >= 1
};

/// Mean units of work per element: enough that rounding the profile to
/// whole units moves T_max/T_avg by well under 1 % (with 12, every light
/// element of a hot spot dropped from 12 to 11 units at once, and no hot
/// spot between 1.0 and 1.12 existed).
inline constexpr double kMeanUnits = 192;

/// The profile on `ranks` uniform blocks of `elements` elements. A ramp
/// cannot reach T_max/T_avg ≥ 2 − 1/P (all work at the far end), so "ramp"
/// becomes "hot" above 80 % of that; the hot spot saturates near P.
Profile make_profile(std::string shape, double target, long long elements, int ranks);

/// One scenario of the suite: a profile and the steps the run lasts.
struct Scenario {
  Profile profile;
  int steps = 0;  ///< S, including the first step, whose loads the decision sees
};

/// `units` units of real floating-point work: iterations of the logistic
/// map, chaotic, so that a cell computed differently (or twice) ends with
/// another value.
double work(double v, int units);
/// One step's work on a rank's cells: value[k] = work(value[k], units[k]).
void step_work(std::vector<double>& value, const std::vector<std::int32_t>& units);

/// Pearce eq. 5, measured: C_global = C_LbDecision + C_DataMvmt, from timed
/// global rebalances of N elements (CPU s, slowest rank) just before a
/// scenario runs, as a code would measure what its rebalances cost.
struct Calibration {
  double decision = 0;      ///< C_LbDecision: decide(), set_costs() included
  isocost::CommModel comm;  ///< eq. 6: apply() = latency + per_byte·bytes received
  int samples = 0;          ///< profiles timed (median(): calibrations merged)
};
/// Collective over `comm`: a ramp (T_max/T_avg 1.3) and a hot spot (2.5) of
/// `elements` elements, each rebalanced 3 times; the fastest of each counts.
Calibration calibrate(MPI_Comm comm, long long elements);
/// The field-by-field median of calibrations of one N (the upper middle of
/// an even count): a code's history of what its rebalances cost, in which
/// one slow spell of the machine is outvoted. `history` is not empty.
Calibration median(const std::vector<Calibration>& history);
/// Collective: CPU seconds of one unit of work (slowest rank), for the report.
double unit_seconds(MPI_Comm comm);

/// One real run: S steps of the scenario's work under `strategy`, timed.
struct Run {
  isocost::Strategy strategy = isocost::Strategy::none;
  double total = 0;            ///< Σ steps' slowest rank + balancing, CPU s
  double balancing = 0;        ///< Σ over balancer calls of the slowest rank's CPU s
  double first_step = 0;       ///< the first step's slowest rank (before any balancing)
  double mean_efficiency = 0;  ///< mean T_avg/T_max over the steps
  int rebalances = 0;
  long long moved = 0;     ///< elements that changed owner, all rebalances
  std::uint64_t hash = 0;  ///< XOR of mix64(index ^ mix64(value bits)) over cells
  bool blocks_ok = false;  ///< every rank holds exactly its block of indices
  /// The first rebalance, for the calibration: decide() and apply(), slowest
  /// rank's CPU s, and the bytes the busiest receiver got.
  double decide_seconds = 0, apply_seconds = 0, received_bytes = 0;
};

/// What the Balancer with Pearce's choice (BalancePolicy::choose) decided
/// at the first step: the run without balancing asks it and ignores it.
/// Its inputs are that step's measured loads and the Calibration.
struct Verdict {
  isocost::Strategy action = isocost::Strategy::none;  ///< after profitability
  std::string reason;
  isocost::StrategyChoice choice;  ///< eqs 9–11 for the remaining S − 1 steps
  double first_step = 0;           ///< the measured step the loads came from
};

/// Runs `scenario` under `strategy` alone (collective over `comm`): none
/// never balances; global repartitions once after the first step (Pearce
/// eq. 9); diffusion checks after every step and diffuses while
/// T_max > 1.05·T_avg (eq. 10).
Run run(MPI_Comm comm, const Scenario& scenario, isocost::Strategy strategy,
        const Calibration& calibration);

/// The three runs of `scenario` (none, global, diffusion) advanced in
/// lockstep — step k of each, then step k + 1 — so that other work on the
/// machine, which comes and goes, slows all three alike. The run without
/// balancing asks the cost model at its first step (`verdict`). Collective.
std::array<Run, 3> run_lockstep(MPI_Comm comm, const Scenario& scenario,
                                const Calibration& calibration, Verdict& verdict);

}  // namespace cost_model
