// Tests for isocost/tasks.hpp: exhaustive exchange against brute force and an
// exact dynamic program, first fit on large random cases, markers hopping
// over ranks (and coming home), exact conservation, the trimming bound, the
// diffusion → selection pipeline, the pass cap, and bad input.
#include "isocost/tasks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "support/expect_error.hpp"

namespace {

using isocost::ProcessGraph;
using isocost::Task;
using isocost::TaskSelectionMethod;
using isocost::TaskSelectionOptions;
using isocost::testing::expect_error;
using Tasks = std::vector<std::vector<Task>>;

ProcessGraph pair_graph() { return isocost::edge_graph(2, {{0, 1}}); }

// The smallest |t − (ΣS − ΣR)| over all subsets S of rank 0's mobile tasks and
// R of rank 1's, by plain enumeration of one bit mask over both lists.
double brute_force_error(const Tasks& tasks, double t) {
  std::vector<double> v;
  for (const auto& x : tasks[0])
    if (!x.immobile) v.push_back(x.load);
  for (const auto& x : tasks[1])
    if (!x.immobile) v.push_back(-x.load);
  double best = std::fabs(t);
  for (std::uint64_t mask = 1; mask < (std::uint64_t{1} << v.size()); ++mask) {
    double net = 0;
    for (std::size_t k = 0; k < v.size(); ++k)
      if (mask >> k & 1) net += v[k];
    best = std::min(best, std::fabs(t - net));
  }
  return best;
}

// Net load the moves carry from rank 0 to rank 1.
double net_moved(const isocost::TaskSelection& s) {
  double net = 0;
  for (const auto& m : s.moves) net += m.from == 0 ? m.load : -m.load;
  return net;
}

std::set<std::int64_t> immobile_ids(const Tasks& tasks) {
  std::set<std::int64_t> ids;
  for (const auto& list : tasks)
    for (const auto& t : list)
      if (t.immobile) ids.insert(t.id);
  return ids;
}

TEST(TaskSelection, ExhaustiveIsOptimalAgainstBruteForce) {
  std::mt19937_64 rng(20240605);
  std::uniform_real_distribution<double> real_load(0.1, 10.0);
  std::uniform_int_distribution<int> int_load(1, 6);
  std::uniform_real_distribution<double> transfer(-25.0, 25.0);
  std::bernoulli_distribution coin(0.5), rare(0.15);
  const auto g = pair_graph();
  std::int64_t next_id = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int a = std::uniform_int_distribution<int>(0, 12)(rng);
    const int b = std::uniform_int_distribution<int>(0, 18 - a)(rng);  // a + b < 20 (some immobile)
    const bool integer = coin(rng);                                    // integer loads: many ties
    Tasks tasks(2);
    for (int k = 0; k < a + b; ++k)
      tasks[k < a ? 0 : 1].push_back(
          {next_id++, integer ? double(int_load(rng)) : real_load(rng), rare(rng)});
    const double t = integer && coin(rng) ? std::round(transfer(rng)) : transfer(rng);
    const auto s = isocost::select_tasks(g, tasks, std::vector<double>{t});
    const double want = brute_force_error(tasks, t);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": a=" + std::to_string(a) +
                 " b=" + std::to_string(b) + " t=" + std::to_string(t));
    EXPECT_NEAR(std::fabs(s.remaining[0]), want, 1e-9);
    EXPECT_NEAR(s.achieved[0], net_moved(s), 1e-9);  // the moves carry what is reported
    EXPECT_EQ(s.approximate_searches, 0);
    EXPECT_TRUE(s.converged());
    const auto fixed = immobile_ids(tasks);
    for (const auto& m : s.moves) EXPECT_FALSE(fixed.count(m.id)) << "immobile task " << m.id;
  }
}

