// learn_speeds() on runs of timings labelled with their ranks (a samples
// file's rank column), and at_unit_speed(), which turns such timings into
// speed-1 costs (isocost/learn_speeds.hpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/pipeline/speed_fit.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/learn_speeds.hpp"

namespace isocost {

namespace {

// "learn_speeds: run j, sample k (lo=…, hi=…, dt=…)".
std::string sample_name(std::size_t j, std::size_t k, const IntervalSample& s) {
  return "learn_speeds: run " + std::to_string(j) + ", sample " + std::to_string(k) +
         " (lo=" + detail::exact(s.lo) + ", hi=" + detail::exact(s.hi) +
         ", dt=" + detail::exact(s.dt) + ")";
}

// The ranks of every run (Error for a sample without one): P = the largest + 1.
int ranks_of_runs(std::span<const Samples> runs) {
  int largest = -1;
  for (std::size_t j = 0; j < runs.size(); ++j)
    for (std::size_t k = 0; k < runs[j].size(); ++k) {
      const IntervalSample& s = runs[j].intervals()[k];
      if (s.rank < 0)
        throw Error(detail::expected_got(sample_name(j, k, s),
                                         "the rank that timed it (a rank column)", "none"));
      largest = std::max(largest, s.rank);
    }
  return largest + 1;
}

// A run's intervals as a set: runs that time the same ones are one cut.
std::vector<std::pair<double, double>> cut_of(const Samples& run) {
  std::vector<std::pair<double, double>> v;
  for (const IntervalSample& s : run.intervals()) v.emplace_back(s.lo, s.hi);
  std::sort(v.begin(), v.end());
  return v;
}

// One fit on all of `runs` (P ranks, checked by ranks_of_runs()): hats
// equally spaced over the runs' span, as the elements' learner places them.
LearnedSpeeds fit_runs(std::span<const Samples> runs, int P, const SpeedLearningOptions& options) {
  std::vector<const IntervalSample*> timed;
  std::vector<detail::SpeedObservation> loads;
  std::vector<std::vector<std::pair<double, double>>> cuts;
  int distinct = 0;
  double lo = 0, hi = 0;
  for (const Samples& run : runs) {
    if (run.size() == 0) continue;  // a run of nothing says nothing
    lo = timed.empty() ? run.lo() : std::min(lo, run.lo());
    hi = timed.empty() ? run.hi() : std::max(hi, run.hi());
    for (const IntervalSample& s : run.intervals()) {
      timed.push_back(&s);
      loads.push_back({s.rank, s.dt});
    }
    auto cut = cut_of(run);
    distinct += std::find(cuts.begin(), cuts.end(), cut) == cuts.end() ? 1 : 0;
    cuts.push_back(std::move(cut));
  }
  const auto basis = [&](int knots) {
    detail::SpeedBasis b;
    b.knots = knots;
    const auto K = static_cast<std::size_t>(knots);
    b.integrals.resize(timed.size() * K);
    for (std::size_t i = 0; i < timed.size(); ++i)
      detail::hat_integrals(lo, hi, knots, timed[i]->lo, timed[i]->hi,
                            std::span(b.integrals).subspan(i * K, K));
    return b;
  };
  LearnedSpeeds out = detail::fit_speeds_choosing_knots(loads, P, distinct, P + 1, basis, options);
  if (distinct == 1)  // in the words of runs, not of a balancer's rounds
    out.message = std::string(cuts.size() == 1 ? "one run" : "every run timed the same intervals") +
                  ": runs that cut x differently are needed to tell a slow rank from a costly "
                  "range";
  return out;
}

}  // namespace

LearnedSpeeds learn_speeds(std::span<const Samples> runs, const SpeedLearningOptions& options) {
  options.validate();
  if (runs.empty()) throw Error("learn_speeds: expected at least one run, got none");
  const int P = ranks_of_runs(runs);
  if (P == 0) throw Error("learn_speeds: expected runs with samples, got only empty ones");
  return detail::fit_dropping_oldest(runs.size(), options, [&](std::size_t first) {
    return fit_runs(runs.subspan(first), P, options);
  });
}

Samples at_unit_speed(const Samples& samples, std::span<const double> speeds) {
  if (samples.size() == 0) return samples;
  std::vector<IntervalSample> v = samples.intervals();
  for (std::size_t k = 0; k < v.size(); ++k) {
    IntervalSample& s = v[k];
    const std::string name = "at_unit_speed: sample " + std::to_string(k) + " (" +
                             "lo=" + detail::exact(s.lo) + ", hi=" + detail::exact(s.hi) + ")";
    if (s.rank < 0)
      throw Error(detail::expected_got(name, "the rank that timed it (a rank column)", "none"));
    if (static_cast<std::size_t>(s.rank) >= speeds.size())
      throw Error(name + ": rank " + std::to_string(s.rank) + " has no speed (" +
                  std::to_string(speeds.size()) + " given)");
    const double speed = speeds[static_cast<std::size_t>(s.rank)];
    if (!std::isfinite(speed) || !(speed > 0))
      throw Error(detail::expected_got("at_unit_speed: speed " + std::to_string(s.rank),
                                       "a finite number > 0", detail::exact(speed)));
    s.dt *= speed;
  }
  return Samples(std::move(v));
}

}  // namespace isocost
