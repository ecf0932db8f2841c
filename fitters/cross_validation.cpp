// Cross-validation scores of candidate models: chain-keeping (one run) and
// k-fold over whole intervals (several runs).
#include "cross_validation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "isocost/error.hpp"
#include "isocost/merge.hpp"

namespace isocost::detail {

std::optional<std::vector<IntervalSample>> sample_chain(const Samples& samples) {
  std::vector<double> x, t;
  try {
    if (samples.tiles() || samples.cumulative()) {
      samples.cumulative_points(x, t);
    } else {  // several runs: their merge (merge_runs()) is the chain
      merge_runs(split_runs(samples)).samples().cumulative_points(x, t);
    }
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
std::vector<ChainFold> chain_folds(const std::vector<IntervalSample>& chain, int folds) {
  const std::size_t n = chain.size();
  if (n < 2) throw Error("cross-validation: one interval has no knot to hold out");
  const std::size_t knots = n - 1;  // interior knots 1 … n−1
  const std::size_t F = std::min(static_cast<std::size_t>(folds), knots);
  std::vector<ChainFold> out(F);
  for (std::size_t f = 0; f < F; ++f) {
    // Knots j with (j − 1) % F == f: with F >= 2 no two are adjacent.
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t j = k + 1;  // the knot at chain[k].hi
      if (j < n && (j - 1) % F == f) {
        out[f].merged.push_back({chain[k].lo, chain[k + 1].hi, chain[k].dt + chain[k + 1].dt});
        out[f].held.push_back(k);
        ++k;
      } else {
        out[f].merged.push_back(chain[k]);
      }
    }
  }
  return out;
}

FitResult fit_fold(const ChainFold& fold, std::size_t f, const std::vector<IntervalSample>& chain,
                   const FitSpec& spec, const FitOptions& options) {
  FitOptions train = options;
  train.lo = chain.front().lo;  // held-out knots stay inside the model
  train.hi = chain.back().hi;
  train.covariance = false;
  train.ranks = 1;  // the folds' own balance is not needed
  auto fitted = fit(Samples(fold.merged), spec, train);
  if (!fitted.converged())
    throw Error("the fit of fold " + std::to_string(f) +
                " did not converge: " + fitted.summary.message);
  return fitted;
}

std::vector<double> chain_split_errors(const std::vector<IntervalSample>& chain,
                                       const FitSpec& spec, const FitOptions& options, int folds) {
  const std::vector<ChainFold> all = chain_folds(chain, folds);
  std::vector<double> error(chain.size() + 1, 0.0);
  for (std::size_t f = 0; f < all.size(); ++f) {
    const CostModel model = *fit_fold(all[f], f, chain, spec, options).model;
    for (const std::size_t k : all[f].held) {
      const IntervalSample& left = chain[k];
      const IntervalSample& right = chain[k + 1];
      const double whole = model.cost(left.lo, right.hi);
      if (!(whole > 0)) throw Error("the fit of fold " + std::to_string(f) + " has no cost there");
      error[k + 1] = model.cost(left.lo, left.hi) / whole * (left.dt + right.dt) - left.dt;
    }
  }
  return error;
}

double chain_cross_validate(const std::vector<IntervalSample>& chain, const FitSpec& spec,
                            const FitOptions& options, int folds) {
  const std::vector<double> error = chain_split_errors(chain, spec, options, folds);
  const std::size_t n = chain.size();
  double mean_dt = 0;
  for (const auto& iv : chain) mean_dt += iv.dt;
  mean_dt /= static_cast<double>(n);
  double sum = 0;
  for (std::size_t j = 1; j < n; ++j) {
    const double unit = options.relative ? (chain[j - 1].dt + chain[j].dt) / 2 : mean_dt;
    sum += (error[j] / unit) * (error[j] / unit);
  }
  return sum / static_cast<double>(n - 1);
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
