// Tests for isocost/diffusion.hpp: graphs, Watts's sweep counts, each scheme's
// conservation and convergence on meshes and tori, least squares against its
// defining equations, the simulator, and bad input.
#include "isocost/diffusion.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "support/expect_error.hpp"

namespace {

using isocost::DiffusionOptions;
using isocost::DiffusionScheme;
using isocost::ProcessGraph;
using isocost::testing::expect_error;

const DiffusionScheme kIterative[] = {DiffusionScheme::explicit_euler, DiffusionScheme::implicit,
                                      DiffusionScheme::crank_nicolson};

TEST(ProcessGraph, Meshes) {
  const auto g = isocost::mesh_graph({3, 4}, false);
  EXPECT_EQ(g.nodes, 12);
  EXPECT_EQ(g.edges.size(), 3u * 3 + 2u * 4);  // 3 rows of 3 edges in y, 2 edge rows in x
  EXPECT_EQ(g.max_degree(), 4);
  // C order: node (1, 2) is 1·4 + 2 = 6; its +x neighbour is 10, its +y is 7.
  auto has = [&](int i, int j) {
    for (const auto& e : g.edges)
      if (e.i == i && e.j == j) return true;
    return false;
  };
  EXPECT_TRUE(has(6, 10));
  EXPECT_TRUE(has(6, 7));
  EXPECT_FALSE(has(3, 4));  // (0,3) and (1,0) are not neighbours without wrapping
  const auto t = isocost::mesh_graph({3, 4}, true);
  EXPECT_EQ(t.edges.size(), 24u);  // every node has 4 distinct neighbours
  // A wrapped axis of length 2: the two neighbours are one node, edge weight 2.
  const auto w = isocost::mesh_graph({2, 3}, true);
  EXPECT_EQ(w.edges.size(), 3u + 6u);
  double weight2 = 0;
  for (const auto& e : w.edges) weight2 += e.weight == 2 ? 1 : 0;
  EXPECT_EQ(weight2, 3);
  EXPECT_EQ(w.max_degree(), 4);
  EXPECT_EQ(isocost::mesh_graph({5, 1, 3}, false).max_degree(), 4);  // a length-1 axis adds none
  EXPECT_EQ(isocost::mesh_graph({4, 4, 4}, true).max_degree(), 6);
}

TEST(ProcessGraph, EdgeListsAndErrors) {
  const auto g = isocost::edge_graph(3, {{0, 1}, {1, 0}, {1, 2}});
  ASSERT_EQ(g.edges.size(), 2u);
  EXPECT_EQ(g.edges[0].weight, 2);  // the repeated edge
  EXPECT_EQ(g.max_degree(), 3);     // node 1: 2 + 1
  expect_error([] { isocost::edge_graph(3, {{0, 1}, {2, 2}}); }, {"self-loop", "node 2"});
  expect_error(
      [] {
        isocost::edge_graph(5, {{0, 1}, {2, 3}});
      },
      {"disconnected", "3 components", "{0, 1}", "{2, 3}", "{4}"});
  expect_error([] { isocost::edge_graph(2, {{0, 5}}); }, {"outside [0, 2)"});
  expect_error(
      [] {
        isocost::mesh_graph({0, 3}, false);
      },
      {"dimension 0: expected an integer >= 1"});
}

TEST(Diffusion, WattsSweepCounts) {
  // ν = ⌈ln α / ln ρ⌉ (Watts eq. 2.10) on a 3-D torus (n = 6), α = 0.05:
  // Crank–Nicolson ρ = 3ᾱ/(1 + 3ᾱ), ᾱ = √0.05 → ν = ⌈3.28⌉ = 4;
  // first order ρ = 6α/(1 + 6α) = 0.3/1.3 → ν = ⌈2.04⌉ = 3.
  const auto g = isocost::mesh_graph({4, 4, 4}, true);
  std::vector<double> u(64, 1.0);
  u[0] = 10;
  DiffusionOptions o;
  o.scheme = DiffusionScheme::crank_nicolson;
  EXPECT_EQ(isocost::diffuse(g, u, o).sweeps_per_step, 4);
  o.scheme = DiffusionScheme::implicit;
  EXPECT_EQ(isocost::diffuse(g, u, o).sweeps_per_step, 3);
  // On a 2-D mesh every 6 becomes 4 and every 3 becomes 2 (n = 2d).
  const auto g2 = isocost::mesh_graph({8, 8}, false);
  std::vector<double> u2(64, 1.0);
  u2[9] = 5;
  o.scheme = DiffusionScheme::crank_nicolson;
  const double a = std::sqrt(0.05), rho = 2 * a / (1 + 2 * a);
  EXPECT_EQ(isocost::diffuse(g2, u2, o).sweeps_per_step,
            static_cast<int>(std::ceil(std::log(0.05) / std::log(rho))));
}

TEST(Diffusion, TwoNodeClosedForms) {
  // Two nodes, one edge, loads (3, 1), n = 1.
  const auto g = isocost::mesh_graph({2}, false);
  const std::vector<double> u{3, 1};
  DiffusionOptions o;
  o.max_steps = 1;
  // Explicit: t = α(u0 − u1).
  o.scheme = DiffusionScheme::explicit_euler;
  o.alpha = 0.25;
  auto r = isocost::diffuse(g, u, o);
  EXPECT_DOUBLE_EQ(r.transfers[0], 0.5);
  EXPECT_DOUBLE_EQ(r.loads[0], 2.5);
  // Crank–Nicolson, solved exactly (many sweeps): the difference d = u0 − u1
  // becomes d·(1 − 2c)/(1 + 2c) with c = ᾱ/2; the transfer is c·(d + d_new).
  o.scheme = DiffusionScheme::crank_nicolson;
  o.alpha = 0.09;
  o.sweeps = 200;
  r = isocost::diffuse(g, u, o);
  const double c = std::sqrt(0.09) / 2, d = 2, d_new = d * (1 - 2 * c) / (1 + 2 * c);
  EXPECT_NEAR(r.transfers[0], c * (d + d_new), 1e-14);
  // First order implicit, solved exactly: d_new = d/(1 + 2α), t = α·d_new.
  o.scheme = DiffusionScheme::implicit;
  r = isocost::diffuse(g, u, o);
  EXPECT_NEAR(r.transfers[0], 0.09 * 2 / (1 + 2 * 0.09), 1e-14);
}

// Hot spot, random and step loads.
std::vector<double> loads_for(const ProcessGraph& g, int kind, unsigned seed) {
  std::vector<double> u(static_cast<std::size_t>(g.nodes), 1.0);
  std::mt19937_64 rng(seed);
  if (kind == 0) u[g.nodes / 3] = 1.0 + g.nodes;  // one hot spot
  if (kind == 1)
    for (auto& v : u) v = std::uniform_real_distribution<double>(0.2, 3)(rng);
  if (kind == 2)
    for (int v = 0; v < g.nodes / 2; ++v) u[v] = 3;  // a step
  return u;
}

TEST(Diffusion, ConservesAndConvergesOnMeshesAndTori) {
  const std::vector<std::vector<int>> meshes{{16}, {6, 7}, {8, 8}, {4, 4, 4}, {3, 5, 4}};
  for (const auto& dims : meshes)
    for (bool torus : {false, true})
      for (int kind = 0; kind < 3; ++kind)
        for (auto scheme : kIterative) {
          const auto g = isocost::mesh_graph(dims, torus);
          const auto u = loads_for(g, kind, 3);
          DiffusionOptions o;
          o.scheme = scheme;
          o.alpha = scheme == DiffusionScheme::explicit_euler ? 0.9 / g.max_degree() : 0.05;
          if (scheme == DiffusionScheme::explicit_euler) o.alpha = std::min(o.alpha, 0.05);
          const auto r = isocost::diffuse(g, u, o);
          const double before = std::accumulate(u.begin(), u.end(), 0.0);
          const double after = std::accumulate(r.loads.begin(), r.loads.end(), 0.0);
          const std::string where = std::string(to_string(scheme)) + " mesh " +
                                    std::to_string(dims.size()) + "-D" + (torus ? " torus" : "") +
                                    " kind " + std::to_string(kind);
          EXPECT_NEAR(after, before, 1e-12 * before) << where;
          EXPECT_TRUE(r.converged()) << where << " " << r.brief_report();
          EXPECT_LE(r.final_imbalance, o.alpha * (1 + 1e-9)) << where;
          EXPECT_EQ(r.transfers.size(), g.edges.size());
          for (double v : r.loads) EXPECT_GE(v, -1e-12) << where;
        }
}

TEST(Diffusion, LeastSquaresSatisfiesATEqualsLbarWithMinimumNorm) {
  // A·T = L̄ (each node's net outflow is its excess over the average) and T
  // has minimum norm: compare with the dense pseudo-inverse solution.
  for (bool torus : {false, true}) {
    const auto g = isocost::mesh_graph({3, 4}, torus);
    const auto u = loads_for(g, 1, 4);
    DiffusionOptions o;
    o.scheme = DiffusionScheme::least_squares;
    const auto r = isocost::diffuse(g, u, o);
    const double avg = std::accumulate(u.begin(), u.end(), 0.0) / g.nodes;
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(g.nodes, static_cast<Eigen::Index>(g.edges.size()));
    for (std::size_t k = 0; k < g.edges.size(); ++k) {
      A(g.edges[k].i, static_cast<Eigen::Index>(k)) = 1;
      A(g.edges[k].j, static_cast<Eigen::Index>(k)) = -1;
    }
    Eigen::VectorXd Lbar(g.nodes), T(static_cast<Eigen::Index>(g.edges.size()));
    for (int v = 0; v < g.nodes; ++v) Lbar[v] = u[v] - avg;
    for (std::size_t k = 0; k < g.edges.size(); ++k)
      T[static_cast<Eigen::Index>(k)] = r.transfers[k];
    EXPECT_LT((A * T - Lbar).norm(), 1e-12 * Lbar.norm());
    // Unit edge weights here (no axis of length 2): the minimum-norm solution
    // of A·T = L̄ is the pseudo-inverse one.
    const Eigen::VectorXd best = A.completeOrthogonalDecomposition().pseudoInverse() * Lbar;
    EXPECT_LT((T - best).norm(), 1e-10 * best.norm());
    for (double v : r.loads) EXPECT_NEAR(v, avg, 1e-12 * avg);
    EXPECT_EQ(r.steps, 1);
  }
  // Conjugate gradients above the direct limit give the same transfers.
  const auto g = isocost::mesh_graph({10, 10}, false);
  const auto u = loads_for(g, 1, 5);
  DiffusionOptions o;
  o.scheme = DiffusionScheme::least_squares;
  const auto direct = isocost::diffuse(g, u, o);
  o.direct_limit = 10;
  const auto cg = isocost::diffuse(g, u, o);
  EXPECT_GT(cg.jacobi_sweeps, 0);
  for (std::size_t k = 0; k < direct.transfers.size(); ++k)
    EXPECT_NEAR(cg.transfers[k], direct.transfers[k], 1e-9);
}

TEST(Diffusion, LeastSquaresConjugateGradientsOnWeightedGraphs) {
  // The conjugate gradients (written out, issue #23) agree with the Cholesky
  // on weighted Laplacians: parallel edges merged (weight 3 on 0-4, 2 on
  // 2-5), a torus axis of length 2 (weight 2), node 0 of high degree; and
  // balanced loads take no iteration.
  const std::vector<ProcessGraph> graphs{
      isocost::edge_graph(
          7, {{0, 4}, {4, 0}, {0, 4}, {0, 1}, {0, 6}, {1, 2}, {2, 5}, {5, 2}, {3, 5}, {6, 3}}),
      isocost::mesh_graph({2, 5}, true), isocost::mesh_graph({3, 2, 4}, true)};
  for (std::size_t k = 0; k < graphs.size(); ++k) {
    const auto& g = graphs[k];
    const auto u = loads_for(g, 1, 7);
    DiffusionOptions o;
    o.scheme = DiffusionScheme::least_squares;
    const auto direct = isocost::diffuse(g, u, o);
    o.direct_limit = 0;
    const auto cg = isocost::diffuse(g, u, o);
    EXPECT_GT(cg.jacobi_sweeps, 0) << k;
    EXPECT_LE(cg.jacobi_sweeps, 2 * g.nodes) << k;
    EXPECT_TRUE(cg.converged()) << k;
    for (std::size_t e = 0; e < direct.transfers.size(); ++e)
      EXPECT_NEAR(cg.transfers[e], direct.transfers[e], 1e-12) << k << " edge " << e;
    const auto flat = isocost::diffuse(g, std::vector<double>(g.nodes, 2.5), o);
    EXPECT_EQ(flat.jacobi_sweeps, 0) << k;
    for (double t : flat.transfers) EXPECT_EQ(t, 0) << k;
  }
}

TEST(Diffusion, SecondOrderNeedsFewerSweepsThanFirstOrderHere) {
  // Watts's claim, on one case: a hot spot on a 16x16 mesh. (The benchmark
  // reports it across sizes.)
  const auto g = isocost::mesh_graph({16, 16}, false);
  const auto u = loads_for(g, 0, 1);
  DiffusionOptions o;
  o.scheme = DiffusionScheme::crank_nicolson;
  const auto cn = isocost::diffuse(g, u, o);
  o.scheme = DiffusionScheme::implicit;
  const auto first = isocost::diffuse(g, u, o);
  EXPECT_TRUE(cn.converged());
  EXPECT_TRUE(first.converged());
  EXPECT_LT(cn.jacobi_sweeps, first.jacobi_sweeps);
}

TEST(Diffusion, BudgetAndBadInput) {
  const auto g = isocost::mesh_graph({8}, false);
  std::vector<double> u(8, 1.0);
  u[0] = 100;
  DiffusionOptions o;
  o.max_steps = 2;
  const auto r = isocost::diffuse(g, u, o);
  EXPECT_FALSE(r.converged());
  EXPECT_EQ(r.steps, 2);
  o = {};
  o.scheme = DiffusionScheme::explicit_euler;
  o.alpha = 0.6;  // n = 2 on a chain: limit 1/2
  expect_error([&] { isocost::diffuse(g, u, o); },
               {"alpha=0.6", "stability limit 1/n = 0.5", "2^-d"});
  o = {};
  o.alpha = 1;
  expect_error([&] { isocost::diffuse(g, u, o); }, {"alpha: expected a number in (0, 1)", "1"});
  o.alpha = 0.05;
  std::vector<double> bad = u;
  bad[3] = -1;
  expect_error([&] { isocost::diffuse(g, bad, o); }, {"node 3", "-1", ">= 0"});
  bad[3] = std::nan("");
  expect_error([&] { isocost::diffuse(g, bad, o); }, {"node 3", "nan"});
  expect_error([&] { isocost::diffuse(g, std::vector<double>(7, 1.0), o); },
               {"7 loads for 8 nodes; expected one per node"});
  expect_error([&] { isocost::diffuse(g, std::vector<double>(8, 0.0), o); },
               {"all loads are zero"});
  expect_error([] { isocost::parse_diffusion_scheme("rk4"); },
               {"scheme: expected cn, implicit, explicit or lsq, got 'rk4'"});
}

TEST(Diffusion, LoadsNearTheDoubleLimitAndTinyLoadsBalance) {
  // The loads summed to inf: every imbalance read −1 and nothing moved, yet
  // the result said converged. Scaled by 2^±1000 the transfers are those of
  // the moderate loads, scaled exactly (2^-1000 keeps the tiny loads normal).
  const auto g = isocost::mesh_graph({4}, false);
  const std::vector<double> moderate{1.0, 1.0, 1.5, 0.2};
  for (auto scheme : {DiffusionScheme::crank_nicolson, DiffusionScheme::implicit,
                      DiffusionScheme::explicit_euler, DiffusionScheme::least_squares}) {
    DiffusionOptions o;
    o.scheme = scheme;
    o.alpha = 0.05;
    const auto ref = isocost::diffuse(g, moderate, o);
    ASSERT_TRUE(ref.converged()) << ref.brief_report();
    for (int e : {1020, -1000}) {
      std::vector<double> u;
      for (double v : moderate) u.push_back(std::ldexp(v, e));
      const auto d = isocost::diffuse(g, u, o);
      EXPECT_TRUE(d.converged()) << d.brief_report();
      EXPECT_NEAR(d.initial_imbalance, 1.5 / (3.7 / 4) - 1, 1e-12) << d.brief_report();
      EXPECT_LE(d.final_imbalance, o.alpha * (1 + 1e-9)) << d.brief_report();
      EXPECT_EQ(d.final_imbalance, ref.final_imbalance);
      ASSERT_EQ(d.transfers.size(), ref.transfers.size());
      for (std::size_t k = 0; k < d.transfers.size(); ++k)
        EXPECT_EQ(d.transfers[k], std::ldexp(ref.transfers[k], e)) << k;
      // The final imbalance is that of the loads returned.
      const double big = *std::max_element(d.loads.begin(), d.loads.end());
      double mean = 0;
      for (double v : d.loads) mean += std::ldexp(v, -e) / 4;
      EXPECT_NEAR(std::ldexp(big, -e) / mean - 1, d.final_imbalance, 1e-12);
    }
  }
  // Transfers beyond the double range are an error, not a silent inf.
  expect_error(
      [&] {
        isocost::diffuse(g, std::vector<double>{1.7e308, 1.7e308, 1.7e308, 0});
      },
      {"transfer volume", "inf"});
}

TEST(Simulation, PearceAlgorithm2) {
  // Two nodes joined by one edge (n = 1), loads (3, 1), elements (300, 100),
  // γ = 1: rate 1/(n + 1) = 1/2, flow 1 from node 0, carrying 300/3 elements
  // per unit load: (2, 2) after one step, 100 elements moved. (As a 2-node
  // mesh the boundary padding makes n = 2 and the rate 1/3.)
  const auto g = isocost::edge_graph(2, {{0, 1}});
  const std::vector<double> u{3, 1}, e{300, 100};
  const auto s = isocost::simulate_diffusion(g, u, e);
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_TRUE(s.converged());
  EXPECT_EQ(s.convergence_steps, 1);
  EXPECT_DOUBLE_EQ(s.steps[0].max_load, 2);
  EXPECT_DOUBLE_EQ(s.steps[0].max_elements_moved, 100);
  // A hot spot on a mesh: L_max never increases and reaches the threshold.
  const auto m = isocost::mesh_graph({8, 8}, false);
  std::vector<double> v(64, 1.0), el(64, 10.0);
  v[27] = 40;
  el[27] = 400;
  isocost::SimulationOptions o;
  o.gamma = 0.5;
  const auto t = isocost::simulate_diffusion(m, v, el, o);
  EXPECT_TRUE(t.converged());
  EXPECT_EQ(t.options.gamma, 0.5);  // the options given
  for (std::size_t k = 1; k < t.steps.size(); ++k)
    EXPECT_LE(t.steps[k].max_load, t.steps[k - 1].max_load + 1e-12);
  o.gamma = 1.5;
  expect_error([&] { isocost::simulate_diffusion(m, v, el, o); }, {"gamma", "1.5"});
}

}  // namespace
