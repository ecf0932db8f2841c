// The balancing pipeline over boxes of a grid of cells (grid_balancer.hpp):
// the layout's part of it (LayoutBalancer, layout_balancer.cpp) —
// re-decompositions and jagged shifts from gathered loads or from per-cell
// costs reduced to marginals where they are.
#include "isocost/mpi/grid_balancer.hpp"

#include <string>
#include <vector>

#include "core/shared/decompose_internal.hpp"
#include "isocost/error.hpp"
#include "mpi/balancer_report.hpp"
#include "mpi/decompose_grid_trusted.hpp"
#include "mpi/grid_diffusive.hpp"
#include "mpi/pipeline.hpp"

namespace isocost::mpi {

std::string GridPlan::brief_report() const { return detail::plan_brief(*this, "cells"); }

std::string GridPlan::full_report() const { return detail::plan_lines(*this, "cell"); }

bool GridBalancerOptions::is_valid(std::string* why) const {
  if (!check_fields(*this, why)) return false;
  if (const char* e = detail::learning_conflict(learn_speeds, speeds.has_value(), global.history)) {
    if (why) *why = e;
    return false;
  }
  return true;
}

std::string GridEvent::to_json() const {
  return detail::event_json(*this, {{"process_grid", rebalance.decomposition.process_grid.name()}});
}

GridBalancer::GridBalancer(MPI_Comm comm, const GridShape& shape, Decomposition decomposition,
                           GridBalancerOptions options)
    : LayoutBalancer(std::move(options), "GridBalancer"),
      shape_(shape),
      decomposition_(std::move(decomposition)) {
  start(
      comm, "decomposition", [&] { return check_layout(); }, [&] { return boxes_.hash(); });
}

std::string GridBalancer::check_layout() {
  if (!decomposition_.on_grid_lines)
    return "decomposition: not on grid lines; expected a decomposition of a grid of cells";
  try {
    boxes_ = BoxDistribution::from_decomposition(decomposition_);
  } catch (const Error& x) {
    return std::string("decomposition: ") + x.what();
  }
  for (int a = 0; a < 3; ++a) {
    const std::int64_t want = a < shape_.dims ? shape_.cells[static_cast<std::size_t>(a)] : 1;
    if (boxes_.cells[static_cast<std::size_t>(a)] != want)
      return "decomposition: its grid is not the " + std::to_string(shape_.dims) + "-D shape of " +
             std::to_string(shape_.count()) + " cells given";
  }
  std::string e;
  if (!boxes_.is_valid(&e)) return "decomposition: " + e;
  if (options_.pipeline.policy == BalancePolicy::diffusion && !can_diffuse())
    return "policy diffusion: a " + std::to_string(decomposition_.process_grid.counts.size()) +
           "-level process grid has no diffusive plan (rows and jagged grids only)";
  return {};
}

GridBalancer::~GridBalancer() = default;

std::int64_t GridBalancer::local_count() const { return boxes_.count(rank()); }

GridPlan GridBalancer::decide(double bytes) { return decide_data(bytes, {}); }

GridPlan GridBalancer::current_plan() const {
  GridPlan plan;
  plan.from = plan.to = boxes_;
  plan.decomposition = decomposition_;
  return plan;
}

ProcessGraph GridBalancer::process_graph() const {
  return mesh_graph(decomposition_.process_grid.counts, false);
}

void GridBalancer::make_plan(GridPlan& plan, const Inputs& in) {
  std::vector<double> scaled;  // plan_costs()' room
  if (plan.action == Strategy::diffusion) {
    // With costs: marginals reduced over the ranks (no gathered grid);
    // without: uniform cells, O(P).
    plan.rebalance =
        plan.used_costs
            ? detail::rebalance_grid_diffusive_distributed(
                  comm(), shape_, decomposition_, boxes_.boxes[static_cast<std::size_t>(rank())],
                  plan_costs(scaled), in.cost_sums, in.loads, options_.diffusive)
            : rebalance_grid_diffusive(shape_, decomposition_, in.loads, options_.diffusive);
  } else if (plan.action == Strategy::global && plan.used_costs) {
    // Cut from the costs where they are: one reduction of marginals a level
    // (layout, options and speeds agreed at construction, costs at the check).
    const CellBox& b = boxes_.boxes[static_cast<std::size_t>(rank())];
    Decomposition next = detail::decompose_grid_trusted(
        comm(), shape_, b.lo, b.hi, plan_costs(scaled), decomposition_.process_grid, in.speeds,
        options_.weights.decompose);
    std::vector<double> now(in.cost_sums.size());
    for (std::size_t r = 0; r < now.size(); ++r)
      now[r] = in.cost_sums[r] / in.speeds.speed(static_cast<int>(r));
    plan.rebalance = rebalance_grid_with(shape_, decomposition_, std::move(next), now, in.speeds,
                                         options_.weights);
  } else if (plan.action == Strategy::global) {
    plan.rebalance = rebalance_grid_global(shape_, decomposition_, in.loads, in.speeds,
                                           options_.global, history_);
  }
  if (plan.action == Strategy::global && options_.predict > 1) forecast(plan);
}

std::optional<Speeds> GridBalancer::plan_speeds(GridPlan& plan, const std::vector<double>& loads) {
  if (!options_.learn_speeds) return std::nullopt;
  // As BlockBalancer::plan_speeds(): the kept rounds but one on these parts,
  // and the current round, oldest first.
  std::vector<GridRound> rounds;
  for (const GridRound& h : history_)
    if (!isocost::detail::same_cells(h.parts, decomposition_)) rounds.push_back(h);
  rounds.push_back({decomposition_, loads});
  plan.learned = learn_speeds(shape_, rounds, options_.learning);
  if (const auto& used = tracker_.update(*plan.learned)) learned_ = Speeds::from_values(*used);
  return learned_;
}

void GridBalancer::normalise_costs(Inputs& in) const {
  if (!options_.learn_speeds || !learned_) return;
  for (std::size_t r = 0; r < in.cost_sums.size(); ++r)
    in.cost_sums[r] *= learned_->speed(static_cast<int>(r));
}

const std::vector<double>& GridBalancer::plan_costs(std::vector<double>& scaled) const {
  if (!options_.learn_speeds || !learned_) return costs_;
  scaled = costs_;
  for (double& v : scaled) v *= learned_->speed(rank());
  return scaled;
}

void GridBalancer::remember(const std::vector<double>& loads) {
  // As BlockBalancer: a round on parts already kept replaces it.
  std::erase_if(history_, [&](const GridRound& h) {
    return isocost::detail::same_cells(h.parts, decomposition_);
  });
  history_.push_back({decomposition_, loads});
  if (static_cast<int>(history_.size()) > options_.global.history) history_.erase(history_.begin());
}

void GridBalancer::take_plan(GridPlan& plan) const {
  plan.decomposition = plan.rebalance.decomposition;
  plan.to = BoxDistribution::from_decomposition(plan.decomposition);
}

void GridBalancer::adopt(const GridPlan& plan) {
  boxes_ = plan.to;
  decomposition_ = plan.decomposition;
}

void GridBalancer::forecast(GridPlan& plan) {
  // As BlockBalancer::forecast(): the window's centre, the coming interval's.
  const double s = static_cast<double>(plan.step);
  const int n = pipeline_->monitor().window_steps();
  planned_.push_back({s - (n + 1) / 2.0, plan.rebalance.decomposition});
  if (static_cast<int>(planned_.size()) > options_.predict) planned_.erase(planned_.begin());
  Decomposition next = forecast_decomposition(
      planned_, s + (options_.pipeline.trigger.every - 1) / 2.0, shape_, options_.predict / 2.0);
  if (isocost::detail::same_cells(next, plan.rebalance.decomposition)) return;
  GridRebalance& r = plan.rebalance;
  std::tie(r.elements_moved, r.max_elements_received) = grid_cells_moved(decomposition_, next);
  r.decomposition = std::move(next);
  r.forecast = true;
}

}  // namespace isocost::mpi