// Beyond brute force: integer loads, exact optimum by a reachable-sum table
// over the signed sums; 20–39 tasks with exhaustive_limit = 40.
TEST(TaskSelection, ExhaustiveIsOptimalOnLargerIntegerCases) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> int_load(1, 200);
  const auto g = pair_graph();
  TaskSelectionOptions o;
  o.exhaustive_limit = 40;
  for (int trial = 0; trial < 12; ++trial) {
    const int n = std::uniform_int_distribution<int>(20, 39)(rng);
    const int a = std::uniform_int_distribution<int>(1, n - 1)(rng);
    Tasks tasks(2);
    int total = 0;
    for (int k = 0; k < n; ++k) {
      const int x = int_load(rng);
      total += x;
      tasks[k < a ? 0 : 1].push_back({k, double(x), false});
    }
    const double t = std::uniform_int_distribution<int>(-total / 3, total / 3)(rng) + 0.5;
    // reach[v + total]: some signed subset sum equals v.
    std::vector<char> reach(2 * total + 1, 0), next;
    reach[total] = 1;
    for (int k = 0; k < n; ++k) {
      const int x = int(k < a ? tasks[0][k].load : -tasks[1][k - a].load);
      next = reach;
      for (int v = 0; v <= 2 * total; ++v)
        if (reach[v] && v + x >= 0 && v + x <= 2 * total) next[v + x] = 1;
      reach.swap(next);
    }
    double want = std::fabs(t);
    for (int v = 0; v <= 2 * total; ++v)
      if (reach[v]) want = std::min(want, std::fabs(t - (v - total)));
    const auto s = isocost::select_tasks(g, tasks, std::vector<double>{t}, o);
    EXPECT_EQ(isocost::options_hash(s.options), isocost::options_hash(o));  // the options given
    EXPECT_NEAR(std::fabs(s.remaining[0]), want, 1e-9) << "n=" << n << " t=" << t;
    EXPECT_GT(s.exhaustive_searches, 0);
  }
}

TEST(TaskSelection, ExhaustiveBeatsFirstFitWhereFirstFitIsGreedy) {
  // Send 11 from {5, 9, 6, 7} to a rank holding {1}: first fit (heaviest
  // first, over repeated passes) ends 2 away; the exhaustive search finds 5 + 6.
  Tasks tasks{{{1, 5, false}, {2, 9, false}, {3, 6, false}, {4, 7, false}}, {{5, 1, false}}};
  const auto g = pair_graph();
  const auto best = isocost::select_tasks(g, tasks, std::vector<double>{11});
  EXPECT_EQ(best.remaining[0], 0);
  ASSERT_EQ(best.moves.size(), 2u);
  EXPECT_EQ(best.moves[0].id, 1);
  EXPECT_EQ(best.moves[1].id, 3);
  TaskSelectionOptions o;
  o.exhaustive_limit = 0;
  const auto greedy = isocost::select_tasks(g, tasks, std::vector<double>{11}, o);
  EXPECT_EQ(std::fabs(greedy.remaining[0]), 2);
  EXPECT_EQ(greedy.exhaustive_searches, 0);
  // On random small cases the exhaustive search is never worse, often better.
  std::mt19937 rng(1);
  int better = 0;
  for (int trial = 0; trial < 500; ++trial) {
    Tasks r(2);
    const int a = std::uniform_int_distribution<int>(1, 4)(rng);
    const int b = std::uniform_int_distribution<int>(0, 2)(rng);
    for (int k = 0; k < a + b; ++k)
      r[k < a ? 0 : 1].push_back({k, double(std::uniform_int_distribution<int>(1, 9)(rng)), false});
    const std::vector<double> t{double(std::uniform_int_distribution<int>(1, 15)(rng))};
    const double ex = std::fabs(isocost::select_tasks(g, r, t).remaining[0]);
    const double ff = std::fabs(isocost::select_tasks(g, r, t, o).remaining[0]);
    EXPECT_LE(ex, ff) << "trial " << trial;
    better += ex < ff;
  }
  EXPECT_GT(better, 20);
  // An exchange: send 6 from {10} with {4, 3} on the receiver: 10 − 4 = 6.
  Tasks swap{{{1, 10, false}}, {{2, 4, false}, {3, 3, false}}};
  for (int limit : {20, 0}) {
    o.exhaustive_limit = limit;
    const auto s = isocost::select_tasks(g, swap, std::vector<double>{6}, o);
    EXPECT_EQ(s.remaining[0], 0) << "limit " << limit;
    ASSERT_EQ(s.moves.size(), 2u);
    EXPECT_EQ(s.moves[0].id, 1);
    EXPECT_EQ(s.moves[0].to, 1);
    EXPECT_EQ(s.moves[1].id, 2);
    EXPECT_EQ(s.moves[1].to, 0);
  }
  // Equal tasks are not swapped for nothing: the lightest optimal exchange.
  Tasks equal{{{1, 3, false}, {2, 5, false}}, {{3, 5, false}}};
  const auto e = isocost::select_tasks(g, equal, std::vector<double>{3});
  ASSERT_EQ(e.moves.size(), 1u);
  EXPECT_EQ(e.moves[0].id, 1);
  // Nothing that helps: no move at all.
  const auto none = isocost::select_tasks(g, equal, std::vector<double>{1});
  EXPECT_TRUE(none.moves.empty());
  EXPECT_EQ(none.remaining[0], 1);
  EXPECT_EQ(none.passes, 1);
}

