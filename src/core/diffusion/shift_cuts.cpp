// Applying diffusion transfers to a 1-D partition (shift.hpp): boundary
// shifts by root finding on the load-corrected cost model (Watts ch. 3;
// include/isocost/shift.hpp), with the caps, min widths and ordering rule.
#include "isocost/shift.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <sstream>

#include "core/model/cut_internal.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/metrics.hpp"

namespace isocost {

using detail::exact;

int ShiftResult::capped_count() const {
  return static_cast<int>(std::count(capped.begin(), capped.end(), true));
}

int ShiftResult::conflict_count() const {
  return static_cast<int>(std::count(conflict.begin(), conflict.end(), true));
}

std::string ShiftResult::brief_report() const {
  int moved = 0;
  double worst = 0;
  for (std::size_t b = 0; b < applied.size(); ++b) {
    moved += cost_moved[b] != 0 || applied[b] != 0 ? 1 : 0;
    worst = std::max(worst, std::abs(applied[b] - requested[b]));
  }
  std::ostringstream out;
  out << moved << " of " << applied.size() << " boundaries moved, " << capped_count() << " capped, "
      << conflict_count() << " in conflicts, max |load moved - transfer| " << exact(worst)
      << (converged() ? "" : " (NOT all root finds converged)");
  return out.str();
}

namespace {

void check_cuts(const CostModel& t, std::span<const double> cuts) {
  if (cuts.size() < 2)
    throw Error("shift: expected at least 2 cuts (one rank), got " + std::to_string(cuts.size()));
  for (std::size_t k = 0; k < cuts.size(); ++k) {
    const double x = cuts[k];
    if (!std::isfinite(x) || x < t.lo() || x > t.hi())
      throw Error("shift: cut " + std::to_string(k) + " = " + exact(x) +
                  " is not a finite number inside the domain [" + exact(t.lo()) + ", " +
                  exact(t.hi()) + "]");
    if (k > 0 && x < cuts[k - 1])
      throw Error(detail::expected_got("shift: cut " + std::to_string(k),
                                       "a value >= " + exact(cuts[k - 1]) + " (cut " +
                                           std::to_string(k - 1) + "; nondecreasing cuts)",
                                       exact(x)));
    if (t.is_discrete() && x != std::floor(x))
      throw Error("shift: cut " + std::to_string(k) + " = " + exact(x) +
                  " is not an integer (the model is discrete)");
  }
}

}  // namespace

ShiftResult shift_cuts(const CostModel& t, std::span<const double> cuts,
                       std::span<const double> transfers, std::span<const double> loads,
                       const ShiftOptions& options) {
  options.validate();
  check_cuts(t, cuts);
  const std::size_t P = cuts.size() - 1;
  if (transfers.size() != P - 1)
    throw Error("shift: " + std::to_string(transfers.size()) + " transfers for " +
                std::to_string(P) + " ranks; expected one per boundary, " + std::to_string(P - 1));
  for (std::size_t b = 0; b < transfers.size(); ++b)
    if (!std::isfinite(transfers[b]))
      throw Error(detail::expected_got("shift: transfer " + std::to_string(b) + " (ranks " +
                                           std::to_string(b) + " -> " + std::to_string(b + 1) + ")",
                                       "a finite number", exact(transfers[b])));
  const double load_total = check_loads(loads, "shift", P);

  const bool discrete = t.is_discrete();
  const double mw = discrete ? std::ceil(options.min_width) : options.min_width;
  const double max_move = options.max_move;
  std::vector<double> tx(P + 1);
  for (std::size_t k = 0; k <= P; ++k) tx[k] = t.cost(cuts[k]);

  ShiftResult out;
  out.options = options;
  out.ratio.resize(P);
  const double global = (tx[P] - tx[0]) / load_total;
  for (std::size_t i = 0; i < P; ++i) {
    const double c = tx[i + 1] - tx[i];
    out.ratio[i] = loads[i] > 0 && c > 0 ? c / loads[i] : global;
  }
  out.cuts.assign(cuts.begin(), cuts.end());
  out.requested.assign(transfers.begin(), transfers.end());
  out.applied.assign(P - 1, 0.0);
  out.cost_moved.assign(P - 1, 0.0);
  out.capped.assign(P - 1, false);
  out.conflict.assign(P - 1, false);
  out.iterations.assign(P - 1, 0);
  out.cost.resize(P);
  for (std::size_t i = 0; i < P; ++i) out.cost[i] = tx[i + 1] - tx[i];
  if (!(global > 0)) {
    // No model cost between the ends: L is flat, no transfer has a place.
    for (std::size_t b = 0; b + 1 < P; ++b) out.capped[b] = transfers[b] != 0;
    out.predicted_load.assign(loads.begin(), loads.end());
    return out;
  }

  // L at the old cuts. Λ_{r+1} is Λ_r plus the same expression L uses inside
  // range r, so L(x_{r+1}) evaluated on range r is exactly Λ_{r+1}.
  std::vector<double> lam(P + 1, 0.0);
  for (std::size_t r = 0; r < P; ++r) lam[r + 1] = lam[r] + (tx[r + 1] - tx[r]) / out.ratio[r];
  // L(x) from tx_ = t(x), x in [x_0, x_P].
  auto L = [&](double x, double tx_) {
    std::size_t r =
        static_cast<std::size_t>(std::upper_bound(cuts.begin(), cuts.end(), x) - cuts.begin());
    r = std::min(r == 0 ? 0 : r - 1, P - 1);
    return lam[r] + (tx_ - tx[r]) / out.ratio[r];
  };
  // The point of [a, c] (inside old range r) where L = lam_target, charged to
  // boundary `slot`.
  auto solve = [&](std::size_t slot, std::size_t r, double lam_target, double a, double c) {
    const double target = tx[r] + (lam_target - lam[r]) * out.ratio[r];
    const double ta = a == cuts[r] ? tx[r] : t.cost(a);
    const double tc = c == cuts[r + 1] ? tx[r + 1] : t.cost(c);
    // Continuous models: a target at (or, by rounding, beyond) an end of the
    // bracket is that end. Discrete ones always search: nearest in cost.
    if (!discrete && ta >= target) return a;
    if (!discrete && tc <= target) return c;
    const CutSummary s =
        detail::solve_cut_known(t, target, a, ta - target, c, tc - target, options.cut, t.total());
    out.iterations[slot] += s.iterations;
    out.max_abs_residual = std::max(out.max_abs_residual, std::abs(s.residual));
    if (!s.converged()) out.termination = Termination::iteration_limit;
    return s.x;
  };

  // Gaps: range i must keep g_i = min(min_width, its old width); G_k = Σ_{i<k} g_i.
  std::vector<double> G(P + 1, 0.0);
  for (std::size_t i = 0; i < P; ++i) G[i + 1] = G[i] + std::min(mw, cuts[i + 1] - cuts[i]);
  // Each boundary's window [lo_k, hi_k]: the max_move cap (after Pearce's Table 3) bounds
  // how far a domain boundary moves in one step. max_move <= 1: inside the adjacent
  // range, leaving it min_width, as before multi-range moves existed; then the
  // windows are monotone in z = x − G (shown in step 2), so the ordering step
  // can respect them exactly. max_move > 1: max_move × the adjacent width. Either way, room
  // for the minimum widths of the ranges out to the ends.
  std::vector<double> lo(P + 1), hi(P + 1);
  lo[0] = hi[0] = cuts[0];
  lo[P] = hi[P] = cuts[P];
  auto room = [&](double w) {
    const double r = std::max(0.0, std::min(max_move * w, w - mw));
    return discrete ? std::floor(r) : r;
  };
  for (std::size_t k = 1; k < P; ++k) {
    const double x = cuts[k], wl = x - cuts[k - 1], wr = cuts[k + 1] - x;
    if (max_move <= 1) {
      lo[k] = std::max(cuts[k - 1], x - room(wl));
      hi[k] = std::min(cuts[k + 1], x + room(wr));
    } else {
      lo[k] = cuts[0] + G[k];
      hi[k] = cuts[P] - (G[P] - G[k]);
      if (std::isfinite(max_move)) {
        const double l = x - max_move * wl, h = x + max_move * wr;
        lo[k] = std::max(lo[k], discrete ? std::ceil(l) : l);
        hi[k] = std::min(hi[k], discrete ? std::floor(h) : h);
      }
      lo[k] = std::min(lo[k], x);
      hi[k] = std::max(hi[k], x);
    }
  }

  // 1. Every boundary on its own, from the old cuts, on L.
  std::vector<double> y(cuts.begin(), cuts.end());
  for (std::size_t k = 1; k < P; ++k) {
    const double T = transfers[k - 1];
    if (T == 0) continue;
    const double want = lam[k] - T;
    if (T > 0) {  // rank k − 1 gives: the boundary moves left
      const double floor_ = lo[k] == cuts[k] ? lam[k] : L(lo[k], t.cost(lo[k]));
      const double target = std::max(want, floor_);
      out.capped[k - 1] = want < floor_;
      if (target >= lam[k]) continue;  // no room (or L flat down to the cap)
      // The last old range r <= k − 1 with Λ_r <= target: nearest x_k.
      const std::size_t r = static_cast<std::size_t>(
          std::upper_bound(lam.begin(), lam.begin() + static_cast<std::ptrdiff_t>(k), target) -
          lam.begin() - 1);
      y[k] = solve(k - 1, r, target, std::min(std::max(cuts[r], lo[k]), cuts[r + 1]), cuts[r + 1]);
    } else {  // rank k gives: the boundary moves right
      const double ceil_ = hi[k] == cuts[k] ? lam[k] : L(hi[k], t.cost(hi[k]));
      const double target = std::min(want, ceil_);
      out.capped[k - 1] = want > ceil_;
      if (target <= lam[k]) continue;
      // The first old range r >= k with Λ_{r+1} >= target: nearest x_k.
      const std::size_t r = static_cast<std::size_t>(
          std::lower_bound(lam.begin() + static_cast<std::ptrdiff_t>(k) + 1, lam.end(), target) -
          lam.begin() - 1);
      y[k] = solve(k - 1, r, target, cuts[r], std::max(std::min(cuts[r + 1], hi[k]), cuts[r]));
    }
  }

  // 2. Ordering and min_width: x_{k+1} − x_k >= g_k is z_k = y_k − G_k
  // nondecreasing. Pool adjacent violators (as in isotonic regression, with
  // the stack merging until the pools are in order); a pool meets where L is
  // the mean of its members' realised L values — the balance point of the
  // loads they disagree on — spread by their gaps. For max_move <= 1 the windows are
  // monotone in z: lo_{k+1} − lo_k = w_k − room_k + room_{k−1} >= g_k since
  // room_k <= max(0, w_k − min_width), and likewise for hi.
  std::vector<double> ell(P + 1);
  ell[0] = 0;
  ell[P] = lam[P];
  for (std::size_t k = 1; k < P; ++k) ell[k] = y[k] == cuts[k] ? lam[k] : L(y[k], t.cost(y[k]));
  // The point where L = lam_target anywhere in [x_0, x_P].
  auto L_inverse = [&](std::size_t slot, double lam_target) {
    std::size_t r = static_cast<std::size_t>(std::upper_bound(lam.begin(), lam.end(), lam_target) -
                                             lam.begin());
    r = std::min(r == 0 ? 0 : r - 1, P - 1);
    return solve(slot, r, lam_target, cuts[r], cuts[r + 1]);
  };
  struct Pool {
    std::size_t first, last;
    double ell_sum, g_sum, z;
  };
  std::vector<Pool> pools;
  for (std::size_t k = 1; k < P; ++k) {
    pools.push_back({k, k, ell[k], G[k], y[k] - G[k]});
    while (pools.size() >= 2 && pools[pools.size() - 2].z > pools.back().z) {
      const Pool top = pools.back();
      pools.pop_back();
      Pool& p = pools.back();
      p.last = top.last;
      p.ell_sum += top.ell_sum;
      p.g_sum += top.g_sum;
      const double n = static_cast<double>(p.last - p.first + 1);
      p.z = L_inverse(p.first - 1, p.ell_sum / n) - p.g_sum / n;
    }
  }
  if (pools.size() + 1 < P) {
    // The windows in z, made monotone (a no-op for max_move <= 1) so that clamping a
    // nondecreasing z keeps it nondecreasing; for max_move > 1 a boundary may thus be
    // pushed as far as a neighbour's window reaches.
    std::vector<double> zlo(P + 1), zhi(P + 1);
    for (std::size_t k = P - 1; k >= 1; --k)
      zlo[k] = std::min(lo[k] - G[k], k + 1 < P ? zlo[k + 1] : lo[k] - G[k]);
    for (std::size_t k = 1; k < P; ++k)
      zhi[k] = std::max(hi[k] - G[k], k > 1 ? zhi[k - 1] : hi[k] - G[k]);
    for (const Pool& p : pools) {
      if (p.first == p.last) continue;
      for (std::size_t k = p.first; k <= p.last; ++k) {
        double z = std::clamp(p.z, zlo[k], zhi[k]);
        if (discrete) z = std::round(z);  // zlo, zhi and G are whole cells
        y[k] = z + G[k];
        out.conflict[k - 1] = true;
      }
    }
    // Rounding in the last bit must not unorder the cuts.
    for (std::size_t k = 1; k < P; ++k) y[k] = std::max(y[k], y[k - 1]);
    for (std::size_t k = P - 1; k >= 1; --k) y[k] = std::min(y[k], y[k + 1]);
  }

  // 3. What crossed each boundary, the new ranges' costs and predicted loads.
  // An unmoved boundary keeps its old values bit for bit.
  std::vector<double> ty(tx);
  for (std::size_t k = 1; k < P; ++k) {
    if (y[k] == cuts[k]) {
      ell[k] = lam[k];
    } else {
      ty[k] = t.cost(y[k]);
      ell[k] = L(y[k], ty[k]);
    }
  }
  out.cuts = y;
  for (std::size_t k = 1; k < P; ++k) {
    out.applied[k - 1] = lam[k] - ell[k];
    out.cost_moved[k - 1] = tx[k] - ty[k];
  }
  out.predicted_load.resize(P);
  for (std::size_t i = 0; i < P; ++i) {
    out.cost[i] = ty[i + 1] - ty[i];
    out.predicted_load[i] = ell[i + 1] - ell[i];
  }
  return out;
}

ChainShift diffuse_and_shift(const CostModel& model, std::span<const double> cuts,
                             std::span<const double> loads, const DiffusionOptions& diffusion,
                             const ShiftOptions& shift) {
  if (cuts.size() < 2)
    throw Error("shift: expected at least 2 cuts (one rank), got " + std::to_string(cuts.size()));
  const int P = static_cast<int>(cuts.size()) - 1;
  check_loads(loads, "shift", static_cast<std::size_t>(P));
  ChainShift out;
  const ProcessGraph chain = mesh_graph({P}, false);
  out.diffusion = diffuse(chain, loads, diffusion);
  std::vector<double> transfers(static_cast<std::size_t>(P) - 1, 0.0);
  for (std::size_t e = 0; e < chain.edges.size(); ++e)
    transfers[static_cast<std::size_t>(chain.edges[e].i)] = out.diffusion.transfers[e];
  out.shift = shift_cuts(model, cuts, transfers, loads, shift);
  return out;
}

}  // namespace isocost
