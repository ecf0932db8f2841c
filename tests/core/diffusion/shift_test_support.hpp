// Shared by the 1-D shift tests (test_shift_cuts*.cpp): small builders and
// checks of partitions, chain transfers and loads.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <vector>

#include "isocost/cost_model.hpp"
#include "isocost/diffusion.hpp"
#include "support/values.hpp"

namespace isocost::testing {

inline std::vector<double> v(std::initializer_list<double> x) { return std::vector<double>(x); }

// Per-rank model costs of a 1-D partition.
inline std::vector<double> costs(const isocost::CostModel& t, const std::vector<double>& cuts) {
  std::vector<double> c;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) c.push_back(t.cost(cuts[i], cuts[i + 1]));
  return c;
}

// The transfers of the chain of P ranks, edge b = (b, b + 1).
inline std::vector<double> chain_transfers(const std::vector<double>& loads,
                                           const isocost::DiffusionOptions& o = {}) {
  const auto g = isocost::mesh_graph({static_cast<int>(loads.size())}, false);
  const auto d = isocost::diffuse(g, loads, o);
  std::vector<double> t(loads.size() - 1);
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    EXPECT_EQ(g.edges[e].j, g.edges[e].i + 1);
    t[g.edges[e].i] = d.transfers[e];
  }
  return t;
}

// The rank loads diffusion leaves: load_i − out + in.
inline std::vector<double> after_transfers(const std::vector<double>& loads,
                                           const std::vector<double>& T) {
  auto u = loads;
  for (std::size_t b = 0; b < T.size(); ++b) {
    u[b] -= T[b];
    u[b + 1] += T[b];
  }
  return u;
}

inline void expect_relative(const std::vector<double>& got, const std::vector<double>& want,
                            double rel) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], rel * std::abs(want[i])) << "index " << i;
}

}  // namespace isocost::testing
