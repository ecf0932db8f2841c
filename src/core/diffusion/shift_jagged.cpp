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

#include "core/diffusion/jagged_costs.hpp"
#include "core/shared/decompose_internal.hpp"

namespace isocost {

using detail::exact;

// ---------------------------------------------------------------------------
// Jagged 2-D decompositions.

namespace detail {

struct DensityCosts::Slab {
  Box box;
  std::array<std::int64_t, kMaxDims> c0{0, 0, 0}, c1{0, 0, 0};
};

DensityCosts::DensityCosts(const Density& d) : d_(d) {
  if (d.grid()) {
    shape_.dims = d.dims();
    for (int a = 0; a < d.dims(); ++a) shape_.cells[a] = d.grid()->cells[a];
  }
}

double DensityCosts::part_cost(const Part& p) const {
  return d_.grid() ? d_.cell_mass(p.cell_lo, p.cell_hi) : d_.mass(p.box);
}

CostModel DensityCosts::slab_model(int a0, double lo, double hi, int axis) {
  Slab s = slab(a0, lo, hi, -1, 0, 0);
  if (!d_.grid()) return d_.marginal_model(s.box, axis);
  // Per-cell masses of the slab along the axis: a discrete model whose cuts
  // are cell indices, i.e. grid lines.
  const std::int64_t n = d_.grid()->cells[axis];
  std::vector<double> w(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) {
    s.c0[axis] = k;
    s.c1[axis] = k + 1;
    w[static_cast<std::size_t>(k)] = std::max(0.0, d_.cell_mass(s.c0, s.c1));
  }
  return discrete_model(std::move(w));
}

double DensityCosts::slab_cost(int a0, double lo, double hi, int a1, double lo1, double hi1) {
  const Slab s = slab(a0, lo, hi, a1, lo1, hi1);
  return d_.grid() ? d_.cell_mass(s.c0, s.c1) : d_.mass(s.box);
}

// The slab [lo, hi) along a0 and [lo1, hi1) along a1 (a1 < 0: all of the
// other axes).
DensityCosts::Slab DensityCosts::slab(int a0, double lo, double hi, int a1, double lo1,
                                      double hi1) const {
  Slab s{d_.box(), {0, 0, 0}, {0, 0, 0}};
  if (d_.grid())
    for (int a = 0; a < d_.dims(); ++a) s.c1[a] = d_.grid()->cells[a];
  const auto range = [&](int axis, double l, double h) {
    if (d_.grid()) {
      s.c0[axis] = static_cast<std::int64_t>(l);
      s.c1[axis] = static_cast<std::int64_t>(h);
      s.box.lo[axis] = d_.grid_line(axis, s.c0[axis]);
      s.box.hi[axis] = d_.grid_line(axis, s.c1[axis]);
    } else {
      s.box.lo[axis] = l;
      s.box.hi[axis] = h;
    }
  };
  range(a0, lo, hi);
  if (a1 >= 0) range(a1, lo1, hi1);
  return s;
}

}  // namespace detail

namespace {

// Shifts `cuts` of a chain of parts on `model` by diffusion.
std::vector<double> shift_level(const CostModel& model, const std::vector<double>& cuts,
                                const std::vector<double>& loads, const DiffusionOptions& dopt,
                                const ShiftOptions& sopt, bool& converged) {
  const double total = std::accumulate(loads.begin(), loads.end(), 0.0);
  if (loads.size() < 2 || !(total > 0) || !(model.total() > 0)) return cuts;
  const ChainShift r = diffuse_and_shift(model, cuts, loads, dopt, sopt);
  converged = converged && r.converged();
  return r.shift.cuts;
}

}  // namespace

Decomposition shift_jagged(const Density& d, const Decomposition& dec,
                           std::span<const double> loads, const DiffusionOptions& dopt,
                           const ShiftOptions& sopt) {
  detail::DensityCosts costs(d);
  return detail::shift_jagged(costs, dec, loads, dopt, sopt);
}

Decomposition detail::shift_jagged(JaggedCosts& costs, const Decomposition& dec,
                                   std::span<const double> loads, const DiffusionOptions& dopt,
                                   const ShiftOptions& sopt) {
  const ProcessGrid& g = dec.process_grid;
  const Box& dom = costs.box();
  const GridShape* shape = costs.grid();
  g.validate(dom.dims);
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
  const bool grid = shape != nullptr;
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
  auto start_of = [&](int axis) { return grid ? 0.0 : dom.lo[axis]; };
  auto end_of = [&](int axis) {
    return grid ? static_cast<double>(shape->cells[axis]) : dom.hi[axis];
  };
  auto not_jagged = [&](int rank, const std::string& why) {
    return Error("shift_jagged: part " + std::to_string(rank) + " " + why +
                 "; expected the decomposition " + g.name() + " of this density");
  };
  std::vector<double> cuts0(static_cast<std::size_t>(px) + 1);
  cuts0[0] = start_of(a0);
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
        const double expect =
            r == 0 ? start_of(a1) : hi_of(dec.parts[static_cast<std::size_t>(c * q + r - 1)], a1);
        if (lo_of(p, a1) != expect)
          throw not_jagged(c * q + r, "does not follow its neighbour along " +
                                          std::string(detail::axis_name(a1)));
      }
    }
  }
  if (cuts0[px] != end_of(a0)) throw not_jagged(P - 1, "does not end at the box's end");

  // A grid's min_width in whole cells along `axis` (at least one).
  auto options_along = [&](int axis) {
    ShiftOptions o = sopt;
    if (grid) {
      const double width = dom.width(axis) / static_cast<double>(shape->cells[axis]);
      o.min_width = std::max(1.0, std::ceil(sopt.min_width / width * (1 - 1e-12)));
    }
    return o;
  };
  auto box_line = [&](int axis, double cut) {
    return grid ? detail::grid_line(dom, shape->cells[axis], axis, static_cast<std::int64_t>(cut))
                : cut;
  };

  // Measured load per unit model cost, per rank (with fallbacks). The old
  // parts' costs come from the cost source, not from the decomposition's records.
  const CostModel whole = costs.slab_model(a0, start_of(a0), end_of(a0), a0);
  const double total_cost = costs.slab_cost(a0, start_of(a0), end_of(a0), -1, 0, 0);
  const double global_k = load_total / total_cost;
  std::vector<double> k(static_cast<std::size_t>(P));
  std::vector<double> column_loads(static_cast<std::size_t>(px), 0.0);
  for (int c = 0; c < px; ++c) {
    std::vector<double> cost(static_cast<std::size_t>(q));
    double column_cost = 0;
    for (int r = 0; r < q; ++r) {
      column_loads[c] += loads[c * q + r];
      cost[r] = costs.part_cost(dec.parts[c * q + r]);
      column_cost += cost[r];
    }
    const double column_k = column_cost > 0 ? column_loads[c] / column_cost : global_k;
    for (int r = 0; r < q; ++r)
      k[c * q + r] = cost[r] > 0 && loads[c * q + r] > 0 ? loads[c * q + r] / cost[r] : column_k;
  }

  bool converged = true;
  // 1. Columns.
  const std::vector<double> new0 =
      shift_level(whole, cuts0, column_loads, dopt, options_along(a0), converged);

  // 2. Inside each new column.
  Decomposition out;
  out.process_grid = g;
  out.on_grid_lines = grid;
  out.total_cost = total_cost;
  if (a1 >= 0) costs.prepare_slabs(a0, new0, a1);
  for (int c = 0; c < px; ++c) {
    std::vector<double> cuts1;
    if (a1 >= 0) {
      const CostModel column = costs.slab_model(a0, new0[c], new0[c + 1], a1);
      cuts1.push_back(lo_of(dec.parts[c * q], a1));
      std::vector<double> predicted;
      for (int r = 0; r < q; ++r) {
        const Part& p = dec.parts[c * q + r];
        cuts1.push_back(hi_of(p, a1));
        predicted.push_back(k[c * q + r] * costs.slab_cost(a0, new0[c], new0[c + 1], a1,
                                                           lo_of(p, a1), hi_of(p, a1)));
      }
      cuts1 = shift_level(column, cuts1, predicted, dopt, options_along(a1), converged);
    }
    for (int r = 0; r < q; ++r) {
      Part p;
      p.rank = c * q + r;
      p.box = dom;
      p.box.lo[a0] = box_line(a0, new0[c]);
      p.box.hi[a0] = box_line(a0, new0[c + 1]);
      if (a1 >= 0) {
        p.box.lo[a1] = box_line(a1, cuts1[r]);
        p.box.hi[a1] = box_line(a1, cuts1[r + 1]);
      }
      if (grid) {
        for (int a = 0; a < dom.dims; ++a) p.cell_hi[a] = shape->cells[a];
        p.cell_lo[a0] = static_cast<std::int64_t>(new0[c]);
        p.cell_hi[a0] = static_cast<std::int64_t>(new0[c + 1]);
        if (a1 >= 0) {
          p.cell_lo[a1] = static_cast<std::int64_t>(cuts1[r]);
          p.cell_hi[a1] = static_cast<std::int64_t>(cuts1[r + 1]);
        }
      }
      p.cost = a1 >= 0 ? costs.slab_cost(a0, new0[c], new0[c + 1], a1, cuts1[r], cuts1[r + 1])
                       : costs.slab_cost(a0, new0[c], new0[c + 1], -1, 0, 0);
      p.time = k[p.rank] * p.cost;
      p.volume = p.box.volume();
      // Faces on the domain's boundary are not shared with another part.
      p.surface = p.box.surface();
      if (p.box.dims > 1) {
        for (int a = 0; a < p.box.dims; ++a) {
          double face = 1;
          for (int b = 0; b < p.box.dims; ++b)
            if (b != a) face *= p.box.width(b);
          if (p.box.lo[a] <= dom.lo[a]) p.surface -= face;
          if (p.box.hi[a] >= dom.hi[a]) p.surface -= face;
        }
      } else {
        p.surface = (p.box.lo[0] > dom.lo[0] ? 1 : 0) + (p.box.hi[0] < dom.hi[0] ? 1 : 0);
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
