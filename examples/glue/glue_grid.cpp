// The GridBalancer against a code's own glue (issue #24): a grid with a hot
// spot that moves, on a 2×2 process grid, run three ways on the same ranks.
//   mpiexec -n 4 build/examples/glue/glue_grid [--repeat 5] [--json out.json]
//
// n×n cells; cell (i, j) costs 1 + 20·exp(−r²/w²) rounds of arithmetic in a
// step, r its distance from a centre moving from (0.2, 0.3) to (0.8, 0.7) of
// the grid. Jagged parts: two columns (x), each cut in two rows (y). Then:
//  - `balancer`: GridBalancer from decompose_uniform() with default options,
//    each cell's rounds as its cost at checks (next_decide_is_check()), and
//    maybe_rebalance(id, u);
//  - `glue`: what a code writes itself: every `every` steps one MPI_Allreduce
//    of the column sums, the x cut at half the total, one MPI_Allreduce of
//    each new column's row sums, its y cut at half; when the heaviest part
//    is over 1.1× the mean, the cells move by one MPI_Alltoallv of the boxes'
//    overlaps, packed row by row;
//  - `none`: the equal boxes throughout.
// Efficiency is the mean over steps of avg/max of the rounds each rank
// computes (exact); times as in glue_particles. Every run must leave each
// rank its box's cells in order (each carries its index), or exit 1.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "example_main.hpp"
#include "example_support.hpp"
#include "glue_runs.hpp"
#include "isocost/decompose.hpp"
#include "isocost/mpi/grid_balancer.hpp"

