// Applying diffusion transfers to 1-D and jagged 2-D partitions: boundary
// shifts by root finding on the cost model (DESIGN.md, "Diffusion").
#include "isocost/shift.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <sstream>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/metrics.hpp"
#include "model/cut_internal.hpp"

namespace isocost {

using detail::exact;

bool ShiftOptions::is_valid(std::string* error) const {
  auto fail = [&](std::string m) {
    if (error) *error = std::move(m);
    return false;
  };
  if (!(gamma > 0)) return fail("gamma must be a number > 0 (+inf: no cap), got " + exact(gamma));
  if (!(min_width >= 0) || !std::isfinite(min_width))
    return fail("min_width must be a finite number >= 0, got " + exact(min_width));
  std::string e;
  if (!cut.is_valid(&e)) return fail(e);
  return true;
}

void ShiftOptions::validate() const {
  std::string e;
  if (!is_valid(&e)) throw Error("shift: " + e);
}

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
      << (converged ? "" : " (NOT all root finds converged)") << "\n";
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
      throw Error("shift: cut " + std::to_string(k) + " = " + exact(x) + " is below cut " +
                  std::to_string(k - 1) + " = " + exact(cuts[k - 1]) +
                  "; cuts must be nondecreasing");
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
      throw Error("shift: transfer " + std::to_string(b) + " (ranks " + std::to_string(b) + " -> " +
                  std::to_string(b + 1) + ") = " + exact(transfers[b]) +
                  ", expected a finite number");
  const double load_total = check_loads(loads, "shift", P);

  const bool discrete = t.is_discrete();
  const double mw = discrete ? std::ceil(options.min_width) : options.min_width;
  const double gamma = options.gamma;
  std::vector<double> tx(P + 1);
  for (std::size_t k = 0; k <= P; ++k) tx[k] = t.cost(cuts[k]);

