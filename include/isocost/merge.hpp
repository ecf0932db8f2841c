// isocost/merge.hpp — one cumulative cost from the timings of several runs,
// without a parametric form (core layer: no Ceres, no MPI).
//
// Each run timed its own intervals (its ranks' ranges). The ends of every
// run's intervals cut the domain into atoms; each timing is the sum of the
// atoms it covers. Iterative proportional fitting (the one the Balancer's
// histories use) finds atom costs that meet every run's timings: exactly when
// they agree, the newest run exactly and the others as near as they allow
// when they do not (noise). A monotone interpolant of the merged cumulative
// is the model — finer than any one run:
//
//   auto runs = isocost::split_runs(isocost::read_samples("both_runs.csv"));
//   auto merged = isocost::merge_runs(runs);
//   std::cout << merged.brief_report();
//   auto model = isocost::tabulate(merged.samples());
#pragma once

#include <limits>
#include <span>
#include <string>
#include <vector>

#include "isocost/options.hpp"
#include "isocost/result.hpp"
#include "isocost/samples.hpp"

namespace isocost {

/// Settings for merge_runs() (Ceres-style: defaults at the declaration).
struct MergeOptions {
  /// Proportional-fitting sweeps (each projects every run once), at most.
  int max_sweeps = 200;
  /// The runs agree when, together, the merged atoms miss their timings by
  /// at most this fraction of the total: then the merge has converged.
  double converged = 1e-9;
  /// A run older than the newest that the merge still misses by more than
  /// this fraction of the total (Σ over its intervals) disagrees with the
  /// newer ones — the cost has drifted since — and is left out with every
  /// older run. ∞ (the default) keeps every run: timings of one kernel that
  /// differ by noise are all evidence.
  double tolerance = std::numeric_limits<double>::infinity();

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("max_sweeps", self.max_sweeps, at_least(1));
    v("converged", self.converged, above(0));
    v("tolerance", self.tolerance, above(0).or_infinity());
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("merge options: …") unless is_valid().
  void validate() const { validate_options(*this, "merge options"); }
};

/// Several runs' timings as one cumulative cost.
struct MergedRuns {
  /// The atoms' ends (every kept run's interval ends, increasing) and the
  /// merged cumulative cost there, t[0] = 0.
  std::vector<double> x, t;
  int runs_used = 0;     ///< runs merged (the newest ones)
  int runs_dropped = 0;  ///< older runs left out as drifted (options.tolerance)
  int sweeps = 0;
  /// converged: the kept runs agree (options.converged); iteration_limit:
  /// they disagree (noisy timings) and the sweeps stopped, at max_sweeps or
  /// where more would change nothing — the newest run's timings hold
  /// exactly, run_misfit says how near the others are.
  Termination termination = Termination::converged;
  /// Per given run (oldest first): the largest |merged − timed| / timed over
  /// its intervals; NaN for a dropped run.
  std::vector<double> run_misfit;
  MergeOptions options;

  bool converged() const noexcept { return termination == Termination::converged; }
  /// The atoms as one run that tiles the domain (tabulate() it for a model).
  /// Atoms of zero merged cost are joined to a neighbour (a timing is > 0).
  Samples samples() const;
  /// One line: runs, atoms, sweeps, how far each run is missed.
  std::string brief_report() const;
};

/// The samples grouped into runs, in the order given: samples that tile a
/// span or are cumulative are one run; otherwise each sample joins the first
/// run none of whose samples it overlaps (rows of one partition, then of the
/// next, come back as those partitions).
std::vector<Samples> split_runs(const Samples& samples);

/// Merges runs, oldest first (the last is the newest). Each run's intervals
/// must not overlap (a cumulative run is taken as its chain); together the
/// runs must time every atom of their span. Throws Error naming the run and
/// interval otherwise, or the first stretch no run times, or for invalid
/// options. O(sweeps · (atoms + samples)).
MergedRuns merge_runs(std::span<const Samples> runs, const MergeOptions& options = {});

}  // namespace isocost
