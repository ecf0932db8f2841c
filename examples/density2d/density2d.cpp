// density2d — Swartz §5's 2-D cost density rho = C·(x + y) on [0, 20]^2 as a
// real program (Load balancing using Newton's method on MPP systems, §5).
//
// An N x N grid of cells; cell (i, j) does about K·(x + y) units of real
// floating-point work (density2d_kernel.hpp). The per-cell unit counts are the
// weights a code that knows its cost gives the partitioner, and every rank
// decomposes them identically (isocost::decompose is serial and
// deterministic, so no broadcast is needed). Four layouts, each run and timed
// in CPU seconds per rank (fastest of --repeats, a barrier before each):
//   equal-area rows  P rows of equal height: the balance ignores rho;
//   rows             P rows of equal cost (Swartz §5);
//   jagged           px columns of equal cost, each cut into py parts;
//   auto             isocost::choose_process_grid's pick.
// Each run is checked exactly: every cell done once (an order-free hash), and
// the cells and work units add up. Swartz's own numbers, the row boundaries
// y = 7.32, 12.36, 16.46 for N_p = 4, are recomputed from the analytic density
// beside the paper's.
//
//   mpiexec -n 4 density2d [--cells 600] [--work 60] [--json F] [--plot DIR]
//
// Exit status: 0 success; 1 a check failed; 2 bad arguments.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "density2d_kernel.hpp"
#include "example_main.hpp"
#include "example_support.hpp"
#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/error.hpp"
#include "isocost/metrics.hpp"
#include "plot/gnuplot.hpp"

namespace {

using isocost::Error;
using json = nlohmann::ordered_json;

struct Options {
  std::int64_t cells = 600;
  double work = 60;  ///< K: units per unit of x + y
  int repeats = 3;
  std::string json_path, plot_dir;
};

struct Layout {
  std::string name;
  isocost::Decomposition dec;
  std::vector<double> seconds;  // CPU seconds per rank
  density2d::Tally tally;       // summed over ranks (hash: XOR)
  double t_max() const { return isocost::load_stats(seconds).max; }
  double efficiency() const { return isocost::load_stats(seconds).efficiency; }
  double le() const { return isocost::load_stats(seconds).le; }  // Swartz eq. (3), percent
  // Largest |measured share − predicted share| of one rank, percent.
  double share_error() const {
    const double sum = std::accumulate(seconds.begin(), seconds.end(), 0.0);
    double worst = 0;
    for (std::size_t r = 0; r < seconds.size(); ++r)
      worst = std::max(worst, std::abs(seconds[r] / sum - dec.parts[r].cost / dec.total_cost));
    return 100 * worst;
  }
};

// Runs this rank's cells of the layout; every rank gets the times and tally.
void run(MPI_Comm comm, Layout& l, const Options& opt) {
  int rank = 0, P = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  const isocost::Part& part = l.dec.parts[static_cast<std::size_t>(rank)];
  density2d::Tally mine;
  const double best = examples::fastest_cpu_seconds(comm, opt.repeats, [&] {
    mine = density2d::work(part.cell_lo[0], part.cell_hi[0], part.cell_lo[1], part.cell_hi[1],
                           opt.cells, opt.work);
  });
  l.seconds.resize(static_cast<std::size_t>(P));
  MPI_Allgather(&best, 1, MPI_DOUBLE, l.seconds.data(), 1, MPI_DOUBLE, comm);
  std::int64_t counts[2] = {mine.cells, mine.units}, sums[2] = {0, 0};
  MPI_Allreduce(counts, sums, 2, MPI_INT64_T, MPI_SUM, comm);
  MPI_Allreduce(&mine.hash, &l.tally.hash, 1, MPI_UINT64_T, MPI_BXOR, comm);
  l.tally.cells = sums[0];
  l.tally.units = sums[1];
}

// Swartz §5, N_p = 4 rows of rho = C·(x + y) on [0, 20]^2: y_i = −10 + sqrt(100 + 200 i).
std::vector<double> swartz_rows() {
  const auto rho = [](std::span<const double> p) { return p[0] + p[1]; };
  const auto d = isocost::analytic_density(rho, isocost::Box::of({0, 0}, {20, 20}));
  const auto dec =
      isocost::decompose(d, isocost::ProcessGrid{{4}, {1}}, isocost::Speeds::uniform(4));
  std::vector<double> y;
  for (const auto& p : dec.parts) y.push_back(p.box.hi[1]);
  y.pop_back();
  return y;
}

json layout_json(const Layout& l) {
  return {{"name", l.name},
          {"grid", l.dec.process_grid.name()},
          {"predicted_le", l.dec.predicted_le},
          {"cpu_seconds", l.seconds},
          {"efficiency", l.efficiency()},
          {"measured_le", l.le()},
          {"t_max", l.t_max()},
          {"max_share_error_percent", l.share_error()}};
}

void plots(const std::string& dir, const Options& opt, const std::vector<double>& weights,
           const std::vector<Layout>& layouts) {
  std::filesystem::create_directories(dir);
  isocost::plot::HeatMap map;
  map.title = "rho = C(x + y): work units per cell and the automatic decomposition (" +
              layouts.back().dec.process_grid.name() + ")";
  map.cblabel = "work units";
  map.x1 = map.y1 = density2d::kSide;
  // At most 200 x 200 pixels: the mean of each block of cells.
  const std::int64_t n = opt.cells, b = (n + 199) / 200, m = (n + b - 1) / b;
  map.nx = map.ny = static_cast<int>(m);
  map.values.assign(static_cast<std::size_t>(m * m), 0.0);
  std::vector<int> count(map.values.size(), 0);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i) {
      const auto p = static_cast<std::size_t>(i / b + m * (j / b));
      map.values[p] += weights[static_cast<std::size_t>(i + n * j)];
      ++count[p];
    }
  for (std::size_t p = 0; p < map.values.size(); ++p) map.values[p] /= std::max(1, count[p]);
  for (const auto& part : layouts.back().dec.parts)
    map.rectangles.push_back({part.box.lo[0], part.box.lo[1], part.box.hi[0], part.box.hi[1],
                              std::to_string(part.rank)});
  isocost::plot::render_heat_map_png(map, dir + "/density2d_decomposition.png");

