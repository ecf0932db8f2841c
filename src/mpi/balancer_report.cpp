// What a decision says, as JSON for the log and as text (balancer.hpp).
#include "mpi/balancer_report.hpp"

#include <cmath>
#include <sstream>

#include "isocost/detail/text.hpp"

namespace isocost::mpi {

using isocost::detail::exact;

std::string_view to_string(BalancePolicy policy) {
  switch (policy) {
    case BalancePolicy::choose:
      return "choose";
    case BalancePolicy::global:
      return "global";
    case BalancePolicy::diffusion:
      return "diffusion";
  }
  return "?";
}

std::string Decision::brief_report() const {
  std::ostringstream out;
  out << "step " << step;
  if (!checked) return out.str() + ": no check";
  out << ": check at step " << check.step << " (T_max " << exact(check.t_max) << ", T_avg "
      << exact(check.t_avg) << ", drift " << exact(check.drift) << ", efficiency "
      << exact(check.efficiency) << (check.fired ? ", fired" : "") << ")"
      << (phase_check
              ? "; phases synchronised: drift " + exact(phase_check->drift) + ", efficiency " +
                    exact(phase_check->efficiency) + (phase_check->fired ? ", fired" : "")
              : std::string())
      << (following ? "; planned below the trigger: the forecast follows a moving load" : "")
      << (pays ? "; planned below the trigger: a rebalance would pay" : "") << " -> "
      << isocost::to_string(action) << ": " << reason;
  return out.str();
}

namespace detail {

nlohmann::ordered_json decision_json(const Decision& d) {
  nlohmann::ordered_json j;
  j["step"] = d.step;
  j["checked"] = d.checked;
  if (d.checked) {
    const TriggerCheck& c = d.check;
    j["check"] = {{"step", c.step},
                  {"t_min", c.t_min},
                  {"t_avg", c.t_avg},
                  {"t_max", c.t_max},
                  {"drift", c.drift},
                  {"efficiency", c.efficiency},
                  {"drift_fired", c.drift_fired},
                  {"efficiency_fired", c.efficiency_fired},
                  {"fired", c.fired}};
  }
  if (d.following) j["following"] = true;
  if (d.pays) j["pays"] = true;
  if (d.phase_check) {
    const TriggerCheck& c = *d.phase_check;
    j["phase_check"] = {{"t_min", c.t_min}, {"t_avg", c.t_avg},           {"t_max", c.t_max},
                        {"drift", c.drift}, {"efficiency", c.efficiency}, {"fired", c.fired}};
  }
  if (d.gain)
    j["gain"] = {{"rebalance_step", d.gain->rebalance_step},
                 {"t_max_before", d.gain->t_max_before},
                 {"t_max_after", d.gain->t_max_after},
                 {"predicted_t_max", d.gain->predicted_t_max},
                 {"measured_gain_per_step", d.gain->t_max_before - d.gain->t_max_after},
                 {"predicted_gain_per_step", d.gain->t_max_before - d.gain->predicted_t_max},
                 {"cost_seconds", d.gain->cost_seconds}};
  if (d.profit)
    j["profit"] = {{"saving", d.profit->saving},
                   {"cost", d.profit->cost},
                   {"source", to_string(d.profit->source)},
                   {"received_bytes", d.received_bytes},
                   {"profitable", d.profit->profitable}};
  if (d.choice) j["choice"] = nlohmann::ordered_json::parse(d.choice->to_json());
  j["action"] = isocost::to_string(d.action);
  j["reason"] = d.reason;
  if (d.moves()) j["decision_seconds"] = d.decision_seconds;
  return j;
}

void add_migration(nlohmann::ordered_json& j, const RedistributeSummary& s, double seconds) {
  j["migration"] = {{"global_elements_moved", s.global_elements_moved},
                    {"global_bytes_moved", s.global_bytes_moved},
                    {"verified", s.verified}};
  j["seconds"] = seconds;
}

std::string decision_lines(const Decision& d) {
  std::string s = d.brief_report() + "\n";
  if (!d.checked) return s;
  s += "  " + d.check.brief_report() + "\n";
  if (d.gain)
    s += "  last rebalance (step " + std::to_string(d.gain->rebalance_step) + "): T_max " +
         exact(d.gain->t_max_before) + " -> " + exact(d.gain->t_max_after) + " measured, " +
         exact(d.gain->predicted_t_max) + " predicted, cost " + exact(d.gain->cost_seconds) +
         " s\n";
  if (d.choice) s += "  " + d.choice->brief_report() + "\n";
  if (d.profit) s += "  " + d.profit->brief_report() + "\n";
  return s;
}

const char* learning_conflict(bool learn_speeds, bool speeds_given, int history) {
  if (learn_speeds && speeds_given)
    return "learn_speeds: expected no given speeds (they are learned), got speeds";
  if (learn_speeds && history < 1)
    return "learn_speeds: expected global.history >= 1 (the rounds it learns from), got 0";
  return nullptr;
}

}  // namespace detail

}  // namespace isocost::mpi
