// isocost/strategy.hpp — whether and how to rebalance once the trigger fired
// (trigger.hpp): the rest of "Initiate" and the "Choose" phase of the
// balancing pipeline, as pure functions on numbers. No MPI: the mpi layer
// reduces per-rank loads and calls these on every rank (or on one), getting
// the same answer everywhere.
//
//   - fit_comm_model: C = latency + per_byte·bytes from timed messages
//     (Pearce eq. 6's α + β·bytes);
//   - assess_profitability: saving (T_max − T_avg)·steps ahead versus the
//     cost of a rebalance, measured or modelled (Watts §2.2.2);
//   - choose_strategy: predicted run time with no balancing, one global
//     repartition, or diffusion, from Pearce's cost model (eqs 5–11) and
//     diffusion simulator (Alg. 2, diffusion.hpp).
//
//   auto t = isocost::check_trigger(step, loads, trigger);   // trigger.hpp
//   if (t.fired) {
//     auto c = isocost::choose_strategy(graph, loads, elements, options);
//     log(c.to_json());
//     if (c.choice == isocost::Strategy::global) repartition();
//   }
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "isocost/diffusion.hpp"

namespace isocost {

// ---------------------------------------------------------------------------
// The communication model (Pearce eq. 6)

/// C(bytes) = latency + per_byte·bytes seconds: Pearce eq. 6's α and β
/// (with ElementsMoved·elementsize as the bytes). Named for what they are:
/// `alpha` in isocost is only ever the diffusion accuracy.
struct CommModel {
  double latency = 0;   ///< α: seconds per message, finite, >= 0
  double per_byte = 0;  ///< β: seconds per byte (inverse bandwidth), finite, >= 0
  double seconds(double bytes) const { return latency + per_byte * bytes; }

  /// The field list (options.hpp).
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("latency", self.latency, at_least(0));
    v("per_byte", self.per_byte, at_least(0));
  }
};

/// One timed message (or exchange) of `bytes` taking `seconds`.
struct CommSample {
  double bytes = 0;    ///< finite, >= 0
  double seconds = 0;  ///< finite, >= 0 (> 0 with relative weighting)
};

/// What fit_comm_model() does with a negative fitted coefficient.
enum class NegativeCoefficient {
  /// Refit with that coefficient fixed at 0: the constrained least-squares
  /// solution (a negative latency is common when it drowns in the noise of
  /// large messages; a negative per-byte cost means time falls with size —
  /// no bandwidth term can be trusted, so the model becomes the mean time).
  clamp,
  error,  ///< throw Error naming the fitted values
};
/// "clamp", "error" ("?" for other values).
std::string_view to_string(NegativeCoefficient negative);

/// Settings for fit_comm_model().
struct CommFitOptions {
  /// Minimise relative residuals Σ((ŷ − y)/y)² instead of absolute ones.
  /// Timings span decades of sizes: an absolute fit is ruled by the largest
  /// messages and leaves α (the small-message cost) to chance.
  bool relative = true;
  NegativeCoefficient negative = NegativeCoefficient::clamp;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("relative", self.relative);
    v("negative", self.negative);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("comm model: …") unless is_valid().
  void validate() const { validate_options(*this, "comm model"); }
};

/// What fit_comm_model() found.
struct CommFit {
  CommModel model;                    ///< the model to use (after any clamp)
  double latency_unconstrained = 0;   ///< the least-squares latency before clamping
  double per_byte_unconstrained = 0;  ///< the least-squares per-byte cost before clamping
  bool latency_clamped = false, per_byte_clamped = false;
  std::size_t samples = 0, distinct_sizes = 0;
  double rms_residual = 0;           ///< seconds, of `model`
  double max_relative_residual = 0;  ///< max |ŷ − y|/y over samples with y > 0
  CommFitOptions options;            ///< the options given

  std::string brief_report() const;
};

/// Least-squares fit of latency + per_byte·bytes (Eigen, column-pivoting QR on scaled
/// columns). Throws Error for fewer than 2 distinct sizes, negative or
/// non-finite values, a zero time with relative weighting, or (with
/// NegativeCoefficient::error) a negative coefficient.
CommFit fit_comm_model(std::span<const CommSample> samples, const CommFitOptions& options = {});

