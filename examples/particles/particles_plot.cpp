#include "particles_plot.hpp"

#include <filesystem>

#include "plot/gnuplot.hpp"

namespace particles {
namespace {

isocost::plot::Series series(const std::string& title, const std::vector<double>& y) {
  isocost::plot::Series s{title, {}, y, "lines"};
  for (std::size_t k = 0; k < y.size(); ++k) s.x.push_back(static_cast<double>(k + 1));
  return s;
}

}  // namespace

void plot(const std::string& dir, const std::vector<Outcome>& runs, int ranks) {
  std::filesystem::create_directories(dir);
  const std::string on = ", " + std::to_string(ranks) + " ranks";
  isocost::plot::Figure f;
  f.title = "DSMC-like particles (Watts §4.1): efficiency T_avg/T_max of every step" + on;
  f.xlabel = "step";
  f.ylabel = "efficiency";
  for (std::size_t k = 0; k < 2 && k < runs.size(); ++k)
    f.series.push_back(series(name_of(runs[k].scheme), runs[k].efficiency));
  f.horizontal_line = 0.86;
  f.horizontal_label = "Watts: 86 % after balancing";
  isocost::plot::render_png(f, dir + "/particles_efficiency.png");
  if (runs.size() < 6) return;

  isocost::plot::Figure g;
  g.title = "Two phases (Watts §4.2): synchronised efficiency Σ T_avg / Σ T_max per step" + on;
  g.xlabel = "step";
  g.ylabel = "synchronised efficiency";
  for (std::size_t k = 2; k < runs.size(); ++k)
    g.series.push_back(series(name_of(runs[k].scheme), runs[k].synchronised));
  isocost::plot::render_png(g, dir + "/particles_phases.png");

  isocost::plot::Figure h;
  h.title = "Each phase's efficiency T_avg/T_max: total-balanced vs vector-balanced" + on;
  h.xlabel = "step";
  h.ylabel = "efficiency";
  for (const std::size_t k : {std::size_t{3}, std::size_t{5}}) {
    h.series.push_back(series(name_of(runs[k].scheme) + ": push", runs[k].push));
    h.series.push_back(series(name_of(runs[k].scheme) + ": field", runs[k].field));
  }
  isocost::plot::render_png(h, dir + "/particles_phase_detail.png");
}

}  // namespace particles
