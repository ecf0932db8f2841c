// isocost/mpi/diffusion.hpp under mpiexec -n N (CTest runs N = 1, 2, 3, 4, 8).
// Every rank runs the serial diffuse() on the whole mesh and the distributed
// one on its own node, and compares its edges EXACTLY (EXPECT_EQ on doubles):
// the distributed scheme must reproduce the serial arithmetic bit for bit.
// Every test is collective; comparisons come after the last collective of a
// case, so a failed expectation never leaves a rank behind in a collective
// (a deadlock would show up as the CTest timeout).
#include "isocost/mpi/diffusion.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "isocost/diffusion.hpp"
#include "isocost/error.hpp"

#include "mpi_test_support.hpp"

namespace {

using isocost::testing::error_of;
using isocost::testing::expect_has;
using isocost::testing::expect_in_step;
using isocost::testing::rank_of;
using isocost::testing::size_of;

using isocost::DiffusionOptions;
using isocost::DiffusionScheme;

const DiffusionScheme kSchemes[] = {DiffusionScheme::explicit_euler, DiffusionScheme::implicit,
                                    DiffusionScheme::crank_nicolson,
                                    DiffusionScheme::least_squares};

std::string text(const std::vector<int>& dims) {
  std::string s;
  for (std::size_t a = 0; a < dims.size(); ++a) s += (a ? "x" : "") + std::to_string(dims[a]);
  return s;
}

// Meshes with P nodes: the chain, 2-D factorisations (length-1 axes too) and a
// few 3-D ones (2×2×2 for 8).
std::vector<std::vector<int>> shapes(int P) {
  std::vector<std::vector<int>> out{{P}, {1, P}, {P, 1}};
  for (int a = 2; a < P; ++a)
    if (P % a == 0) out.push_back({a, P / a});
  if (P == 8) out.insert(out.end(), {{2, 2, 2}, {2, 1, 4}});
  if (P == 4) out.insert(out.end(), {{1, 2, 2}, {2, 2, 1}});
  if (P == 3) out.push_back({1, 1, 3});
  if (P == 2) out.push_back({1, 2, 1});
  if (P == 1) out.push_back({1, 1, 1});
  return out;
}

enum class Loads { hot_spot, random, step };
const Loads kLoads[] = {Loads::hot_spot, Loads::random, Loads::step};
const char* name(Loads l) {
  return l == Loads::hot_spot ? "hot spot" : l == Loads::random ? "random" : "step";
}

// The same full vector on every rank; rank r passes entry r.
std::vector<double> make_loads(int P, Loads kind, unsigned seed = 7) {
  std::vector<double> u(static_cast<std::size_t>(P), 0.0);
  if (kind == Loads::hot_spot) u[static_cast<std::size_t>((P - 1) / 2)] = P;
  if (kind == Loads::random) {
    std::mt19937_64 rng(seed + static_cast<unsigned>(P));
    std::uniform_real_distribution<double> d(0.0, 10.0);
    for (auto& v : u) v = d(rng);
  }
  if (kind == Loads::step)
    for (int v = 0; v < P; ++v) u[static_cast<std::size_t>(v)] = v < P / 2 ? 3.0 : 1.0;
  return u;
}

MPI_Comm make_cart(MPI_Comm comm, const std::vector<int>& dims, bool torus) {
  return isocost::mpi::mesh_communicator(comm, dims, torus);
}

// Runs the serial and the distributed diffusion and compares this rank's part.
void expect_same_as_serial(MPI_Comm cart, const std::vector<double>& loads,
                           const DiffusionOptions& o) {
  const int rank = rank_of(cart), P = size_of(cart);
  const auto g = isocost::mpi::cart_graph(cart);
  const auto serial = isocost::diffuse(g, loads, o);
  const auto r = isocost::mpi::diffuse(cart, loads[static_cast<std::size_t>(rank)], o);
  EXPECT_EQ(isocost::options_hash(r.options), isocost::options_hash(o));  // the options given
  // Collectives first: every rank's final load, for the conservation check.
  std::vector<double> after(static_cast<std::size_t>(P));
  MPI_Allgather(&r.load, 1, MPI_DOUBLE, after.data(), 1, MPI_DOUBLE, cart);
  std::vector<int> minus(g.mesh.size()), plus(g.mesh.size());
  for (std::size_t a = 0; a < g.mesh.size(); ++a)
    MPI_Cart_shift(cart, static_cast<int>(a), 1, &minus[a], &plus[a]);

  EXPECT_EQ(r.scheme, o.scheme);
  EXPECT_EQ(r.rank, rank);
  EXPECT_EQ(r.dims, g.mesh);
  EXPECT_EQ(r.torus, g.torus);
  EXPECT_EQ(r.steps, serial.steps);
  EXPECT_EQ(r.sweeps_per_step, serial.sweeps_per_step);
  EXPECT_EQ(r.jacobi_sweeps, serial.jacobi_sweeps);
  EXPECT_EQ(r.converged(), serial.converged());
  EXPECT_EQ(r.initial_imbalance, serial.initial_imbalance);
  EXPECT_EQ(r.final_imbalance, serial.final_imbalance);
  EXPECT_EQ(r.initial_load, loads[static_cast<std::size_t>(rank)]);
  EXPECT_EQ(r.load, serial.loads[static_cast<std::size_t>(rank)]);
  EXPECT_NEAR(r.transfer_volume, serial.transfer_volume,
              1e-13 * std::max(1.0, serial.transfer_volume));

  // This rank's edges, oriented from its side: t_e at the lower end, −t_e at
  // the higher one.
  std::map<int, std::pair<double, double>> want;  // neighbour → (weight, transfer)
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    const auto& edge = g.edges[e];
    if (edge.i == rank) want[edge.j] = {edge.weight, serial.transfers[e]};
    if (edge.j == rank) want[edge.i] = {edge.weight, -serial.transfers[e]};
  }
  EXPECT_EQ(r.neighbours.size(), want.size());
  auto it = want.begin();
  for (std::size_t k = 0; k < r.neighbours.size() && it != want.end(); ++k, ++it) {
    EXPECT_EQ(r.neighbours[k].rank, it->first);
    EXPECT_EQ(r.neighbours[k].weight, it->second.first);
    EXPECT_EQ(r.neighbours[k].transfer, it->second.second)
        << "edge " << rank << " -> " << it->first;
  }