TEST(TaskSelection, FirstFitTerminatesAndNeverMovesImmobileTasks) {
  std::mt19937_64 rng(99);
  std::exponential_distribution<double> heavy(1.0);
  std::bernoulli_distribution rare(0.25);
  for (int trial = 0; trial < 6; ++trial) {
    const auto g = isocost::mesh_graph({4, 5}, trial % 2 == 1);
    Tasks tasks(g.nodes);
    std::int64_t id = 1000;
    for (int v = 0; v < g.nodes; ++v) {
      const int count = std::uniform_int_distribution<int>(20, v == 7 ? 300 : 80)(rng);
      for (int k = 0; k < count; ++k) tasks[v].push_back({id++, 0.05 + heavy(rng), rare(rng)});
    }
    std::vector<double> transfers;
    if (trial < 3) {
      transfers = isocost::diffuse(g, isocost::node_loads(tasks)).transfers;
    } else {  // arbitrary vectors, circulations included
      std::uniform_real_distribution<double> t(-40, 40);
      for (std::size_t e = 0; e < g.edges.size(); ++e) transfers.push_back(t(rng));
    }
    for (auto method : {TaskSelectionMethod::first_fit_exchange, TaskSelectionMethod::trimming}) {
      // Trimming with 300 tasks on a rank costs ~0.3 s (seconds under a
      // sanitizer): one trial, with arbitrary transfers on a torus.
      if (method == TaskSelectionMethod::trimming && trial != 3) continue;
      TaskSelectionOptions o;
      o.method = method;
      o.trim_epsilon = 0.1;
      const auto s = isocost::select_tasks(g, tasks, transfers, o);
      SCOPED_TRACE("trial " + std::to_string(trial) + " " + std::string(to_string(method)));
      EXPECT_TRUE(s.converged()) << s.brief_report();
      EXPECT_LT(s.passes, o.max_passes);
      EXPECT_GT(s.approximate_searches, 0);
      EXPECT_LE(s.error_volume, s.requested_volume);
      const auto fixed = immobile_ids(tasks);
      std::set<std::int64_t> seen;
      std::map<std::int64_t, int> origin;
      for (int v = 0; v < g.nodes; ++v)
        for (const auto& t : tasks[v]) origin[t.id] = v;
      for (const auto& m : s.moves) {
        EXPECT_FALSE(fixed.count(m.id)) << "immobile task " << m.id << " moved";
        EXPECT_TRUE(seen.insert(m.id).second) << "task " << m.id << " moves twice";
        EXPECT_EQ(m.from, origin.at(m.id));
        EXPECT_NE(m.from, m.to);
      }
      // The loads follow the achieved per-edge flows of the markers.
      std::vector<double> u = s.initial_loads;
      for (std::size_t e = 0; e < g.edges.size(); ++e) {
        u[g.edges[e].i] -= s.achieved[e];
        u[g.edges[e].j] += s.achieved[e];
      }
      for (int v = 0; v < g.nodes; ++v) EXPECT_NEAR(s.loads[v], u[v], 1e-9) << "node " << v;
    }
  }
}

