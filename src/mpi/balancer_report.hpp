// Internal to the balancers: the JSON and text of a decision, shared by the
// block and grid events' to_json() and reports (balancer_report.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "isocost/mpi/balancer.hpp"
#include "isocost/mpi/redistribute.hpp"

namespace isocost::mpi::internal {

/// The decision's log fields: step, checked, check, gain, profit, choice,
/// action, reason (and decision_seconds when it moves data).
nlohmann::ordered_json decision_json(const Decision& d);
/// The migration's log fields and the rebalance's cost.
void add_migration(nlohmann::ordered_json& j, const RedistributeSummary& s, double seconds);
/// Several lines: the check, the gain, the choice and the profitability.
std::string decision_lines(const Decision& d);

}  // namespace isocost::mpi::internal
