// isocost plot: samples, the fitted t(x) and the cuts for P ranks, as a PNG
// rendered by gnuplot.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>

#include "cli.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/partition.hpp"
#include "plot/gnuplot.hpp"

namespace isocost::cli {

namespace {

namespace fs = std::filesystem;

struct PlotArgs {
  std::string file;
  std::string model;
  std::string ranks;
  std::string domain;
  std::string log = "auto";
  std::string output;
  FitArgs fit;
};

std::string g(double v, int digits = 6) { return detail::fixed_digits(v, digits); }

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

void run(const PlotArgs& a) {
  // Command line first, then gnuplot, then the data.
  std::optional<int> ranks;
  if (!a.ranks.empty()) ranks = parse_int(a.ranks, "--ranks", 1);
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

  const Fitted f = fit_samples(a.file, a.model, a.fit, options);
  const CostModel& model = f.result.model;
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

  if (ranks) {
    const Partition part = partition(model, Speeds::uniform(*ranks));
    fig.vertical_lines.assign(part.cuts.begin() + 1, part.cuts.end() - 1);
    fig.vertical_label = "cuts for " + std::to_string(*ranks) + " ranks (predicted L_E " +
                         g(part.predicted_le, 6) + " %)";
  }
  fig.title = f.file + ": " + summary.model +
              (f.automatic ? " (chosen by --model auto)" : std::string()) + ", RMSE " +
              g(summary.rmse, 3) + ", max relative error " + g(100 * summary.max_rel_error, 3) +
              " %";
  plot::render_png(fig, out);
  emit("wrote " + out + ": " + std::to_string(f.samples.size()) + " samples, " + summary.model +
           (ranks ? ", cuts for " + std::to_string(*ranks) + " ranks" : std::string()) + "\n",
       "");
}

}  // namespace

void add_plot_command(CLI::App& app) {
  auto args = std::make_shared<PlotArgs>();
  auto* cmd = app.add_subcommand(
      "plot", "Plot samples, the fitted t(x) and the cuts for P ranks to a PNG (gnuplot)");
  cmd->add_option("file", args->file, "samples file (x,t or lo,hi,dt; CSV or JSON)")->required();
  cmd->add_option("--model", args->model,
                  "sieve, sieve+c, power, poly:N, exp, expr:FORMULA, pchip, makima or auto")
      ->required();
  add_fit_options(cmd, args->fit);
  cmd->add_option("--ranks", args->ranks, "draw the cuts for P ranks");
  cmd->add_option("--domain", args->domain,
                  "domain LO:HI of the fitted model (default: the samples' span)");
  cmd->add_option("--log", args->log,
                  "logarithmic axes: auto (log-log when the samples are spread geometrically over "
                  "3 decades or more), none, x, y or xy")
      ->capture_default_str();
  // -o: the PNG; default: FILE with its extension replaced by .png.
  add_output_and_run(cmd, args->output, [args] { run(*args); });
}

}  // namespace isocost::cli
