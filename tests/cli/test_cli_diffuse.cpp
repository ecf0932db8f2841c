// End-to-end tests of `isocost diffuse` (src/cli/diffuse_command.cpp), run as
// a child process. Expected values are derived here, never copied from a run:
//   - Any transfer vector must reproduce the printed final loads:
//     u_i − Σ_{e out of i} t_e + Σ_{e into i} t_e, and conserve the total.
//   - Least squares (Eijkhout §2): A·T = u − u_avg, so every final load is
//     u_avg; on a chain of two ranks T = (u_0 − u_1)/2.
//   - Pearce's simulator (Alg. 2) on two ranks with loads 3 and 1: n = 2,
//     α_s = 1/3, so the difference shrinks by 1 − 2·α_s = 1/3 per step and
//     L_max after step k is 2 + (1/3)^k; the load (= elements) moved in step
//     k is (2/3)·(1/3)^(k−1). The threshold 0.05 is met once (1/3)^k <= 0.1,
//     at k = 3.
//   - Meshes: an M_0×M_1 mesh has M_0(M_1 − 1) + M_1(M_0 − 1) edges, a torus
//     2·M_0·M_1 when both sides exceed 2.
// Bad input: exit 2, one line "isocost: error: …" naming the value, nothing on
// stdout, no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using isocost::testing::Cat;
using isocost::testing::Has;
using isocost::testing::Listing;
using isocost::testing::Num;
using isocost::testing::Outcome;
using isocost::testing::Show;
using isocost::testing::WriteFile;

std::string Column(const std::vector<double>& v) {
  std::string s;
  for (double x : v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g\n", x);
    s += buf;
  }
  return s;
}

class Diffuse : public isocost::testing::CliTest {
 protected:
  std::string File(const std::string& name, const std::string& text) {
    WriteFile(dir / name, text);
    return (dir / name).string();
  }
  json Run(const std::vector<std::string>& args) {
    return OkJson(Cat(Cat({"diffuse"}, args), {"--json"}));
  }
};

// The final loads the transfers imply, from the JSON's edge list.
std::vector<double> Applied(const json& j, const std::vector<double>& u) {
  std::vector<double> v = u;
  for (const auto& e : j.at("transfers")) {
    const double t = Num(e.at("transfer"));
    v[e.at("i").get<int>()] -= t;
    v[e.at("j").get<int>()] += t;
  }
  return v;
}

void ExpectConsistent(const json& j, const std::vector<double>& u, double alpha) {
  const double total = std::accumulate(u.begin(), u.end(), 0.0);
  const double avg = total / static_cast<double>(u.size());
  const auto applied = Applied(j, u);
  ASSERT_EQ(j.at("loads").size(), u.size());
  double sum = 0, max = 0, volume = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    const auto& row = j.at("loads")[i];
    EXPECT_EQ(row.at("rank").get<std::size_t>(), i);
    EXPECT_EQ(Num(row.at("initial")), u[i]);
    const double fin = Num(row.at("final"));
    EXPECT_NEAR(fin, applied[i], 1e-12 * total) << "rank " << i;
    sum += fin;
    max = std::max(max, fin);
  }
  for (const auto& e : j.at("transfers")) volume += std::fabs(Num(e.at("transfer")));
  EXPECT_NEAR(sum, total, 1e-12 * total);
  EXPECT_NEAR(Num(j.at("total_load")), total, 1e-12 * total);
  EXPECT_NEAR(Num(j.at("final_imbalance")), max / avg - 1, 1e-12);
  EXPECT_NEAR(Num(j.at("transfer_volume")), volume, 1e-12 * volume);
  EXPECT_TRUE(j.at("converged").get<bool>());
  EXPECT_LE(max, (1 + alpha) * avg * (1 + 1e-12));
}

// ---------------------------------------------------------------------------
// 1. Meshes and tori, every scheme

