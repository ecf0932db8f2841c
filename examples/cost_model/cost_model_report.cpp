// The cost_model example's report (see cost_model_report.hpp).
#include "cost_model_report.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "example_support.hpp"
#include "plot/gnuplot.hpp"

namespace cost_model {

namespace {

using json = nlohmann::ordered_json;
using isocost::Strategy;

constexpr double kClose = 1.10;  // a runner-up this close makes a close call

std::string name(Strategy s) { return std::string(isocost::to_string(s)); }

// Pearce Fig. 6(b) for this suite: the time each strategy saves against no
// balancing, scenarios sorted by the best saving, and the model's choice,
// which should trace the best. Then predicted against measured times.
void plot(const std::string& dir, const std::vector<Row>& rows) {
  std::filesystem::create_directories(dir);
  std::vector<const Row*> order;
  for (const Row& r : rows) order.push_back(&r);
  const auto saved = [](const Row& r, Strategy s) {
    return 100 * (1 - r.time(s) / r.time(Strategy::none));
  };
  // Runs more than twice as slow as no balancing (diffusion chasing noise on
  // the smallest N) are drawn at −100 %, not to squash the rest.
  const auto drawn = [&](const Row& r, Strategy s) { return std::max(-100.0, saved(r, s)); };
  std::stable_sort(order.begin(), order.end(), [&](const Row* a, const Row* b) {
    return saved(*a, a->fastest) < saved(*b, b->fastest);
  });
  isocost::plot::Figure f;
  f.title = "Pearce's cost model choosing none, global or diffusion (scenarios sorted)";
  f.xlabel = "scenario, by the best measured saving";
  f.ylabel = "time saved against no balancing (%; below -100 drawn at -100)";
  isocost::plot::Series g{"global", {}, {}, "points"}, d{"diffusion", {}, {}, "points"},
      m{"model's choice", {}, {}, "lines"};
  for (std::size_t k = 0; k < order.size(); ++k) {
    const double x = static_cast<double>(k + 1);
    for (auto* s : {&g, &d, &m}) s->x.push_back(x);
    g.y.push_back(drawn(*order[k], Strategy::global));
    d.y.push_back(drawn(*order[k], Strategy::diffusion));
    m.y.push_back(drawn(*order[k], order[k]->verdict.action));
  }
  f.series = {g, d, m};
  f.horizontal_line = 0;
  f.horizontal_label = "no balancing";
  isocost::plot::render_png(f, dir + "/cost_model.png");

  isocost::plot::Figure p;
  p.title = "Pearce's eqs 9-11: predicted against measured run time";
  p.xlabel = "measured time of the run (CPU s, slowest rank per step)";
  p.ylabel = "predicted time (CPU s)";
  p.logx = p.logy = true;
  double lo = 1e300, hi = 0;
  for (const Strategy s : kStrategies) {
    isocost::plot::Series series{name(s), {}, {}, "points"};
    for (const Row& r : rows) {
      series.x.push_back(r.time(s));
      series.y.push_back(r.predicted(s));
      lo = std::min({lo, r.time(s), r.predicted(s)});
      hi = std::max({hi, r.time(s), r.predicted(s)});
    }
    p.series.push_back(std::move(series));
  }
  p.series.push_back({"predicted = measured", {lo, hi}, {lo, hi}, "lines"});
  isocost::plot::render_png(p, dir + "/cost_model_predicted.png");
}

json row_json(const Row& r) {
  const Profile& p = r.scenario.profile;
  json runs = json::object();
  for (const Strategy s : kStrategies) {
    const Run& x = r.runs[static_cast<std::size_t>(s)];
    runs[name(s)] = {{"time", x.total},
                     {"predicted", r.predicted(s)},
                     {"balancing", x.balancing},
                     {"mean_efficiency", x.mean_efficiency},
                     {"rebalances", x.rebalances},
                     {"elements_moved", x.moved}};
  }
  return {{"shape", p.shape},
          {"imbalance", p.imbalance},
          {"elements", p.elements},
          {"steps", r.scenario.steps},
          {"runs", runs},
          {"c_global_predicted", r.verdict.choice.global_cost},
          {"c_global_measured", r.runs[1].balancing},
          {"calibration",
           {{"decision", r.calibration.decision},
            {"latency", r.calibration.comm.latency},
            {"per_byte", r.calibration.comm.per_byte}}},
          {"choice", name(r.verdict.action)},
          {"model_choice", name(r.verdict.choice.choice)},
          {"reason", r.verdict.reason},
          {"fastest", name(r.fastest)},
          {"correct_strict", r.strict},
          {"correct_tolerant", r.tolerant},
          {"time_lost", r.lost},
          {"cells_ok", r.cells_ok}};
}

}  // namespace

int report(const Settings& s, int P, double unit, const std::vector<Row>& rows, double wall,
           int rank) {
  bool ok = true;
  int strict = 0, tolerant = 0, wrong = 0;
  // Close calls: the runner-up within 10 % of the fastest. Far from every
  // crossover any sensible rule is right; these are where the model is tried.
  int close = 0, close_strict = 0;
  double lost_sum = 0, lost_max = 0, eff_before = 0, eff_after = 0;
  std::array<double, 3> always{};  // one strategy for every scenario
  double t_choice = 0, t_best = 0;
  for (const Row& r : rows) {
    ok = ok && r.cells_ok;
    strict += r.strict;
    tolerant += r.tolerant;
    if (!r.strict) ++wrong, lost_sum += r.lost, lost_max = std::max(lost_max, r.lost);
    std::array<double, 3> t{r.time(Strategy::none), r.time(Strategy::global),
                            r.time(Strategy::diffusion)};
    std::sort(t.begin(), t.end());
    if (t[1] < kClose * t[0]) ++close, close_strict += r.strict;
    eff_before += r.runs[0].mean_efficiency / static_cast<double>(rows.size());
    eff_after += r.runs[static_cast<std::size_t>(r.verdict.action)].mean_efficiency /
                 static_cast<double>(rows.size());
    for (const Strategy x : kStrategies) always[static_cast<std::size_t>(x)] += r.time(x);
    t_choice += r.time(r.verdict.action);
    t_best += r.time(r.fastest);
  }
  const double n = static_cast<double>(rows.size());
  if (rank != 0) return ok ? 0 : 1;
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof line,
                "cost model (Pearce §7.2): %d ranks, %zu scenarios, best of %d runs per strategy "
                "(per-rank CPU time; one unit of work %.3g s)\n",
                P, rows.size(), s.repeats, unit);
  out << line;
  out << "times in ms; C_global: a global rebalance's cost, predicted (eqs 5-7) and measured\n";
  std::snprintf(line, sizeof line, "%3s %5s %9s %6s %5s %9s %9s %9s %8s %8s  %-9s %-9s %6s  %s\n",
                "#", "shape", "Tmax/Tavg", "N", "steps", "none", "global", "diffusion", "C_g pred",
                "C_g real", "model", "fastest", "lost %", "correct");
  out << line;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Row& r = rows[k];
    const Profile& p = r.scenario.profile;
    std::snprintf(
        line, sizeof line,
        "%3zu %5s %9.3f %6lld %5d %9.3f %9.3f %9.3f %8.3f %8.3f  %-9s %-9s %6.2f  %s%s\n", k + 1,
        p.shape.c_str(), p.imbalance, p.elements, r.scenario.steps, 1e3 * r.time(Strategy::none),
        1e3 * r.time(Strategy::global), 1e3 * r.time(Strategy::diffusion),
        1e3 * r.verdict.choice.global_cost, 1e3 * r.runs[1].balancing,
        name(r.verdict.action).c_str(), name(r.fastest).c_str(), 100 * r.lost,
        r.strict ? "yes" : (r.tolerant ? "tie" : "NO"), r.cells_ok ? "" : "  CELLS WRONG");
    out << line;
  }
  std::snprintf(
      line, sizeof line,
      "correct: %d/%zu = %.1f %% strictly, %d/%zu = %.1f %% within %.0f %% of the fastest "
      "(Pearce: 87-96 %%)\n",
      strict, rows.size(), 100 * strict / n, tolerant, rows.size(), 100 * tolerant / n,
      100 * s.tolerance);
  out << line;
  std::snprintf(line, sizeof line,
                "time lost when not the fastest: mean %.2f %%, max %.2f %% (%d scenarios); "
                "close calls (runner-up within %.0f %%): %d/%d strictly right\n",
                wrong ? 100 * lost_sum / wrong : 0.0, 100 * lost_max, wrong, 100 * (kClose - 1),
                close_strict, close);
  out << line;
  std::snprintf(line, sizeof line,
                "total time: none %.3f s, always global %.3f s, always diffusion %.3f s, "
                "model's choice %.3f s, fastest each time %.3f s; mean efficiency %.3f -> %.3f; "
                "cells %s; %.1f s wall\n",
                always[0], always[1], always[2], t_choice, t_best, eff_before, eff_after,
                ok ? "ok" : "WRONG", wall);
  out << line;
  if (s.json_path != "-") std::cout << out.str();
  if (!s.json_path.empty()) {
    json j_rows = json::array();
    for (const Row& r : rows) j_rows.push_back(row_json(r));
    const json j = {{"example", "cost_model"},
                    {"ranks", P},
                    {"scenarios", rows.size()},
                    {"tolerance", s.tolerance},
                    {"efficiency_before", eff_before},
                    {"efficiency_after", eff_after},
                    {"time_none", always[0]},
                    {"time_balanced", t_choice},
                    {"time_global", always[1]},
                    {"time_diffusion", always[2]},
                    {"time_best", t_best},
                    {"fraction_correct", tolerant / n},
                    {"fraction_correct_strict", strict / n},
                    {"time_lost_mean", wrong ? lost_sum / wrong : 0.0},
                    {"time_lost_max", lost_max},
                    {"close_calls", close},
                    {"close_calls_correct_strict", close_strict},
                    {"repeats", s.repeats},
                    {"unit_seconds", unit},
                    {"wall_seconds", wall},
                    {"check", ok ? "passed" : "failed"},
                    {"rows", j_rows}};
    examples::write_summary(s.json_path, j.dump(2) + "\n");
  }
  if (!s.plot_dir.empty()) plot(s.plot_dir, rows);
  if (!ok) std::cerr << "cost_model: a run lost, duplicated or changed cells\n";
  return ok ? 0 : 1;
}

}  // namespace cost_model