namespace {

using i64 = std::int64_t;
using isocost::mpi::CellBox;

struct Settings {
  i64 n = 512;
  int steps = 100;
  int every = 10;
  int repeat = 1;
  std::string json, log, ways;
};

// The rounds cell (i, j) costs at step t.
int rounds(const Settings& s, i64 i, i64 j, int t) {
  const double f = static_cast<double>(t) / s.steps;
  const double cx = (0.2 + 0.6 * f) * static_cast<double>(s.n),
               cy = (0.3 + 0.4 * f) * static_cast<double>(s.n);
  const double w = 0.08 * static_cast<double>(s.n), dx = static_cast<double>(i) + 0.5 - cx,
               dy = static_cast<double>(j) + 0.5 - cy;
  return 1 + static_cast<int>(20 * std::exp(-(dx * dx + dy * dy) / (w * w)));
}

// One step on the cells of box `b` (x fastest); `cost` gets each cell's
// rounds when given. Returns the rounds done.
double compute(const Settings& s, int t, const CellBox& b, std::vector<double>& u,
               std::vector<double>* cost) {
  double done = 0;
  std::size_t c = 0;
  if (cost) cost->resize(u.size());
  for (i64 j = b.lo[1]; j < b.hi[1]; ++j)
    for (i64 i = b.lo[0]; i < b.hi[0]; ++i, ++c) {
      const int r = rounds(s, i, j, t);
      double f = u[c];
      for (int k = 0; k < 4 * r; ++k) f = f * 0.999 + 1e-3 * std::sqrt(f + 1.0);
      u[c] = f;
      done += r;
      if (cost) (*cost)[c] = r;
    }
  return done;
}

std::vector<double> indices(const Settings& s, const CellBox& b) {
  std::vector<double> id;
  for (i64 j = b.lo[1]; j < b.hi[1]; ++j)
    for (i64 i = b.lo[0]; i < b.hi[0]; ++i) id.push_back(static_cast<double>(i + s.n * j));
  return id;
}

// ---- The code's own glue -------------------------------------------------

// Boxes of the 2×2 jagged grid from an x cut and each column's y cut: rank
// 2·column + row.
std::vector<CellBox> jagged(i64 n, i64 x, std::array<i64, 2> y) {
  std::vector<CellBox> b(4);
  for (int c = 0; c < 2; ++c)
    for (int r = 0; r < 2; ++r) {
      CellBox& k = b[static_cast<std::size_t>(2 * c + r)];
      k.lo = {c == 0 ? 0 : x, r == 0 ? 0 : y[static_cast<std::size_t>(c)], 0};
      k.hi = {c == 0 ? x : n, r == 0 ? y[static_cast<std::size_t>(c)] : n, 1};
    }
  return b;
}

// The first index where the prefix sums reach half of their total.
i64 half(const std::vector<double>& sums) {
  std::vector<double> prefix(sums.size() + 1, 0.0);
  std::partial_sum(sums.begin(), sums.end(), prefix.begin() + 1);
  const auto at =
      std::lower_bound(prefix.begin(), prefix.end(), prefix.back() / 2) - prefix.begin();
  return std::clamp<i64>(at, 1, static_cast<i64>(sums.size()) - 1);
}

// Every `every` steps: marginal cuts, and the cells moved when it pays.
bool glue_rebalance(MPI_Comm comm, const Settings& s, std::vector<CellBox>& boxes, int rank,
                    const std::vector<double>& cost, std::vector<double>& id,
                    std::vector<double>& u) {
  const CellBox b = boxes[static_cast<std::size_t>(rank)];
  const i64 w = b.hi[0] - b.lo[0];
  std::vector<double> column(static_cast<std::size_t>(s.n), 0.0);
  double mine = 0;
  for (std::size_t c = 0; c < cost.size(); ++c) {
    column[static_cast<std::size_t>(b.lo[0] + static_cast<i64>(c) % w)] += cost[c];
    mine += cost[c];
  }
  double most = mine, total = mine;
  MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  if (most <= 1.1 * total / 4) return false;
  MPI_Allreduce(MPI_IN_PLACE, column.data(), static_cast<int>(s.n), MPI_DOUBLE, MPI_SUM, comm);
  const i64 x = half(column);
  std::vector<double> rows(2 * static_cast<std::size_t>(s.n), 0.0);  // per new column, per y
  for (std::size_t c = 0; c < cost.size(); ++c) {
    const i64 i = b.lo[0] + static_cast<i64>(c) % w, j = b.lo[1] + static_cast<i64>(c) / w;
    rows[static_cast<std::size_t>((i < x ? 0 : s.n) + j)] += cost[c];
  }
  MPI_Allreduce(MPI_IN_PLACE, rows.data(), static_cast<int>(rows.size()), MPI_DOUBLE, MPI_SUM,
                comm);
  const std::vector<double> r0(rows.begin(), rows.begin() + s.n),
      r1(rows.begin() + s.n, rows.end());
  const std::vector<CellBox> next = jagged(s.n, x, {half(r0), half(r1)});
  // Each rank's overlap with each new box, row by row; both arrays as pairs.
  const CellBox& to = next[static_cast<std::size_t>(rank)];
  std::vector<int> sc(4, 0), sd(4, 0), rc(4, 0), rd(4, 0);
  std::vector<double> send, recv;
  for (std::size_t q = 0; q < 4; ++q) {
    const CellBox o = isocost::mpi::intersect(b, next[q]);
    sd[q] = static_cast<int>(send.size());
    for (i64 j = o.lo[1]; j < o.hi[1]; ++j)
      for (i64 i = o.lo[0]; i < o.hi[0]; ++i) {
        const auto c = static_cast<std::size_t>((i - b.lo[0]) + w * (j - b.lo[1]));
        send.push_back(id[c]);
        send.push_back(u[c]);
      }
    sc[q] = static_cast<int>(send.size()) - sd[q];
    const CellBox in = isocost::mpi::intersect(boxes[q], to);
    rd[q] = q == 0 ? 0 : rd[q - 1] + rc[q - 1];
    rc[q] = static_cast<int>(2 * in.volume());
  }
  recv.resize(static_cast<std::size_t>(rd[3] + rc[3]));
  MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_DOUBLE, recv.data(), rc.data(), rd.data(),
                MPI_DOUBLE, comm);
  const i64 tw = to.hi[0] - to.lo[0];
  id.assign(static_cast<std::size_t>(to.volume()), 0.0);
  u.assign(id.size(), 0.0);
  for (std::size_t q = 0; q < 4; ++q) {
    const CellBox in = isocost::mpi::intersect(boxes[q], to);
    std::size_t k = static_cast<std::size_t>(rd[q]);
    for (i64 j = in.lo[1]; j < in.hi[1]; ++j)
      for (i64 i = in.lo[0]; i < in.hi[0]; ++i) {
        const auto c = static_cast<std::size_t>((i - to.lo[0]) + tw * (j - to.lo[1]));
        id[c] = recv[k++];
        u[c] = recv[k++];
      }
  }
  boxes = next;
  return true;
}

// ---- The runs ---------------------------------------------------------------