TEST_F(Diffuse, EverySchemeConservesAndReachesAlphaOnMeshesAndTori) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> d(0.0, 1.0);
  struct Case {
    std::string mesh;
    bool torus;
    int nodes, edges;
    double n;  // neighbours per rank, 2 per dimension longer than 1
  };
  const Case cases[] = {{"16", false, 16, 15, 2},    {"16", true, 16, 16, 2},
                        {"6x5", false, 30, 49, 4},   {"6x5", true, 30, 60, 4},
                        {"4x3x3", false, 36, 75, 6}, {"4x3x3", true, 36, 108, 6}};
  for (const auto& c : cases)
    for (const std::string pattern : {"hot", "random", "step"})
      for (const std::string scheme : {"cn", "implicit", "explicit", "lsq"}) {
        std::vector<double> u(static_cast<std::size_t>(c.nodes), 1.0);
        if (pattern == "hot") {
          u.assign(u.size(), 0.0);
          u[u.size() / 2] = c.nodes;
        } else if (pattern == "random") {
          for (auto& v : u) v = d(rng);
        } else {
          for (std::size_t i = 0; i < u.size() / 2; ++i) u[i] = 3;
        }
        const auto loads = File("loads.txt", Column(u));
        const double alpha = scheme == "explicit" ? 0.5 / c.n : 0.05;
        auto args = std::vector<std::string>{"--mesh",   c.mesh,    "--loads",
                                             loads,      "--alpha", std::to_string(alpha),
                                             "--scheme", scheme};
        if (c.torus) args.push_back("--torus");
        SCOPED_TRACE(Show(args) + " (" + pattern + ")");
        const json j = Run(args);
        EXPECT_EQ(j.at("graph").at("nodes").get<int>(), c.nodes);
        EXPECT_EQ(j.at("graph").at("edges").get<int>(), c.edges);
        EXPECT_EQ(Num(j.at("graph").at("neighbours")), c.n);
        EXPECT_EQ(j.at("scheme").get<std::string>(), scheme);
        ExpectConsistent(j, u, alpha);
        if (scheme == "lsq") {
          const double avg = std::accumulate(u.begin(), u.end(), 0.0) / c.nodes;
          for (const auto& row : j.at("loads")) EXPECT_NEAR(Num(row.at("final")), avg, 1e-11);
        }
      }
}

TEST_F(Diffuse, LeastSquaresOnTwoRanksSendsHalfTheDifference) {
  const auto loads = File("loads.txt", "7.5\n2.25\n");
  const json j = Run({"--mesh", "2", "--loads", loads, "--scheme", "lsq"});
  ASSERT_EQ(j.at("transfers").size(), 1u);
  EXPECT_NEAR(Num(j.at("transfers")[0].at("transfer")), (7.5 - 2.25) / 2, 1e-14);
  EXPECT_EQ(j.at("steps").get<int>(), 1);
}

TEST_F(Diffuse, TextOutputListsEveryEdgeAndRank) {
  const auto loads = File("loads.txt", "10\n1\n1\n1\n1\n1\n1\n1\n1\n");
  const std::string out = Ok({"diffuse", "--mesh", "3x3", "--loads", loads});
  EXPECT_TRUE(Has(out, "graph: mesh 3x3 (9 ranks, 12 edges, n = 4 neighbours per rank)")) << out;
  EXPECT_TRUE(Has(out, "scheme cn, alpha 0.05:")) << out;
  EXPECT_TRUE(Has(out, "converged")) << out;
  EXPECT_TRUE(Has(out, "imbalance (max/avg - 1) 4 ->")) << out;
  // One row per edge after the transfers header, one per rank after "rank".
  const auto lines = isocost::testing::Lines(out);
  const auto edges = std::find_if(lines.begin(), lines.end(),
                                  [](const std::string& l) { return l.rfind("edge", 0) == 0; });
  const auto ranks = std::find_if(lines.begin(), lines.end(),
                                  [](const std::string& l) { return l.rfind("rank", 0) == 0; });
  ASSERT_NE(edges, lines.end());
  ASSERT_NE(ranks, lines.end());
  EXPECT_EQ(ranks - edges, 12 + 2);  // 12 rows and a blank line
  EXPECT_EQ(lines.end() - ranks, 1 + 9);
}