  ShiftResult out;
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
    out.converged = out.converged && s.converged();
    return s.x;
  };

  // Gaps: range i must keep g_i = min(min_width, its old width); G_k = Σ_{i<k} g_i.
  std::vector<double> G(P + 1, 0.0);
  for (std::size_t i = 0; i < P; ++i) G[i + 1] = G[i] + std::min(mw, cuts[i + 1] - cuts[i]);
  // Each boundary's window [lo_k, hi_k]: Pearce's γ (Table 3, Alg. 2) bounds
  // how far a domain boundary moves in one step. γ <= 1: inside the adjacent
  // range, leaving it min_width, as before multi-range moves existed; then the
  // windows are monotone in z = x − G (shown in step 2), so the ordering step
  // can respect them exactly. γ > 1: γ × the adjacent width. Either way, room
  // for the minimum widths of the ranges out to the ends.
  std::vector<double> lo(P + 1), hi(P + 1);
  lo[0] = hi[0] = cuts[0];
  lo[P] = hi[P] = cuts[P];
  auto room = [&](double w) {
    const double r = std::max(0.0, std::min(gamma * w, w - mw));
    return discrete ? std::floor(r) : r;
  };
  for (std::size_t k = 1; k < P; ++k) {
    const double x = cuts[k], wl = x - cuts[k - 1], wr = cuts[k + 1] - x;
    if (gamma <= 1) {
      lo[k] = std::max(cuts[k - 1], x - room(wl));
      hi[k] = std::min(cuts[k + 1], x + room(wr));
    } else {
      lo[k] = cuts[0] + G[k];
      hi[k] = cuts[P] - (G[P] - G[k]);
      if (std::isfinite(gamma)) {
        const double l = x - gamma * wl, h = x + gamma * wr;
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
  // loads they disagree on — spread by their gaps. For γ <= 1 the windows are
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
    // The windows in z, made monotone (a no-op for γ <= 1) so that clamping a
    // nondecreasing z keeps it nondecreasing; for γ > 1 a boundary may thus be
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

// ---------------------------------------------------------------------------
// Jagged 2-D decompositions.

namespace {

const char* kAxis[] = {"x", "y", "z"};

// t(x) of a piece along one axis: its marginal, with the cross-section as
// derivative (as decompose() solves each level).
class Marginal final : public detail::CostModelImpl {
 public:
  Marginal(Density d, const Box& piece, int axis) : d_(std::move(d)), piece_(piece), axis_(axis) {}
  CostPoint evaluate(double x) const override {
    return {cost(x), d_.cross_section(piece_, axis_, x)};
  }
  double cost(double x) const override { return d_.marginal(piece_, axis_, x); }
  std::string kind() const override { return "marginal"; }
  std::string describe() const override {
    return std::string("marginal along ") + kAxis[axis_] + " of " + d_.describe();
  }

 private:
  Density d_;
  Box piece_;
  int axis_;
};

using Cells = std::array<std::int64_t, kMaxDims>;

struct Slab {
  Box box;
  Cells c0{0, 0, 0}, c1{0, 0, 0};
};

double slab_mass(const Density& d, const Slab& s) {
  return d.grid() ? d.cell_mass(s.c0, s.c1) : d.mass(s.box);
}

// Shifts the cuts of `slab` along `axis` (box coordinates, or cell indices on
// a grid) by diffusion on the chain of its parts.
std::vector<double> shift_level(const Density& d, const Slab& slab, int axis,
                                const std::vector<double>& cuts, const std::vector<double>& loads,
                                const DiffusionOptions& dopt, ShiftOptions sopt, bool& converged) {
  const int m = static_cast<int>(loads.size());
  const double total = std::accumulate(loads.begin(), loads.end(), 0.0);
  if (m < 2 || !(total > 0) || !(slab_mass(d, slab) > 0)) return cuts;
  const auto graph = mesh_graph({m}, false);
  const DiffusionSummary diff = diffuse(graph, loads, dopt);
  converged = converged && diff.converged;
  std::vector<double> transfers(static_cast<std::size_t>(m) - 1, 0.0);
  for (std::size_t e = 0; e < graph.edges.size(); ++e)
    transfers[graph.edges[e].i] = diff.transfers[e];  // chain edges are (i, i + 1)
  ShiftResult r;
  if (d.grid()) {
    // Per-cell masses of the slab along the axis: a discrete model whose cuts
    // are cell indices, i.e. grid lines.
    const std::int64_t n = d.grid()->cells[axis];
    std::vector<double> w(static_cast<std::size_t>(n));
    Slab cell = slab;
    for (std::int64_t k = 0; k < n; ++k) {
      cell.c0[axis] = k;
      cell.c1[axis] = k + 1;
      w[k] = std::max(0.0, d.cell_mass(cell.c0, cell.c1));
    }
    const double width = d.box().width(axis) / static_cast<double>(n);
    sopt.min_width = std::max(1.0, std::ceil(sopt.min_width / width * (1 - 1e-12)));
    r = shift_cuts(discrete_model(std::move(w)), cuts, transfers, loads, sopt);
  } else {
    const CostModel t(std::make_shared<Marginal>(d, slab.box, axis), slab.box.lo[axis],
                      slab.box.hi[axis]);
    r = shift_cuts(t, cuts, transfers, loads, sopt);
  }
  converged = converged && r.converged;
  return r.cuts;
}

}  // namespace

Decomposition shift_jagged(const Density& d, const Decomposition& dec,
                           std::span<const double> loads, const DiffusionOptions& dopt,
                           const ShiftOptions& sopt) {
  const ProcessGrid& g = dec.grid;
  g.validate(d.dims());
  dopt.validate();
  sopt.validate();
  if (g.counts.empty() || g.counts.size() > 2)
    throw Error("shift_jagged: expected a grid of 1 or 2 levels (rows or a jagged grid), got " +
                g.name());
  const int P = g.ranks();
  if (dec.ranks() != P)
    throw Error("shift_jagged: the decomposition has " + std::to_string(dec.ranks()) +
                " parts for the grid " + g.name() + " of " + std::to_string(P) + " ranks");
  const double load_total = check_loads(loads, "shift", static_cast<std::size_t>(P));
  const bool grid = d.grid() != nullptr;
  const int a0 = g.axes[0], px = g.counts[0];
  const int a1 = g.counts.size() > 1 ? g.axes[1] : -1;
  const int q = P / px;

  // The decomposition's cuts (cell indices on a grid), checked to be a tiling.
  auto lo_of = [&](const Part& p, int axis) {
    return grid ? static_cast<double>(p.cell_lo[axis]) : p.box.lo[axis];
  };
  auto hi_of = [&](const Part& p, int axis) {
    return grid ? static_cast<double>(p.cell_hi[axis]) : p.box.hi[axis];
  };
  const double end0 = grid ? static_cast<double>(d.grid()->cells[a0]) : d.box().hi[a0];
  const double start0 = grid ? 0.0 : d.box().lo[a0];
  auto not_jagged = [&](int rank, const std::string& why) {
    return Error("shift_jagged: part " + std::to_string(rank) + " " + why +
                 "; expected the decomposition " + g.name() + " of this density");
  };
  std::vector<double> cuts0(static_cast<std::size_t>(px) + 1);
  cuts0[0] = start0;
  for (int c = 0; c < px; ++c) {
    const Part& first = dec.parts[static_cast<std::size_t>(c) * q];
    if (lo_of(first, a0) != cuts0[c]) throw not_jagged(first.rank, "does not start its column");
    cuts0[c + 1] = hi_of(first, a0);
    for (int r = 0; r < q; ++r) {
      const Part& p = dec.parts[static_cast<std::size_t>(c * q + r)];
      if (lo_of(p, a0) != cuts0[c] || hi_of(p, a0) != cuts0[c + 1])
        throw not_jagged(c * q + r, "does not span its column along " + std::string(kAxis[a0]));
      if (a1 >= 0) {
        const double expect = r == 0
                                  ? (grid ? 0.0 : d.box().lo[a1])
                                  : hi_of(dec.parts[static_cast<std::size_t>(c * q + r - 1)], a1);
        if (lo_of(p, a1) != expect)
          throw not_jagged(c * q + r,
                           "does not follow its neighbour along " + std::string(kAxis[a1]));
      }
    }
  }
  if (cuts0[px] != end0) throw not_jagged(P - 1, "does not end at the box's end");

  Slab whole{d.box(), {0, 0, 0}, {0, 0, 0}};
  if (grid)
    for (int a = 0; a < d.dims(); ++a) whole.c1[a] = d.grid()->cells[a];
  auto with_range = [&](Slab s, int axis, double lo, double hi) {
    if (grid) {
      s.c0[axis] = static_cast<std::int64_t>(lo);
      s.c1[axis] = static_cast<std::int64_t>(hi);
      s.box.lo[axis] = d.grid_line(axis, s.c0[axis]);
      s.box.hi[axis] = d.grid_line(axis, s.c1[axis]);
    } else {
      s.box.lo[axis] = lo;
      s.box.hi[axis] = hi;
    }
    return s;
  };

  // Measured load per unit model cost, per rank (with fallbacks). The old
  // parts' costs come from `density`, not from the decomposition's records.
  auto old_slab = [&](const Part& p) {
    Slab s{p.box, p.cell_lo, p.cell_hi};
    return s;
  };
  const double global_k = load_total / d.total();
  std::vector<double> k(static_cast<std::size_t>(P));
  std::vector<double> column_loads(static_cast<std::size_t>(px), 0.0);
  for (int c = 0; c < px; ++c) {
    std::vector<double> cost(static_cast<std::size_t>(q));
    double column_cost = 0;
    for (int r = 0; r < q; ++r) {
      column_loads[c] += loads[c * q + r];
      cost[r] = slab_mass(d, old_slab(dec.parts[c * q + r]));
      column_cost += cost[r];
    }
    const double column_k = column_cost > 0 ? column_loads[c] / column_cost : global_k;
    for (int r = 0; r < q; ++r)
      k[c * q + r] = cost[r] > 0 && loads[c * q + r] > 0 ? loads[c * q + r] / cost[r] : column_k;
  }

  bool converged = true;
  // 1. Columns.
  const std::vector<double> new0 =
      shift_level(d, whole, a0, cuts0, column_loads, dopt, sopt, converged);

  // 2. Inside each new column.
  Decomposition out;
  out.grid = g;
  out.on_grid_lines = grid;
  out.total_cost = d.total();
  for (int c = 0; c < px; ++c) {
    const Slab column = with_range(whole, a0, new0[c], new0[c + 1]);
    std::vector<double> cuts1;
    if (a1 >= 0) {
      cuts1.push_back(lo_of(dec.parts[c * q], a1));
      std::vector<double> predicted;
      for (int r = 0; r < q; ++r) {
        const Part& p = dec.parts[c * q + r];
        cuts1.push_back(hi_of(p, a1));
        predicted.push_back(k[c * q + r] *
                            slab_mass(d, with_range(column, a1, lo_of(p, a1), hi_of(p, a1))));
      }
      cuts1 = shift_level(d, column, a1, cuts1, predicted, dopt, sopt, converged);
    }
    for (int r = 0; r < q; ++r) {
      const Slab s = a1 >= 0 ? with_range(column, a1, cuts1[r], cuts1[r + 1]) : column;
      Part p;
      p.rank = c * q + r;
      p.box = s.box;
      if (grid) {
        p.cell_lo = s.c0;
        p.cell_hi = s.c1;
      }
      p.cost = slab_mass(d, s);
      p.time = k[p.rank] * p.cost;
      p.volume = s.box.volume();
      // Faces on the domain's boundary are not shared with another part.
      const Box& dom = d.box();
      p.surface = s.box.surface();
      if (s.box.dims > 1) {
        for (int a = 0; a < s.box.dims; ++a) {
          double face = 1;
          for (int b = 0; b < s.box.dims; ++b)
            if (b != a) face *= s.box.width(b);
          if (s.box.lo[a] <= dom.lo[a]) p.surface -= face;
          if (s.box.hi[a] >= dom.hi[a]) p.surface -= face;
        }
      } else {
        p.surface = (s.box.lo[0] > dom.lo[0] ? 1 : 0) + (s.box.hi[0] < dom.hi[0] ? 1 : 0);
      }
      out.parts.push_back(p);
    }
  }
  std::vector<double> times;
  double surface = 0;
  for (const auto& p : out.parts) {
    times.push_back(p.time);
    surface += p.surface;
  }
  if (std::accumulate(times.begin(), times.end(), 0.0) > 0) {
    const auto stats = load_stats(times);
    out.predicted_le = stats.le;
    out.max_time = stats.max;
  }
  out.cut_surface = surface / 2;
  out.converged = converged;
  return out;
}

}  // namespace isocost
