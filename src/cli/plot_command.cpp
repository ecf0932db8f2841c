// isocost plot: samples, the fitted t(x) and the cuts for P ranks, or a 2-D
// cost density as a heat map with each rank's box, as a PNG rendered by
// gnuplot.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>

#include "arguments.hpp"
#include "cli.hpp"
#include "density_args.hpp"
#include "fit_args.hpp"
#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/partition.hpp"
#include "output.hpp"
#include "plot/gnuplot.hpp"

namespace isocost::cli {

namespace {

namespace fs = std::filesystem;

struct PlotArgs {
  std::string file;
  std::string model;
  std::string domain;
  std::string log = "auto";
  std::string output;
  FitArgs fit;
  DensityArgs d;  // the heat-map mode; d.ranks is --ranks of both modes
  const CLI::Option* log_option = nullptr;
};

// Linear interpolation in increasing x (clamped at the ends).
double interpolate(const std::vector<double>& x, const std::vector<double>& y, double at) {
  if (at <= x.front()) return y.front();
  if (at >= x.back()) return y.back();
  const auto k = static_cast<std::size_t>(std::upper_bound(x.begin(), x.end(), at) - x.begin());
  const double w = (at - x[k - 1]) / (x[k] - x[k - 1]);
  return y[k - 1] + w * (y[k] - y[k - 1]);
}

// True when the positive values span at least three decades.
bool wide(const std::vector<double>& v) {
  double lo = 0, hi = 0;
  for (const double x : v)
    if (x > 0 && std::isfinite(x)) {
      lo = lo > 0 ? std::min(lo, x) : x;
      hi = std::max(hi, x);
    }
  return lo > 0 && hi / lo >= 1e3;
}

// At most this many cut lines or part boxes are drawn: beyond it a PNG shows
// only ink (and gnuplot takes minutes), so every k-th is drawn and the plot
// says so.
constexpr std::int64_t kMaxDrawn = 1000;

// The stride k that keeps n items at or under kMaxDrawn.
std::int64_t stride(std::int64_t n) { return (n + kMaxDrawn - 1) / kMaxDrawn; }

// "" or ", showing every 100th of 99999 cuts".
std::string showing(std::int64_t n, const std::string& what) {
  const std::int64_t k = stride(n);
  if (k <= 1) return "";
  const std::int64_t last = k % 100;
  const char* suffix = (last / 10 == 1) ? "th"
                       : last % 10 == 1 ? "st"
                       : last % 10 == 2 ? "nd"
                       : last % 10 == 3 ? "rd"
                                        : "th";
  return ", showing every " + std::to_string(k) + suffix + " of " + std::to_string(n) + " " + what;
}

// Pixels of the heat map along one axis and the cells each covers (grids:
// whole cells, at most kMaxPixels pixels; formulas: kFormulaPixels along the
// longer side).
constexpr std::int64_t kMaxPixels = 600;
constexpr int kFormulaPixels = 160;

// The heat map of rho with the parts' boxes: for grids, each pixel is a block
// of whole cells (one cell unless the grid is larger than kMaxPixels) and its
// value the block's mass over its area, i.e. the cells' own rho; for formulas,
// the mean of rho over each pixel of a regular lattice (mass / area).
plot::HeatMap heat_map(const Density& d) {
  plot::HeatMap map;
  const Box& box = d.box();
  map.x0 = box.lo[0];
  map.x1 = box.hi[0];
  map.y0 = box.lo[1];
  map.y1 = box.hi[1];
  if (const GridShape* grid = d.grid()) {
    const std::int64_t nx = grid->cells[0], ny = grid->cells[1];
    const std::int64_t bx = (nx + kMaxPixels - 1) / kMaxPixels,
                       by = (ny + kMaxPixels - 1) / kMaxPixels;
    map.nx = static_cast<int>((nx + bx - 1) / bx);
    map.ny = static_cast<int>((ny + by - 1) / by);
    // A last, partial block is drawn at full size: its pixel reaches past the
    // box and is clipped there.
    map.x1 = map.x0 + box.width(0) * static_cast<double>(map.nx * bx) / static_cast<double>(nx);
    map.y1 = map.y0 + box.width(1) * static_cast<double>(map.ny * by) / static_cast<double>(ny);
    const double cell_area =
        box.width(0) / static_cast<double>(nx) * box.width(1) / static_cast<double>(ny);
    for (std::int64_t j = 0; j < map.ny; ++j)
      for (std::int64_t i = 0; i < map.nx; ++i) {
        const std::array<std::int64_t, kMaxDims> c0{i * bx, j * by, 0};
        const std::array<std::int64_t, kMaxDims> c1{std::min(nx, c0[0] + bx),
                                                    std::min(ny, c0[1] + by), 1};
        const double area = cell_area * static_cast<double>((c1[0] - c0[0]) * (c1[1] - c0[1]));
        map.values.push_back(d.cell_mass(c0, c1) / area);
      }
    map.cblabel = "rho (cell weight / cell area)";
  } else {
    const double w = box.width(0), h = box.width(1);
    const double longer = std::max(w, h);
    map.nx = std::max(8, static_cast<int>(std::lround(kFormulaPixels * w / longer)));
    map.ny = std::max(8, static_cast<int>(std::lround(kFormulaPixels * h / longer)));
    for (int j = 0; j < map.ny; ++j)
      for (int i = 0; i < map.nx; ++i) {
        Box pixel = box;
        pixel.lo[0] = box.lo[0] + w * i / map.nx;
        pixel.hi[0] = i + 1 == map.nx ? box.hi[0] : box.lo[0] + w * (i + 1) / map.nx;
        pixel.lo[1] = box.lo[1] + h * j / map.ny;
        pixel.hi[1] = j + 1 == map.ny ? box.hi[1] : box.lo[1] + h * (j + 1) / map.ny;
        map.values.push_back(d.mass(pixel) / pixel.volume());
      }
    map.cblabel = "rho (mean over each pixel)";
  }
  return map;
}

void run_heat_map(const PlotArgs& a) {
  // Command line first, then gnuplot, then the density and its partition.
  const char* one_d = !a.file.empty()              ? "a samples FILE"
                      : !a.model.empty()           ? "--model"
                      : !a.domain.empty()          ? "--domain"
                      : a.log_option->count() > 0  ? "--log"
                      : !a.fit.param_guess.empty() ? "--param-guess"
                      : !a.fit.loss.empty()        ? "--loss"
                      : !a.fit.select.empty()      ? "--select"
                      : !a.fit.iterations.empty()  ? "--fit-iterations"
                      : a.fit.absolute             ? "--absolute"
                      : a.fit.repair               ? "--repair"
                                                   : nullptr;
  if (one_d)
    throw Error(std::string(one_d) + " is for plotting samples and a fitted t(x), not with " +
                (a.d.formula.empty() ? "--weights" : "--density") + " (a heat map)");
  const DensityRequest req = parse_density_request(a.d, false);
  if (req.dims != 2)
    throw Error("plot: a heat map needs a 2-D density, but " +
                (req.gridded ? "--shape " + a.d.shape : "--box " + a.d.box) + " has " +
                std::to_string(req.dims) + " dimensions");
  const std::string out = a.output.empty() ? "partition.png" : a.output;
  if (req.gridded) {
    std::error_code ec;
    if (fs::exists(a.d.weights, ec) && fs::exists(out, ec) && fs::equivalent(a.d.weights, out, ec))
      throw Error("-o " + out + ": the plot would overwrite the weights file " + a.d.weights);
  }
  if (!plot::gnuplot_available())
    throw Error("plot: gnuplot is not on PATH (install gnuplot, e.g. Debian gnuplot-nox)");

  const Density density = build_density(a.d, req);
  std::optional<Decomposition> dec;
  if (req.partition) dec = partition_density(density, req);

  plot::HeatMap map = heat_map(density);
  map.xlabel = "x";
  map.ylabel = "y";
  // The canvas follows the box's shape (the plot keeps equal scales).
  const double aspect = density.box().width(1) / density.box().width(0);
  map.height = static_cast<int>(std::lround(std::clamp(160 + 700 * aspect, 360.0, 1100.0)));
  map.title = req.gridded ? a.d.weights + ": " + std::to_string(density.grid()->cells[0]) + "x" +
                                std::to_string(density.grid()->cells[1]) + " cells"
                          : "rho = " + a.d.formula;
  std::string shown;
  if (dec) {
    const auto k = static_cast<std::size_t>(stride(dec->ranks()));
    for (std::size_t i = 0; i < dec->parts.size(); i += k) {
      const auto& p = dec->parts[i];
      map.rectangles.push_back({p.box.lo[0], p.box.lo[1], p.box.hi[0], p.box.hi[1],
                                dec->ranks() <= 256 ? std::to_string(p.rank) : std::string()});
    }
    shown = showing(dec->ranks(), "parts");
    map.title += "; " + std::to_string(dec->ranks()) + " parts, grid " + dec->process_grid.name() +
                 ", predicted L_E " + g(dec->predicted_le, 6) + " %" + shown;
  }
  plot::render_heat_map_png(map, out);
  emit("wrote " + out + ": heat map of " + (req.gridded ? a.d.weights : "rho = " + a.d.formula) +
           " (" + std::to_string(map.nx) + "x" + std::to_string(map.ny) + " pixels)" +
           (dec ? ", " + std::to_string(dec->ranks()) + " parts, grid " + dec->process_grid.name() +
                      ", predicted L_E " + g(dec->predicted_le, 6) + " %" + shown
                : std::string()) +
           "\n",
       "");
}

void run(const PlotArgs& a) {
  if (density_given(a.d)) {
    run_heat_map(a);
    return;
  }
  if (a.file.empty())
    throw Error(
        "plot: expected a samples FILE with --model, or --density FORMULA --box … / "
        "--weights FILE --shape … for a heat map");
  if (a.model.empty()) throw Error("plot " + a.file + ": --model is required");
  {
    const std::pair<const std::string*, const char*> heat_map_only[] = {
        {&a.d.box, "--box"},
        {&a.d.shape, "--shape"},
        {&a.d.grid, "--grid"},
        {&a.d.order, "--order"},
        {&a.d.speeds, "--speeds"},
        {&a.d.node_types, "--node-types"},
        {&a.d.min_width, "--min-width"},
        {&a.d.quadrature, "--quadrature"},
        {&a.d.tolerance, "--tolerance"},
        {&a.d.method, "--method"}};
    for (const auto& [value, name] : heat_map_only)
      if (!value->empty())
        throw Error(std::string(name) + " is for heat maps (--density or --weights), not " +
                    "a samples file");
  }
  // Command line first, then gnuplot, then the data.
  std::optional<int> ranks;
  if (!a.d.ranks.empty()) ranks = parse_count(a.d.ranks, "--ranks", "parts");
  if (a.log != "auto" && a.log != "none" && a.log != "x" && a.log != "y" && a.log != "xy")
    throw Error("--log: expected auto, none, x, y or xy, got '" + a.log + "'");
  FitOptions options;
  if (!a.domain.empty()) {
    const auto parts = split(a.domain, ':');
    if (parts.size() != 2) throw Error("--domain: expected LO:HI, got '" + a.domain + "'");
    options.lo = parse_double(parts[0], "--domain lo");
    options.hi = parse_double(parts[1], "--domain hi");
  }
  if (ranks) options.ranks = *ranks;
  const std::string out =
      a.output.empty() ? fs::path(a.file).replace_extension(".png").string() : a.output;
  {
    std::error_code ec;
    if (fs::exists(a.file, ec) && fs::exists(out, ec) && fs::equivalent(a.file, out, ec))
      throw Error("-o " + out + ": the plot would overwrite the samples file " + a.file);
  }
  if (!plot::gnuplot_available())
    throw Error("plot: gnuplot is not on PATH (install gnuplot, e.g. Debian gnuplot-nox)");

  const Fitted f = fit_samples({a.file}, a.model, a.fit, options);
  if (!f.result.model)  // nothing to plot: the request cannot be met
    throw Error("the fit of " + f.result.summary.model + " failed: " + f.result.summary.message);
  const CostModel& model = *f.result.model;
  const auto& summary = f.result.summary;

  plot::Figure fig;
  fig.xlabel = "x";
  const bool cumulative = f.samples.tiles() || f.samples.cumulative();
  plot::Series points{"", {}, {}, "points"};
  if (cumulative) {
    f.samples.cumulative_points(points.x, points.y);
    points.title = "samples (cumulative)";
    fig.ylabel = "cumulative cost t(x)";
  } else {
    for (const auto& iv : f.samples.intervals()) {
      points.x.push_back(0.5 * (iv.lo + iv.hi));
      points.y.push_back(iv.dt / (iv.hi - iv.lo));
    }
    points.title = "samples: dt/(hi - lo) at interval midpoints";
    fig.ylabel = "cost density t'(x)";
  }

  const double lo = model.lo(), hi = model.hi();
  // auto: log-log when the samples are spread geometrically over three decades
  // or more (their median x nearer the geometric than the arithmetic middle).
  bool geometric = false;
  if (lo > 0 && hi / lo >= 1e3) {
    std::vector<double> xs = points.x;
    std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(xs.size() / 2), xs.end());
    const double median = xs[xs.size() / 2];
    geometric = median > 0 && std::abs(std::log(median / std::sqrt(lo * hi))) <
                                  std::abs(std::log(median / (0.5 * (lo + hi))));
  }
  fig.logx = a.log == "x" || a.log == "xy" || (a.log == "auto" && geometric);
  fig.logy = a.log == "y" || a.log == "xy" || (a.log == "auto" && geometric && wide(points.y));
  if (fig.logx && !(lo > 0))
    throw Error("--log " + a.log + ": the domain starts at x=" + detail::exact(lo) +
                ", which a logarithmic x axis cannot show");

