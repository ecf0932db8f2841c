// What the sieve demo prints, writes and plots (sieve_report.hpp).
#include "sieve_report.hpp"

#include <cstdio>
#include <limits>

#include "plot/gnuplot.hpp"

namespace sieve_demo {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string maxn_name(const Options& opt) {
  const std::string digits = std::to_string(opt.maxn);
  return opt.maxn_text == digits ? digits : opt.maxn_text + " = " + digits;
}

void print_round(std::ostream& out, const Round& r, const std::string& mode) {
  out << "\n== Round " << r.number << ": " << r.distribution << " — " << mode << "\n";
  if (!r.fitted_from.empty()) out << "fitted to " << r.fitted_from << "\n";
  if (r.fit) out << r.fit->full_report();
  if (!r.candidates.empty()) {
    out << "candidates (--model auto):\n";
    for (const auto& c : r.candidates) {
      char line[256];
      if (c.ok)
        std::snprintf(line, sizeof line, "  %-10s score %.6g\n", c.model.c_str(), c.score);
      else
        std::snprintf(line, sizeof line, "  %-10s failed: %s\n", c.model.c_str(), c.error.c_str());
      out << line;
    }
  }
  if (r.predicted_le)
    out << "predicted L_E of these cuts on the model: " << fmt("%.3f", *r.predicted_le) << " %\n";
  out << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%4s %12s %12s %9s %11s %8s %9s\n", "rank", "lo", "hi", "primes",
                "time [s]", "spread%", "vs avg %");
  out << line;
  const auto& m = r.measured;
  for (std::size_t i = 0; i < m.time.size(); ++i) {
    std::snprintf(line, sizeof line, "%4zu %12llu %12llu %9llu %11.6f %8.2f %+9.2f\n", i,
                  static_cast<unsigned long long>(r.cuts[i]),
                  static_cast<unsigned long long>(r.cuts[i + 1]),
                  static_cast<unsigned long long>(m.primes[i]), m.time[i], m.spread[i],
                  (m.time[i] / r.stats.mean - 1) * 100);
    out << line;
  }
  const auto& s = r.stats;
  std::snprintf(line, sizeof line,
                "T_max = %.6f s (rank %zu), T_avg = %.6f s, T_min = %.6f s (rank %zu)\n", s.max,
                s.argmax, s.mean, s.min, s.argmin);
  out << line;
  std::snprintf(line, sizeof line,
                "L_I = %.2f %%, L_E = %.2f %% (Swartz eqs 2-3; Fig. 2 arithmetic "
                "(T_max-T_avg)/T_max = %.2f %%)  [%s]\n",
                s.li, s.le, s.li_fig2, mode.c_str());
  out << line;
  double max_spread = 0;
  for (const double sp : m.spread) max_spread = std::max(max_spread, sp);
  std::snprintf(line, sizeof line,
                "measured in %.2f s wall; largest spread between full repeats %.2f %%\n",
                r.wall_seconds, max_spread);
  out << line;
}

json round_json(const Round& r) {
  json j = {{"round", r.number}, {"distribution", r.distribution}};
  if (!r.fitted_from.empty()) j["fitted_from"] = r.fitted_from;
  if (r.fit) {
    json params = json::object();
    for (const auto& p : r.fit->parameters) {
      params[p.name] = {{"value", p.value}};
      if (p.std_error) params[p.name]["std_error"] = *p.std_error;
    }
    j["fit"] = {{"model", r.fit->model},
                {"formula", r.fit->formula},
                {"parameters", params},
                {"samples", r.fit->samples},
                {"rmse", r.fit->rmse},
                {"max_rel_error", r.fit->max_rel_error},
                {"r_squared", r.fit->r_squared},
                {"iterations", r.fit->iterations},
                {"termination", to_string(r.fit->termination)},
                {"message", r.fit->message}};
  }
  if (r.predicted_le) j["predicted_le"] = *r.predicted_le;
  j["cuts"] = r.cuts;
  j["time"] = r.measured.time;
  j["spread_percent"] = r.measured.spread;
  j["primes"] = r.measured.primes;
  j["stats"] = r.stats;  // the library's LoadStats JSON (metrics.hpp)
  j["measure_seconds"] = r.wall_seconds;
  return j;
}

