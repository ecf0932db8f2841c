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
//   - Cuts 0,2,4,6,8,10 on t(x) = x with loads 3,1,1,1,1 (avg 1.4): least
//     squares on a chain sends T_b = Σ_{r<=b}(u_r − avg) over boundary b+1:
//     1.6, 1.2, 0.8, 0.4. The load-corrected model is L(x) = 1.5x on [0, 2]
//     (3 units of load on 2 of cost) and 3 + (x − 2)/2 above, and each cut
//     moves to L(x') = L(x) − T: x' = 1.4/1.5, 2.8/1.5, 2 + 2·1.2, 2 + 2·2.6.
//     Every rank is then predicted to carry 1.4. With γ = 0.25 each cut moves
//     at most 0.25 × 2 = 0.5 toward the sender: 1.5, 3.5, 5.5, 7.5, all capped.
//   - Tasks: loads in multiples of 0.5 totalling 12.5 on 4 ranks, so no rank
//     can carry less than 3.5 at the maximum (4 × 3 < 12.5).
//   - Meshes: an M_0×M_1 mesh has M_0(M_1 − 1) + M_1(M_0 − 1) edges, a torus
//     2·M_0·M_1 when both sides exceed 2.
// Bad input: exit 2, one line "isocost: error: …" naming the value, nothing on
// stdout, no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using isocost::testing::BadCase;
using isocost::testing::BadCaseName;
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
  EXPECT_NEAR(Num(j.at("diffusion").at("final_imbalance")), max / avg - 1, 1e-12);
  EXPECT_NEAR(Num(j.at("diffusion").at("transfer_volume")), volume, 1e-12 * volume);
  EXPECT_TRUE(j.at("diffusion").at("converged").get<bool>());
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
  EXPECT_EQ(j.at("diffusion").at("steps").get<int>(), 1);
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