  // The fitted curve on 401 points (log-spaced on a log axis), on the same
  // footing as the samples: cumulative from the samples' own start.
  const double offset = cumulative ? interpolate(points.x, points.y, lo) : 0.0;
  std::string label = "fitted " + summary.model;
  if (!summary.parameters.empty()) {
    std::string values;
    for (const auto& p : summary.parameters)
      values += (values.empty() ? "" : ", ") + p.name + "=" + g(p.value, 5);
    label += " (" + values + ")";
  }
  plot::Series curve{label, {}, {}, "lines"};
  const int n = 400;
  for (int k = 0; k <= n; ++k) {
    double x = fig.logx ? lo * std::pow(hi / lo, static_cast<double>(k) / n)
                        : lo + (hi - lo) * static_cast<double>(k) / n;
    x = std::clamp(x, lo, hi);
    curve.x.push_back(x);
    curve.y.push_back(cumulative ? offset + model.cost(x) : model.density(x));
  }
  fig.series = {points, curve};

  std::string shown;
  if (ranks) {
    const Partition part = partition(model, Speeds::uniform(*ranks));
    const std::int64_t inner = *ranks - 1, k = stride(inner);
    for (std::int64_t i = 1; i <= inner; i += k)
      fig.vertical_lines.push_back(part.cuts[static_cast<std::size_t>(i)]);
    shown = showing(inner, "cuts");
    fig.vertical_label = "cuts for " + std::to_string(*ranks) + " ranks (predicted L_E " +
                         g(part.predicted_le, 6) + " %" + shown + ")";
  }
  fig.title = f.file + ": " + summary.model +
              (f.automatic ? " (chosen by --model auto)" : std::string()) + ", RMSE " +
              g(summary.rmse, 3) + ", max relative error " + g(100 * summary.max_rel_error, 3) +
              " %";
  plot::render_png(fig, out);
  emit("wrote " + out + ": " + std::to_string(f.samples.size()) + " samples, " + summary.model +
           (ranks ? ", cuts for " + std::to_string(*ranks) + " ranks" + shown : std::string()) +
           "\n",
       "");
  if (!summary.converged())
    throw NotConverged("the fit of " + summary.model + " did not converge: " + summary.message);
}

}  // namespace

