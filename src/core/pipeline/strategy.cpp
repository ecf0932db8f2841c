#include "isocost/strategy.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/common/check_number.hpp"
#include "core/common/eigen_real.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/metrics.hpp"

namespace isocost {

using detail::check_number;
using detail::exact;

// ---------------------------------------------------------------------------
// Communication model

namespace {

// Weighted least squares for the columns selected by use_latency/use_per_byte,
// bytes scaled by `scale` so both columns are O(1) (bytes reach 1e9).
std::pair<double, double> solve_comm(std::span<const CommSample> s, bool relative, bool use_latency,
                                     bool use_per_byte, double scale) {
  const int n = static_cast<int>(s.size());
  const int cols = (use_latency ? 1 : 0) + (use_per_byte ? 1 : 0);
  // Eigen on the core's own scalar, not double: Ceres's static library
  // carries its own copies of this QR and of VectorXd, and the linker keeps
  // one copy of each (issue #23; common/eigen_real.hpp).
  using detail::Real;
  Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic> A(n, cols);
  Eigen::Matrix<Real, Eigen::Dynamic, 1> y(n);
  for (int i = 0; i < n; ++i) {
    const double w = relative ? 1 / s[i].seconds : 1.0;
    int c = 0;
    if (use_latency) A(i, c++) = w;
    if (use_per_byte) A(i, c++) = w * s[i].bytes / scale;
    y(i) = w * s[i].seconds;
  }
  const Eigen::Matrix<Real, Eigen::Dynamic, 1> x = A.colPivHouseholderQr().solve(y);
  double latency = 0, per_byte = 0;
  int c = 0;
  if (use_latency) latency = double(x(c++));
  if (use_per_byte) per_byte = double(x(c++)) / scale;
  return {latency, per_byte};
}

}  // namespace

std::string_view to_string(NegativeCoefficient negative) {
  switch (negative) {
    case NegativeCoefficient::clamp:
      return "clamp";
    case NegativeCoefficient::error:
      return "error";
  }
  return "?";
}

CommFit fit_comm_model(std::span<const CommSample> samples, const CommFitOptions& o) {
  o.validate();
  std::set<double> sizes;
  double scale = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto& s = samples[i];
    check_number(s.bytes, "comm model: bytes of sample " + std::to_string(i));
    check_number(s.seconds, "comm model: seconds of sample " + std::to_string(i));
    if (o.relative && s.seconds == 0)
      throw Error("comm model: seconds of sample " + std::to_string(i) +
                  " = 0; relative weighting needs times > 0 (or set relative = false)");
    sizes.insert(s.bytes);
    scale = std::max(scale, s.bytes);
  }
  if (sizes.size() < 2)
    throw Error("comm model: " + std::to_string(sizes.size()) + " distinct message size" +
                (sizes.empty() ? "s" : " (" + exact(*sizes.begin()) + " bytes)") + " in " +
                std::to_string(samples.size()) +
                " samples; expected at least 2 to separate the latency from the per-byte cost");
  CommFit f;
  f.options = o;
  f.samples = samples.size();
  f.distinct_sizes = sizes.size();
  const auto [a, b] = solve_comm(samples, o.relative, true, true, scale);
  f.latency_unconstrained = a;
  f.per_byte_unconstrained = b;
  f.model = {a, b};
  if (a < 0 || b < 0) {
    if (o.negative == NegativeCoefficient::error)
      throw Error("comm model: fitted latency = " + exact(a) + " s, per byte = " + exact(b) +
                  " s/byte; expected both >= 0");
    // Constrained least squares: with one coefficient at its bound 0 the
    // other is the one-column fit. The weighted mean line passes through
    // (x̄, ȳ) with ȳ >= 0, so the two are never both negative.
    if (b < 0) {
      f.per_byte_clamped = true;
      f.model = {std::max(0.0, solve_comm(samples, o.relative, true, false, scale).first), 0};
    } else {
      f.latency_clamped = true;
      f.model = {0, std::max(0.0, solve_comm(samples, o.relative, false, true, scale).second)};
    }
  }
  double ss = 0;
  for (const auto& s : samples) {
    const double r = f.model.seconds(s.bytes) - s.seconds;
    ss += r * r;
    if (s.seconds > 0)
      f.max_relative_residual = std::max(f.max_relative_residual, std::abs(r) / s.seconds);
  }
  f.rms_residual = std::sqrt(ss / static_cast<double>(samples.size()));
  return f;
}

