// The diffusive grid plan (rebalance_grid.hpp): shift_jagged() on the code's
// cell costs, or on uniform cells without them — then O(P) memory and work
// per part overlap, no per-cell array (the GridBalancer calls it at checks).
#include <algorithm>
#include <numeric>

#include "core/pipeline/grid_history.hpp"
#include "core/pipeline/rebalance_grid_internal.hpp"
#include "isocost/error.hpp"
#include "isocost/metrics.hpp"
#include "isocost/partition.hpp"

namespace isocost {

namespace detail::grid_rebalance {

namespace {

// Every cell costs 1: the marginals and slab costs are cell counts.
class UniformCosts final : public JaggedCosts {
 public:
  UniformCosts(const GridShape& shape, const Box& box) : shape_(shape), box_(box) {}
  const Box& box() const override { return box_; }
  const GridShape* grid() const override { return &shape_; }
  double part_cost(const Part& p) const override {
    return static_cast<double>(part_cells(p, shape_.dims));
  }
  CostModel slab_model(int a0, double lo, double hi, int axis) override {
    double per_cell = axis == a0 ? 1 : hi - lo;
    for (int b = 0; b < shape_.dims; ++b)
      if (b != axis && b != a0) per_cell *= static_cast<double>(shape_.cells[b]);
    return discrete_model(
        std::vector<double>(static_cast<std::size_t>(shape_.cells[axis]), per_cell));
  }
  double slab_cost(int a0, double lo, double hi, int a1, double lo1, double hi1) override {
    double n = (hi - lo) * (a1 >= 0 ? hi1 - lo1 : 1);
    for (int b = 0; b < shape_.dims; ++b)
      if (b != a0 && b != a1) n *= static_cast<double>(shape_.cells[b]);
    return n;
  }