  isocost::plot::Figure f;
  f.title = "rho = C(x + y) on " + std::to_string(layouts.front().seconds.size()) +
            " ranks: CPU time per rank";
  f.xlabel = "rank";
  f.ylabel = "CPU seconds";
  for (const auto& l : layouts) {
    isocost::plot::Series s{l.name, {}, {}, "linespoints"};
    for (std::size_t r = 0; r < l.seconds.size(); ++r) {
      s.x.push_back(static_cast<double>(r));
      s.y.push_back(l.seconds[r]);
    }
    f.series.push_back(std::move(s));
  }
  isocost::plot::render_png(f, dir + "/density2d_times.png");
}

int body(const Options& opt, MPI_Comm comm) {
  int rank = 0, P = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  if (opt.cells < 2 || opt.cells > 20000)
    throw Error("--cells " + std::to_string(opt.cells) + ": expected an integer in [2, 20000]");
  if (static_cast<std::int64_t>(P) > opt.cells)
    throw Error(std::to_string(P) + " ranks need at least as many rows: --cells " +
                std::to_string(opt.cells) + " is too few");
  if (!(opt.work > 0 && opt.work <= 1e6))
    throw Error("--work " + std::to_string(opt.work) + ": expected a number in (0, 1e6]");
  if (opt.repeats < 1)
    throw Error("--repeats " + std::to_string(opt.repeats) + ": expected an integer >= 1");

  const std::int64_t n = opt.cells;
  const isocost::Box box = isocost::Box::of({0, 0}, {density2d::kSide, density2d::kSide});
  isocost::GridShape shape;
  shape.cells = {n, n, 1};
  const auto weights = density2d::unit_grid(n, opt.work);
  const auto rho = isocost::grid_density(weights, shape, box);
  const auto flat =
      isocost::grid_density(std::vector<double>(static_cast<std::size_t>(n * n), 1.0), shape, box);
  const auto speeds = isocost::Speeds::uniform(P);
  int px = static_cast<int>(std::sqrt(static_cast<double>(P)));
  while (P % px != 0) --px;

  std::vector<Layout> layouts;
  layouts.push_back({"equal-area rows", isocost::decompose(flat, {{P}, {1}}, speeds), {}, {}});
  layouts.push_back({"rows", isocost::decompose(rho, {{P}, {1}}, speeds), {}, {}});
  layouts.push_back({"jagged", isocost::decompose(rho, {{px, P / px}, {0, 1}}, speeds), {}, {}});
  layouts.push_back({"auto", isocost::choose_process_grid(rho, speeds), {}, {}});
  // The equal-area rows are costed on rho too, for their predicted L_E.
  for (auto& part : layouts.front().dec.parts) part.cost = rho.mass(part.box);
  {
    auto& d = layouts.front().dec;
    d.total_cost = rho.total();
    std::vector<double> c;
    for (const auto& part : d.parts) c.push_back(part.cost);
    d.predicted_le = isocost::load_stats(c).le;  // Swartz eq. (3), as decompose() reports it
  }
  for (auto& l : layouts) run(comm, l, opt);

  const density2d::Tally want = density2d::reference(n, opt.work);
  bool ok = true;
  for (const auto& l : layouts)
    ok = ok && l.tally.cells == want.cells && l.tally.units == want.units &&
         l.tally.hash == want.hash;
  if (rank != 0) return ok ? 0 : 1;

  const auto ours = swartz_rows();
  const std::vector<double> paper{7.32, 12.36, 16.46};
  const Layout &none = layouts.front(), &best = layouts.back();
  std::ostringstream out;
  out << "density2d (Swartz §5): rho = C(x + y) on [0, 20]^2, " << n << " x " << n << " cells, "
      << want.units << " work units, " << P << " ranks (CPU seconds per rank, fastest of "
      << opt.repeats << ")\n\n"
      << std::left << std::setw(17) << "layout" << std::right << std::setw(14) << "grid"
      << std::setw(14) << "predicted L_E" << std::setw(13) << "measured L_E" << std::setw(10)
      << "T_max s" << std::setw(9) << "speedup" << std::setw(12) << "share err"
      << "  check\n";
  for (const auto& l : layouts) {
    const double sum = std::accumulate(l.seconds.begin(), l.seconds.end(), 0.0);
    const bool good =
        l.tally.cells == want.cells && l.tally.units == want.units && l.tally.hash == want.hash;
    out << std::left << std::setw(17) << l.name << std::right << std::setw(14)
        << l.dec.process_grid.name().substr(0, 13) << std::fixed << std::setprecision(2)
        << std::setw(12) << l.dec.predicted_le << " %" << std::setw(11) << l.le() << " %"
        << std::setprecision(4) << std::setw(10) << l.t_max() << std::setprecision(2)
        << std::setw(9) << sum / l.t_max() << std::setw(10) << l.share_error() << " %"
        << (good ? "  ok" : "  WRONG") << std::defaultfloat << "\n";
  }
  out << "\nL_E = 100 - (T_max - T_avg)/T_avg x 100 (Swartz eq. 3); speedup = sum of the "
         "ranks' times / T_max ("
      << P << " at best); share err = the "
      << "largest |measured - predicted| share of one rank\n"
      << "auto vs equal-area rows: T_max " << std::setprecision(4) << none.t_max() << " -> "
      << best.t_max() << " s (" << std::fixed << std::setprecision(1)
      << 100 * (1 - best.t_max() / none.t_max()) << " % less)\n"
      << "Swartz §5, N_p = 4 rows of rho = C(x + y): y = " << std::setprecision(2);
  for (std::size_t i = 0; i < ours.size(); ++i)
    out << (i ? ", " : "") << ours[i] << " (paper " << paper[i] << ")";
  out << std::defaultfloat << "\n";
  if (opt.json_path != "-") std::cout << out.str();

  if (!opt.json_path.empty()) {
    json layouts_json = json::array();
    for (const auto& l : layouts) layouts_json.push_back(layout_json(l));
    const json j = {{"example", "density2d"},
                    {"ranks", P},
                    {"cells", n},
                    {"work_units", want.units},
                    {"efficiency_before", none.efficiency()},
                    {"efficiency_after", best.efficiency()},
                    {"time_none", none.t_max()},
                    {"time_balanced", best.t_max()},
                    {"check_ok", ok},
                    {"swartz_rows", {{"paper", paper}, {"ours", ours}}},
                    {"layouts", layouts_json}};
    examples::write_summary(opt.json_path, j.dump(2) + "\n");
  }
  if (!opt.plot_dir.empty()) plots(opt.plot_dir, opt, weights, layouts);
  if (!ok) std::cerr << "density2d: a layout did not do every cell exactly once\n";
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Options opt;
  CLI::App app{"Swartz §5's rho = C(x + y) as a real program: rows, jagged and automatic grids"};
  app.add_option("--cells", opt.cells, "N: an N x N grid of cells")->capture_default_str();
  app.add_option("--work", opt.work, "K: a cell does about K(x + y) work units")
      ->capture_default_str();
  app.add_option("--repeats", opt.repeats, "time every layout this often, keep the fastest")
      ->capture_default_str();
  app.add_option("--json", opt.json_path, "write the summary as JSON to this file ('-': stdout)");
  app.add_option("--plot", opt.plot_dir, "write PNG plots (gnuplot) into this folder");
  return examples::parse_and_run(app, argc, argv, "density2d",
                                 [&] { return body(opt, MPI_COMM_WORLD); });
}
