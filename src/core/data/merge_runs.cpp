// Several runs' timings merged into one cumulative cost on the atoms their
// interval ends make (merge.hpp), by the proportional fitting the grid
// history shares (core/shared/proportional_fit.hpp).
#include "isocost/merge.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/data/merge_internal.hpp"
#include "core/data/samples_internal.hpp"
#include "core/shared/proportional_fit.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

using detail::exact;

namespace {

// A run's intervals as atom ranges [first, last) with their timings.
struct Group {
  std::size_t first, last;
  double dt;
};

}  // namespace

namespace detail {

std::vector<IntervalSample> run_intervals(const Samples& run, std::size_t k, const char* what) {
  if (run.cumulative() && run.size() > 1) {
    std::vector<double> x, t;
    run.cumulative_points(x, t);
    std::vector<IntervalSample> chain;
    for (std::size_t j = 1; j < x.size(); ++j) chain.push_back({x[j - 1], x[j], t[j] - t[j - 1]});
    return chain;
  }
  std::vector<IntervalSample> v = run.intervals();
  std::stable_sort(v.begin(), v.end(),
                   [](const IntervalSample& a, const IntervalSample& b) { return a.lo < b.lo; });
  for (std::size_t j = 1; j < v.size(); ++j)
    if (v[j].lo < v[j - 1].hi)
      throw Error(std::string(what) + ": run " + std::to_string(k) + " has overlapping samples (" +
                  fields_of(v[j - 1]) + ") and (" + fields_of(v[j]) + ")" +
                  "; expected one run's disjoint intervals (split_runs() groups them)");
  return v;
}

MergedRuns merge_intervals(std::span<const std::vector<IntervalSample>> runs,
                           const MergeOptions& options, const char* what) {
  MergedRuns out;
  out.options = options;
  if (runs.empty()) throw Error(std::string(what) + ": no runs to merge");
  // The atoms: every interval end of every run.
  std::vector<double> x;
  for (const auto& run : runs)
    for (const IntervalSample& s : run) x.insert(x.end(), {s.lo, s.hi});
  std::sort(x.begin(), x.end());
  x.erase(std::unique(x.begin(), x.end()), x.end());
  if (x.size() < 2) throw Error(std::string(what) + ": the runs time nothing");
  const std::size_t atoms = x.size() - 1;
  const auto at = [&](double v) {
    return static_cast<std::size_t>(std::lower_bound(x.begin(), x.end(), v) - x.begin());
  };
  std::vector<std::vector<Group>> groups(runs.size());
  for (std::size_t k = 0; k < runs.size(); ++k)
    for (const IntervalSample& s : runs[k]) groups[k].push_back({at(s.lo), at(s.hi), s.dt});
  // Start from runs [first, end) alone: where every atom end is an end of a
  // run that tiles from the span's start (a chain, as every Balancer round),
  // the cumulative there from the newest such run — for agreeing runs the
  // answer itself, which proportional fitting converges to only slowly;
  // otherwise each atom at the density of the newest run timing it (an atom
  // no kept run times keeps the density of the older run that does).
  const auto start = [&](std::size_t first, std::vector<double>& mass) {
    mass.assign(atoms, -1);
    for (std::size_t k = runs.size(); k-- > 0;)
      for (const Group& g : groups[k])
        for (std::size_t i = g.first; i < g.last; ++i)
          if (mass[i] < 0) mass[i] = g.dt / (x[g.last] - x[g.first]) * (x[i + 1] - x[i]);
    std::vector<double> cumulative(atoms + 1, -1);
    cumulative[0] = 0;
    for (std::size_t k = runs.size(); k-- > first;) {
      const auto& gk = groups[k];
      bool chain = !gk.empty() && gk.front().first == 0;
      for (std::size_t g = 1; g < gk.size() && chain; ++g) chain = gk[g].first == gk[g - 1].last;
      double t = 0;
      for (std::size_t g = 0; g < gk.size() && chain; ++g) {
        t += gk[g].dt;
        if (cumulative[gk[g].last] < 0) cumulative[gk[g].last] = t;
      }
    }
    if (std::none_of(cumulative.begin(), cumulative.end(), [](double c) { return c < 0; }))
      for (std::size_t i = 0; i < atoms; ++i)
        mass[i] = std::max(0.0, cumulative[i + 1] - cumulative[i]);
  };
  {
    std::vector<double> covered;
    start(0, covered);
    for (std::size_t i = 0; i < atoms; ++i)
      if (covered[i] < 0)
        throw Error(std::string(what) + ": no run times [" + exact(x[i]) + ", " + exact(x[i + 1]) +
                    "]; expected runs that together time their whole span [" + exact(x.front()) +
                    ", " + exact(x.back()) + "]");
  }
  double total = 0;  // the newest run's
  for (const Group& g : groups.back()) total += g.dt;
  std::vector<double> mass;
  const auto project = [&](std::size_t k, std::vector<double>& m) {
    const auto& gk = groups[k];
    return detail::project_groups(
        gk.size(), [&](std::size_t g) { return gk[g].dt; },
        [&](std::size_t g, auto&& f) {
          for (std::size_t i = gk[g].first; i < gk[g].last; ++i) f(i);
        },
        m);
  };
  const detail::ProportionalFit fitted =
      detail::proportional_fit(start, runs.size(), project, total, options.tolerance, mass,
                               options.max_sweeps, options.converged);
  out.sweeps = fitted.sweeps;
  out.runs_used = static_cast<int>(runs.size() - fitted.first);
  out.runs_dropped = static_cast<int>(fitted.first);
  out.termination = fitted.miss <= options.converged * total ? Termination::converged
                                                             : Termination::iteration_limit;
  // The cumulative at the kept runs' ends only: a dropped run leaves no trace.
  std::vector<char> end(x.size(), 0);
  end.front() = end.back() = 1;
  for (std::size_t k = fitted.first; k < runs.size(); ++k)
    for (const Group& g : groups[k]) end[g.first] = end[g.last] = 1;
  double t = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (i > 0) t += mass[i - 1];
    if (!end[i]) continue;
    out.x.push_back(x[i]);
    out.t.push_back(t);
  }
  out.run_misfit.assign(runs.size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t k = fitted.first; k < runs.size(); ++k) {
    double worst = 0;
    for (const Group& g : groups[k]) {
      double merged = 0;
      for (std::size_t i = g.first; i < g.last; ++i) merged += mass[i];
      if (g.dt > 0) worst = std::max(worst, std::abs(merged - g.dt) / g.dt);
    }
    out.run_misfit[k] = worst;
  }
  return out;
}

}  // namespace detail

