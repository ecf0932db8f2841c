// isocost partition: a 2-D/3-D cost density (a formula or per-cell weights)
// cut into one box per rank by recursive sectioning (Swartz §5), and the
// density options it shares with the heat-map mode of `isocost plot`.
#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <optional>
#include <set>

#include "arguments.hpp"
#include "cli.hpp"
#include "density_args.hpp"
#include "distributed.hpp"
#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/fitters/expression.hpp"
#include "isocost/metrics.hpp"
#include "isocost/points.hpp"
#include "json_stream.hpp"
#include "mpi_world.hpp"
#include "output.hpp"
#include "points_command.hpp"

namespace isocost::cli {

namespace {

// "LO:HI,LO:HI[,LO:HI]" → a validated box of 1 to 3 dimensions.
Box parse_box(const std::string& text) {
  const auto ranges = split(text, ',');
  const std::string expected = "--box: expected LO:HI,LO:HI[,LO:HI] (one range per axis), got '";
  if (ranges.size() > static_cast<std::size_t>(kMaxDims)) throw Error(expected + text + "'");
  Box b;
  b.dims = static_cast<int>(ranges.size());
  for (int a = 0; a < b.dims; ++a) {
    const auto ends = split(ranges[a], ':');
    if (ends.size() != 2) throw Error(expected + text + "'");
    b.lo[a] = parse_double(ends[0], std::string("--box ") + detail::axis_name(a) + " lo");
    b.hi[a] = parse_double(ends[1], std::string("--box ") + detail::axis_name(a) + " hi");
  }
  b.validate("--box " + text);
  return b;
}

// "512x512[x64]" → cell counts.
GridShape parse_shape(const std::string& text) {
  const auto counts = split(text, 'x');
  const std::string expected = "--shape: expected cell counts NXxNY[xNZ] (e.g. 512x512), got '";
  if (counts.size() > static_cast<std::size_t>(kMaxDims)) throw Error(expected + text + "'");
  GridShape s;
  s.dims = static_cast<int>(counts.size());
  double cells = 1;
  for (int a = 0; a < s.dims; ++a) {
    double v = 0;
    if (!detail::parse_number(counts[a], v) || v != std::floor(v) || v < 1 || v > 1e12)
      throw Error(expected + text + "'");
    s.cells[a] = static_cast<std::int64_t>(v);
    cells *= v;
  }
  if (cells > 1e12)
    throw Error("--shape " + text + ": " + detail::exact(cells) + " cells is too many");
  return s;
}

std::optional<Speeds> density_speeds(const DensityArgs& a) {
  return cli::parse_speeds(a.speeds, a.node_types);
}

// --order: a permutation of the axis letters; the grid's levels follow it.
ProcessGrid apply_order(ProcessGrid g, const std::string& order, int dims) {
  std::string letters = std::string("xyz").substr(0, static_cast<std::size_t>(dims));
  std::string sorted = order;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != letters)
    throw Error("--order: expected each of the axes " + letters +
                " once, in the order to cut them (e.g. " +
                std::string(letters.rbegin(), letters.rend()) + "), got '" + order + "'");
  ProcessGrid out;
  for (const char c : order) {
    const int axis = c - 'x';
    for (std::size_t l = 0; l < g.axes.size(); ++l)
      if (g.axes[l] == axis) {
        out.counts.push_back(g.counts[l]);
        out.axes.push_back(axis);
      }
  }
  return out;
}

std::string speeds_source(const DensityArgs& a) {
  return a.speeds.empty() ? "--node-types " + a.node_types : "--speeds " + a.speeds;
}

nlohmann::ordered_json coords(const std::array<double, kMaxDims>& v, int dims) {
  auto j = nlohmann::ordered_json::array();
  for (int a = 0; a < dims; ++a) j.push_back(number(v[a]));
  return j;
}

nlohmann::ordered_json cells(const std::array<std::int64_t, kMaxDims>& v, int dims) {
  auto j = nlohmann::ordered_json::array();
  for (int a = 0; a < dims; ++a) j.push_back(v[a]);
  return j;
}

// What the output says of the density: its own words, or, for the
// distributed form, those of the grid no rank holds whole.
struct DensityInfo {
  bool gridded = false;
  std::string description;
  Box box;
  double total = 0;
  GridShape shape;
};

DensityInfo info_of(const Density& d) {
  DensityInfo i{d.grid() != nullptr, d.describe(), d.box(), d.total(), {}};
  if (d.grid()) i.shape = *d.grid();
  return i;
}

// The words of a grid density's describe(), for the grid no rank holds.
DensityInfo grid_info(const GridShape& shape, double total) {
  DensityInfo i{true, {}, {}, total, shape};
  i.box.dims = shape.dims;
  for (int a = 0; a < shape.dims; ++a) i.box.hi[a] = static_cast<double>(shape.cells[a]);
  i.description = detail::grid_description(shape, i.box);
  return i;
}

struct PartitionArgs {
  DensityArgs d;
  PointsArgs p;
  std::string output;
  bool json = false;
};

void write_result(const PartitionArgs& a, const DensityRequest& req, const DensityInfo& density,
                  const Decomposition& dec);

void run(const PartitionArgs& a) {
  if (points_given(a.p)) return run_points(a.d, a.p, a.output, a.json);
  reject_points_options(a.p);
  // Under mpiexec a weights file is read and cut on every rank; a formula on
  // rank 0 alone.
  const bool distributed = launched_by_mpi() && !a.d.weights.empty();
  if (!distributed) serial_section();
  // The command line, then the density, then the partition; output last.
  const DensityRequest req = parse_density_request(a.d, true);
  if (distributed) {
    double total = 0;
    const Decomposition dec = distributed_decompose(
        a.d.weights, req.shape, req.automatic ? std::nullopt : std::optional<ProcessGrid>(req.grid),
        *req.speeds, req.options, total);
    return write_result(a, req, grid_info(req.shape, total), dec);
  }
  const Density density = build_density(a.d, req);
  write_result(a, req, info_of(density), partition_density(density, req));
}

void write_result(const PartitionArgs& a, const DensityRequest& req, const DensityInfo& density,
                  const Decomposition& dec) {
  const Speeds& speeds = *req.speeds;
  const int P = dec.ranks(), dims = density.box.dims;
  const bool gridded = density.gridded;
  const bool show_speed = !speeds.is_uniform();
  int heaviest = 0;
  for (int i = 0; i < P; ++i)
    if (dec.parts[i].time > dec.parts[heaviest].time) heaviest = i;
  const std::size_t candidates =
      req.automatic ? candidate_process_grids(P, dims).size() : static_cast<std::size_t>(1);
  const std::string grid_line =
      dec.process_grid.name() +
      (req.automatic ? " (--grid auto: the best of " + std::to_string(candidates) + " candidates)"
                     : " (--grid " + a.d.grid + ")");

  if (a.json) {
    nlohmann::ordered_json shape = nullptr;
    if (gridded) shape = cells(density.shape.cells, dims);
    auto axes = nlohmann::ordered_json::array();
    for (const int axis : dec.process_grid.axes) axes.push_back(axis);
    const auto write = [&](std::ostream& out) {
      // Streamed: the parts are written one at a time.
      JsonStream j(out);
      j.member("command", "partition");
      j.member(
          "density",
          {{"kind", gridded ? "weights" : "formula"},
           {"source", gridded ? a.d.weights : a.d.formula},
           {"description", density.description},
           {"dims", dims},
           {"box", {{"lo", coords(density.box.lo, dims)}, {"hi", coords(density.box.hi, dims)}}},
           {"total", number(density.total)},
           {"shape", shape}});
      j.member("grid", {{"counts", dec.process_grid.counts},
                        {"axes", axes},
                        {"name", dec.process_grid.name()},
                        {"ranks", P},
                        {"chosen_by", req.automatic ? "auto" : "--grid"},
                        {"candidates", candidates}});
      j.array("parts", dec.parts.size(), [&](std::size_t i) {
        const Part& p = dec.parts[i];
        return nlohmann::ordered_json{
            {"rank", p.rank},
            {"lo", coords(p.box.lo, dims)},
            {"hi", coords(p.box.hi, dims)},
            {"cells_lo", gridded ? cells(p.cell_lo, dims) : nlohmann::ordered_json()},
            {"cells_hi", gridded ? cells(p.cell_hi, dims) : nlohmann::ordered_json()},
            {"speed", speeds.speed(p.rank)},
            {"cost", number(p.cost)},
            {"share", number(p.cost / dec.total_cost)},
            {"time", number(p.time)},
            {"volume", number(p.volume)},
            {"surface", number(p.surface)}};
      });
      j.member("predicted", {{"le", number(dec.predicted_le)},
                             {"max_time", number(dec.max_time)},
                             {"heaviest_rank", heaviest},
                             {"cut_surface", number(dec.cut_surface)},
                             {"total_cost", number(dec.total_cost)},
                             {"on_grid_lines", dec.on_grid_lines}});
      j.finish();
    };
    emit_to(a.output, write);
  } else {
    std::vector<std::string> header{"rank"};
    for (int a = 0; a < dims; ++a) {
      header.push_back(std::string(detail::axis_name(a)) + " lo");
      header.push_back(std::string(detail::axis_name(a)) + " hi");
    }
    if (gridded)
      for (int a = 0; a < dims; ++a) header.push_back(std::string(detail::axis_name(a)) + " cells");
    if (show_speed) header.push_back("speed");
    header.insert(header.end(), {"cost", "share %"});
    if (show_speed) header.push_back("time");
    header.insert(header.end(), {"volume", "surface"});
    // Streamed, as the JSON is: one row formatted at a time (write_table()).
    auto row = [&](std::size_t i) {
      const Part& p = dec.parts[i];
      std::vector<std::string> r{std::to_string(p.rank)};
      for (int a = 0; a < dims; ++a) {
        r.push_back(g(p.box.lo[a], 12));
        r.push_back(g(p.box.hi[a], 12));
      }
      if (gridded)
        for (int a = 0; a < dims; ++a)
          r.push_back("[" + std::to_string(p.cell_lo[a]) + "," + std::to_string(p.cell_hi[a]) +
                      ")");
      if (show_speed) r.push_back(g(speeds.speed(p.rank), 6));
      r.push_back(g(p.cost, 8));
      r.push_back(g(100 * p.cost / dec.total_cost, 6));
      if (show_speed) r.push_back(g(p.time, 8));
      r.push_back(g(p.volume, 8));
      r.push_back(g(p.surface, 8));
      return r;
    };
    emit_to(a.output, [&](std::ostream& out) {
      out << "density: " << density.description << (gridded ? " from " + a.d.weights : "")
          << ", total cost " << g10(density.total) << "\n"
          << std::to_string(P) << " ranks, grid " << dec.process_grid.name()
          << (gridded ? ", cuts on grid lines (cells [lo,hi))" : "") << "\n\n";
      write_table(out, header, dec.parts.size(), row);
      out << "\npredicted L_E = " << g10(dec.predicted_le) << " %\n"
          << "heaviest part: rank " << heaviest << ", "
          << (show_speed ? "time (cost/speed) " : "cost ") << g10(dec.max_time) << "\n"
          << "total cut surface: " << g10(dec.cut_surface) << "\n"
          << "grid: " << grid_line << "\n";
    });
  }
  if (!dec.converged())
    throw NotConverged(
        "some cuts did not reach their tolerance; the parts shown are the best found");
}

}  // namespace