TEST_F(Diffuse, StepBudgetRunningOutIsExitThreeWithTheOutput) {
  const auto loads = File("loads.txt", "100\n0\n0\n0\n0\n0\n0\n0\n");
  const auto args =
      std::vector<std::string>{"diffuse", "--mesh", "8", "--loads", loads, "--max-steps", "2"};
  const Outcome r = Isocost(args);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_TRUE(Has(r.out, "NOT converged")) << r.out;
  EXPECT_TRUE(Has(r.err, "--max-steps 2")) << r.err;
}

// ---------------------------------------------------------------------------
// 2. General process graphs

TEST_F(Diffuse, EdgeListGraphMatchesTheSameTorus) {
  // The 2x3 torus written as an edge list, comments, commas and tabs
  // included. Its length-2 axis wraps onto the same neighbour, so each of
  // those edges is listed twice (weight 2) as mesh_graph() merges them; every
  // node then has weighted degree 4, the mesh's n, and every scheme must give
  // the transfers of --mesh 2x3 --torus, edge by edge.
  const std::vector<double> u{6, 0, 1, 2, 0, 3};
  const auto loads = File("loads.txt", Column(u));
  const auto graph = File("graph.txt",
                          "# 2x3 torus, C order\n0 3\n0 3\n1,4\n4,1\n2\t5\n2 5\n\n"
                          "0 1\n1 2\n0 2\n3 4\n4 5\n3 5\n");
  for (const std::string scheme : {"cn", "implicit", "explicit", "lsq"}) {
    const std::string alpha = scheme == "explicit" ? "0.2" : "0.05";
    const json g = Run({"--graph", graph, "--loads", loads, "--scheme", scheme, "--alpha", alpha});
    const json m =
        Run({"--mesh", "2x3", "--torus", "--loads", loads, "--scheme", scheme, "--alpha", alpha});
    SCOPED_TRACE(scheme);
    EXPECT_EQ(g.at("graph").at("kind"), "edges");
    EXPECT_EQ(Num(g.at("graph").at("neighbours")), 4);
    ExpectConsistent(g, u, std::stod(alpha));
    EXPECT_EQ(g.at("steps"), m.at("steps"));
    ASSERT_EQ(g.at("transfers").size(), 9u);
    ASSERT_EQ(m.at("transfers").size(), 9u);
    // The same edges (i, j), with their weights and transfers, in any order.
    for (const auto& e : m.at("transfers")) {
      const auto it = std::find_if(
          g.at("transfers").begin(), g.at("transfers").end(),
          [&](const json& f) { return f.at("i") == e.at("i") && f.at("j") == e.at("j"); });
      ASSERT_NE(it, g.at("transfers").end()) << e.dump();
      EXPECT_EQ(Num(it->at("weight")), Num(e.at("weight")));
      EXPECT_NEAR(Num(it->at("transfer")), Num(e.at("transfer")), 1e-12);
    }
  }
}

// ---------------------------------------------------------------------------
// 3. Pearce's simulator

