// Internal to the fitters: cross-validation scores for select_model().
#pragma once

#include <optional>
#include <vector>

#include "isocost/fitters/fit.hpp"

namespace isocost::detail {

// The samples as one chain of intervals tiling [lo, hi] in order, when they
// are one run (they tile) or cumulative; empty otherwise (several runs) or
// when a link of the chain would be empty (dt = 0).
std::optional<std::vector<IntervalSample>> sample_chain(const Samples& samples);

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