// ---------------------------------------------------------------------------
// Initiate: profitability (Watts §2.2.2)

/// What a rebalance costs and the steps over which it must pay off: the
/// numbers assess_profitability() and choose_strategy() both weigh, in one
/// place (BlockBalancer/GridBalancer fill it once per check, from
/// BalancerOptions' fields of the same names).
struct RebalanceCostOptions {
  /// The horizon (>= 1): the steps over which a rebalance pays off (Watts
  /// §2.2.2) and over which the strategies are compared (Pearce's `steps`):
  /// the steps until the next check, or the remaining steps of the run.
  int steps_ahead = 100;
  /// Latency and per-byte cost of moving data (Pearce eq. 6 α and β).
  CommModel comm;
  /// C_LbDecision (Pearce eq. 5): the seconds one decision costs, finite,
  /// >= 0; a global repartition pays it once.
  double decision_seconds = 0;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("steps_ahead", self.steps_ahead, at_least(1));
    v("comm", self.comm);
    v("decision_seconds", self.decision_seconds, at_least(0));
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("rebalance cost: …") unless is_valid().
  void validate() const { validate_options(*this, "rebalance cost"); }
};

/// Settings for assess_profitability().
struct ProfitabilityOptions {
  /// The horizon, and before any rebalance was measured the cost model:
  /// cost.comm.seconds(bytes) + cost.decision_seconds (Pearce eqs 5–6),
  /// `bytes` received by the busiest rank.
  RebalanceCostOptions cost;
  /// Fraction of T_max − T_avg a rebalance is expected to remove, in (0, 1].
  /// Watts §2.2.2: 1 assumes 100 % efficiency afterwards; the history of past
  /// rebalances gives a sharper value.
  double expected_improvement = 1.0;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("cost", self.cost);
    v("expected_improvement", self.expected_improvement, left_open(0, 1));
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("profitability: …") unless is_valid().
  void validate() const { validate_options(*this, "profitability"); }
};

/// Where Profitability::cost came from.
enum class CostSource {
  measured,  ///< the mean of the measured costs of earlier rebalances
  modelled,  ///< comm-model estimate plus the decision cost
};
/// "measured", "modelled".
std::string_view to_string(CostSource source);

/// The verdict with its numbers.
struct Profitability {
  double saving = 0;  ///< (T_max − T_avg)·steps_ahead·expected_improvement, seconds
  double cost = 0;    ///< predicted cost of the rebalance, seconds
  CostSource source = CostSource::modelled;
  std::size_t measured_count = 0;  ///< earlier rebalances averaged (0: modelled)
  double data_seconds = 0;         ///< modelled: comm.seconds(bytes)
  double decision_seconds = 0;     ///< modelled: the decision cost
  bool profitable = false;         ///< saving > cost

  std::string brief_report() const;
};

/// Decides whether rebalancing pays off: saving = (t_max − t_avg)·steps_ahead
/// ·expected_improvement against the mean of `measured_costs` (seconds of
/// earlier rebalances) when any, else cost.comm.seconds(bytes_to_move) +
/// cost.decision_seconds. Profitable only if saving > cost. Throws Error on
/// invalid options, t_avg > t_max, or negative or non-finite numbers.
Profitability assess_profitability(double t_avg, double t_max, double bytes_to_move,
                                   std::span<const double> measured_costs,
                                   const ProfitabilityOptions& options = {});

// ---------------------------------------------------------------------------
// Choose: Pearce's cost model (§5.2, eqs 5–11)

/// The balancing strategies compared.
enum class Strategy {
  none,       ///< no balancing (eq. 11)
  global,     ///< one global repartition now (eq. 9)
  diffusion,  ///< diffusion every step until balanced (eq. 10)
};
/// "none", "global", "diffusion".
std::string_view to_string(Strategy strategy);
Strategy parse_strategy(std::string_view name);

