// Applying diffusion transfers to a jagged 2-D (or row) decomposition
// (shift.hpp): diffusion among the columns, then inside each new column, each
// level's cuts shifted on its own marginal by shift_cuts().
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/metrics.hpp"
#include "isocost/shift.hpp"

namespace isocost {

using detail::exact;

// ---------------------------------------------------------------------------
// Jagged 2-D decompositions.

namespace {

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
  ChainShift r;
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
    r = diffuse_and_shift(discrete_model(std::move(w)), cuts, loads, dopt, sopt);
  } else {
    r = diffuse_and_shift(d.marginal_model(slab.box, axis), cuts, loads, dopt, sopt);
  }
  converged = converged && r.converged();
  return r.shift.cuts;
}

}  // namespace

Decomposition shift_jagged(const Density& d, const Decomposition& dec,
                           std::span<const double> loads, const DiffusionOptions& dopt,
                           const ShiftOptions& sopt) {
  const ProcessGrid& g = dec.process_grid;
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
        throw not_jagged(c * q + r,
                         "does not span its column along " + std::string(detail::axis_name(a0)));
      if (a1 >= 0) {
        const double expect = r == 0
                                  ? (grid ? 0.0 : d.box().lo[a1])
                                  : hi_of(dec.parts[static_cast<std::size_t>(c * q + r - 1)], a1);
        if (lo_of(p, a1) != expect)
          throw not_jagged(c * q + r, "does not follow its neighbour along " +
                                          std::string(detail::axis_name(a1)));
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
  out.process_grid = g;
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
  out.termination = converged ? Termination::converged : Termination::iteration_limit;
  return out;
}

}  // namespace isocost
