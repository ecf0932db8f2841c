// Tests for isocost/strategy.hpp: the α + β·bytes fit
// (exact recovery, clamping), profitability by hand, and Pearce's cost model
// (eqs 9–11) computed by hand on two ranks, with each strategy winning once.
#include "isocost/strategy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "support/expect_error.hpp"

namespace {

using isocost::CommSample;
using isocost::Strategy;
using isocost::StrategyOptions;
using isocost::testing::expect_error;

// ---------------------------------------------------------------------------
// Communication model

TEST(CommModel, RecoversLatencyAndPerByteCostFromExactData) {
  const double latency = 2e-6, per_byte = 1e-9;  // 2 µs latency, 1 GB/s
  std::vector<CommSample> s;
  for (double bytes : {8.0, 1024.0, 65536.0, 1048576.0, 16777216.0})
    s.push_back({bytes, latency + per_byte * bytes});
  for (const bool relative : {true, false}) {
    isocost::CommFitOptions o;
    o.relative = relative;
    const auto f = isocost::fit_comm_model(s, o);
    EXPECT_NEAR(f.model.latency, latency, 1e-9 * latency) << relative;
    EXPECT_NEAR(f.model.per_byte, per_byte, 1e-9 * per_byte) << relative;
    EXPECT_FALSE(f.latency_clamped);
    EXPECT_FALSE(f.per_byte_clamped);
    EXPECT_EQ(f.distinct_sizes, 5u);
    EXPECT_LT(f.max_relative_residual, 1e-9);
    EXPECT_EQ(f.options.relative, relative);  // the options given come back
  }
  // Two sizes are enough.
  const std::vector<CommSample> two{{0, 1}, {10, 21}};
  const auto f = isocost::fit_comm_model(two);
  EXPECT_NEAR(f.model.latency, 1, 1e-12);
  EXPECT_NEAR(f.model.per_byte, 2, 1e-12);
  EXPECT_NEAR(f.model.seconds(5), 11, 1e-12);
}

TEST(CommModel, NegativeCoefficientsAreClampedByRefitting) {
  isocost::CommFitOptions o;
  o.relative = false;
  // Exactly y = −1 + 2x: refit through the origin, β = Σxy/Σx² = 22/14.
  const std::vector<CommSample> s{{1, 1}, {2, 3}, {3, 5}};
  auto f = isocost::fit_comm_model(s, o);
  EXPECT_NEAR(f.latency_unconstrained, -1, 1e-12);
  EXPECT_NEAR(f.per_byte_unconstrained, 2, 1e-12);
  EXPECT_TRUE(f.latency_clamped);
  EXPECT_EQ(f.model.latency, 0.0);
  EXPECT_NEAR(f.model.per_byte, 22.0 / 14, 1e-12);
  EXPECT_NE(f.brief_report().find("clamped"), std::string::npos);
  // Time falling with size: β → 0 and α is the mean time, 2.
  const std::vector<CommSample> falling{{1, 3}, {3, 1}};
  f = isocost::fit_comm_model(falling, o);
  EXPECT_TRUE(f.per_byte_clamped);
  EXPECT_EQ(f.model.per_byte, 0.0);
  EXPECT_NEAR(f.model.latency, 2, 1e-12);
  // … or refused.
  o.negative = isocost::NegativeCoefficient::error;
  expect_error([&] { isocost::fit_comm_model(s, o); },
               {"fitted latency = -", "expected both >= 0"});
}

TEST(CommModel, BadSamples) {
  const std::vector<CommSample> same{{1024, 1e-6}, {1024, 2e-6}, {1024, 3e-6}};
  expect_error([&] { isocost::fit_comm_model(same); },
               {"1 distinct message size", "1024 bytes", "at least 2"});
  expect_error([] { isocost::fit_comm_model({}); }, {"0 distinct message sizes"});
  const std::vector<CommSample> neg{{-8, 1e-6}, {16, 2e-6}};
  expect_error([&] { isocost::fit_comm_model(neg); }, {"bytes of sample 0", "-8"});
  const std::vector<CommSample> zero{{8, 0}, {16, 2e-6}};
  expect_error([&] { isocost::fit_comm_model(zero); }, {"sample 0", "relative"});
  isocost::CommFitOptions o;
  o.relative = false;
  EXPECT_NO_THROW(isocost::fit_comm_model(zero, o));
}

// ---------------------------------------------------------------------------
// Profitability

TEST(Profitability, MeasuredCostsDecide) {
  isocost::ProfitabilityOptions o;
  o.cost.steps_ahead = 10;
  // saving = (1.5 − 1)·10 = 5 s.
  const std::vector<double> dear{4, 8};  // mean 6 > 5: refused
  auto p = isocost::assess_profitability(1.0, 1.5, 0, dear, o);
  EXPECT_EQ(p.saving, 5.0);
  EXPECT_EQ(p.cost, 6.0);
  EXPECT_EQ(p.source, isocost::CostSource::measured);
  EXPECT_EQ(p.measured_count, 2u);
  EXPECT_FALSE(p.profitable);
  const std::vector<double> cheap{2, 4};                        // mean 3 < 5: accepted
  p = isocost::assess_profitability(1.0, 1.5, 1e12, cheap, o);  // bytes ignored
  EXPECT_EQ(p.cost, 3.0);
  EXPECT_TRUE(p.profitable);
  EXPECT_NE(p.brief_report().find("profitable"), std::string::npos);
}

TEST(Profitability, ModelledCostBeforeTheFirstRebalance) {
  isocost::ProfitabilityOptions o;
  o.cost.steps_ahead = 10;
  o.cost.comm = {0.5, 1.0 / 1024};  // 0.5 s + 1/1024 s per byte
  o.cost.decision_seconds = 1.5;
  // 2048 bytes: 0.5 + 2 + 1.5 = 4 < 5.
  auto p = isocost::assess_profitability(1.0, 1.5, 2048, {}, o);
  EXPECT_EQ(p.source, isocost::CostSource::modelled);
  EXPECT_EQ(p.data_seconds, 2.5);
  EXPECT_EQ(p.cost, 4.0);
  EXPECT_TRUE(p.profitable);
  // 3072 bytes: 0.5 + 3 + 1.5 = 5, not more than the saving of 5: refused.
  p = isocost::assess_profitability(1.0, 1.5, 3072, {}, o);
  EXPECT_EQ(p.cost, 5.0);
  EXPECT_FALSE(p.profitable);
  // Expecting only half the imbalance removed halves the saving.
  o.expected_improvement = 0.5;
  p = isocost::assess_profitability(1.0, 1.5, 2048, {}, o);
  EXPECT_EQ(p.saving, 2.5);
  EXPECT_FALSE(p.profitable);
  // No imbalance: never profitable, even for free.
  EXPECT_FALSE(isocost::assess_profitability(1.0, 1.0, 0, {}, {}).profitable);
}

TEST(Profitability, BadInput) {
  isocost::ProfitabilityOptions o;
  o.cost.steps_ahead = 0;
  expect_error([&] { isocost::assess_profitability(1, 2, 0, {}, o); }, {"steps_ahead", "got 0"});
  expect_error([] { isocost::assess_profitability(2, 1, 0, {}, {}); }, {"t_avg = 2", "t_max = 1"});
  const std::vector<double> bad{1, std::numeric_limits<double>::quiet_NaN()};
  expect_error([&] { isocost::assess_profitability(1, 2, 0, bad, {}); },
               {"measured cost 1", "nan"});
  o = {};
  o.cost.comm.per_byte = -1;
  expect_error([&] { isocost::assess_profitability(1, 2, 0, {}, o); }, {"comm.per_byte", "-1"});
}

// ---------------------------------------------------------------------------
// Strategy choice (Pearce eqs 9–11)
//
// Two ranks joined by one edge, loads {3, 1}, elements {300, 100}, 4 bytes
// per element, β = 1/256 s/byte (1/64 s per element), steps = 10, γ = 0.5,
// threshold 0.05. L_max = 3, L_ave = 2, Elements_max = 300.
//
// none (eq. 11):   10·3 = 30.
// global (eq. 9):  moved = 300·(3 − 2)/3 = 100 elements (corrected eq. 7)
//                  = 400 bytes → 1.5625 s; time = D_g + α + 1.5625 + 10·2.
// diffusion (eq. 10): the simulator moves rate·ΔL with rate = γ/(n + 1)
//   = 0.25 per step, elements in proportion (E_0/L_0 per unit load):
//     step 1: flow 0.5,    L_max 2.5,    moved 50    → 0.78125 s
//     step 2: flow 0.25,   L_max 2.25,   moved 25    → 0.390625 s
//     step 3: flow 0.125,  L_max 2.125,  moved 12.5  → 0.1953125 s
//     step 4: flow 0.0625, L_max 2.0625, moved 6.25  → 0.09765625 s
//   2.0625 <= 1.05·2: converged after 4 steps; the other 6 steps stay at
//   2.0625. time = 4·(D_d + α) + 1.46484375 + 8.9375 + 6·2.0625
//                = 4·(D_d + α) + 22.77734375.
StrategyOptions two_rank_options() {
  StrategyOptions o;
  o.cost.steps_ahead = 10;
  o.element_bytes = 4;
  o.cost.comm = {0, 1.0 / 256};
  o.simulation.gamma = 0.5;
  o.simulation.threshold = 0.05;
  return o;
}

const std::vector<double> kLoads{3, 1}, kElements{300, 100};

isocost::StrategyChoice choose(const StrategyOptions& o) {
  return isocost::choose_strategy(isocost::edge_graph(2, {{0, 1}}), kLoads, kElements, o);
}

TEST(Strategy, HandComputedPredictionGlobalWins) {
  const auto c = choose(two_rank_options());  // no decision costs, α = 0
  EXPECT_EQ(c.l_max, 3.0);
  EXPECT_EQ(c.l_avg, 2.0);
  EXPECT_EQ(c.elements_max, 300.0);
  EXPECT_EQ(c.time_none, 30.0);
  EXPECT_EQ(c.global_elements_moved, 100.0);
  EXPECT_EQ(c.global_cost, 1.5625);
  EXPECT_EQ(c.time_global, 21.5625);
  ASSERT_EQ(c.diffusion_steps, 4);
  EXPECT_TRUE(c.diffusion_converged);
  EXPECT_FALSE(c.diffusion_truncated);
  EXPECT_EQ(c.simulation.steps[0].max_load, 2.5);
  EXPECT_EQ(c.simulation.steps[3].max_elements_moved, 6.25);
  EXPECT_EQ(c.diffusion_cost, 1.46484375);
  EXPECT_EQ(c.time_diffusion, 22.77734375);
  EXPECT_EQ(c.choice, Strategy::global);
}

TEST(Strategy, HandComputedPredictionDiffusionWins) {
  auto o = two_rank_options();
  o.cost.decision_seconds = 5;         // global: 26.5625
  o.diffusion_decision_seconds = 0.1;  // diffusion: 0.4 + 22.77734375
  const auto c = choose(o);
  EXPECT_EQ(c.time_none, 30.0);
  EXPECT_EQ(c.time_global, 26.5625);
  EXPECT_DOUBLE_EQ(c.time_diffusion, 0.4 + 22.77734375);
  EXPECT_DOUBLE_EQ(c.diffusion_cost, 0.4 + 1.46484375);
  EXPECT_EQ(c.choice, Strategy::diffusion);
}

TEST(Strategy, HandComputedPredictionNoneWins) {
  auto o = two_rank_options();
  o.cost.comm.latency = 2;       // every message costs 2 s
  o.cost.decision_seconds = 20;  // global: 20 + 2 + 1.5625 + 20 = 43.5625
  const auto c = choose(o);      // diffusion: 4·2 + 22.77734375 = 30.77734375
  EXPECT_EQ(c.time_none, 30.0);
  EXPECT_EQ(c.time_global, 43.5625);
  EXPECT_EQ(c.time_diffusion, 30.77734375);
  EXPECT_EQ(c.choice, Strategy::none);
}

TEST(Strategy, SimulationBudgetShorterThanTheHorizon) {
  auto o = two_rank_options();
  o.simulation.max_steps = 2;  // stops at L_max 2.25, unconverged
  const auto c = choose(o);
  EXPECT_EQ(c.diffusion_steps, 2);
  EXPECT_FALSE(c.diffusion_converged);
  EXPECT_TRUE(c.diffusion_truncated);
  // 0.78125 + 0.390625 + 2.5 + 2.25 + 8·2.25
  EXPECT_EQ(c.time_diffusion, 23.921875);
  // A horizon shorter than convergence: only steps_ahead steps are simulated.
  o = two_rank_options();
  o.cost.steps_ahead = 2;
  const auto d = choose(o);
  EXPECT_EQ(d.diffusion_steps, 2);
  EXPECT_FALSE(d.diffusion_truncated);
  EXPECT_EQ(d.time_diffusion, 0.78125 + 0.390625 + 2.5 + 2.25);
  EXPECT_EQ(d.time_none, 6.0);
}

TEST(Strategy, AlreadyBalancedChoosesNone) {
  // Within the threshold the simulator takes no step, so diffusion changes
  // nothing and ties with none; global costs α = 1 for a 0.5 s gain.
  auto o = two_rank_options();
  o.cost.comm.latency = 1;
  const auto c = isocost::choose_strategy(isocost::edge_graph(2, {{0, 1}}),
                                          std::vector<double>{2.05, 1.95}, kElements, o);
  EXPECT_EQ(c.diffusion_steps, 0);
  EXPECT_EQ(c.time_diffusion, c.time_none);
  EXPECT_EQ(c.choice, Strategy::none);
}

TEST(Strategy, CorrectedEquationSevenShrinksWithTheImbalance) {
  // Printed eq. 7 would move 300·2/(3 − 2) = 600 elements out of 300 here,
  // and 300·1.99/0.01 = 59700 for a 0.5 % imbalance.
  const auto g = isocost::edge_graph(2, {{0, 1}});
  const auto a =
      isocost::choose_strategy(g, std::vector<double>{2.01, 1.99}, kElements, two_rank_options());
  EXPECT_NEAR(a.global_elements_moved, 300 * 0.01 / 2.01, 1e-12);
  const auto b =
      isocost::choose_strategy(g, std::vector<double>{2, 2}, kElements, two_rank_options());
  EXPECT_EQ(b.global_elements_moved, 0.0);
  EXPECT_LE(choose(two_rank_options()).global_elements_moved, 300.0);
}

// On a larger graph the assembly of eq. 10 is checked against the simulator's
// own rows: Σ_i (D_d + α + β·moved_i·bytes + L_max_i) + rest.
TEST(Strategy, EquationTenFromTheSimulationOnAMesh) {
  const auto g = isocost::mesh_graph({4, 4}, false);
  std::vector<double> loads(16, 1.0), elements(16, 100.0);
  loads[5] = 5;  // a hot spot
  StrategyOptions o;
  o.cost.steps_ahead = 200;
  o.element_bytes = 8;
  o.cost.comm = {1e-3, 1e-6};
  o.diffusion_decision_seconds = 2e-3;
  o.cost.decision_seconds = 0.5;
  const auto c = isocost::choose_strategy(g, loads, elements, o);
  ASSERT_TRUE(c.diffusion_converged);
  ASSERT_GT(c.diffusion_steps, 1);
  double t = 0;
  for (const auto& s : c.simulation.steps)
    t += 2e-3 + 1e-3 + 1e-6 * 8 * s.max_elements_moved + s.max_load;
  t += (200 - c.diffusion_steps) * c.simulation.steps.back().max_load;
  EXPECT_NEAR(c.time_diffusion, t, 1e-9 * t);
  EXPECT_EQ(c.time_none, 200 * 5.0);
  EXPECT_NEAR(c.time_global, 0.5 + 1e-3 + 1e-6 * 8 * (100 * (5 - 1.25) / 5) + 200 * 1.25, 1e-12);
  const double best = std::min({c.time_none, c.time_global, c.time_diffusion});
  const double chosen = c.choice == Strategy::none     ? c.time_none
                        : c.choice == Strategy::global ? c.time_global
                                                       : c.time_diffusion;
  EXPECT_EQ(chosen, best);
}

TEST(Strategy, ReportAndJson) {
  const auto c = choose(two_rank_options());
  EXPECT_NE(c.brief_report().find("strategy: global"), std::string::npos);
  const auto j = nlohmann::json::parse(c.to_json());
  EXPECT_EQ(j["choice"], "global");
  EXPECT_EQ(j["time_none"].get<double>(), 30.0);
  EXPECT_EQ(j["time_diffusion"].get<double>(), 22.77734375);
  EXPECT_EQ(j["diffusion_steps"].get<int>(), 4);
  EXPECT_EQ(isocost::parse_strategy("diffusion"), Strategy::diffusion);
  EXPECT_EQ(isocost::to_string(Strategy::global), "global");
  expect_error([] { isocost::parse_strategy("random"); }, {"'random'"});
}

TEST(Strategy, BadInput) {
  const auto g = isocost::edge_graph(2, {{0, 1}});
  auto o = two_rank_options();
  o.cost.steps_ahead = 0;
  expect_error([&] { isocost::choose_strategy(g, kLoads, kElements, o); }, {"steps", "got 0"});
  o = two_rank_options();
  o.simulation.gamma = 0;
  expect_error([&] { isocost::choose_strategy(g, kLoads, kElements, o); }, {"gamma", "(0, 1]"});
  o = two_rank_options();
  expect_error(
      [&] {
        isocost::choose_strategy(g, std::vector<double>{1, 2, 3}, kElements, o);
      },
      {"3 loads", "2 nodes"});
  expect_error([&] { isocost::choose_strategy(g, kLoads, std::vector<double>{1}, o); },
               {"1 element counts", "2 loads"});
  expect_error(
      [&] {
        isocost::choose_strategy(g, kLoads, std::vector<double>{1, -5}, o);
      },
      {"element count of node 1", "-5"});
  expect_error(
      [&] {
        isocost::choose_strategy(g, std::vector<double>{0, 0}, kElements, o);
      },
      {"all loads are zero"});
}

}  // namespace