std::vector<Samples> split_runs(const Samples& samples) {
  if (samples.tiles() || samples.cumulative()) return {samples};
  std::vector<std::vector<IntervalSample>> runs;
  for (const IntervalSample& s : samples.intervals()) {
    auto run = std::find_if(runs.begin(), runs.end(), [&](const auto& r) {
      return std::none_of(r.begin(), r.end(),
                          [&](const IntervalSample& o) { return s.lo < o.hi && o.lo < s.hi; });
    });
    if (run == runs.end()) run = runs.insert(runs.end(), std::vector<IntervalSample>{});
    run->push_back(s);
  }
  return {runs.begin(), runs.end()};
}

MergedRuns merge_runs(std::span<const Samples> runs, const MergeOptions& options) {
  options.validate();
  std::vector<std::vector<IntervalSample>> intervals;
  for (std::size_t k = 0; k < runs.size(); ++k)
    intervals.push_back(detail::run_intervals(runs[k], k, "merge_runs"));
  return detail::merge_intervals(intervals, options, "merge_runs");
}

Samples MergedRuns::samples() const {
  // A free atom joins the one before (those at the start, the first costly one).
  std::vector<IntervalSample> v;
  double lo = x.empty() ? 0 : x.front();
  for (std::size_t i = 0; i + 1 < x.size(); ++i) {
    const double d = t[i + 1] - t[i];
    if (d > 0) {
      v.push_back({lo, x[i + 1], d});
    } else if (!v.empty()) {
      v.back().hi = x[i + 1];
    } else {
      continue;
    }
    lo = x[i + 1];
  }
  return Samples(std::move(v));
}

std::string MergedRuns::brief_report() const {
  std::ostringstream out;
  out << "merged " << runs_used << (runs_used == 1 ? " run" : " runs") << " into "
      << (x.empty() ? 0 : x.size() - 1) << " atoms in " << sweeps
      << (sweeps == 1 ? " sweep" : " sweeps");
  if (runs_dropped > 0) out << " (" << runs_dropped << " older dropped as drifted)";
  out << ", " << to_string(termination) << "; the timings missed by at most";
  for (std::size_t k = 0; k < run_misfit.size(); ++k)
    if (!std::isnan(run_misfit[k]))
      out << (k > 0 ? ", " : " ") << detail::fixed_digits(100 * run_misfit[k], 3) << " % (run " << k
          << ")";
  return out.str();
}

}  // namespace isocost