TEST(TaskSelection, MarkersHopThroughAMiddleRankAndTheTaskMovesOnce) {
  // 0 must send 4 to 2 through 1; node 1's only task is immobile.
  Tasks tasks{{{1, 4, false}, {2, 1, true}}, {{10, 4, true}}, {}};
  for (bool reversed : {false, true}) {
    ProcessGraph g;
    g.nodes = 3;
    // Reversed: edge (1, 2) comes first, so the marker waits a pass at node 1.
    g.edges = reversed ? std::vector<ProcessGraph::Edge>{{1, 2, 1.0}, {0, 1, 1.0}}
                       : std::vector<ProcessGraph::Edge>{{0, 1, 1.0}, {1, 2, 1.0}};
    const auto s = isocost::select_tasks(g, tasks, std::vector<double>{4, 4});
    SCOPED_TRACE(reversed ? "reversed edges" : "chain order");
    ASSERT_EQ(s.moves.size(), 1u);
    EXPECT_EQ(s.moves[0].id, 1);
    EXPECT_EQ(s.moves[0].from, 0);
    EXPECT_EQ(s.moves[0].to, 2);
    EXPECT_EQ(s.marker_hops, 2);
    EXPECT_EQ(s.passes, reversed ? 3 : 2);  // the last pass moves nothing
    EXPECT_EQ(s.remaining, (std::vector<double>{0, 0}));
    EXPECT_EQ(s.loads, (std::vector<double>{1, 4, 4}));
    EXPECT_TRUE(s.converged());
  }
  // The other direction: negative transfers carry a task from 2 to 0.
  Tasks back{{}, {{10, 4, true}}, {{5, 3, false}}};
  const auto chain = isocost::edge_graph(3, {{0, 1}, {1, 2}});
  const auto s = isocost::select_tasks(chain, back, std::vector<double>{-3, -3});
  ASSERT_EQ(s.moves.size(), 1u);
  EXPECT_EQ(s.moves[0].from, 2);
  EXPECT_EQ(s.moves[0].to, 0);
}

TEST(TaskSelection, AMarkerThatComesHomeDoesNotMove) {
  // A circulation 0 → 1 → 2 → 0: the marker goes round and the task stays.
  ProcessGraph g;
  g.nodes = 3;
  g.edges = {{0, 1, 1.0}, {1, 2, 1.0}, {0, 2, 1.0}};
  Tasks tasks{{{1, 5, false}}, {}, {}};
  const auto s = isocost::select_tasks(g, tasks, std::vector<double>{5, 5, -5});
  EXPECT_TRUE(s.moves.empty());
  EXPECT_EQ(s.marker_hops, 3);
  EXPECT_EQ(s.achieved, (std::vector<double>{5, 5, -5}));
  EXPECT_EQ(s.loads, (std::vector<double>{5, 0, 0}));
}

