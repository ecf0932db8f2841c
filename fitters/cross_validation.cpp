// Cross-validation scores of candidate models: chain-keeping (one run) and
// k-fold over whole intervals (several runs).
#include "cross_validation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "isocost/error.hpp"

namespace isocost::detail {

std::optional<std::vector<IntervalSample>> sample_chain(const Samples& samples) {
  if (!samples.tiles() && !samples.cumulative()) return std::nullopt;
  std::vector<double> x, t;
  try {
    samples.cumulative_points(x, t);
  } catch (const Error&) {  // e.g. one interval measured twice with different dt
    return std::nullopt;
  }
  std::vector<IntervalSample> chain;
  for (std::size_t k = 1; k < x.size(); ++k) {
    if (!(t[k] > t[k - 1])) return std::nullopt;
    chain.push_back({x[k - 1], x[k], t[k] - t[k - 1]});
  }
  return chain;
}

// Why merge pairs rather than leave an interval out: an interpolant of the
// cumulative chain needs every link. Merging the two intervals at knot j
// keeps the chain whole and asks every candidate the same question — how
// does the measured cost of [x_{j-1}, x_{j+1}] split at x_j? — which is
// exactly what decides where a cut falls. Only the split is compared, not the
// pair's total (which an interpolant reproduces by construction), so the
// interpolants and the parametric forms are scored alike.
double chain_cross_validate(const std::vector<IntervalSample>& chain, const FitSpec& spec,
                            const FitOptions& options, int folds) {
  const std::size_t n = chain.size();
  if (n < 2) throw Error("cross-validation: one interval has no knot to hold out");
  const std::size_t knots = n - 1;  // interior knots 1 … n−1
  const std::size_t F = std::min(static_cast<std::size_t>(folds), knots);
  double mean_dt = 0;
  for (const auto& iv : chain) mean_dt += iv.dt;
  mean_dt /= static_cast<double>(n);
  FitOptions train = options;
  train.lo = chain.front().lo;  // held-out knots stay inside the model
  train.hi = chain.back().hi;
  train.covariance = false;
  train.ranks = 1;  // the folds' own balance is not needed
  double sum = 0;
  std::size_t count = 0;
  for (std::size_t f = 0; f < F; ++f) {
    // Knots j with (j − 1) % F == f: with F >= 2 no two are adjacent.
    std::vector<IntervalSample> merged;
    std::vector<std::size_t> held;  // knot j of each merged pair
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t j = k + 1;  // the knot at chain[k].hi
      if (j < n && (j - 1) % F == f) {
        merged.push_back({chain[k].lo, chain[k + 1].hi, chain[k].dt + chain[k + 1].dt});
        held.push_back(k);
        ++k;
      } else {
        merged.push_back(chain[k]);
      }
    }
    const auto fitted = fit(Samples(merged), spec, train);
    if (!fitted.converged())
      throw Error("the fit of fold " + std::to_string(f) +
                  " did not converge: " + fitted.summary.message);
    const CostModel& model = *fitted.model;
    for (const std::size_t k : held) {
      const IntervalSample& left = chain[k];
      const IntervalSample& right = chain[k + 1];
      const double pair = left.dt + right.dt;
      const double whole = model.cost(left.lo, right.hi);
      if (!(whole > 0)) throw Error("the fit of fold " + std::to_string(f) + " has no cost there");
      const double predicted = model.cost(left.lo, left.hi) / whole * pair;
      const double unit = options.relative ? pair / 2 : mean_dt;
      const double e = (predicted - left.dt) / unit;
      sum += e * e;
      ++count;
    }
  }
  return sum / static_cast<double>(count);
}

// Folds are a fixed shuffle, so the score is reproducible.
double interval_cross_validate(const Samples& samples, const FitSpec& spec,
                               const FitOptions& options, int folds) {
  const std::size_t n = samples.size();
  if (static_cast<std::size_t>(folds) > n)
    throw Error("cross-validation: " + std::to_string(folds) +
                " folds need at least as many samples, got " + std::to_string(n));
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(12345));
  FitOptions train = options;
  train.lo = options.lo.value_or(samples.lo());  // held-out intervals stay inside
  train.hi = options.hi.value_or(samples.hi());
  train.covariance = false;
  double sum = 0;
  std::size_t count = 0;
  for (int f = 0; f < folds; ++f) {
    std::vector<IntervalSample> fold_train, test;
    for (std::size_t i = 0; i < n; ++i)
      (static_cast<int>(i % static_cast<std::size_t>(folds)) == f ? test : fold_train)
          .push_back(samples.intervals()[order[i]]);
    const auto fitted = fit(Samples(fold_train), spec, train);
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

}  // namespace isocost::detail