  // Directions: MPI_Cart_shift's neighbours; a doubled edge split in halves.
  EXPECT_EQ(r.direction_ranks.size(), 2 * g.mesh.size());
  EXPECT_EQ(r.direction_transfers.size(), 2 * g.mesh.size());
  double by_direction = 0, by_neighbour = 0;
  for (std::size_t a = 0; a < g.mesh.size() && 2 * a + 1 < r.direction_ranks.size(); ++a) {
    const bool has = g.mesh[a] > 1;
    EXPECT_EQ(r.direction_ranks[2 * a], has ? minus[a] : MPI_PROC_NULL);
    EXPECT_EQ(r.direction_ranks[2 * a + 1], has ? plus[a] : MPI_PROC_NULL);
    for (int s = 0; s < 2; ++s) {
      const int nb = r.direction_ranks[2 * a + s];
      const double t = r.direction_transfers[2 * a + s];
      by_direction += t;
      if (nb == MPI_PROC_NULL) {
        EXPECT_EQ(t, 0.0);
      } else if (want.count(nb)) {
        const auto [w, tw] = want[nb];
        EXPECT_EQ(t, w == 2 ? tw / 2 : tw);
      }
    }
  }
  for (const auto& nb : r.neighbours) by_neighbour += nb.transfer;
  EXPECT_NEAR(by_direction, by_neighbour, 1e-12 * std::max(1.0, r.transfer_volume));

  // Conservation, and how much communication it took.
  const double before = std::accumulate(loads.begin(), loads.end(), 0.0);
  const double total = std::accumulate(after.begin(), after.end(), 0.0);
  EXPECT_NEAR(total, before, 1e-12 * before);
  const long long nu = r.sweeps_per_step, steps = r.steps;
  switch (o.scheme) {
    case DiffusionScheme::explicit_euler:
      EXPECT_EQ(r.neighbour_exchanges, steps);
      break;
    case DiffusionScheme::implicit:
      EXPECT_EQ(r.neighbour_exchanges, steps * (nu + 1));
      break;
    case DiffusionScheme::crank_nicolson:
      EXPECT_EQ(r.neighbour_exchanges, steps * (nu + 2));
      break;
    case DiffusionScheme::least_squares:
      EXPECT_EQ(r.neighbour_exchanges, 0);
      break;
  }
  // Agreement, one per convergence check after a step, the summary (least
  // squares: agreement twice, the summary).
  EXPECT_EQ(r.allreduces, o.scheme == DiffusionScheme::least_squares ? 3 : 2 + steps);
}