std::string CommFit::brief_report() const {
  std::ostringstream out;
  out << "comm model: latency " << exact(model.latency) << " s"
      << (latency_clamped ? " (clamped from " + exact(latency_unconstrained) + ")" : "")
      << ", per byte " << exact(model.per_byte) << " s/byte"
      << (per_byte_clamped ? " (clamped from " + exact(per_byte_unconstrained) + ")" : "")
      << " from " << samples << " samples (" << distinct_sizes << " sizes); rms residual "
      << exact(rms_residual) << " s, max relative residual " << exact(max_relative_residual);
  return out.str();
}

// ---------------------------------------------------------------------------
// Profitability

std::string_view to_string(CostSource source) {
  return source == CostSource::measured ? "measured" : "modelled";
}

Profitability assess_profitability(double t_avg, double t_max, double bytes_to_move,
                                   std::span<const double> measured_costs,
                                   const ProfitabilityOptions& o) {
  o.validate();
  check_number(t_avg, "profitability: t_avg");
  check_number(t_max, "profitability: t_max");
  check_number(bytes_to_move, "profitability: bytes_to_move");
  if (t_avg > t_max)
    throw Error("profitability: t_avg = " + exact(t_avg) + " exceeds t_max = " + exact(t_max) +
                "; expected t_avg <= t_max");
  for (std::size_t i = 0; i < measured_costs.size(); ++i)
    check_number(measured_costs[i], "profitability: measured cost " + std::to_string(i));
  Profitability p;
  // Watts §2.2.2: the time saved if the rebalance removes the imbalance.
  p.saving = (t_max - t_avg) * o.cost.steps_ahead * o.expected_improvement;
  if (!measured_costs.empty()) {
    double sum = 0;
    for (double c : measured_costs) sum += c;
    p.source = CostSource::measured;
    p.measured_count = measured_costs.size();
    p.cost = sum / static_cast<double>(measured_costs.size());
  } else {
    p.source = CostSource::modelled;
    p.data_seconds = o.cost.comm.seconds(bytes_to_move);  // Pearce eq. (6)
    p.decision_seconds = o.cost.decision_seconds;
    p.cost = p.decision_seconds + p.data_seconds;  // Pearce eq. (5)
  }
  p.profitable = p.saving > p.cost;
  return p;
}

std::string Profitability::brief_report() const {
  std::ostringstream out;
  out << "profitability: saving " << exact(saving) << " s vs cost " << exact(cost) << " s ("
      << to_string(source);
  if (source == CostSource::measured)
    out << ", mean of " << measured_count << " rebalance" << (measured_count == 1 ? "" : "s");
  else
    out << ": data " << exact(data_seconds) << " s + decision " << exact(decision_seconds) << " s";
  out << ") -> " << (profitable ? "profitable" : "not profitable");
  return out.str();
}

// ---------------------------------------------------------------------------
// Strategy choice

std::string_view to_string(Strategy s) {
  switch (s) {
    case Strategy::global:
      return "global";
    case Strategy::diffusion:
      return "diffusion";
    case Strategy::none:
      break;
  }
  return "none";
}

Strategy parse_strategy(std::string_view name) {
  if (name == "none") return Strategy::none;
  if (name == "global") return Strategy::global;
  if (name == "diffusion") return Strategy::diffusion;
  throw Error("strategy: expected 'none', 'global' or 'diffusion', got '" + std::string(name) +
              "'");
}

