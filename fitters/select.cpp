// Model selection (AICc or k-fold cross-validation) and repartitioning from
// measurements.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/fitters/fit.hpp"

namespace isocost {

namespace {

std::vector<FitSpec> default_candidates(SelectBy criterion) {
  std::vector<FitSpec> c;
  for (const char* name : {"sieve", "sieve+c", "sieve+q", "power", "poly:2", "poly:3", "exp"})
    c.push_back(parse_fit_spec(name));
  // Interpolation has no parameter count for AICc; held-out error scores it.
  if (criterion == SelectBy::cross_validation) c.push_back(parse_fit_spec("pchip"));
  return c;
}

// Mean squared held-out residual (relative) over k folds. Folds are a fixed
// shuffle, so the score is reproducible.
double cross_validate(const Samples& samples, const FitSpec& spec, const FitOptions& options,
                      int folds) {
  const std::size_t n = samples.size();
  if (static_cast<std::size_t>(folds) > n)
    throw Error("cross-validation: " + std::to_string(folds) +
                " folds need at least as many samples, got " + std::to_string(n));
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(12345));
  FitOptions train_options = options;
  train_options.lo = options.lo.value_or(samples.lo());  // held-out intervals stay inside
  train_options.hi = options.hi.value_or(samples.hi());
  train_options.covariance = false;
  double sum = 0;
  std::size_t count = 0;
  for (int f = 0; f < folds; ++f) {
    std::vector<IntervalSample> train, test;
    for (std::size_t i = 0; i < n; ++i)
      (static_cast<int>(i % static_cast<std::size_t>(folds)) == f ? test : train)
          .push_back(samples.intervals()[order[i]]);
    const auto fitted = fit(Samples(train), spec, train_options);
    if (!fitted.converged())
      throw Error("the fit of fold " + std::to_string(f) +
                  " did not converge: " + fitted.summary.message);
    const CostModel& model = *fitted.model;
    for (const auto& iv : test) {
      const double lo = std::clamp(iv.lo, model.lo(), model.hi());
      const double hi = std::clamp(iv.hi, model.lo(), model.hi());
      const double r = (model.cost(lo, hi) - iv.dt) / iv.dt;
      sum += r * r;
      ++count;
    }
  }
  return sum / static_cast<double>(count);
}

}  // namespace

Selection select_model(const Samples& samples, const SelectOptions& select,
                       const FitOptions& options) {
  if (select.criterion == SelectBy::cross_validation && select.folds < 2)
    throw Error("cross-validation needs at least 2 folds, got " + std::to_string(select.folds));
  const auto candidates =
      select.candidates.empty() ? default_candidates(select.criterion) : select.candidates;
  std::vector<Candidate> table;
  std::optional<FitResult> best_fit;
  std::optional<std::size_t> best;
  for (const auto& spec : candidates) {
    Candidate c;
    c.model = spec.name();
    try {
      auto fitted = fit(samples, spec, options);
      c.summary = fitted.summary;
      if (!fitted.converged())  // only converged fits compete
        throw Error("did not converge: " + fitted.summary.message);
      c.score = select.criterion == SelectBy::aicc
                    ? fitted.summary.aicc
                    : cross_validate(samples, spec, options, select.folds);
      if (!std::isfinite(c.score))
        throw Error(select.criterion == SelectBy::aicc
                        ? "AICc undefined (too few samples for its parameter count)"
                        : "held-out error is not finite");
      c.summary = fitted.summary;
      c.ok = true;
      if (!best || c.score < table[*best].score) {
        best = table.size();
        best_fit = std::move(fitted);
      }
    } catch (const Error& e) {
      c.error = e.what();
    }
    table.push_back(std::move(c));
  }
  if (!best) {
    std::string why;
    for (const auto& c : table) why += "; " + c.model + ": " + c.error;
    throw Error("no candidate model could be fitted" + why);
  }
  return Selection{std::move(*best_fit), std::move(table)};
}

Repartition repartition(const Samples& samples, const std::vector<double>& current_cuts,
                        const Speeds& speeds, const RepartitionOptions& options) {
  std::optional<Selection> selection;
  if (options.auto_select) selection = select_model(samples, options.select, options.fit);
  FitResult fitted = selection ? selection->best : fit(samples, options.model, options.fit);
  if (!fitted.model)
    throw Error("repartition: the fit of " + fitted.summary.model +
                " failed: " + fitted.summary.message);
  PartitionOptions partition_options = options.partition;
  if (!current_cuts.empty()) {
    if (current_cuts.size() != static_cast<std::size_t>(speeds.ranks()) + 1)
      throw Error("repartition: " + std::to_string(current_cuts.size()) + " current cuts for " +
                  std::to_string(speeds.ranks()) + " ranks; expected ranks + 1");
    partition_options.initial_cuts = current_cuts;
  }
  Partition cuts = partition(*fitted.model, speeds, partition_options);
  return Repartition{std::move(fitted), std::move(cuts), std::move(selection)};
}

}  // namespace isocost
