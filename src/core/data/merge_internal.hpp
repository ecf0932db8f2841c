// Internal to core: merge_runs() on raw intervals, for the Balancer's 1-D
// history, whose loads may be 0 (an idle rank) where a Samples may not; and
// a run's intervals in order, which the guarantee reads too.
#pragma once

#include <span>
#include <vector>

#include "isocost/merge.hpp"

namespace isocost::detail {

/// One run's intervals in order of lo (a cumulative run as its chain); Error,
/// prefixed by `what`, naming run `k`'s first two that overlap.
std::vector<IntervalSample> run_intervals(const Samples& run, std::size_t k, const char* what);

/// merge_runs() on runs of intervals with dt >= 0 (oldest first), each run's
/// intervals disjoint and in increasing order; `what` prefixes errors.
/// Options are not validated here.
MergedRuns merge_intervals(std::span<const std::vector<IntervalSample>> runs,
                           const MergeOptions& options, const char* what);

}  // namespace isocost::detail