StrategyChoice choose_strategy(const ProcessGraph& graph, std::span<const double> loads,
                               std::span<const double> elements, const StrategyOptions& o) {
  o.validate();
  if (loads.size() != static_cast<std::size_t>(graph.nodes))
    throw Error("strategy: " + std::to_string(loads.size()) + " loads for a graph of " +
                std::to_string(graph.nodes) + " nodes; expected one per node");
  if (elements.size() != loads.size())
    throw Error("strategy: " + std::to_string(elements.size()) + " element counts for " +
                std::to_string(loads.size()) + " loads; expected one per node");
  for (std::size_t i = 0; i < elements.size(); ++i)
    check_number(elements[i], "strategy: element count of node " + std::to_string(i));
  const LoadStats stats = load_stats(loads);  // validates the loads

  StrategyChoice c;
  c.steps_ahead = o.cost.steps_ahead;
  c.l_max = stats.max;
  c.l_avg = stats.mean;
  c.elements_max = elements[stats.argmax];
  const double steps = o.cost.steps_ahead;

  // Pearce eq. (11): nothing changes, every step takes L_max.
  c.time_none = steps * c.l_max;

  // Pearce eq. (7), corrected (see StrategyChoice): the heaviest rank sheds
  // L_max − L_ave of load at L_max/Elements_max per element.
  c.global_elements_moved = c.elements_max * (c.l_max - c.l_avg) / c.l_max;
  c.global_data_seconds =
      o.cost.comm.seconds(c.global_elements_moved * o.element_bytes);  // eq. (6)
  c.global_cost = o.cost.decision_seconds + c.global_data_seconds;     // eq. (5)
  c.time_global = c.global_cost + steps * c.l_avg;                     // eq. (9)

  // Pearce eq. (10) with Alg. 2's per-step L_max and elements moved.
  SimulationOptions so = o.simulation;
  so.max_steps = std::min(so.max_steps, o.cost.steps_ahead);
  c.simulation = simulate_diffusion(graph, loads, elements, so);
  c.diffusion_converged = c.simulation.converged();
  c.diffusion_steps = static_cast<int>(c.simulation.steps.size());
  double t = 0;
  for (const auto& s : c.simulation.steps) {
    const double cost = o.diffusion_decision_seconds +
                        o.cost.comm.seconds(s.max_elements_moved * o.element_bytes);  // eqs (5)–(6)
    c.diffusion_cost += cost;
    t += cost + s.max_load;
  }
  // The remaining steps run in the state diffusion leaves (its last L_max,
  // or today's if no step was needed), at no further balancing cost.
  const double remaining = steps - c.diffusion_steps;
  if (remaining > 0) {
    c.diffusion_truncated = !c.diffusion_converged;
    t += remaining * (c.simulation.steps.empty() ? c.l_max : c.simulation.steps.back().max_load);
  }
  c.time_diffusion = t;

  // Ties to the cheaper intervention: none, diffusion, global.
  c.choice = Strategy::none;
  double best = c.time_none;
  if (c.time_diffusion < best) {
    best = c.time_diffusion;
    c.choice = Strategy::diffusion;
  }
  if (c.time_global < best) c.choice = Strategy::global;
  return c;
}

std::string StrategyChoice::brief_report() const {
  std::ostringstream out;
  out << "strategy: " << to_string(choice) << " over " << steps_ahead << " steps; predicted none "
      << exact(time_none) << " s, global " << exact(time_global) << " s (cost "
      << exact(global_cost) << " s, " << exact(global_elements_moved)
      << " elements moved), diffusion " << exact(time_diffusion) << " s (cost "
      << exact(diffusion_cost) << " s over " << diffusion_steps << " steps, "
      << (diffusion_converged   ? "converged"
          : diffusion_truncated ? "NOT converged: simulation budget spent"
                                : "not converged within the horizon")
      << "); L_max " << exact(l_max) << ", L_avg " << exact(l_avg);
  return out.str();
}

std::string StrategyChoice::to_json() const {
  nlohmann::json j;
  j["choice"] = std::string(to_string(choice));
  j["steps_ahead"] = steps_ahead;
  j["time_none"] = time_none;
  j["time_global"] = time_global;
  j["time_diffusion"] = time_diffusion;
  j["l_max"] = l_max;
  j["l_avg"] = l_avg;
  j["elements_max"] = elements_max;
  j["global_elements_moved"] = global_elements_moved;
  j["global_data_seconds"] = global_data_seconds;
  j["global_cost"] = global_cost;
  j["diffusion_cost"] = diffusion_cost;
  j["diffusion_steps"] = diffusion_steps;
  j["diffusion_converged"] = diffusion_converged;
  j["diffusion_truncated"] = diffusion_truncated;
  j["convergence_steps"] = simulation.convergence_steps;
  return j.dump();
}

}  // namespace isocost