void add_plot_command(CLI::App& app) {
  auto args = std::make_shared<PlotArgs>();
  auto* cmd = app.add_subcommand(
      "plot",
      "Plot samples, the fitted t(x) and the cuts for P ranks, or a 2-D density as a heat map "
      "with each rank's box (--density/--weights), to a PNG (gnuplot)");
  cmd->add_option("file", args->file, "samples file (x,t or lo,hi,dt; CSV or JSON); needs --model");
  cmd->add_option("--model", args->model,
                  "sieve, sieve+c, power, poly:N, exp, expr:FORMULA, pchip, makima or auto");
  add_fit_options(cmd, args->fit);
  cmd->add_option("--domain", args->domain,
                  "domain LO:HI of the fitted model (default: the samples' span)");
  args->log_option =
      cmd->add_option("--log", args->log,
                      "logarithmic axes: auto (log-log when the samples are spread geometrically "
                      "over 3 decades or more), none, x, y or xy")
          ->capture_default_str();
  add_density_options(cmd, args->d,
                      "samples: draw the cuts for P ranks; heat map: partition for P ranks with "
                      "--grid auto");
  // -o: the PNG; default: FILE with its extension replaced by .png, or
  // partition.png for a heat map.
  add_output_and_run(cmd, args->output, [args] { run(*args); });
}

}  // namespace isocost::cli