TEST_F(Diffuse, SimulatorOnTwoRanksFollowsTheClosedForm) {
  const auto loads = File("loads.txt", "3\n1\n");
  const json j = Run({"--mesh", "2", "--loads", loads, "--simulate"});
  EXPECT_EQ(j.at("mode"), "simulate");
  EXPECT_EQ(j.at("convergence_steps").get<int>(), 3);
  EXPECT_TRUE(j.at("converged").get<bool>());
  ASSERT_EQ(j.at("steps").size(), 3u);
  for (int k = 1; k <= 3; ++k) {
    const auto& s = j.at("steps")[k - 1];
    EXPECT_NEAR(Num(s.at("max_load")), 2 + std::pow(1.0 / 3, k), 1e-14) << k;
    EXPECT_NEAR(Num(s.at("max_elements_moved")), 2.0 / 3 * std::pow(1.0 / 3, k - 1), 1e-14) << k;
  }
  // γ = 0.5 halves the step: the difference shrinks by 1 − 1/3 = 2/3.
  const json h = Run({"--mesh", "2", "--loads", loads, "--simulate", "--gamma", "0.5"});
  EXPECT_NEAR(Num(h.at("steps")[0].at("max_load")), 2 + 2.0 / 3, 1e-14);
  // Elements per rank: 30 and 10 elements for loads 3 and 1, so 10 elements
  // per unit load; the first step moves 2/3 of a unit, 20/3 elements.
  const auto elements = File("elements.txt", "30\n10\n");
  const json e = Run({"--mesh", "2", "--loads", loads, "--simulate", "--elements", elements});
  EXPECT_NEAR(Num(e.at("steps")[0].at("max_elements_moved")), 20.0 / 3, 1e-13);
}

// ---------------------------------------------------------------------------
// 4. Bad input

