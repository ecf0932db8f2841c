// isocost/trigger.hpp — when to look at the balance: the "Initiate" phase of
// the balancing pipeline, as pure functions on numbers. No MPI: the mpi layer
// reduces the ranks' loads to (T_min, T_avg, T_max) and calls check_trigger()
// on every rank, getting the same answer everywhere.
//
// Every k steps the check fires on drift (T_max − T_min)/T_avg > threshold
// (Swartz §6) and/or on efficiency T_avg/T_max < mineff (Watts §3.2.3).
// Whether firing pays off and what to do then is strategy.hpp.
//
//   isocost::TriggerOptions trigger;               // every 10 steps, drift > 10 %
//   auto t = isocost::check_trigger(step, loads, trigger);
//   if (t.fired) { /* assess_profitability(), choose_strategy() */ }
#pragma once

#include <optional>
#include <span>
#include <string>

#include "isocost/options.hpp"

namespace isocost {

/// When check_trigger() fires. At least one criterion must be set.
struct TriggerOptions {
  /// k: check every k-th step (steps k, 2k, …), >= 1. Each check costs a
  /// global reduction, so it cannot run every step (Swartz §6: "every 10th").
  int every = 10;
  /// Fire when (T_max − T_min)/T_avg > drift_threshold (Swartz §6: 10 %);
  /// finite, >= 0. Empty: drift is not checked.
  std::optional<double> drift_threshold = 0.10;
  /// Fire when the efficiency T_avg/T_max < min_efficiency (Watts's
  /// `mineff`, §3.2.3); in (0, 1]. Empty: efficiency is not checked.
  std::optional<double> min_efficiency;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("every", self.every, at_least(1));
    v("drift_threshold", self.drift_threshold, at_least(0));
    v("min_efficiency", self.min_efficiency, left_open(0, 1));
  }
  /// The fields in range, and at least one criterion set.
  bool is_valid(std::string* why) const;
  /// Throws Error("trigger: …") unless is_valid().
  void validate() const { validate_options(*this, "trigger"); }
};

/// True when `step` (steps completed, >= 0) is a check step: step > 0 and
/// step % every == 0. Throws Error if every < 1 or step < 0.
bool is_check_step(long long step, int every);

/// The outcome of one check, with the numbers it was decided on.
struct TriggerCheck {
  long long step = 0;
  bool due = false;               ///< a check step (is_check_step)
  bool drift_fired = false;       ///< due and drift > drift_threshold
  bool efficiency_fired = false;  ///< due and efficiency < min_efficiency
  bool fired = false;             ///< drift_fired || efficiency_fired
  double t_min = 0, t_avg = 0, t_max = 0;
  double drift = 0;       ///< (T_max − T_min)/T_avg, 0 when all loads are 0 (Swartz §6)
  double efficiency = 1;  ///< T_avg/T_max, 1 when all loads are 0 (Watts)
  std::optional<double> drift_threshold, min_efficiency;  ///< the criteria used

  std::string brief_report() const;
};

/// Checks the load of every rank at `step`. Throws Error on invalid options,
/// step < 0, or loads that are empty, negative or not finite.
TriggerCheck check_trigger(long long step, std::span<const double> loads,
                           const TriggerOptions& options = {});
/// The same from reduced numbers (what one MPI_Allreduce gives): requires
/// 0 <= t_min <= t_avg <= t_max, all finite.
TriggerCheck check_trigger(long long step, double t_min, double t_avg, double t_max,
                           const TriggerOptions& options = {});

}  // namespace isocost
