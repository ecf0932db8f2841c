// Internal to core: merge_runs() on raw intervals, for the Balancer's 1-D
// history, whose loads may be 0 (an idle rank) where a Samples may not.
#pragma once

#include <span>
#include <vector>

#include "isocost/merge.hpp"

namespace isocost::detail {

/// merge_runs() on runs of intervals with dt >= 0 (oldest first), each run's
/// intervals disjoint and in increasing order; `what` prefixes errors.
/// Options are not validated here.
MergedRuns merge_intervals(std::span<const std::vector<IntervalSample>> runs,
                           const MergeOptions& options, const char* what);

}  // namespace isocost::detail