TEST(TaskSelection, LoadsAreConservedExactly) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 4; ++trial) {
    const auto g = isocost::mesh_graph({3, 4}, trial % 2 == 0);
    const bool dyadic = trial < 2;  // eighths: every partial sum is exact
    Tasks tasks(g.nodes);
    std::int64_t id = 0;
    for (int v = 0; v < g.nodes; ++v) {
      const int count = std::uniform_int_distribution<int>(0, v == 0 ? 60 : 25)(rng);
      for (int k = 0; k < count; ++k)
        tasks[v].push_back({id++,
                            dyadic ? std::uniform_int_distribution<int>(0, 40)(rng) / 8.0
                                   : std::uniform_real_distribution<double>(0, 3)(rng),
                            k % 7 == 0});
    }
    const auto u0 = isocost::node_loads(tasks);
    const auto d = isocost::diffuse(g, u0);
    const auto s = isocost::select_tasks(g, tasks, d.transfers);
    // Independently: follow each move by id, then sum the loads per node.
    std::map<std::int64_t, std::pair<int, double>> where;
    for (int v = 0; v < g.nodes; ++v)
      for (const auto& t : tasks[v]) where[t.id] = {v, t.load};
    for (const auto& m : s.moves) {
      ASSERT_EQ(where.at(m.id).first, m.from);
      ASSERT_EQ(where.at(m.id).second, m.load);
      where[m.id].first = m.to;
    }
    std::vector<double> u(g.nodes, 0.0);
    for (const auto& [tid, place] : where) u[place.first] += place.second;
    const double total0 = std::accumulate(u0.begin(), u0.end(), 0.0);
    const double total1 = std::accumulate(s.loads.begin(), s.loads.end(), 0.0);
    for (int v = 0; v < g.nodes; ++v) {
      if (dyadic)
        EXPECT_EQ(s.loads[v], u[v]) << "node " << v;
      else
        EXPECT_NEAR(s.loads[v], u[v], 1e-12 * total0) << "node " << v;
    }
    if (dyadic)
      EXPECT_EQ(total1, total0);
    else
      EXPECT_NEAR(total1, total0, 1e-12 * total0);
    // Bit for bit what apply_moves gives, and every task still exists once.
    const auto after = isocost::apply_moves(tasks, s.moves);
    EXPECT_EQ(s.loads, isocost::node_loads(after));
    std::size_t count0 = 0, count1 = 0;
    for (const auto& l : tasks) count0 += l.size();
    for (const auto& l : after) count1 += l.size();
    EXPECT_EQ(count1, count0);
    EXPECT_EQ(s.initial_loads, u0);
  }
}

TEST(TaskSelection, TrimmingIsWithinItsApproximationBound) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> load(0.5, 20);
  const auto g = pair_graph();
  for (double eps : {0.5, 0.1, 0.01}) {
    for (int trial = 0; trial < 8; ++trial) {
      const int n = std::uniform_int_distribution<int>(8, 18)(rng);
      Tasks tasks(2);
      double total = 0;
      for (int k = 0; k < n; ++k) {
        tasks[0].push_back({k, load(rng), k % 9 == 4});
        if (!tasks[0].back().immobile) total += tasks[0].back().load;
      }
      for (int k = 0; k < 5; ++k) tasks[1].push_back({100 + k, load(rng), false});
      const double t = std::uniform_real_distribution<double>(0.2, 0.8)(rng) * total;
      // y*: the largest one-way sum <= t, by enumeration.
      std::vector<double> v;
      for (const auto& x : tasks[0])
        if (!x.immobile) v.push_back(x.load);
      double ystar = 0;
      for (std::uint32_t mask = 0; mask < (1u << v.size()); ++mask) {
        double sum = 0;
        for (std::size_t k = 0; k < v.size(); ++k)
          if (mask >> k & 1) sum += v[k];
        if (sum <= t) ystar = std::max(ystar, sum);
      }
      TaskSelectionOptions o;
      o.exhaustive_limit = 0;
      o.method = TaskSelectionMethod::trimming;
      o.trim_epsilon = eps;
      const auto s = isocost::select_tasks(g, tasks, std::vector<double>{t}, o);
      SCOPED_TRACE("eps " + std::to_string(eps) + " n " + std::to_string(n));
      EXPECT_GE(s.achieved[0], ystar / (1 + eps) - 1e-12);
      EXPECT_LE(s.achieved[0], ystar + 1e-9);
      EXPECT_LE(s.achieved[0], t);
      for (const auto& m : s.moves) EXPECT_EQ(m.from, 0) << "trimming is one-way";
    }
  }
  // Many tasks: the optimum from an exact table of integer sums.
  std::uniform_int_distribution<int> int_load(1, 100);
  Tasks tasks(2);
  int total = 0;
  for (int k = 0; k < 120; ++k) {
    tasks[0].push_back({k, double(int_load(rng)), false});
    total += int(tasks[0].back().load);
  }
  const double t = total * 0.37 + 0.5;
  std::vector<char> reach(static_cast<std::size_t>(total) + 1, 0);
  reach[0] = 1;
  for (const auto& x : tasks[0])
    for (int v = total; v >= int(x.load); --v) reach[v] |= reach[v - int(x.load)];
  double ystar = 0;
  for (int v = 0; v <= total; ++v)
    if (reach[v] && v <= t) ystar = v;
  TaskSelectionOptions o;
  o.method = TaskSelectionMethod::trimming;
  o.trim_epsilon = 0.01;
  const auto s = isocost::select_tasks(g, tasks, std::vector<double>{t}, o);
  EXPECT_GE(s.achieved[0], ystar / 1.01);
  EXPECT_LE(s.achieved[0], ystar);
}

