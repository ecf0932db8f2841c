// core/shared/: iterative proportional fitting (IPF) of nonnegative atom
// masses to measured sums over groups of atoms — the one merge of several
// rounds of measurements: the grid history's per-cell estimate
// (grid_history.cpp), and the cumulative cost of several 1-D runs
// (merge_runs(), which the Balancer's 1-D history and fit() share).
//
// Each round (a block) measured the sums of disjoint groups of atoms (a
// part, an interval). Projecting a block scales every group's atoms to its
// measured sum (Deming & Stephan's proportional fitting); sweeping the
// blocks in turn, oldest first and the newest last, converges to masses that
// meet every block's sums when they are consistent (a static load), and the
// newest block's sums always hold exactly. Where the rounds say nothing
// (inside a group no other round splits) the start's shape is kept.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace isocost::detail {

/// Scales the atoms of each of `groups` groups to `target(g)`: for_atoms(g, f)
/// calls f(atom index) for every atom of group g (disjoint groups). A group
/// whose atoms hold nothing yet gets its target spread evenly. Returns
/// Σ_g |sum_g − target_g| before the scaling: how far the masses missed.
template <class Target, class ForAtoms>
double project_groups(std::size_t groups, Target&& target, ForAtoms&& for_atoms,
                      std::vector<double>& mass) {
  double miss = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    double sum = 0;
    std::size_t n = 0;
    for_atoms(g, [&](std::size_t i) { sum += mass[i], ++n; });
    if (n == 0) continue;
    const double want = target(g);
    miss += std::abs(sum - want);
    if (sum > 0) {
      const double f = want / sum;
      for_atoms(g, [&](std::size_t i) { mass[i] *= f; });
    } else {
      const double each = want / static_cast<double>(n);
      for_atoms(g, [&](std::size_t i) { mass[i] = each; });
    }
  }
  return miss;
}

/// What proportional_fit() did.
struct ProportionalFit {
  std::size_t first = 0;  ///< the oldest block kept (blocks before it drifted)
  int sweeps = 0;         ///< sweeps of the kept blocks
  double miss = 0;        ///< Σ |sum − target| over the kept blocks in the last sweep
};

/// Masses that meet the sums of blocks [first, blocks), from start(first,
/// mass) (which fills `mass` from those blocks alone, so that a dropped one
/// leaves no trace): block
/// k projected by project(k, mass) (returning its miss, as project_groups()),
/// oldest first, the newest (blocks − 1) last so that its sums hold exactly.
/// Sweeps until the kept blocks miss by at most `converged`·total together,
/// at most `max_sweeps`. Then an older block still missed by more than
/// `tolerance`·total disagrees with the newer ones (the load has drifted
/// since): it is dropped with every older one and the fit redone. With
/// tolerance = ∞ nothing is dropped, and inconsistent blocks (noisy timings)
/// end as the sweeps leave them: the newest exact, the others near.
template <class Start, class Project>
ProportionalFit proportional_fit(Start&& start, std::size_t blocks, Project&& project, double total,
                                 double tolerance, std::vector<double>& mass, int max_sweeps = 200,
                                 double converged = 1e-6) {
  ProportionalFit out;
  for (out.first = 0; out.first < blocks; ++out.first) {
    start(out.first, mass);
    for (out.sweeps = 1; out.sweeps <= max_sweeps; ++out.sweeps) {
      out.miss = 0;
      for (std::size_t k = out.first; k < blocks; ++k) out.miss += project(k, mass);
      if (out.miss <= converged * total) break;
    }
    out.sweeps = std::min(out.sweeps, max_sweeps);
    bool consistent = true;
    for (std::size_t k = out.first; k + 1 < blocks && consistent; ++k) {
      std::vector<double> probe = mass;
      consistent = project(k, probe) <= tolerance * total;
    }
    if (consistent) return out;
  }
  // No blocks: the start as it is. (With any, the newest alone is consistent.)
  start(blocks, mass);
  out = {};
  return out;
}

}  // namespace isocost::detail
