#include "peer_cases.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "decompose_patterns.hpp"
#include "isocost/cost_model.hpp"
#include "isocost/decompose.hpp"
#include "isocost/mpi/decompose_grid.hpp"
#include "isocost/mpi/partition_points.hpp"
#include "isocost/mpi/partition_weights.hpp"
#include "isocost/partition.hpp"
#include "peer_measure.hpp"
#include "peer_zoltan.hpp"
#include "peer_zoltan2.hpp"

namespace isocost::bench {
namespace {

struct World {
  int rank = 0, size = 1;
};
World world() {
  World w;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size);
  return w;
}

// The Zoltan methods and MultiJagged on weighted points: one report line each.
void run_peers(const PeerSettings& s, const std::string& name, int dims,
               const std::vector<double>& coords, const std::vector<double>& w, std::int64_t first,
               int P, const std::string& mj_parts, double optimum = 0) {
  // RCB twice: as Zoltan's default, which splits the cells lying on a cut
  // between both sides, and with RCB_RECTILINEAR_BLOCKS, whose parts are boxes
  // of whole cells like isocost's (in 1-D the two are the same).
  struct Method {
    const char* name;
    bool rectilinear;
  };
  for (const Method m :
       {Method{"BLOCK", false}, Method{"RCB", false}, Method{"RCB", true}, Method{"HSFC", false}}) {
    if (m.rectilinear && dims == 1) continue;
    const std::string label =
        std::string("zoltan ") + m.name + (m.rectilinear ? " rectilinear" : "");
    if (!s.wants(label)) continue;
    zoltan::Partitioned z;
    const zoltan::Objects objects{dims, coords, w, first};
    const Timing t = time_it(s.repetitions, [&] {
      z = zoltan::partition(MPI_COMM_WORLD, objects,
                            {m.name, P, s.zoltan_tol.c_str(), m.rectilinear});
    });
    report(name, label, t, weights_by_part(z.part, w, P), z.settings, optimum);
  }
  if (s.wants("zoltan2 MJ")) {
    zoltan2::Partitioned mj;
    const Timing t = time_it(s.repetitions, [&] {
      mj = zoltan2::multijagged(MPI_COMM_WORLD, dims, coords, w, first,
                                {P, mj_parts, s.mj_tolerance});
    });
    report(name, "zoltan2 MJ" + (mj_parts.empty() ? "" : " " + mj_parts), t,
           weights_by_part(mj.part, w, P), mj.settings, optimum);
  }
}

// The exact chains-on-chains bottleneck of all n weights into P equal parts
// (bottleneck_cuts on rank 0, which builds the whole input; broadcast).
double optimum_1d(Shape shape, std::int64_t n, int P) {
  double best = 0;
  if (world().rank == 0) {
    const auto w = weights_1d(shape, n, 0, n);
    std::vector<double> prefix(w.size() + 1, 0.0);
    std::partial_sum(w.begin(), w.end(), prefix.begin() + 1);
    const std::vector<double> capacity(static_cast<std::size_t>(P), 1.0);
    const auto cuts = bottleneck_cuts(prefix, capacity);
    for (int k = 0; k < P; ++k) best = std::max(best, prefix[cuts[k + 1]] - prefix[cuts[k]]);
  }
  MPI_Bcast(&best, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return best;
}

// The centres of the cells in rows [rows.lo, rows.hi) of an n-wide grid, x
// fastest: how Zoltan and MJ see a grid (points with the cells' weights).
std::vector<double> cell_centres(std::int64_t n, Slice rows) {
  std::vector<double> xy;
  xy.reserve(static_cast<std::size_t>(2 * n * (rows.hi - rows.lo)));
  for (std::int64_t y = rows.lo; y < rows.hi; ++y)
    for (std::int64_t x = 0; x < n; ++x) {
      xy.push_back(static_cast<double>(x) + 0.5);
      xy.push_back(static_cast<double>(y) + 0.5);
    }
  return xy;
}

std::vector<std::int64_t> integer_cuts(const std::vector<double>& cuts) {
  std::vector<std::int64_t> c;
  for (double x : cuts) c.push_back(static_cast<std::int64_t>(x));
  return c;
}

}  // namespace

void print_preamble() {
  const World me = world();
  if (me.rank != 0) return;
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(mpi, &len);
  std::string mpi_name(mpi, static_cast<std::size_t>(len));
  mpi_name = mpi_name.substr(0, mpi_name.find_first_of(",\n"));
  std::printf(
      "peers: %s, %s; %s; %d ranks; a fresh page's first touch %.2f us (rank 0). Inputs: "
      "mix = SplitMix64's finaliser (z += 0x9e3779b97f4a7c15; z = (z ^ z>>30) * "
      "0xbf58476d1ce4e5b9; z = (z ^ z>>27) * 0x94d049bb133111eb; z ^ z>>31), uniform(k) = "
      "(mix(k) >> 11) * 2^-53\n",
      zoltan::version().c_str(), zoltan2::version().c_str(), mpi_name.c_str(), me.size,
      page_fault_microseconds());
  std::fflush(stdout);
}

bool PeerSettings::wants(const std::string& method) const {
  if (methods.empty()) return true;
  return std::any_of(methods.begin(), methods.end(),
                     [&](const std::string& m) { return method.rfind(m, 0) == 0; });
}

void run_1d(const PeerSettings& s, Shape shape, std::int64_t n, int P) {
  const World me = world();
  const Slice sl = slice_of(n, me.rank, me.size);
  const auto w = weights_1d(shape, n, sl.lo, sl.hi);
  std::vector<double> x(w.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<double>(sl.lo) + 0.5 + static_cast<double>(i);
  const std::string name = "1d/" + std::string(shape_name(shape)) + " n=" + std::to_string(n) +
                           " P=" + std::to_string(P);
  describe_input(name, shape_formula(shape, 1),
                 "cell i at x = i + 0.5 for Zoltan and MJ; rank r of R holds cells "
                 "[n*r/R, n*(r+1)/R)",
                 sl.lo, w, x, 1);
  const double opt = optimum_1d(shape, n, P);
  const Speeds speeds = Speeds::uniform(P);
  const std::string uniform = "Speeds::uniform(" + std::to_string(P) + ")";

  run_peers(s, name, 1, x, w, sl.lo, P, "", opt);
  if (me.size == 1 && s.wants("isocost partition")) {
    // The serial path a user takes: the model (copying the weights) and its cuts.
    Partition p;
    const Timing t = time_it(s.repetitions, [&] { p = partition(discrete_model(w), speeds); });
    report(name, "isocost partition(discrete)", t, weights_by_cuts(integer_cuts(p.cuts), 0, w),
           "partition(discrete_model(w), " + uniform + "), default options", opt);
  }
  if (me.size == 1 && s.wants("isocost bottleneck_cuts")) {
    // The exact optimum, with its prefix sums.
    std::vector<std::int64_t> cuts;
    const std::vector<double> capacity(static_cast<std::size_t>(P), 1.0);
    const Timing t = time_it(s.repetitions, [&] {
      std::vector<double> prefix(w.size() + 1, 0.0);
      std::partial_sum(w.begin(), w.end(), prefix.begin() + 1);
      cuts = bottleneck_cuts(prefix, capacity);
    });
    report(name, "isocost bottleneck_cuts", t, weights_by_cuts(cuts, 0, w),
           "bottleneck_cuts(prefix sums, capacities 1 x " + std::to_string(P) + "), min_cells 0",
           opt);
  }
  if (s.wants("isocost mpi::partition_weights")) {
    mpi::WeightsPartition p;
    const Timing t =
        time_it(s.repetitions, [&] { p = mpi::partition_weights(MPI_COMM_WORLD, w, speeds); });
    report(name, "isocost mpi::partition_weights", t, weights_by_cuts(p.cuts, sl.lo, w),
           "mpi::partition_weights(world, w, " + uniform + "), default options", opt);
  }
}

void run_2d(const PeerSettings& s, Shape shape, std::int64_t n, int px, int py) {
  const World me = world();
  const Slice rows = slice_of(n, me.rank, me.size);
  const auto w = weights_2d(shape, n, rows.lo, rows.hi);
  const auto xy = cell_centres(n, rows);
  const int P = px * py;
  const std::string grid = std::to_string(px) + "x" + std::to_string(py);
  const std::string name =
      "2d/" + std::string(shape_name(shape)) + " " + std::to_string(n) + "^2 into " + grid;
  describe_input(name, shape_formula(shape, 2),
                 "u = (ix+0.5)/n, v = (iy+0.5)/n; cell (ix, iy) has index iy*n+ix and is the point "
                 "(ix+0.5, iy+0.5) for Zoltan and MJ; rank r of R holds rows [n*r/R, n*(r+1)/R)",
                 rows.lo * n, w, xy, 2);
  run_peers(s, name, 2, xy, w, rows.lo * n, P, std::to_string(px) + "," + std::to_string(py));

  const ProcessGrid pg{{px, py}, {0, 1}};
  const Speeds speeds = Speeds::uniform(P);
  const std::string how = "ProcessGrid{{" + std::to_string(px) + "," + std::to_string(py) +
                          "},{0,1}} (" + std::to_string(px) + " slabs along x, then " +
                          std::to_string(py) + " along y in each), Speeds::uniform(" +
                          std::to_string(P) + "), default options";
  const GridShape gs{2, {n, n, 1}};
  const auto by_boxes = [&](const std::vector<std::array<std::int64_t, 4>>& boxes) {
    return weights_by_part(parts_of_boxes(boxes, n, rows.lo, rows.hi), w, P);
  };
  if (me.size == 1 && s.wants("isocost decompose")) {
    // The summed-area table (grid_density, copying the weights) and the cuts.
    Decomposition d;
    const Timing t =
        time_it(s.repetitions, [&] { d = decompose(grid_density(w, gs), pg, speeds); });
    report(name, "isocost decompose", t, by_boxes(boxes_of(d)),
           "decompose(grid_density(w), " + how + ")");
  }
  if (me.size == 1 && s.wants("prefix-sum split")) {
    // decompose_patterns.hpp's baseline: each level's first boundary past i·S/m.
    const Grid g{gs, w};
    std::vector<CellBox> parts;
    const Timing t = time_it(s.repetitions, [&] { parts = plain_jagged(g, pg); });
    std::vector<std::array<std::int64_t, 4>> boxes;
    for (const CellBox& b : parts) boxes.push_back({b.c0[0], b.c1[0], b.c0[1], b.c1[1]});
    report(name, "prefix-sum split", t, by_boxes(boxes),
           "plain_jagged: each level's first boundary past i*S/m, x then y");
  }
  if (s.wants("isocost mpi::decompose_grid")) {
    const std::array<std::int64_t, 3> lo{0, rows.lo, 0}, hi{n, rows.hi, 1};
    Decomposition d;
    const Timing t = time_it(
        s.repetitions, [&] { d = mpi::decompose_grid(MPI_COMM_WORLD, gs, lo, hi, w, pg, speeds); });
    report(name, "isocost mpi::decompose_grid", t, by_boxes(boxes_of(d)),
           "mpi::decompose_grid(world, rows, w, " + how + ")");
  }
}

void run_points(const PeerSettings& s, std::int64_t count, int P) {
  const World me = world();
  const Slice sl = slice_of(count, me.rank, me.size);
  const Points pts = clustered_points(sl.lo, sl.hi);
  const std::string name = "3d/clustered n=" + std::to_string(count) + " P=" + std::to_string(P);
  describe_input(name,
                 "point i: key = i << 3, c = mix(key) % 4; coordinate a = 0, 1, 2 is "
                 "uniform(key+1+a) if c = 3, else 0.25*(c+1) + 0.05*sqrt(-2 ln(1 - "
                 "uniform(key+4+a)))*cos(2 pi uniform(key+1+a)); weight 1 + mix(key+7) % 9",
                 "rank r of R holds points [n*r/R, n*(r+1)/R)", sl.lo, pts.w, pts.xyz, 3);
  run_peers(s, name, 3, pts.xyz, pts.w, sl.lo, P, "");
  if (s.wants("isocost mpi::partition_points")) {
    mpi::PointsPartition p;
    const Timing t = time_it(s.repetitions, [&] {
      p = mpi::partition_points(MPI_COMM_WORLD, 3, pts.xyz, pts.w, Speeds::uniform(P));
    });
    report(name, "isocost mpi::partition_points", t, weights_by_part(p.part, pts.w, P),
           "mpi::partition_points(world, 3, xyz, w, Speeds::uniform(" + std::to_string(P) +
               ")), default options");
  }
}

void run_mj_tolerance(const PeerSettings& s, Shape shape, std::int64_t n, int px, int py,
                      const std::vector<double>& tolerances) {
  const World me = world();
  const Slice rows = slice_of(n, me.rank, me.size);
  const auto w = weights_2d(shape, n, rows.lo, rows.hi);
  const auto xy = cell_centres(n, rows);
  const int P = px * py;
  const std::string mj_parts = std::to_string(px) + "," + std::to_string(py);
  std::vector<int> first;
  for (double tol : tolerances) {
    std::vector<int> part;
    const Timing t = time_it(s.repetitions, [&] {
      part = zoltan2::multijagged(MPI_COMM_WORLD, 2, xy, w, rows.lo * n, {P, mj_parts, tol}).part;
    });
    int differs = first.empty() ? 0 : (part != first ? 1 : 0);
    MPI_Allreduce(MPI_IN_PLACE, &differs, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    const auto pw = weights_by_part(part, w, P);
    if (me.rank == 0) {
      const double total = std::accumulate(pw.begin(), pw.end(), 0.0);
      std::printf(
          "mj-tolerance 2d/%s %lld^2 into %dx%d  imbalance_tolerance %-7g max/avg %.7f  "
          "wall %.4f s  cpu/rank %.4f s  %s\n",
          shape_name(shape), static_cast<long long>(n), px, py, tol,
          *std::max_element(pw.begin(), pw.end()) / (total / P), t.wall, t.cpu,
          first.empty() ? "(first)"
          : differs     ? "parts differ from the first"
                        : "parts identical to the first");
      std::fflush(stdout);
    }
    if (first.empty()) first = part;
  }
}

}  // namespace isocost::bench