// Loads near the double limit (issue #25): diffuse() scales them; the report
// gives their total (beyond a double) and average as numbers, not inf.
TEST_F(Diffuse, LoadsNearTheDoubleLimitAreReportedAsNumbers) {
  const auto f = File("big.txt", "1e308\n1e308\n1e308\n");
  const std::string text = Ok({"diffuse", "--mesh", "3", "--loads", f});
  EXPECT_TRUE(Has(text, "loads: total 3e+308 (beyond a double), average 1e+308")) << text;
  EXPECT_FALSE(Has(text, "inf")) << text;
  const json j = OkJson({"diffuse", "--mesh", "3", "--loads", f, "--json"});
  EXPECT_TRUE(j["total_load"].is_null()) << j.dump();
  EXPECT_EQ(Num(j["average_load"]), 1e308);
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
    EXPECT_EQ(g.at("diffusion").at("steps"), m.at("diffusion").at("steps"));
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

TEST_F(Diffuse, SimulatorStepBudgetRunningOutIsExitThreeWithTheOutput) {
  // 3 and 1 need 3 steps to reach the threshold (above); 2 steps are not enough.
  const auto loads = File("loads.txt", "3\n1\n");
  const Outcome r =
      Isocost({"diffuse", "--mesh", "2", "--loads", loads, "--simulate", "--max-steps", "2"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_TRUE(Has(r.out, "NOT converged after 2 steps")) << r.out;
  EXPECT_TRUE(Has(r.err, "--max-steps 2")) << r.err;
}

// ---------------------------------------------------------------------------
// 4. A 1-D partition's cuts

TEST_F(Diffuse, CutsMoveToTheClosedFormOfTheLoadCorrectedModel) {
  const auto cuts = File("cuts.txt", "0\n2\n4\n6\n8\n10\n");
  const auto loads = File("loads.txt", "3\n1\n1\n1\n1\n");
  const std::vector<std::string> base{"--cuts", cuts,      "--loads", loads,      "--model",
                                      "power",  "--param", "p=1",     "--domain", "0:10"};
  const json j = Run(Cat(base, {"--scheme", "lsq"}));
  EXPECT_EQ(j.at("mode"), "cuts");
  const std::vector<double> expect{0, 1.4 / 1.5, 2.8 / 1.5, 4.4, 7.2, 10};
  const std::vector<double> transfer{1.6, 1.2, 0.8, 0.4};
  ASSERT_EQ(j.at("cuts").size(), expect.size());
  for (std::size_t k = 0; k < expect.size(); ++k)
    EXPECT_NEAR(Num(j.at("cuts")[k]), expect[k], 1e-12) << k;
  ASSERT_EQ(j.at("boundaries").size(), 4u);
  for (std::size_t b = 0; b < 4; ++b) {
    const auto& e = j.at("boundaries")[b];
    EXPECT_NEAR(Num(e.at("transfer")), transfer[b], 1e-12);
    EXPECT_NEAR(Num(e.at("load_moved")), transfer[b], 1e-12);
    EXPECT_NEAR(Num(e.at("cost_moved")), Num(e.at("x_old")) - Num(e.at("x_new")), 1e-12);
    EXPECT_FALSE(e.at("capped").get<bool>());
  }
  for (const auto& p : j.at("parts")) EXPECT_NEAR(Num(p.at("predicted_load")), 1.4, 1e-12);
  EXPECT_TRUE(j.at("max_move").is_null());

  // --max-move caps each move at max_move × the width of the range it enters.
  const json c = Run(Cat(base, {"--scheme", "lsq", "--max-move", "0.25"}));
  const std::vector<double> capped{0, 1.5, 3.5, 5.5, 7.5, 10};
  for (std::size_t k = 0; k < capped.size(); ++k)
    EXPECT_NEAR(Num(c.at("cuts")[k]), capped[k], 1e-12) << k;
  for (const auto& e : c.at("boundaries")) EXPECT_TRUE(e.at("capped").get<bool>());

  // Crank–Nicolson: the predicted loads are the diffusion's final loads, which
  // conserve the total and meet α.
  const json n = Run(base);
  double sum = 0, max = 0;
  for (const auto& p : n.at("parts")) {
    sum += Num(p.at("predicted_load"));
    max = std::max(max, Num(p.at("predicted_load")));
  }
  EXPECT_NEAR(sum, 7, 1e-12);
  EXPECT_LE(max, 1.05 * 1.4 * (1 + 1e-12));
  EXPECT_NEAR(Num(n.at("predicted").at("imbalance_after")), max / 1.4 - 1, 1e-12);
}

TEST_F(Diffuse, DiscreteCutsStayIntegers) {
  std::string w;
  for (int k = 0; k < 40; ++k) w += std::to_string(1 + k % 7) + "\n";
  const auto weights = File("w.txt", w);
  const auto cuts = File("cuts.txt", "0\n10\n20\n30\n40\n");
  const auto loads = File("loads.txt", "5\n1\n1\n1\n");
  const json j =
      Run({"--cuts", cuts, "--loads", loads, "--model", "discrete", "--weights", weights});
  double last = -1;
  for (const auto& x : j.at("cuts")) {
    const double v = Num(x);
    EXPECT_EQ(v, std::floor(v));
    EXPECT_GE(v, last);
    last = v;
  }
  EXPECT_EQ(Num(j.at("cuts")[0]), 0);
  EXPECT_EQ(Num(j.at("cuts")[4]), 40);
  EXPECT_LT(Num(j.at("cuts")[1]), 10);  // rank 0 gives work away
}

// ---------------------------------------------------------------------------
// 5. Tasks

TEST_F(Diffuse, TasksReachTheBestPossibleMaximumAndImmobileTasksStay) {
  const auto tasks = File("tasks.csv",
                          "rank,id,load,immobile\n0,1,3.0\n0,2,2.5\n0,3,2.0\n0,4,1.5,1\n"
                          "0,5,1.0\n1,6,1.0\n2,7,0.5\n3,8,1.0\n");
  const std::map<int, std::pair<int, double>> where{{1, {0, 3.0}}, {2, {0, 2.5}}, {3, {0, 2.0}},
                                                    {4, {0, 1.5}}, {5, {0, 1.0}}, {6, {1, 1.0}},
                                                    {7, {2, 0.5}}, {8, {3, 1.0}}};
  const json j = Run({"--tasks", tasks, "--mesh", "2x2"});
  EXPECT_EQ(j.at("mode"), "tasks");
  EXPECT_EQ(j.at("tasks").get<int>(), 8);
  EXPECT_EQ(j.at("immobile").get<int>(), 1);
  std::vector<double> load(4, 0.0);
  std::map<int, int> rank_of;
  for (const auto& [id, rl] : where) {
    load[rl.first] += rl.second;
    rank_of[id] = rl.first;
  }
  std::set<int> moved;
  for (const auto& m : j.at("moves")) {
    const int id = m.at("id").get<int>();
    EXPECT_TRUE(moved.insert(id).second) << "task " << id << " moves twice";
    EXPECT_NE(id, 4) << "the immobile task moved";
    EXPECT_EQ(m.at("from").get<int>(), rank_of.at(id));
    EXPECT_EQ(Num(m.at("load")), where.at(id).second);
    load[m.at("from").get<int>()] -= where.at(id).second;
    load[m.at("to").get<int>()] += where.at(id).second;
  }
  double max = 0;
  for (int v = 0; v < 4; ++v) {
    EXPECT_EQ(Num(j.at("ranks")[v].at("load_after")), load[v]) << v;
    max = std::max(max, load[v]);
  }
  EXPECT_EQ(max, 3.5);
  EXPECT_NEAR(Num(j.at("imbalance").at("tasks")), 3.5 / 3.125 - 1, 1e-12);
  EXPECT_TRUE(j.at("selection").at("terminated").get<bool>());
  EXPECT_GT(j.at("selection").at("exhaustive_searches").get<int>(), 0);
}

TEST_F(Diffuse, TasksOnAGraphWithFirstFitAndTrimming) {
  // 60 tasks on rank 0 of a ring of 6, none elsewhere: each edge carries more
  // than 20 tasks, so the chosen approximate method runs.
  std::string text;
  for (int k = 0; k < 60; ++k)
    text +=
        "0," + std::to_string(100 + k) + "," + std::to_string(0.5 + (k * 37 % 11) / 10.0) + "\n";
  const auto tasks = File("tasks.csv", text);
  const auto ring = File("ring.txt", "0 1\n1 2\n2 3\n3 4\n4 5\n5 0\n");
  for (const std::string method : {"first-fit", "trimming"}) {
    const json j = Run({"--tasks", tasks, "--graph", ring, "--selection", method});
    SCOPED_TRACE(method);
    EXPECT_EQ(j.at("selection").at("method"), method);
    EXPECT_GT(j.at("selection").at("approximate_searches").get<int>(), 0);
    double sum = 0, max = 0;
    for (const auto& r : j.at("ranks")) {
      sum += Num(r.at("load_after"));
      max = std::max(max, Num(r.at("load_after")));
    }
    const double total = Num(j.at("total_load"));
    EXPECT_NEAR(sum, total, 1e-12 * total);
    // Within one largest task (1.5) of the diffused maximum.
    double diffused = 0;
    for (const auto& r : j.at("ranks")) diffused = std::max(diffused, Num(r.at("diffused")));
    EXPECT_LE(max, diffused + 1.5);
  }
}

// ---------------------------------------------------------------------------
// 6. Bad input

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
    File("cuts5.txt", "0\n2\n4\n6\n8\n10\n");
    File("cuts_down.txt", "0\n2\n1\n6\n8\n10\n");
    File("cuts_out.txt", "0\n2\n4\n6\n8\n12\n");
    File("five.txt", "3\n1\n1\n1\n1\n");
    File("tasks_neg.csv", "0,1,2\n1,2,-1\n");
    File("tasks_dup.csv", "0,1,2\n1,1,3\n");
    File("tasks_far.csv", "0,1,2\n7,2,3\n");
    File("tasks_imm.csv", "0,1,2,2\n");
    File("tasks_nan.csv", "0,1,nan\n");
    File("tasks_zero.csv", "0,1,0\n1,2,0\n");
  }
};

const BadCase kBadDiffuseCases[] = {
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
    // A 1-D partition.
    {"CutsDecreasing",
     {"diffuse", "--cuts", "cuts_down.txt", "--loads", "five.txt", "--model", "power", "--param",
      "p=1", "--domain", "0:10"},
     {"cut 2", "1", "nondecreasing"}},
    {"CutOutsideDomain",
     {"diffuse", "--cuts", "cuts_out.txt", "--loads", "five.txt", "--model", "power", "--param",
      "p=1", "--domain", "0:10"},
     {"cut 5", "12", "[0, 10]"}},
    {"CutsLoadsMismatch",
     {"diffuse", "--cuts", "cuts5.txt", "--loads", "four.txt", "--model", "power", "--param", "p=1",
      "--domain", "0:10"},
     {"4 loads", "5 ranks"}},
    {"CutsWithoutModel", {"diffuse", "--cuts", "cuts5.txt", "--loads", "five.txt"}, {"--model"}},
    {"CutsMaxMoveZero",
     {"diffuse", "--cuts", "cuts5.txt", "--loads", "five.txt", "--model", "power", "--param", "p=1",
      "--domain", "0:10", "--max-move", "0"},
     {"--max-move", "'0'"}},
    {"CutsWithGamma",
     {"diffuse", "--cuts", "cuts5.txt", "--loads", "five.txt", "--model", "power", "--param", "p=1",
      "--domain", "0:10", "--gamma", "0.5"},
     {"--gamma", "--simulate", "--max-move"}},
    {"MaxMoveWithoutCuts",
     {"diffuse", "--mesh", "2x2", "--loads", "four.txt", "--max-move", "0.5"},
     {"--max-move", "--cuts"}},
    // Tasks.
    {"TaskNegativeLoad",
     {"diffuse", "--tasks", "tasks_neg.csv", "--mesh", "2"},
     {"tasks_neg.csv:2", "task 2", "'-1'"}},
    {"TaskNaNLoad",
     {"diffuse", "--tasks", "tasks_nan.csv", "--mesh", "2"},
     {"tasks_nan.csv:1", "'nan'"}},
    {"TaskDuplicateId",
     {"diffuse", "--tasks", "tasks_dup.csv", "--mesh", "2"},
     {"tasks_dup.csv:2", "id 1", "line 1"}},
    {"TaskRankOutsideMesh",
     {"diffuse", "--tasks", "tasks_far.csv", "--mesh", "2x2"},
     {"rank 7", "0..3"}},
    {"TaskImmobileNotZeroOrOne",
     {"diffuse", "--tasks", "tasks_imm.csv", "--mesh", "2"},
     {"tasks_imm.csv:1", "immobile", "'2'"}},
    {"TasksAllZero", {"diffuse", "--tasks", "tasks_zero.csv", "--mesh", "2"}, {"zero"}},
    {"TasksAndLoads",
     {"diffuse", "--tasks", "tasks_dup.csv", "--loads", "four.txt", "--mesh", "2"},
     {"--loads", "--tasks"}},
    {"SelectionUnknown",
     {"diffuse", "--tasks", "tasks_far.csv", "--mesh", "2x4", "--selection", "greedy"},
     {"--selection", "'greedy'"}},
    {"ExhaustiveLimitTooLarge",
     {"diffuse", "--tasks", "tasks_far.csv", "--mesh", "2x4", "--exhaustive-limit", "41"},
     {"--exhaustive-limit", "'41'"}},
    {"SelectionWithoutTasks",
     {"diffuse", "--mesh", "2x2", "--loads", "four.txt", "--selection", "trimming"},
     {"--selection", "--tasks"}},
};

TEST_P(BadDiffuseInput, ExitsTwoWithOneLineAndWritesNothing) {
  // -o: no output file may appear, whatever the command.
  ExpectRejected(Cat(GetParam().args, {"-o", "out.file"}), GetParam().fragments);
}

INSTANTIATE_TEST_SUITE_P(Cases, BadDiffuseInput, ::testing::ValuesIn(kBadDiffuseCases),
                         BadCaseName);

}  // namespace