// GridBalancer with default options; `cpu` gets the CPU time of its calls.
bool with_balancer(MPI_Comm comm, const Settings& s, const isocost::GridShape& shape,
                   const isocost::Decomposition& start, std::vector<double>& done, int& moves,
                   double& cpu) {
  const int rank = glue::rank_of(comm);
  std::optional<isocost::mpi::GridBalancer> made;
  {
    glue::Clock c(comm, cpu);
    isocost::mpi::GridBalancerOptions o;  // the defaults
    o.pipeline.log_path = s.log;
    made.emplace(comm, shape, start, o);
  }
  isocost::mpi::GridBalancer& b = *made;
  auto box = [&] { return b.boxes().boxes[static_cast<std::size_t>(rank)]; };
  std::vector<double> id = indices(s, box()), u = id, cost;
  for (int t = 0; t < s.steps; ++t) {
    bool check = false;
    {
      auto scope = b.step();
      check = b.next_decide_is_check();  // costs only where a check reads them
      done[static_cast<std::size_t>(t)] = compute(s, t, box(), u, check ? &cost : nullptr);
    }
    glue::Clock c(comm, cpu);
    if (check) b.set_costs(cost);
    moves += b.maybe_rebalance(id, u).migration ? 1 : 0;
  }
  return id == indices(s, box());
}

// The glue every `every` steps (`balance`), or the equal boxes throughout.
bool with_glue(MPI_Comm comm, const Settings& s, const isocost::Decomposition& start, bool balance,
               std::vector<double>& done, int& moves, double& cpu) {
  const int rank = glue::rank_of(comm);
  std::vector<CellBox> boxes = isocost::mpi::BoxDistribution::from_decomposition(start).boxes;
  std::vector<double> id = indices(s, boxes[static_cast<std::size_t>(rank)]), u = id, cost;
  for (int t = 0; t < s.steps; ++t) {
    const bool check = balance && (t + 1) % s.every == 0;
    done[static_cast<std::size_t>(t)] =
        compute(s, t, boxes[static_cast<std::size_t>(rank)], u, check ? &cost : nullptr);
    glue::Clock c(comm, cpu);
    if (check && glue_rebalance(comm, s, boxes, rank, cost, id, u)) ++moves;
  }
  return id == indices(s, boxes[static_cast<std::size_t>(rank)]);
}

}  // namespace

int main(int argc, char** argv) {
  examples::yield_when_idle();
  MPI_Init(&argc, &argv);
  Settings s;
  CLI::App app{"The GridBalancer against a code's own glue on a moving hot spot (4 ranks)"};
  app.add_option("--cells", s.n, "cells along each axis")->check(CLI::Range(i64{4}, i64{1} << 15));
  app.add_option("--steps", s.steps, "time steps")->check(CLI::Range(1, 1 << 20));
  app.add_option("--every", s.every, "the glue's check interval")->check(CLI::Range(1, 1 << 20));
  app.add_option("--repeat", s.repeat, "runs of each way; medians are reported")
      ->check(CLI::Range(1, 99));
  app.add_option("--ways", s.ways, "only these runs, e.g. balancer,glue (default: all three)");
  app.add_option("--log", s.log, "the Balancer's JSON-lines log (one object per check)");
  app.add_option("--json", s.json, "write the results as JSON to this file ('-': stdout)");
  return examples::parse_and_run(app, argc, argv, "glue_grid", [&] {
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank = 0, P = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    if (P != 4)
      throw isocost::Error("runs on a 2x2 process grid: expected 4 ranks, got " +
                           std::to_string(P));
    const isocost::GridShape shape{2, {s.n, s.n, 1}};
    const auto start = isocost::decompose_uniform(shape, {{2, 2}, {0, 1}});
    const std::vector<glue::Way> ways = {
        {"balancer",
         [&](std::vector<double>& done, int& moves, double& cpu) {
           return with_balancer(comm, s, shape, start, done, moves, cpu);
         }},
        {"glue", [&](std::vector<double>& done, int& moves,
                     double& cpu) { return with_glue(comm, s, start, true, done, moves, cpu); }},
        {"none", [&](std::vector<double>& done, int& moves, double& cpu) {
           return with_glue(comm, s, start, false, done, moves, cpu);
         }}};
    const std::vector<glue::Run> runs =
        glue::compare(comm, glue::select(ways, s.ways), s.steps, s.repeat);
    const std::string header = "\"ranks\": 4, \"cells\": " + std::to_string(s.n) +
                               ", \"steps\": " + std::to_string(s.steps);
    const bool ok = glue::report(runs, rank, header, s.repeat, s.json);
    return ok ? 0 : 1;
  });
}
