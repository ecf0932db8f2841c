// The GridBalancer's diffusive plan from per-cell costs where they are
// (grid_diffusive.hpp): shift_jagged() reads marginals reduced over the
// ranks instead of a gathered grid.
#include "mpi/grid_diffusive.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

#include "core/pipeline/rebalance_grid_internal.hpp"

namespace isocost::mpi::detail {

namespace {

using isocost::detail::JaggedCosts;

// Calls f(cell index along each axis, cost) for this rank's cells, x fastest.
template <class F>
void each_cell(const CellBox& b, std::span<const double> costs, F&& f) {
  std::size_t at = 0;
  std::array<std::int64_t, 3> c{};
  for (c[2] = b.lo[2]; c[2] < b.hi[2]; ++c[2])
    for (c[1] = b.lo[1]; c[1] < b.hi[1]; ++c[1])
      for (c[0] = b.lo[0]; c[0] < b.hi[0]; ++c[0]) f(c, costs[at++]);
}

// The marginals shift_jagged() asks for, each summed over the ranks once and
// kept as a discrete model (its prefix sums give every slab's cost).
class ReducedCosts final : public JaggedCosts {
 public:
  ReducedCosts(MPI_Comm comm, const GridShape& shape, const Box& box, const CellBox& mine,
               std::span<const double> costs, std::span<const double> cost_sums)
      : comm_(comm), shape_(shape), box_(box), mine_(mine), costs_(costs), sums_(cost_sums) {}
  const Box& box() const override { return box_; }
  const GridShape* grid() const override { return &shape_; }
  double part_cost(const Part& p) const override { return sums_[static_cast<std::size_t>(p.rank)]; }
  CostModel slab_model(int a0, double lo, double, int axis) override {
    return axis == a0 ? along0(a0) : columns_[column(lo)];
  }
  void prepare_slabs(int a0, std::span<const double> cuts, int axis) override {
    cuts_.assign(cuts.begin(), cuts.end());
    const std::size_t n = static_cast<std::size_t>(shape_.cells[axis]), px = cuts.size() - 1;
    std::vector<double> all(px * n, 0.0);
    each_cell(mine_, costs_, [&](const auto& c, double w) {
      all[column(static_cast<double>(c[a0]), true) * n + static_cast<std::size_t>(c[axis])] += w;
    });
    MPI_Allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM,
                  comm_);
    columns_.clear();
    for (std::size_t k = 0; k < px; ++k)
      columns_.push_back(discrete_model(std::vector<double>(
          all.begin() + static_cast<long>(k * n), all.begin() + static_cast<long>((k + 1) * n))));
  }
  double slab_cost(int a0, double lo, double hi, int a1, double lo1, double hi1) override {
    return a1 < 0 ? along0(a0).cost(lo, hi) : columns_[column(lo)].cost(lo1, hi1);
  }

 private:
  const CostModel& along0(int a0) {
    if (!along0_) {
      std::vector<double> m(static_cast<std::size_t>(shape_.cells[a0]), 0.0);
      each_cell(mine_, costs_,
                [&](const auto& c, double w) { m[static_cast<std::size_t>(c[a0])] += w; });
      MPI_Allreduce(MPI_IN_PLACE, m.data(), static_cast<int>(m.size()), MPI_DOUBLE, MPI_SUM, comm_);
      along0_ = discrete_model(std::move(m));
    }
    return *along0_;
  }
  // The column of prepare_slabs() that starts at `lo`, or (inside) holds it.
  std::size_t column(double lo, bool inside = false) const {
    const auto it = inside ? std::upper_bound(cuts_.begin(), cuts_.end(), lo) - 1
                           : std::lower_bound(cuts_.begin(), cuts_.end(), lo);
    return static_cast<std::size_t>(it - cuts_.begin());
  }

  MPI_Comm comm_;
  GridShape shape_;
  Box box_;
  CellBox mine_;
  std::span<const double> costs_, sums_;
  std::optional<CostModel> along0_;
  std::vector<double> cuts_;
  std::vector<CostModel> columns_;
};

}  // namespace

GridRebalance rebalance_grid_diffusive_distributed(
    MPI_Comm comm, const GridShape& shape, const Decomposition& current, const CellBox& mine,
    std::span<const double> costs, std::span<const double> cost_sums, std::span<const double> loads,
    const GridDiffusiveRebalanceOptions& options) {
  namespace g = isocost::detail::grid_rebalance;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const auto me = static_cast<std::size_t>(rank);
  ReducedCosts reduced(comm, shape, g::grid_box(shape, current), mine, costs, cost_sums);
  // The load-corrected estimate, as rebalance_grid_diffusive(): a cell of
  // old part s costs loads[s]·w_c/W_s, or loads[s]/cells(s) if W_s = 0. Each
  // rank adds its own cells' share of every new part.
  const double per_cost = cost_sums[me] > 0 ? loads[me] / cost_sums[me] : 0;
  const double per_cell = g::cost_per_cell(current, loads, nullptr, shape.dims)[me];
  const auto predict = [&](const Decomposition& next) {
    std::vector<double> time(next.parts.size(), 0.0);
    for (std::size_t p = 0; p < next.parts.size(); ++p) {
      // The cells of new part p in this rank's box: a sub-box of its costs.
      CellBox in = mine;
      for (int a = 0; a < shape.dims; ++a) {
        in.lo[a] = std::max(mine.lo[a], next.parts[p].cell_lo[a]);
        in.hi[a] = std::min(mine.hi[a], next.parts[p].cell_hi[a]);
      }
      if (in.empty()) continue;
      if (!(cost_sums[me] > 0)) {
        time[p] = per_cell * static_cast<double>(in.volume());
        continue;
      }
      double sum = 0;
      const std::int64_t ex = mine.extent(0), ey = mine.extent(1);
      for (std::int64_t k = in.lo[2]; k < in.hi[2]; ++k)
        for (std::int64_t j = in.lo[1]; j < in.hi[1]; ++j) {
          const std::int64_t row = (j - mine.lo[1] + ey * (k - mine.lo[2])) * ex - mine.lo[0];
          for (std::int64_t i = in.lo[0]; i < in.hi[0]; ++i)
            sum += costs[static_cast<std::size_t>(row + i)];
        }
      time[p] = per_cost * sum;
    }
    MPI_Allreduce(MPI_IN_PLACE, time.data(), static_cast<int>(time.size()), MPI_DOUBLE, MPI_SUM,
                  comm);
    return time;
  };
  return g::rebalance_grid_diffusive_on(shape, current, loads, options, reduced, predict);
}

}  // namespace isocost::mpi::detail