// ---------------------------------------------------------------------------
// Shared with `isocost plot`.

void add_density_options(CLI::App* cmd, DensityArgs& args, const std::string& ranks_help) {
  cmd->add_option(
      "--density", args.formula,
      "cost density rho(x, y[, z]) >= 0 as a muParser formula, e.g. 'x+y' (with --box)");
  cmd->add_option("--box", args.box, "the formula's domain LO:HI,LO:HI[,LO:HI] (x, y, z)");
  cmd->add_option("--weights", args.weights,
                  "per-cell weights: text (one row of NX values per line, y then z order) or raw "
                  "(\"ISOCOSTW\" header, float64); in cell units (with --shape)");
  cmd->add_option("--shape", args.shape, "cells of the weights file NXxNY[xNZ], e.g. 512x512");
  cmd->add_option("--grid", args.grid,
                  "parts along x, y(, z), e.g. 4x2, or auto (every factorisation and axis order; "
                  "the smallest heaviest part, then the smallest cut surface)");
  cmd->add_option("--order", args.order,
                  "the order in which the axes are cut, e.g. yx (default: x, then y, then z)");
  cmd->add_option("--ranks", args.ranks, ranks_help);
  cmd->add_option("--speeds", args.speeds, "relative speed per rank, e.g. 1,1,3");
  cmd->add_option("--node-types", args.node_types,
                  "Swartz 4 node types COUNTxR,… (R = time on type 1 / time on this type)");
  cmd->add_option("--min-width", args.min_width,
                  "smallest part width W (every axis) or W,W[,W] (one per axis), in box units "
                  "(cells for --weights)");
  // The defaults shown are the library's (DensityOptions, DecomposeOptions).
  const DensityOptions density;
  cmd->add_option("--quadrature", args.quadrature,
                  "integration of --density: " +
                      choices_text({"gauss_kronrod", "tanh_sinh"}, to_string(density.quadrature)));
  cmd->add_option("--tolerance", args.tolerance,
                  "relative tolerance of each 1-D integral of --density (default " +
                      default_text(density.tolerance) + ")");
  cmd->add_option("--method", args.method,
                  "root finder for the cuts of --density: " +
                      choices_text({"newton", "secant", "bisection", "toms748"},
                                   to_string(DecomposeOptions{}.cut.method), ", "));
}

