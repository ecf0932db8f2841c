// Internal to the fitters: cross-validation scores for select_model().
#pragma once

#include <optional>
#include <vector>

#include "isocost/fitters/fit.hpp"

namespace isocost::detail {

// The samples as one chain of intervals tiling [lo, hi] in order: one run
// (they tile, or are cumulative) as it is, several runs as their merge
// (merge_runs() of split_runs()); empty when they cannot be merged (a gap)
// or a link of the chain would be empty (dt = 0).
std::optional<std::vector<IntervalSample>> sample_chain(const Samples& samples);

// One chain-keeping fold: the chain with the two intervals at each held-out
// knot merged into one, and the index k of each merged pair's left interval
// (the held knot is chain[k].hi).
struct ChainFold {
  std::vector<IntervalSample> merged;
  std::vector<std::size_t> held;
};
// min(folds, n − 1) folds of an n-interval chain; fold f holds out the knots
// j with (j − 1) % F == f (never two adjacent), so every knot once.
std::vector<ChainFold> chain_folds(const std::vector<IntervalSample>& chain, int folds);
// `spec` fitted to fold f on the whole chain's span; Error unless converged.
FitResult fit_fold(const ChainFold& fold, std::size_t f, const std::vector<IntervalSample>& chain,
                   const FitSpec& spec, const FitOptions& options);

// Per knot j of `chain` (n intervals, knots 0 … n), the held-out split
// error: fitted with the two intervals at j merged into one (chain-keeping
// folds, select_model()), the model's split of their measured cost at x_j
// minus the measured left interval's cost, in cost units; 0 at the ends.
// Throws Error when a fold cannot be fitted.
std::vector<double> chain_split_errors(const std::vector<IntervalSample>& chain,
                                       const FitSpec& spec, const FitOptions& options, int folds);

// Chain-keeping cross-validation of `spec` on `chain` (see select_model()):
// the mean squared error of the predicted split of each merged pair. Throws
// Error when a fold cannot be fitted.
double chain_cross_validate(const std::vector<IntervalSample>& chain, const FitSpec& spec,
                            const FitOptions& options, int folds);

// k-fold cross-validation holding out whole intervals (for samples of several
// runs, which parametric forms fit but no interpolant can): mean squared
// relative held-out residual. Throws Error when a fold cannot be fitted.
double interval_cross_validate(const Samples& samples, const FitSpec& spec,
                               const FitOptions& options, int folds);

}  // namespace isocost::detail
