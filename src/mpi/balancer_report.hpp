// Internal to the balancers: the JSON and text of a decision, shared by the
// block and grid events' to_json() and reports (balancer_report.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "isocost/detail/text.hpp"
#include "isocost/learn_speeds.hpp"
#include "isocost/mpi/balancer.hpp"
#include "isocost/mpi/redistribute.hpp"
#include "isocost/rebalance.hpp"

namespace isocost::mpi::detail {

/// The decision's log fields: step, checked, check, gain, profit, choice,
/// action, reason (and decision_seconds when it moves data).
nlohmann::ordered_json decision_json(const Decision& d);
/// The migration's log fields and the rebalance's cost.
void add_migration(nlohmann::ordered_json& j, const RedistributeSummary& s, double seconds);
/// Several lines: the check, the gain, the choice and the profitability.
std::string decision_lines(const Decision& d);

// The plan's part of a layout's reports (BlockPlan, GridPlan), written once.

/// brief_report(): the decision and, when computed, the plan's imbalance and
/// moves ("elements", "cells").
template <class Plan>
std::string plan_brief(const Plan& plan, const char* units) {
  std::string s = plan.Decision::brief_report();
  const auto& r = plan.rebalance;
  if (r.method() != isocost::PlanMethod::none)
    s += "; plan " + std::string(to_string(r.method())) + ": imbalance " +
         isocost::detail::exact(r.measured_imbalance) + " -> " +
         isocost::detail::exact(r.predicted_imbalance) + ", " + std::to_string(r.elements_moved) +
         " " + units + " move" + (r.converged() ? "" : " (NOT converged)");
  return s;
}

/// full_report(): the decision's lines, the plan's, and the speeds learned.
template <class Plan>
std::string plan_lines(const Plan& plan, const char* unit) {
  std::string s = decision_lines(plan);
  if (plan.rebalance.method() != isocost::PlanMethod::none)
    s += "  plan: " + plan.rebalance.brief_report() +
         (plan.used_costs ? std::string(" (per-") + unit + " costs)" : std::string()) + "\n";
  if (plan.learned)
    s += "  " + plan.learned->brief_report() +
         (!plan.learned->identifiable ? ""
          : plan.learned->used        ? ", used"
                                      : ", not used until the next check agrees") +
         "\n";
  return s;
}

/// Why the options' learn_speeds cannot be (nullptr: it can): speeds given,
/// or no history to learn from.
const char* learning_conflict(bool learn_speeds, bool speeds_given, int history);

/// to_json(): the log's line; `layout` holds the layout's own plan fields,
/// written after "costs"; the speeds learned come before the plan.
template <class Event>
std::string event_json(const Event& e, const nlohmann::ordered_json& layout = {}) {
  nlohmann::ordered_json j = decision_json(e);
  if (e.learned) j["learned_speeds"] = *e.learned;
  const auto& r = e.rebalance;
  if (r.method() != isocost::PlanMethod::none) {
    nlohmann::ordered_json plan = {{"method", to_string(r.method())}, {"costs", e.used_costs}};
    for (const auto& [key, value] : layout.items()) plan[key] = value;
    plan["elements_moved"] = r.elements_moved;
    plan["max_elements_received"] = r.max_elements_received;
    plan["measured_imbalance"] = r.measured_imbalance;
    plan["predicted_imbalance"] = r.predicted_imbalance;
    plan["history_used"] = r.history_used;
    plan["history_dropped"] = r.history_dropped;
    plan["forecast"] = r.forecast;
    j["plan"] = std::move(plan);
  }
  if (e.migration) add_migration(j, *e.migration, e.seconds);
  return j.dump();
}

}  // namespace isocost::mpi::detail