TEST(MpiDiffusion, SameTransfersAsSerialOnEveryMeshAndTorus) {
  const int P = size_of(MPI_COMM_WORLD);
  for (const auto& dims : shapes(P))
    for (bool torus : {false, true}) {
      MPI_Comm cart = make_cart(MPI_COMM_WORLD, dims, torus);
      for (auto kind : kLoads)
        for (auto scheme : kSchemes) {
          SCOPED_TRACE(text(dims) + (torus ? " torus, " : " mesh, ") + name(kind) + ", " +
                       std::string(to_string(scheme)));
          DiffusionOptions o;
          o.scheme = scheme;
          expect_same_as_serial(cart, make_loads(P, kind), o);
        }
      MPI_Comm_free(&cart);
    }
}

TEST(MpiDiffusion, SameAsSerialWithOtherOptions) {
  const int P = size_of(MPI_COMM_WORLD);
  const std::vector<int> dims = P == 8 ? std::vector<int>{2, 2, 2} : std::vector<int>{P};
  MPI_Comm cart = make_cart(MPI_COMM_WORLD, dims, true);
  const auto loads = make_loads(P, Loads::random, 11);
  for (auto scheme : kSchemes) {
    SCOPED_TRACE(std::string(to_string(scheme)));
    DiffusionOptions o;
    o.scheme = scheme;
    o.alpha = 0.01;  // more steps
    expect_same_as_serial(cart, loads, o);
    o.alpha = 0.1;
    o.sweeps = 7;  // an explicit sweep count
    expect_same_as_serial(cart, loads, o);
    o = {};
    o.scheme = scheme;
    o.max_steps = 2;  // out of budget: reported, as in the serial code
    expect_same_as_serial(cart, make_loads(P, Loads::hot_spot), o);
    o.direct_limit = 0;  // least squares by conjugate gradients on rank 0
    expect_same_as_serial(cart, loads, o);
  }
  MPI_Comm_free(&cart);
}

TEST(MpiDiffusion, ConvergesAndBudgetIsReported) {
  const int P = size_of(MPI_COMM_WORLD), rank = rank_of(MPI_COMM_WORLD);
  MPI_Comm cart = make_cart(MPI_COMM_WORLD, {P}, false);
  const auto loads = make_loads(P, Loads::hot_spot);
  DiffusionOptions o;
  const auto r = isocost::mpi::diffuse(cart, loads[static_cast<std::size_t>(rank)], o);
  EXPECT_TRUE(r.converged()) << r.brief_report();
  EXPECT_LE(r.final_imbalance, o.alpha * (1 + 1e-9));
  EXPECT_NE(r.brief_report().find("rank " + std::to_string(rank)), std::string::npos);
  o.max_steps = 1;
  const auto b = isocost::mpi::diffuse(cart, loads[static_cast<std::size_t>(rank)], o);
  if (P > 2) {
    EXPECT_FALSE(b.converged());
    EXPECT_EQ(b.steps, 1);
    EXPECT_NE(b.brief_report().find("NOT converged"), std::string::npos);
  }
  MPI_Comm_free(&cart);
}

TEST(MpiDiffusion, WorksOnSubCommunicators) {
  // Two halves of the world, each its own chain, diffusing independently.
  const int rank = rank_of(MPI_COMM_WORLD);
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  const int P = size_of(half);
  MPI_Comm cart = make_cart(half, {0}, rank % 2 == 1);
  DiffusionOptions o;
  o.scheme = rank % 2 ? DiffusionScheme::implicit : DiffusionScheme::crank_nicolson;
  expect_same_as_serial(cart, make_loads(P, Loads::step), o);
  MPI_Comm_free(&cart);
  MPI_Comm_free(&half);
  expect_in_step(MPI_COMM_WORLD);
}

