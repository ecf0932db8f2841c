// The core runs its own Eigen code (src/core/common/eigen_real.hpp), whatever
// other copies of Eigen's templates the program holds: here those of
// eigen_other_copies.cpp, a stand-in for Ceres's static library, linked ahead
// of the core. Least-squares diffusion and the comm-model fit give the known
// answers and run none of them; the stand-in's own code runs them. Before,
// the core ran the copies linked first (issue #23).
#include <gtest/gtest.h>

#include <map>
#include <utility>
#include <vector>

#include "isocost/diffusion.hpp"
#include "isocost/strategy.hpp"

namespace isocost::testing {
extern long other_copies_double_blocks;
std::vector<double> path_potentials_other_copies(const std::vector<double>& x);
std::vector<double> line_fit_other_copies(const std::vector<double>& t,
                                          const std::vector<double>& y);
}  // namespace isocost::testing

namespace {

using isocost::DiffusionOptions;
using isocost::DiffusionScheme;
using isocost::testing::other_copies_double_blocks;

// Transfers by edge (i, j).
std::map<std::pair<int, int>, double> by_edge(const isocost::ProcessGraph& g,
                                              const std::vector<double>& t) {
  std::map<std::pair<int, int>, double> out;
  for (std::size_t k = 0; k < g.edges.size(); ++k) out[{g.edges[k].i, g.edges[k].j}] = t[k];
  return out;
}

TEST(EigenIsolation, LeastSquaresDiffusionRunsItsOwnCopies) {
  // Path 0-1-2-3, loads 7 1 2 2 (mean 3): on a tree the transfer on (k, k+1)
  // is the excess of nodes 0..k: 4, 4-2, 4-2-1.
  const auto path = isocost::mesh_graph({4}, false);
  // Cycle 0-1-2-3-0, loads 7 2 1 2, excess 4 -1 -2 -1: the balancing flows
  // k -> k+1 are P_k + c, P the prefix sums of the excess (4 3 1 0), and the
  // least-squares one has c = -mean(P) = -2: 2, 1, -1, and -2 from 3 to 0
  // (2 from 0 to 3 on edge (0, 3)).
  const auto cycle = isocost::edge_graph(4, {{0, 1}, {1, 2}, {2, 3}, {0, 3}});
  const long before = other_copies_double_blocks;
  for (int direct_limit : {20000, 0}) {  // Cholesky, then conjugate gradients
    DiffusionOptions o;
    o.scheme = DiffusionScheme::least_squares;
    o.direct_limit = direct_limit;
    const auto p =
        by_edge(path, isocost::diffuse(path, std::vector<double>{7, 1, 2, 2}, o).transfers);
    EXPECT_NEAR((p.at({0, 1})), 4, 1e-12);
    EXPECT_NEAR((p.at({1, 2})), 2, 1e-12);
    EXPECT_NEAR((p.at({2, 3})), 1, 1e-12);
    const auto c =
        by_edge(cycle, isocost::diffuse(cycle, std::vector<double>{7, 2, 1, 2}, o).transfers);
    EXPECT_NEAR((c.at({0, 1})), 2, 1e-12);
    EXPECT_NEAR((c.at({1, 2})), 1, 1e-12);
    EXPECT_NEAR((c.at({2, 3})), -1, 1e-12);
    EXPECT_NEAR((c.at({0, 3})), 2, 1e-12);
  }
  EXPECT_EQ(other_copies_double_blocks, before) << "the core ran the stand-in's Eigen code";
}

TEST(EigenIsolation, CommFitRunsItsOwnCopies) {
  // Times on the line 2 us + 1 ns/byte: the fit recovers both.
  std::vector<isocost::CommSample> s;
  for (double bytes : {1e3, 1e4, 1e5, 1e6}) s.push_back({bytes, 2e-6 + 1e-9 * bytes});
  const long before = other_copies_double_blocks;
  const auto f = isocost::fit_comm_model(s);
  EXPECT_EQ(other_copies_double_blocks, before) << "the core ran the stand-in's Eigen code";
  EXPECT_NEAR(f.model.latency, 2e-6, 1e-15);
  EXPECT_NEAR(f.model.per_byte, 1e-9, 1e-18);
}

TEST(EigenIsolation, TheOtherCopiesRunTheirOwn) {
  // The counter sees them: grounded path Laplacian [2 -1 0; -1 2 -1; 0 -1 1]
  // times (1, 2, 3) is (0, 0, 1), and both solvers give the potentials back.
  const long before = other_copies_double_blocks;
  const auto phi = isocost::testing::path_potentials_other_copies({0, 0, 1});
  EXPECT_GT(other_copies_double_blocks, before);
  ASSERT_EQ(phi.size(), 6u);
  for (std::size_t k = 0; k < 6; ++k) EXPECT_NEAR(phi[k], 1.0 + k % 3, 1e-12) << k;
  // The line 3 + t/2 through four of its points.
  const auto ab = isocost::testing::line_fit_other_copies({0, 1, 2, 4}, {3, 3.5, 4, 5});
  EXPECT_NEAR(ab[0], 3, 1e-12);
  EXPECT_NEAR(ab[1], 0.5, 1e-12);
}

}  // namespace