 private:
  GridShape shape_;
  Box box_;
};

// Σ over the old parts r of per_cell[r] × the cells `p` shares with r: only
// the old columns (a jagged grid's first level, checked by shift_jagged())
// that p's range along a0 meets.
double uniform_time(const Decomposition& old, const Part& p, std::span<const double> per_cell,
                    int dims) {
  const ProcessGrid& g = old.process_grid;
  const int a0 = g.axes[0], px = g.counts[0], q = g.ranks() / px;
  // The first column whose range ends after p's start.
  int first = 0;
  for (int hi = px; first < hi;) {
    const int mid = first + (hi - first) / 2;
    if (old.parts[static_cast<std::size_t>(mid * q)].cell_hi[a0] <= p.cell_lo[a0]) {
      first = mid + 1;
    } else {
      hi = mid;
    }
  }
  double t = 0;
  for (int c = first; c < px; ++c) {
    if (old.parts[static_cast<std::size_t>(c * q)].cell_lo[a0] >= p.cell_hi[a0]) break;
    for (int r = 0; r < q; ++r) {
      const auto k = static_cast<std::size_t>(c * q + r);
      t += per_cell[k] * static_cast<double>(shared_cells(p, old.parts[k], dims));
    }
  }
  return t;
}

}  // namespace

GridRebalance rebalance_grid_diffusive_on(const GridShape& shape, const Decomposition& current,
                                          std::span<const double> loads,
                                          const GridDiffusiveRebalanceOptions& options,
                                          JaggedCosts& costs, const Predict& predict) {
  GridRebalance out;
  out.options = options;
  out.measured_imbalance = imbalance(loads);
  out.decomposition = detail::shift_jagged(costs, current, loads, options.diffusion, options.shift);
  Decomposition& d = out.decomposition;
  out.predicted_time = predict(d);
  for (std::size_t r = 0; r < d.parts.size(); ++r)
    d.parts[r].cost = d.parts[r].time = out.predicted_time[r];
  const LoadStats stats = load_stats(out.predicted_time);
  d.predicted_le = stats.le;
  d.max_time = stats.max;
  d.total_cost = std::accumulate(out.predicted_time.begin(), out.predicted_time.end(), 0.0);
  out.predicted_imbalance = imbalance(out.predicted_time);
  out.termination = out.decomposition.termination;
  std::tie(out.elements_moved, out.max_elements_received) =
      grid_cells_moved(within_dims(current, shape.dims), out.decomposition);
  return out;
}

}  // namespace detail::grid_rebalance

using namespace detail::grid_rebalance;

GridRebalance rebalance_grid_diffusive(const GridShape& shape, const Decomposition& current,
                                       std::span<const double> loads,
                                       const GridDiffusiveRebalanceOptions& options,
                                       std::span<const double> cell_costs) {
  validate_options(options, "rebalance_grid");
  const int dims = shape.dims;
  if (current.process_grid.counts.size() > 2)
    throw Error("rebalance_grid: diffusion shifts rows or a 2-level jagged grid, got the " +
                std::to_string(current.process_grid.counts.size()) + "-level grid " +
                current.process_grid.name());
  if (!cell_costs.empty()) {
    Tiling t = check_tiling(shape, current);
    const std::size_t P = current.parts.size();
    check_loads(loads, "rebalance_grid", P, "part");
    check_cell_costs(cell_costs, shape);
    // The load-corrected estimate (measured-load units) predicts the new
    // parts' times, as rebalance_diffusive() does in 1-D: cell c of old part
    // s costs loads[s]·w_c/W_s (w: the cell costs).
    std::vector<double> part_w(P, 0.0);
    for (std::size_t c = 0; c < t.owner.size(); ++c)
      part_w[static_cast<std::size_t>(t.owner[c])] += cell_costs[c];
    const std::vector<double> per_cell = cost_per_cell(current, loads, nullptr, dims);
    std::vector<double> weights(t.owner.size());
    for (std::size_t c = 0; c < weights.size(); ++c) {
      const auto r = static_cast<std::size_t>(t.owner[c]);
      weights[c] = part_w[r] > 0 ? loads[r] * cell_costs[c] / part_w[r] : per_cell[r];
    }
    const Density estimate = grid_density(std::move(weights), shape, t.box);
    std::copy(cell_costs.begin(), cell_costs.end(), t.owner.begin());
    const Density density = grid_density(std::move(t.owner), shape, t.box);
    detail::DensityCosts costs(density);
    return rebalance_grid_diffusive_on(shape, current, loads, options, costs,
                                       [&](const Decomposition& next) {
                                         std::vector<double> time;
                                         for (const Part& p : next.parts)
                                           time.push_back(estimate.cell_mass(p.cell_lo, p.cell_hi));
                                         return time;
                                       });
  }
  // Every cell costs 1, the loads correct it (shift.hpp); each cell of old
  // part s is predicted at loads[s]/cells(s). The parts tile the grid when
  // they hold all its cells and form a jagged grid (shift_jagged() checks).
  check_parts(shape, current);
  std::int64_t held = 0;
  for (const Part& p : current.parts) held += part_cells(p, dims);
  if (held != shape.count()) {
    detail::grid_atoms(shape, current, {});  // names a cell held twice or by no part
    throw Error("rebalance_grid: the parts hold " + std::to_string(held) + " cells of the grid's " +
                std::to_string(shape.count()) + "; expected parts that tile the grid");
  }
  check_loads(loads, "rebalance_grid", current.parts.size(), "part");
  const std::vector<double> per_cell = cost_per_cell(current, loads, nullptr, dims);
  UniformCosts costs(shape, grid_box(shape, current));
  return rebalance_grid_diffusive_on(shape, current, loads, options, costs,
                                     [&](const Decomposition& next) {
                                       std::vector<double> time;
                                       for (const Part& p : next.parts)
                                         time.push_back(uniform_time(current, p, per_cell, dims));
                                       return time;
                                     });
}

}  // namespace isocost