TEST(MeshCommunicator, FillsDimsAndNumbersInCOrder) {
  const int P = size_of(MPI_COMM_WORLD), rank = rank_of(MPI_COMM_WORLD);
  MPI_Comm cart = make_cart(MPI_COMM_WORLD, {0, 0}, false);
  const auto g = isocost::mpi::cart_graph(cart);
  ASSERT_EQ(g.mesh.size(), 2u);
  EXPECT_EQ(g.mesh[0] * g.mesh[1], P);
  EXPECT_GE(g.mesh[0], g.mesh[1]);  // MPI_Dims_create: non-increasing
  EXPECT_FALSE(g.torus);
  EXPECT_EQ(rank_of(cart), rank);  // no reordering
  int coords[2] = {-1, -1};
  MPI_Cart_coords(cart, rank, 2, coords);
  EXPECT_EQ(coords[0] * g.mesh[1] + coords[1], rank);  // C order
  MPI_Comm_free(&cart);

  cart = make_cart(MPI_COMM_WORLD, {1, 0, 1}, true);
  const auto t = isocost::mpi::cart_graph(cart);
  EXPECT_EQ(t.mesh, (std::vector<int>{1, P, 1}));
  EXPECT_TRUE(t.torus);
  MPI_Comm_free(&cart);
}

TEST(MeshCommunicator, BadDimsThrowOnEveryRank) {
  const int P = size_of(MPI_COMM_WORLD), rank = rank_of(MPI_COMM_WORLD);
  auto msg = error_of([&] { make_cart(MPI_COMM_WORLD, {P + 1}, false); });
  expect_has(msg, "mesh_communicator: invalid input on " + std::to_string(P) + " rank");
  expect_has(msg, "expected " + std::to_string(P) + " nodes (the communicator size), got " +
                      std::to_string(P + 1) + " nodes");
  expect_in_step(MPI_COMM_WORLD);
  msg = error_of([&] { make_cart(MPI_COMM_WORLD, {0, P + 1}, false); });
  expect_has(msg, "does not divide");
  expect_in_step(MPI_COMM_WORLD);
  msg = error_of([&] { make_cart(MPI_COMM_WORLD, {1, 1, 1, P}, false); });
  expect_has(msg, "expected 1 to 3 dimensions");
  expect_in_step(MPI_COMM_WORLD);
  msg = error_of([&] { make_cart(MPI_COMM_WORLD, {-1}, false); });
  expect_has(msg, "expected sizes >= 0");
  expect_in_step(MPI_COMM_WORLD);
  // The last rank asks for a torus, the others for a mesh.
  const int last = P - 1;
  msg = error_of([&] { make_cart(MPI_COMM_WORLD, {P}, rank == last); });
  if (P > 1)
    expect_has(msg, "invalid input on 1 rank (rank " + std::to_string(last) + ": dims " +
                        std::to_string(P) + " torus differ from rank 0's " + std::to_string(P) +
                        " mesh)");
  else
    EXPECT_EQ(msg, "");
  expect_in_step(MPI_COMM_WORLD);
  EXPECT_NE(error_of([] { make_cart(MPI_COMM_NULL, {1}, false); }).find("MPI_COMM_NULL"),
            std::string::npos);
}

TEST(MpiDiffusion, BadLoadsThrowTheSameErrorOnEveryRank) {
  const int P = size_of(MPI_COMM_WORLD), rank = rank_of(MPI_COMM_WORLD);
  MPI_Comm cart = make_cart(MPI_COMM_WORLD, {P}, false);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto scheme : kSchemes) {
    SCOPED_TRACE(std::string(to_string(scheme)));
    DiffusionOptions o;
    o.scheme = scheme;
    // A negative load on the last rank.
    auto msg = error_of([&] { isocost::mpi::diffuse(cart, rank == P - 1 ? -1.0 : 1.0, o); });
    expect_has(msg, "diffuse: invalid input on 1 rank (rank " + std::to_string(P - 1) +
                        ": load: expected a finite number >= 0, got -1)");
    expect_in_step(cart);
    // NaN on rank 0, infinity on every other even rank.
    msg = error_of([&] {
      isocost::mpi::diffuse(cart,
                            rank == 0       ? nan
                            : rank % 2 == 0 ? std::numeric_limits<double>::infinity()
                                            : 1.0,
                            o);
    });
    const int bad = (P + 1) / 2;
    expect_has(msg, bad == 1 ? "1 rank (" : std::to_string(bad) + " ranks (");
    expect_has(msg, "rank 0: load: expected a finite number >= 0, got nan");
    // Ranks with the same problem are grouped: "ranks 2, 4, 6: load: expected …, got
    // inf".
    if (P > 4) {
      expect_has(msg, "ranks 2, 4");
      expect_has(msg, ": load: expected a finite number >= 0, got inf");
    } else if (P > 2) {
      expect_has(msg, "rank 2: load: expected a finite number >= 0, got inf");
    }
    expect_in_step(cart);
    // All zero: every rank sees the same gathered loads.
    msg = error_of([&] { isocost::mpi::diffuse(cart, 0.0, o); });
    expect_has(msg, "all loads are zero");
    expect_in_step(cart);
  }
  MPI_Comm_free(&cart);
}

