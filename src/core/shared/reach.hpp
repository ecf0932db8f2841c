// core/shared/: shared with the mpi layer — the core's internals other layers use, not users.
// The boundaries that non-empty parts can reach: bottleneck_cuts()' probe
// with min_cells = 1 and unequal capacities, where the capped greedy split
// cannot decide. It works on one slice of the prefix sums at a time, so that
// the serial probe (one slice) and mpi::partition_weights()' pipelined one
// (a slice a rank) run the same code. Internal.
//
// R_j is the set of boundaries k such that cells [0, k) split into j
// non-empty parts with cost_i <= B·s_i; the cells split into m parts iff
// N ∈ R_m. k ∈ R_{j+1} iff P[k] <= P[p] + B·s_j for p, the latest element of
// R_j below k (a later start only makes the part cheaper). Row by row, R_j
// is kept as sorted intervals: after an interval [x, y] of R_j, boundary
// k <= y + 1 is reached iff cell k − 1 alone fits part j, and beyond it the
// boundaries up to where a part from y is full. Heavy cells split intervals,
// so a row has about as many intervals as heavy cells in its window.
//
// Elements of R_j below lb_j, the least boundary from which the parts
// j … m − 1 can still reach N (a backward greedy), are dropped; they never
// lie on a complete split, so the result is the same with or without them.
// Of the splits, the latest is taken: its cut j is the latest element of R_j
// below cut j + 1 (feasible splits are closed under the elementwise
// maximum, so this is each cut's latest value over all of them).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace isocost::detail {

/// A boundary k (0 … N) and its prefix sum P[k]; pos < 0: none.
struct Boundary {
  std::int64_t pos = -1;
  double t = 0;
};

/// The cells of a slice heavier than a capacity, found through block maxima
/// of the cell weights (levels of 64, 64², … cells: n/63 doubles) instead
/// of a scan of every cell.
class HeavyCells {
 public:
  /// `pre`: the slice's prefix sums, one more than its cells.
  explicit HeavyCells(std::span<const double> pre);

  /// The first local cell i in [from, to) with pre[i+1] > pre[i] + c (the
  /// probes' own test), else `to`.
  std::int64_t next(std::int64_t from, std::int64_t to, double c) const;

  /// Whether some cell may fail that test at c (a cheap upper bound).
  bool any(double c) const { return levels_.back().front() >= below(c); }

 private:
  // c less a few ulps of the largest prefix sum: no cell whose rounded
  // weight is below it can fail the test.
  double below(double c) const;

  std::span<const double> pre_;
  std::vector<std::vector<double>> levels_;  // levels_[l][b]: max over 64^(l+1) cells
  double largest_ = 0;                       // max |pre|, for the rounding slack
};

/// The backward greedy's state: lower bounds are still wanted for parts
/// j, j − 1, …, 0, the last one found being q (t = P[q]).
struct Backward {
  std::int64_t j, q;
  double t;
};

/// Advances the backward greedy through the slice `pre` = P[first … first+n]:
/// lb[j] = the least p with P[q] <= P[p] + B·s_j (no part j starting below
/// it reaches q), then on from p. Returns true when the next bound lies below
/// the slice (the previous slice goes on from `st`), false when all are set
/// (st.j < 0). lb must hold s.size() + 1 entries; only found ones are set.
/// `next` is lowered to the least B at which a bound found here would move.
bool backward_bounds(std::span<const double> pre, std::int64_t first, std::span<const double> s,
                     double B, Backward& st, std::vector<std::int64_t>& lb, double& next);

/// R_1 … R_m on the boundaries a slice owns, (first, first + n]. Built once
/// for a search; run() reuses its buffers probe after probe.
class ReachableRows {
 public:
  ReachableRows(std::span<const double> pre, std::int64_t first, std::int64_t N,
                std::span<const double> s);

  /// Computes the rows at bottleneck B. in[j] (j = 0 … m) is the latest
  /// element of R_j at or before `first` (in[0] = {0, P[0]}); lb as
  /// backward_bounds() sets it. Returns the same for first + n: the next
  /// slice's `in`.
  std::vector<Boundary> run(double B, std::span<const Boundary> in,
                            std::span<const std::int64_t> lb);

  /// Whether N ∈ R_m (only the slice holding N can say yes).
  bool reaches_end() const;

  /// The least B above the last run's at which a row would gain a boundary
  /// here (infinity if none): with the bounds lb fixed, the rows, and so the
  /// probe's answer, are the same for every B below it (Pınar & Aykanat's
  /// exact bisection moves its lower bound there).
  double next_event() const { return next_; }

  /// The latest element of R_j (j >= 1) below k that this slice owns; none
  /// (pos < 0) if this slice owns none.
  Boundary latest_below(std::int64_t j, std::int64_t k) const;

 private:
  struct Span {
    std::int64_t lo, hi;  // boundaries lo … hi
  };
  // Appends to `out` the cells in [from, to] (global) that do not fit c
  // alone, from heavy_list_.
  void heavy_in(std::int64_t from, std::int64_t to, double c, std::vector<std::int64_t>& out) const;
  // The last boundary <= first + n with P[k] <= limit (first − 1: none).
  std::int64_t reach(double limit) const;
  double at(std::int64_t k) const { return pre_[static_cast<std::size_t>(k - first_)]; }

  std::span<const double> pre_;
  std::int64_t first_, n_, N_;
  std::span<const double> s_;
  HeavyCells heavy_;
  std::vector<Span> spans_;          // every row's intervals, row after row
  std::vector<std::size_t> starts_;  // row j's are spans_[starts_[j] … starts_[j+1])
  // The cells (global) too heavy for the smallest capacity, B·min s: those
  // of any row are among them. Found once a probe.
  std::vector<std::int64_t> heavy_list_;
  double next_ = 0;
};

/// The serial probe: the latest split of the prefix sums P into s.size()
/// non-empty parts with cost_j <= B·s_j, in `cuts`; false if there is none,
/// and then `next` the least B at which the answer could change.
/// `rows` is ReachableRows(P, 0, n, s), kept across probes.
bool reach_probe(std::span<const double> P, std::span<const double> s, double B,
                 ReachableRows& rows, std::vector<std::int64_t>& cuts, double& next);

}  // namespace isocost::detail