/// Settings for choose_strategy(). Costs in seconds.
struct StrategyOptions {
  /// The horizon cost.steps_ahead (Pearce's `steps`), the comm model (eq. 6)
  /// and cost.decision_seconds, the global repartition's C_LbDecision (eq. 5,
  /// once).
  RebalanceCostOptions cost;
  /// Bytes per element (Pearce eq. 6 elementsize), finite, >= 0.
  double element_bytes = 8;
  /// C_LbDecision of one diffusion step (eq. 5), per step while diffusing.
  double diffusion_decision_seconds = 0;
  /// γ, threshold and step budget of the diffusion simulator (Alg. 2). The
  /// simulation runs at most min(simulation.max_steps, cost.steps_ahead) steps.
  SimulationOptions simulation;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("cost", self.cost);
    v("element_bytes", self.element_bytes, at_least(0));
    v("diffusion_decision_seconds", self.diffusion_decision_seconds, at_least(0));
    v("simulation", self.simulation);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("strategy: …") unless is_valid().
  void validate() const { validate_options(*this, "strategy"); }
};

/// Predicted application times and the choice (Pearce eqs 9–11).
///
/// Eq. 7 as printed, Elements_max·L_ave/(L_max − L_ave), has the ratio upside
/// down: it grows without bound as the imbalance vanishes and is below
/// Elements_max only when L_max > 2·L_ave. With the paper's own assumption
/// (constant load per element on the heaviest rank, "proportional to the
/// load imbalance"), that rank must shed L_max − L_ave of load at
/// L_max/Elements_max per element, so we use
///   ElementsMoved_global = Elements_max·(L_max − L_ave)/L_max,
/// which is 0 when balanced and at most Elements_max.
///
/// Sums run over steps_ahead steps (eq. 8's Σ_{i=0}^{steps} counts one too many).
/// Diffusion (eq. 10): each simulated step i costs C_diff_i + L_max_i with
/// C_diff_i = diffusion_decision_seconds + latency + per_byte·ElementsMoved_max_i·
/// element_bytes (eqs 5–6) and L_max_i the simulated maximum after the step.
/// Once the simulation stops (converged, or its budget spent) the remaining
/// steps run at the last simulated L_max (today's L_max if no step was
/// needed) at no further balancing cost: a diffusive balancer stops within
/// its threshold, so the loads stay where it left them. (Charging L_ave
/// instead would make diffusion beat "none" for free whenever the imbalance
/// is already under the threshold.) Global is charged L_ave per eq. 9, so a
/// simulation threshold ε leaves diffusion up to ε·L_ave per step behind;
/// choose ε as the imbalance global repartitioning actually reaches.
/// Ties go to the cheaper intervention: none, then diffusion, then global.
struct StrategyChoice {
  Strategy choice = Strategy::none;
  double time_none = 0;       ///< eq. 11: steps_ahead·L_max
  double time_global = 0;     ///< eq. 9: C_global + steps_ahead·L_ave
  double time_diffusion = 0;  ///< eq. 10

  double l_max = 0, l_avg = 0;  ///< current L_max and L_ave
  double elements_max = 0;      ///< elements of the (first) rank holding L_max
  int steps_ahead = 0;          ///< the horizon used

  double global_elements_moved = 0;  ///< corrected eq. 7
  double global_data_seconds = 0;    ///< latency + per_byte·moved·element_bytes (eq. 6)
  double global_cost = 0;            ///< C_global = decision + data (eq. 5)

  double diffusion_cost = 0;         ///< Σ_i C_diff_i over the simulated steps
  int diffusion_steps = 0;           ///< simulated steps used in eq. 10
  bool diffusion_converged = false;  ///< the simulation reached its threshold
  bool diffusion_truncated = false;  ///< unconverged, simulation.max_steps < steps_ahead
  Simulation simulation;             ///< Alg. 2's per-step L_max and elements moved

  /// One line: the three times, the choice and the numbers behind them.
  std::string brief_report() const;
  /// One JSON object on one line (no per-step simulation rows), for logs.
  std::string to_json() const;
};

/// Compares none, global and diffusion for `loads` (one per node of `graph`,
/// finite, >= 0, not all zero) and `elements` (elements per node, finite,
/// >= 0). Throws Error on invalid options or input.
StrategyChoice choose_strategy(const ProcessGraph& graph, std::span<const double> loads,
                               std::span<const double> elements,
                               const StrategyOptions& options = {});

}  // namespace isocost
