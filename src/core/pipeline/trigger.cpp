// The trigger (trigger.hpp): drift and efficiency checks every k steps.
#include "isocost/trigger.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/common/check_number.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

using detail::check_number;
using detail::exact;

namespace {

std::string optional_text(const std::optional<double>& x) { return x ? exact(*x) : "off"; }

}  // namespace

bool TriggerOptions::is_valid(std::string* why) const {
  if (!check_fields(*this, why)) return false;
  if (!drift_threshold && !min_efficiency) {
    if (why) *why = "neither drift_threshold nor min_efficiency is set; expected at least one";
    return false;
  }
  return true;
}

bool is_check_step(long long step, int every) {
  if (every < 1)
    throw Error(
        detail::expected_got("trigger: every (k)", "an integer >= 1", std::to_string(every)));
  if (step < 0) throw Error(detail::expected_got("trigger: step", ">= 0", std::to_string(step)));
  return step > 0 && step % every == 0;
}

TriggerCheck check_trigger(long long step, double t_min, double t_avg, double t_max,
                           const TriggerOptions& o) {
  o.validate();
  check_number(t_min, "trigger: t_min");
  check_number(t_avg, "trigger: t_avg");
  check_number(t_max, "trigger: t_max");
  // Rounding in a reduced mean may put it a hair outside [min, max].
  const double slack = 1e-12 * t_max;
  if (t_min > t_avg + slack || t_avg > t_max + slack)
    throw Error("trigger: expected t_min <= t_avg <= t_max, got " + exact(t_min) + ", " +
                exact(t_avg) + ", " + exact(t_max));
  if (t_max > 0 && !(t_avg > 0))
    throw Error("trigger: t_avg = 0 with t_max = " + exact(t_max) +
                "; a mean of times >= 0 is 0 only if all are");
  TriggerCheck c;
  c.step = step;
  c.due = is_check_step(step, o.every);
  c.t_min = t_min;
  c.t_avg = t_avg;
  c.t_max = t_max;
  c.drift_threshold = o.drift_threshold;
  c.min_efficiency = o.min_efficiency;
  if (t_max > 0) {
    c.drift = (t_max - t_min) / t_avg;  // Swartz §6
    c.efficiency = t_avg / t_max;       // Watts §3.2.3
  }
  if (c.due) {
    c.drift_fired = o.drift_threshold && c.drift > *o.drift_threshold;
    c.efficiency_fired = o.min_efficiency && c.efficiency < *o.min_efficiency;
  }
  c.fired = c.drift_fired || c.efficiency_fired;
  return c;
}

TriggerCheck check_trigger(long long step, std::span<const double> loads, const TriggerOptions& o) {
  if (loads.empty()) throw Error("trigger: no loads; expected one per rank");
  for (std::size_t i = 0; i < loads.size(); ++i)
    check_number(loads[i], "trigger: load of rank " + std::to_string(i));
  double sum = 0;
  for (double x : loads) sum += x;
  const auto [mn, mx] = std::minmax_element(loads.begin(), loads.end());
  const double avg = std::clamp(sum / static_cast<double>(loads.size()), *mn, *mx);
  return check_trigger(step, *mn, avg, *mx, o);
}

std::string TriggerCheck::brief_report() const {
  std::ostringstream out;
  out << "trigger at step " << step << ": " << (due ? "" : "not a check step; ") << "T_min "
      << exact(t_min) << ", T_avg " << exact(t_avg) << ", T_max " << exact(t_max) << "; drift "
      << exact(drift) << " (threshold " << optional_text(drift_threshold)
      << (drift_fired ? ", FIRED" : "") << "), efficiency " << exact(efficiency) << " (mineff "
      << optional_text(min_efficiency) << (efficiency_fired ? ", FIRED" : "") << ") -> "
      << (fired ? "rebalance" : "no rebalance");
  return out.str();
}

}  // namespace isocost