// Swartz Figs 2 and 5: per-rank times as bars, T_avg as a line.
void plot_times(const Round& r, const std::string& mode, const Options& opt,
                const std::string& path) {
  isocost::plot::Figure f;
  f.title = "Round " + std::to_string(r.number) + ": " + r.distribution +
            " — L_E = " + fmt("%.2f", r.stats.le) + " %  (MAXN = " + maxn_name(opt) + ", " + mode +
            ")";
  f.xlabel = "rank";
  f.ylabel = "CPU time of the rank's range [s]";
  isocost::plot::Series bars{"per-rank time", {}, r.measured.time, "boxes"};
  for (std::size_t i = 0; i < r.measured.time.size(); ++i) bars.x.push_back(static_cast<double>(i));
  f.series.push_back(std::move(bars));
  // A zero-height bar (invisible, no legend entry) makes the
  // y axis start at 0, as the bars of Swartz's figures do.
  f.series.push_back({"", {0.0}, {0.0}, "boxes"});
  f.horizontal_line = r.stats.mean;
  f.horizontal_label = "T_avg = " + fmt("%.4g", r.stats.mean) + " s";
  isocost::plot::render_png(f, path);
}

// Swartz Figs 1 and 4: the fitted t(x), the measured cumulative times of each
// round, and the cuts the fit produced.
void plot_fit(const std::vector<Round>& rounds, const std::string& mode, const Options& opt,
              const std::string& path) {
  const Round& fitted = rounds[1];
  const auto& model = *fitted.model;
  isocost::plot::Figure f;
  f.title = "t(x): " + fitted.distribution + ", cuts for " +
            std::to_string(fitted.cuts.size() - 1) + " ranks (MAXN = " + maxn_name(opt) + ", " +
            mode + ")";
  f.xlabel = "x (integers below x)";
  f.ylabel = "cumulative time t(x) [s]";
  isocost::plot::Series curve{"fitted t(x)", {}, {}, "lines"};
  if (fitted.model_scale != 1) curve.title = "Swartz's t(x), scaled to the measured total";
  const int n = 400;
  for (int k = 0; k <= n; ++k) {
    const double x = model.lo() + (model.hi() - model.lo()) * k / n;
    curve.x.push_back(x);
    curve.y.push_back(model.cost(x) * fitted.model_scale);
  }
  f.series.push_back(std::move(curve));
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    const auto& r = rounds[k];
    isocost::plot::Series pts{
        "measured, round " + std::to_string(r.number) + " (" + r.distribution + ")",
        {static_cast<double>(kModelLo)},
        {0.0},
        "points"};
    double sum = 0;
    for (std::size_t i = 0; i < r.measured.time.size(); ++i) {
      sum += r.measured.time[i];
      pts.x.push_back(static_cast<double>(r.cuts[i + 1]));
      pts.y.push_back(sum);
    }
    f.series.push_back(std::move(pts));
  }
  // Swartz Fig. 1: equal shares i·TT/P of the t axis, each mapped to its cut.
  const std::size_t P = fitted.cuts.size() - 1;
  const double total = model.total() * fitted.model_scale;
  isocost::plot::Series shares{"equal shares i*TT/P", {}, {}, "lines"};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 1; i < P; ++i) {
    const double y = total * static_cast<double>(i) / static_cast<double>(P);
    shares.x.insert(shares.x.end(), {model.lo(), static_cast<double>(fitted.cuts[i]), nan});
    shares.y.insert(shares.y.end(), {y, y, nan});
    f.vertical_lines.push_back(static_cast<double>(fitted.cuts[i]));
  }
  f.series.push_back(std::move(shares));
  f.vertical_label = "cuts of round 2";
  isocost::plot::render_png(f, path);
}

}  // namespace sieve_demo
