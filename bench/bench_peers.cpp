// Zoltan and Zoltan2 as peers of isocost (issue #13, "Peers and measured
// scale"): the same inputs, in the same run, through Zoltan's BLOCK, RCB and
// HSFC, Zoltan2's MultiJagged and isocost's serial and distributed
// partitioners. Built only when the peers are found (scripts/install-peers).
//   mpiexec -n 1 bench_peers [--repetitions 3] [--cases 1d,2d,points,mj-tolerance]
//       [--patterns sieve,bell,spikes,step] [--cells 1e6] [--parts 16]
//       [--grids 4096:16x16,1024:64x64] [--points 1e7] [--point-parts 1024]
//       [--methods "zoltan RCB,isocost"] [--zoltan-tol 1.0] [--mj-tolerance 1.0001]
// A plain MPI program, like bench_mpi_partition: every rank must make the
// same collective calls, which Google Benchmark's per-process iteration
// counts do not allow. Each line: max/avg of the part weights (summed from
// the raw weights), the heaviest part over the exact 1-D optimum, and the
// medians of the slowest rank's wall and CPU time. Docs: docs/peers.md.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "mpi_bench_support.hpp"
#include "peer_cases.hpp"
#include "peer_zoltan.hpp"
#include "peer_zoltan2.hpp"

namespace {

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

struct GridCase {
  std::int64_t n = 0;
  int px = 0, py = 0;
};

// "4096:16x16" → n = 4096, 16×16 parts.
GridCase parse_grid(const std::string& text) {
  GridCase g;
  long long n = 0;
  if (std::sscanf(text.c_str(), "%lld:%dx%d", &n, &g.px, &g.py) != 3 || n < 1 || g.px < 1 ||
      g.py < 1)
    throw isocost::Error("bench_peers: --grids takes N:PXxPY, not \"" + text + "\"");
  g.n = n;
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  isocost::bench::zoltan::initialize(argc, argv);
  isocost::bench::zoltan2::initialize(argc, argv);
  isocost::bench::PeerSettings s;
  std::string cases = "1d,2d,points,mj-tolerance", patterns = "sieve,bell,spikes,step",
              grids = "4096:16x16,1024:64x64";
  double cells = 1e6, points = 1e7;
  int parts = 16, point_parts = 1024;
  const bool ok = isocost::bench::parse_args(
      argc, argv,
      {{"--repetitions", [&](const char* v) { s.repetitions = std::atoi(v); }},
       {"--cases", [&](const char* v) { cases = v; }},
       {"--patterns", [&](const char* v) { patterns = v; }},
       {"--cells", [&](const char* v) { cells = std::atof(v); }},
       {"--parts", [&](const char* v) { parts = std::atoi(v); }},
       {"--grids", [&](const char* v) { grids = v; }},
       {"--points", [&](const char* v) { points = std::atof(v); }},
       {"--point-parts", [&](const char* v) { point_parts = std::atoi(v); }},
       {"--methods", [&](const char* v) { s.methods = split(v); }},
       {"--zoltan-tol", [&](const char* v) { s.zoltan_tol = v; }},
       {"--mj-tolerance", [&](const char* v) { s.mj_tolerance = std::atof(v); }}},
      "usage: bench_peers [--repetitions 3] [--cases 1d,2d,points,mj-tolerance] "
      "[--patterns sieve,bell,spikes,step] [--cells 1e6] [--parts 16] "
      "[--grids 4096:16x16,1024:64x64] [--points 1e7] [--point-parts 1024] "
      "[--methods PREFIX,…] [--zoltan-tol 1.0] [--mj-tolerance 1.0001]");
  int code = 2;
  if (ok) {
    isocost::bench::print_preamble();
    code = isocost::bench::run_cases("bench_peers", [&] {
      using namespace isocost::bench;
      std::vector<Shape> shapes;
      for (const auto& p : split(patterns)) shapes.push_back(parse_shape(p));
      std::vector<GridCase> grid_cases;
      for (const auto& g : split(grids)) grid_cases.push_back(parse_grid(g));
      for (const auto& c : split(cases)) {
        if (c == "1d") {
          for (Shape sh : shapes) run_1d(s, sh, static_cast<std::int64_t>(cells), parts);
        } else if (c == "2d") {
          for (const GridCase& g : grid_cases)
            for (Shape sh : shapes) run_2d(s, sh, g.n, g.px, g.py);
        } else if (c == "points") {
          run_points(s, static_cast<std::int64_t>(points), point_parts);
        } else if (c == "mj-tolerance") {
          // Trilinos 13.2 is said to ignore MJ's imbalance_tolerance: check it.
          for (const GridCase& g : grid_cases)
            run_mj_tolerance(s, shapes.front(), g.n, g.px, g.py, {1.0001, 1.01, 1.5});
        } else {
          throw isocost::Error("bench_peers: unknown case \"" + c +
                               "\" (1d, 2d, points, mj-tolerance)");
        }
      }
    });
  }
  isocost::bench::zoltan2::finalize();
  MPI_Finalize();
  return code;
}