TEST(TaskSelection, PipelineFromDiffusionKeepsTheImbalanceWithinATask) {
  std::mt19937_64 rng(5);
  for (int tasks_per_node : {40, 8}) {
    const auto g = isocost::mesh_graph({6, 6}, false);
    std::uniform_real_distribution<double> load(0.2, 1.0);
    Tasks tasks(g.nodes);
    std::int64_t id = 0;
    for (int v = 0; v < g.nodes; ++v) {
      const int count =
          v == 0 ? 10 * tasks_per_node  // a hot spot
                 : std::uniform_int_distribution<int>(tasks_per_node / 2, tasks_per_node)(rng);
      for (int k = 0; k < count; ++k) tasks[v].push_back({id++, load(rng), false});
    }
    const auto u0 = isocost::node_loads(tasks);
    const auto d = isocost::diffuse(g, u0);
    ASSERT_TRUE(d.converged());
    const auto s = isocost::select_tasks(g, tasks, d.transfers);
    EXPECT_TRUE(s.converged()) << s.brief_report();
    const double avg = std::accumulate(u0.begin(), u0.end(), 0.0) / g.nodes;
    const double max_diffused = *std::max_element(d.loads.begin(), d.loads.end());
    const double max_selected = *std::max_element(s.loads.begin(), s.loads.end());
    double worst_node = 0;
    for (int v = 0; v < g.nodes; ++v)
      worst_node = std::max(worst_node, std::fabs(s.loads[v] - d.loads[v]));
    std::cout << "[ pipeline ] " << tasks_per_node << " tasks/node: imbalance "
              << d.initial_imbalance << " -> diffusion " << d.final_imbalance << ", tasks "
              << max_selected / avg - 1 << "; worst node off by " << worst_node << " (largest task "
              << s.max_task_load << ")\n  " << s.brief_report();
    EXPECT_LE(max_selected - avg, max_diffused - avg + s.max_task_load);
    EXPECT_LT(max_selected / avg - 1, d.initial_imbalance / 5);
  }
}

TEST(TaskSelection, PassCapIsReported) {
  ProcessGraph g;
  g.nodes = 3;
  g.edges = {{1, 2, 1.0}, {0, 1, 1.0}};
  Tasks tasks{{{1, 4, false}}, {}, {}};
  TaskSelectionOptions o;
  o.max_passes = 1;
  const auto s = isocost::select_tasks(g, tasks, std::vector<double>{4, 4}, o);
  EXPECT_FALSE(s.converged());
  EXPECT_EQ(s.passes, 1);
  ASSERT_EQ(s.moves.size(), 1u);
  EXPECT_EQ(s.moves[0].to, 1);  // where the marker was when the passes ran out
  EXPECT_NE(s.brief_report().find("NOT terminated"), std::string::npos);
}