TEST(MpiDiffusion, BadOptionsThrowTheSameErrorOnEveryRank) {
  const int P = size_of(MPI_COMM_WORLD), rank = rank_of(MPI_COMM_WORLD);
  MPI_Comm cart = make_cart(MPI_COMM_WORLD, {P}, false);
  DiffusionOptions o;
  // Alpha out of range everywhere (and a bad load on rank 0 besides).
  o.alpha = 1.5;
  auto msg = error_of([&] { isocost::mpi::diffuse(cart, rank == 0 ? -2.0 : 1.0, o); });
  expect_has(msg, P == 1 ? "1 rank (" : std::to_string(P) + " ranks (");
  expect_has(msg,
             "rank 0: alpha: expected a number in (0, 1), got 1.5; load: expected a finite number "
             ">= 0, got -2");
  expect_in_step(cart);
  // Alpha valid but different on the last rank.
  o.alpha = rank == P - 1 ? 0.1 : 0.05;
  o.scheme = DiffusionScheme::implicit;
  msg = error_of([&] { isocost::mpi::diffuse(cart, 1.0 + rank, o); });
  if (P > 1)
    expect_has(msg, "rank " + std::to_string(P - 1) +
                        ": options differ from rank 0's: alpha 0.1 (rank 0: 0.05)");
  else
    EXPECT_EQ(msg, "");
  expect_in_step(cart);
  // A different scheme and sweep count on rank 0.
  o = {};
  if (rank == 0) {
    o.scheme = DiffusionScheme::least_squares;
    o.sweeps = 3;
  }
  msg = error_of([&] { isocost::mpi::diffuse(cart, 1.0 + rank, o); });
  if (P > 1)
    expect_has(msg, "options differ from rank 0's: scheme cn (rank 0: lsq), sweeps 0 (rank 0: 3)");
  expect_in_step(cart);
  // Explicit α beyond the stability limit 1/n (n = 2 on a chain; none on one rank).
  o = {};
  o.scheme = DiffusionScheme::explicit_euler;
  o.alpha = 0.6;
  msg = error_of([&] { isocost::mpi::diffuse(cart, 1.0 + rank, o); });
  if (P > 1)
    expect_has(msg, "explicit diffusion: alpha=0.6 exceeds its stability limit 1/n = 0.5");
  else
    EXPECT_EQ(msg, "");
  expect_in_step(cart);
  MPI_Comm_free(&cart);
}

TEST(MpiDiffusion, CommunicatorsWithoutAMeshAreRefused) {
  const int P = size_of(MPI_COMM_WORLD);
  auto msg = error_of([&] { isocost::mpi::diffuse(MPI_COMM_WORLD, 1.0); });
  expect_has(msg, "expected a Cartesian communicator");
  msg = error_of([&] { isocost::mpi::diffuse(MPI_COMM_NULL, 1.0); });
  expect_has(msg, "MPI_COMM_NULL");
  // Mixed periods and four dimensions: the same on every rank.
  MPI_Comm cart = MPI_COMM_NULL;
  int dims2[2] = {P, 1}, periods2[2] = {1, 0};
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, periods2, 0, &cart);
  msg = error_of([&] { isocost::mpi::diffuse(cart, 1.0); });
  expect_has(msg, "mixed periods");
  msg = error_of([&] { isocost::mpi::cart_graph(cart); });
  expect_has(msg, "cart_graph");
  MPI_Comm_free(&cart);
  int dims4[4] = {P, 1, 1, 1}, periods4[4] = {0, 0, 0, 0};
  MPI_Cart_create(MPI_COMM_WORLD, 4, dims4, periods4, 0, &cart);
  msg = error_of([&] { isocost::mpi::diffuse(cart, 1.0); });
  expect_has(msg, "1 to 3 dimensions, got 4");
  MPI_Comm_free(&cart);
  expect_in_step(MPI_COMM_WORLD);
}

}  // namespace