struct BadCase {
  const char* name;
  std::vector<std::string> args;
  std::vector<std::string> fragments;  // must all appear in the error line
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class BadDiffuseInput : public Diffuse, public ::testing::WithParamInterface<BadCase> {
 protected:
  void SetUp() override {
    Diffuse::SetUp();
    File("four.txt", "4\n1\n1\n1\n");
    File("six.txt", "4\n1\n1\n1\n1\n1\n");
    File("negative.txt", "4\n-1\n1\n1\n");
    File("nan.txt", "4\nnan\n1\n1\n");
    File("zeros.txt", "0\n0\n0\n0\n");
    File("disconnected.txt", "0 1\n2 3\n");
    File("selfloop.txt", "0 1\n1 1\n1 2\n2 3\n");
    File("badnode.txt", "0 1\n1 7\n");
    File("malformed.txt", "0 1 2\n");
    File("elements3.txt", "1\n2\n3\n");
  }
};

const BadCase kBadCases[] = {
    {"NegativeLoad", {"diffuse", "--mesh", "2x2", "--loads", "negative.txt"}, {"-1"}},
    {"NaNLoad", {"diffuse", "--mesh", "2x2", "--loads", "nan.txt"}, {"nan"}},
    {"AllZero", {"diffuse", "--mesh", "2x2", "--loads", "zeros.txt"}, {"zero"}},
    {"WrongCountForMesh",
     {"diffuse", "--mesh", "3x3", "--loads", "four.txt"},
     {"4 loads", "3x3", "9 ranks"}},
    {"AlphaZero",
     {"diffuse", "--mesh", "2x2", "--loads", "four.txt", "--alpha", "0"},
     {"--alpha", "'0'"}},
    {"AlphaOne",
     {"diffuse", "--mesh", "2x2", "--loads", "four.txt", "--alpha", "1"},
     {"(0, 1)", "'1'"}},
    {"AlphaNotANumber",
     {"diffuse", "--mesh", "2x2", "--loads", "four.txt", "--alpha", "x"},
     {"--alpha", "'x'"}},
    {"ExplicitBeyondStability",
     {"diffuse", "--mesh", "2x2", "--loads", "four.txt", "--scheme", "explicit", "--alpha", "0.3"},
     {"alpha=0.3", "stability limit", "0.25"}},
    {"UnknownScheme",
     {"diffuse", "--mesh", "2x2", "--loads", "four.txt", "--scheme", "sor"},
     {"--scheme", "'sor'"}},
    {"MeshMalformed", {"diffuse", "--mesh", "2xx2", "--loads", "four.txt"}, {"--mesh", "'2xx2'"}},
    {"MeshZero", {"diffuse", "--mesh", "0x4", "--loads", "four.txt"}, {"--mesh", "'0x4'"}},
    {"MeshFourDims", {"diffuse", "--mesh", "1x1x2x2", "--loads", "four.txt"}, {"--mesh", "4"}},
    {"NoTopology", {"diffuse", "--loads", "four.txt"}, {"--mesh", "--graph"}},
    {"MeshAndGraph",
     {"diffuse", "--mesh", "2x2", "--graph", "disconnected.txt", "--loads", "four.txt"},
     {"--mesh", "--graph"}},
    {"TorusWithoutMesh",
     {"diffuse", "--graph", "disconnected.txt", "--torus", "--loads", "four.txt"},
     {"--torus", "--mesh"}},
    {"NoLoads", {"diffuse", "--mesh", "2x2"}, {"--loads"}},
    {"MissingLoadsFile", {"diffuse", "--mesh", "2x2", "--loads", "nosuch.txt"}, {"nosuch.txt"}},
    {"DisconnectedGraph",
     {"diffuse", "--graph", "disconnected.txt", "--loads", "four.txt"},
     {"disconnected", "{0, 1}", "{2, 3}"}},
    {"SelfLoop",
     {"diffuse", "--graph", "selfloop.txt", "--loads", "four.txt"},
     {"selfloop.txt:2", "self-loop", "1"}},
    {"GraphNodeOutOfRange",
     {"diffuse", "--graph", "badnode.txt", "--loads", "four.txt"},
     {"badnode.txt:2", "node 7", "4 ranks"}},
    {"GraphMalformedLine",
     {"diffuse", "--graph", "malformed.txt", "--loads", "four.txt"},
     {"malformed.txt:1", "'0 1 2'"}},
    {"MaxStepsZero",
     {"diffuse", "--mesh", "2x2", "--loads", "four.txt", "--max-steps", "0"},
     {"--max-steps", "0"}},
    {"SchemeWithSimulate",
     {"diffuse", "--mesh", "2x2", "--loads", "four.txt", "--simulate", "--scheme", "cn"},
     {"--scheme", "--simulate"}},
    {"GammaWithoutSimulate",
     {"diffuse", "--mesh", "2x2", "--loads", "four.txt", "--gamma", "0.5"},
     {"--gamma"}},
    {"SimulateGammaTooLarge",
     {"diffuse", "--mesh", "2x2", "--loads", "four.txt", "--simulate", "--gamma", "1.5"},
     {"--gamma", "'1.5'"}},
    {"ElementsWrongCount",
     {"diffuse", "--mesh", "2x2", "--loads", "four.txt", "--simulate", "--elements",
      "elements3.txt"},
     {"elements3.txt", "3", "4 ranks"}},
    {"ModelWithoutCuts",
     {"diffuse", "--mesh", "2x2", "--loads", "four.txt", "--model", "sieve"},
     {"--model", "--cuts"}},
    {"CutsWithMesh",
     {"diffuse", "--mesh", "2x2", "--loads", "four.txt", "--cuts", "four.txt"},
     {"--mesh", "--cuts"}},
};

TEST_P(BadDiffuseInput, ExitsTwoWithOneLineAndWritesNothing) {
  const BadCase& c = GetParam();
  const auto before = Listing(dir);
  const auto args = Cat(c.args, {"-o", "out.file"});
  const Outcome r = Isocost(args);
  SCOPED_TRACE(Show(args) + "\nstderr: " + r.err);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.rfind("isocost: error:", 0), 0u);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  for (const auto& f : c.fragments) EXPECT_TRUE(Has(r.err, f)) << "missing '" << f << "'";
  EXPECT_EQ(Listing(dir), before);
}

INSTANTIATE_TEST_SUITE_P(Cases, BadDiffuseInput, ::testing::ValuesIn(kBadCases),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