bool density_given(const DensityArgs& a) { return !a.formula.empty() || !a.weights.empty(); }

DensityRequest parse_density_request(const DensityArgs& a, bool need_partition) {
  DensityRequest r;
  // The density.
  if (!a.formula.empty() && !a.weights.empty())
    throw Error("--density and --weights both given; use one");
  if (a.formula.empty() && a.weights.empty())
    throw Error(
        "expected --density FORMULA --box LO:HI,LO:HI[,LO:HI] or --weights FILE --shape "
        "NXxNY[xNZ]");
  r.gridded = !a.weights.empty();
  if (r.gridded) {
    if (!a.box.empty())
      throw Error("--box is for --density; --weights are in cell units (--shape " +
                  (a.shape.empty() ? std::string("NXxNY") : a.shape) + ")");
    if (a.shape.empty()) throw Error("--weights " + a.weights + " needs --shape NXxNY[xNZ]");
    const std::pair<const std::string*, const char*> density_only[] = {
        {&a.quadrature, "--quadrature"}, {&a.tolerance, "--tolerance"}, {&a.method, "--method"}};
    for (const auto& [value, name] : density_only)
      if (!value->empty())
        throw Error(std::string(name) + " is for --density formulas; --weights cut on grid lines");
    r.shape = parse_shape(a.shape);
    r.dims = r.shape.dims;
  } else {
    if (!a.shape.empty()) throw Error("--shape is for --weights FILE, not --density");
    if (a.box.empty()) throw Error("--density '" + a.formula + "' needs --box LO:HI,LO:HI[,LO:HI]");
    r.box = parse_box(a.box);
    r.dims = r.box.dims;
    if (!a.quadrature.empty()) {
      if (a.quadrature == "gauss_kronrod")
        r.density_options.quadrature = Quadrature::gauss_kronrod;
      else if (a.quadrature == "tanh_sinh")
        r.density_options.quadrature = Quadrature::tanh_sinh;
      else
        throw Error("--quadrature: expected gauss_kronrod or tanh_sinh, got '" + a.quadrature +
                    "'");
    }
    if (!a.tolerance.empty()) {
      const double t = parse_double(a.tolerance, "--tolerance");
      if (!(t > 0 && t < 1))
        throw Error("--tolerance: expected a number in (0, 1), got '" + a.tolerance + "'");
      r.density_options.tolerance = t;
    }
    if (!a.method.empty()) {
      try {
        r.options.cut.method = parse_cut_method(a.method);
      } catch (const Error& e) {
        throw Error("--" + std::string(e.what()));  // its message starts "method: …"
      }
    }
  }

  // The partition.
  if (!a.min_width.empty()) {
    const auto items = split(a.min_width, ',');
    if (items.size() != 1 && items.size() != static_cast<std::size_t>(r.dims))
      throw Error("--min-width: expected one width (every axis) or " + std::to_string(r.dims) +
                  " (one per axis), got '" + a.min_width + "'");
    for (int axis = 0; axis < r.dims; ++axis) {
      const std::string& item = items[items.size() == 1 ? 0 : axis];
      const double w = parse_double(item, std::string("--min-width ") + detail::axis_name(axis));
      if (w < 0)
        throw Error(std::string("--min-width ") + detail::axis_name(axis) +
                    ": expected a width >= 0, got '" + item + "'");
      r.options.min_width[axis] = w;
    }
  }
  std::optional<Speeds> speeds = density_speeds(a);
  std::optional<int> ranks;
  if (!a.ranks.empty()) ranks = parse_count(a.ranks, "--ranks", "parts");
  if (ranks && speeds && *ranks != speeds->ranks())
    throw Error("--ranks " + a.ranks + " does not match the " + std::to_string(speeds->ranks()) +
                " ranks given by " + speeds_source(a));
  r.automatic = a.grid.empty() || a.grid == "auto";
  if (!r.automatic) {
    r.grid = parse_process_grid(a.grid, r.dims);
    if (!a.order.empty()) r.grid = apply_order(r.grid, a.order, r.dims);
    const int P = r.grid.ranks();
    if (r.gridded)  // more slabs than cells along an axis leaves some part empty
      for (std::size_t l = 0; l < r.grid.counts.size(); ++l)
        if (r.grid.counts[l] > r.shape.cells[r.grid.axes[l]])
          throw Error("--grid " + a.grid + " has " + std::to_string(r.grid.counts[l]) +
                      " parts along " + detail::axis_name(r.grid.axes[l]) + " but --shape " +
                      a.shape + " has only " + std::to_string(r.shape.cells[r.grid.axes[l]]) +
                      " cells there");
    if (speeds && speeds->ranks() != P)
      throw Error("--grid " + a.grid + " has " + std::to_string(P) + " parts but " +
                  speeds_source(a) + " gives " + std::to_string(speeds->ranks()) + " ranks");
    if (ranks && *ranks != P)
      throw Error("--grid " + a.grid + " has " + std::to_string(P) + " parts but --ranks is " +
                  a.ranks);
    r.speeds = speeds ? *speeds : Speeds::uniform(P);
    r.partition = true;
  } else {
    if (!a.order.empty())
      throw Error("--order needs a given --grid (--grid auto tries every axis order)");
    if (speeds)
      r.speeds = *speeds;
    else if (ranks)
      r.speeds = Speeds::uniform(*ranks);
    r.partition = r.speeds.has_value();
    if (!r.partition && (a.grid == "auto" || need_partition))
      throw Error(a.grid == "auto"
                      ? "--grid auto needs the number of ranks: --ranks P, --speeds or --node-types"
                      : "expected --grid PXxPY[xPZ] or --ranks P (then --grid auto)");
    if (!r.partition && !a.min_width.empty())
      throw Error("--min-width " + a.min_width + " needs a partition: --grid or --ranks");
  }
  return r;
}