TEST(TaskSelection, BadInput) {
  const auto g = pair_graph();
  const std::vector<double> t{1};
  expect_error(
      [&] {
        isocost::select_tasks(g, Tasks{{{1, -1, false}}, {}}, t);
      },
      {"task 1", "node 0", "-1", ">= 0"});
  expect_error(
      [&] {
        isocost::select_tasks(g, Tasks{{}, {{7, std::nan(""), false}}}, t);
      },
      {"task 7", "node 1", "nan"});
  expect_error(
      [&] {
        isocost::select_tasks(g, Tasks{{}, {{7, HUGE_VAL, false}}}, t);
      },
      {"task 7", "inf"});
  expect_error(
      [&] {
        isocost::select_tasks(g, Tasks{{{3, 1, false}}, {{3, 2, false}}}, t);
      },
      {"task id 3", "node 0", "node 1", "unique"});
  expect_error(
      [&] {
        isocost::select_tasks(g, Tasks{{{3, 1, false}, {3, 2, false}}, {}}, t);
      },
      {"task id 3", "twice"});
  expect_error(
      [&] {
        isocost::select_tasks(g, Tasks{{}, {}}, std::vector<double>{1, 2});
      },
      {"transfers", "1 edges", "got 2"});
  expect_error(
      [&] {
        isocost::select_tasks(g, Tasks{{}, {}}, std::vector<double>{});
      },
      {"transfers", "got 0"});
  expect_error(
      [&] {
        isocost::select_tasks(g, Tasks{{}, {}}, std::vector<double>{NAN});
      },
      {"edge 0", "nan"});
  expect_error([&] { isocost::select_tasks(g, Tasks{{}, {}, {}}, t); }, {"2 nodes", "got 3"});
  auto with = [&](auto change) {
    TaskSelectionOptions o;
    change(o);
    isocost::select_tasks(g, Tasks{{}, {}}, t, o);
  };
  expect_error([&] { with([](auto& o) { o.exhaustive_limit = 41; }); }, {"exhaustive_limit", "41"});
  expect_error([&] { with([](auto& o) { o.exhaustive_limit = -1; }); }, {"exhaustive_limit"});
  expect_error([&] { with([](auto& o) { o.trim_epsilon = 0; }); }, {"trim_epsilon", "0"});
  expect_error([&] { with([](auto& o) { o.gain_tolerance = -1e-3; }); }, {"gain_tolerance"});
  expect_error([&] { with([](auto& o) { o.max_passes = 0; }); }, {"max_passes", "0"});
  expect_error([] { isocost::parse_task_selection_method("best"); }, {"'best'", "first-fit"});
  EXPECT_EQ(isocost::parse_task_selection_method("trimming"), TaskSelectionMethod::trimming);
  // apply_moves refuses a move of a task that is not where it says.
  Tasks tasks{{{1, 1, false}}, {}};
  expect_error(
      [&] {
        isocost::apply_moves(tasks, std::vector<isocost::TaskMove>{{1, 1, 0, 1}});
      },
      {"task 1", "not on node 1"});
  expect_error(
      [&] {
        isocost::apply_moves(tasks, std::vector<isocost::TaskMove>{{1, 0, 5, 1}});
      },
      {"rank 5"});
  // A disconnected graph is refused by its own validation.
  ProcessGraph split;
  split.nodes = 2;
  expect_error(
      [&] {
        isocost::select_tasks(split, Tasks{{}, {}}, std::vector<double>{});
      },
      {"disconnected"});
}

}  // namespace