Density build_density(const DensityArgs& a, const DensityRequest& r) {
  if (r.gridded) {
    try {
      return read_grid_density(a.weights, r.shape);
    } catch (const Error& e) {
      // Every message names the file (most already do, with the line).
      if (std::string(e.what()).find(a.weights) != std::string::npos) throw;
      throw Error(a.weights + ": " + e.what());
    }
  }
  return expression_density(a.formula, r.box, r.density_options);
}

Decomposition partition_density(const Density& density, const DensityRequest& r) {
  if (!r.partition || !r.speeds) throw Error("no partition was asked for (--grid or --ranks)");
  try {
    if (r.automatic) return choose_process_grid(density, *r.speeds, r.options);
    return decompose(density, r.grid, *r.speeds, r.options);
  } catch (const std::bad_alloc&) {
    throw Error("out of memory for a decomposition into " + std::to_string(r.speeds->ranks()) +
                " parts (--ranks/--grid/--speeds/--node-types)");
  }
}

void add_partition_command(CLI::App& app) {
  auto args = std::make_shared<PartitionArgs>();
  auto* cmd = app.add_subcommand(
      "partition",
      "Cut a 2-D/3-D cost density (a formula or per-cell weights) into one box per rank of equal "
      "cost (Swartz 5: rows, jagged grids, 3-D sectioning)");
  add_density_options(cmd, args->d,
                      "number of ranks P (for --grid auto; with --grid, must equal its product)");
  add_points_options(cmd, args->p);
  cmd->add_flag("--json", args->json, "print JSON instead of a table");
  add_output_and_run(
      cmd, args->output, [args] { run(*args); }, true);
}

}  // namespace isocost::cli
