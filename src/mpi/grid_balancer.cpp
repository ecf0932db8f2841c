// The balancing pipeline over boxes of a grid of cells (grid_balancer.hpp):
// re-decompositions and jagged shifts from gathered loads or per-cell costs.
#include "isocost/mpi/grid_balancer.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <numeric>

#include "balancer_report.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "pipeline.hpp"

namespace isocost::mpi {

using isocost::detail::exact;

std::string GridPlan::brief_report() const {
  std::string s = Decision::brief_report();
  if (!rebalance.method.empty())
    s += "; plan " + rebalance.method + ": imbalance " + exact(rebalance.measured_imbalance) +
         " -> " + exact(rebalance.predicted_imbalance) + ", " +
         std::to_string(rebalance.elements_moved) + " cells move" +
         (rebalance.converged() ? "" : " (NOT converged)");
  return s;
}

std::string GridPlan::full_report() const {
  std::string s = internal::decision_lines(*this);
  if (!rebalance.method.empty())
    s += "  plan: " + rebalance.brief_report() + (used_costs ? " (per-cell costs)" : "") + "\n";
  return s;
}

std::string GridEvent::to_json() const {
  auto j = internal::decision_json(*this);
  if (!rebalance.method.empty())
    j["plan"] = {{"method", rebalance.method},
                 {"costs", used_costs},
                 {"process_grid", rebalance.decomposition.process_grid.name()},
                 {"elements_moved", rebalance.elements_moved},
                 {"max_elements_received", rebalance.max_elements_received},
                 {"measured_imbalance", rebalance.measured_imbalance},
                 {"predicted_imbalance", rebalance.predicted_imbalance},
                 {"history_used", rebalance.history_used},
                 {"history_dropped", rebalance.history_dropped},
                 {"forecast", rebalance.forecast}};
  if (migration) internal::add_migration(j, *migration, seconds);
  return j.dump();
}

GridBalancer::GridBalancer(MPI_Comm comm, const GridShape& shape, Decomposition decomposition,
                           GridBalancerOptions options)
    : BalancerBase(options.pipeline),
      options_(std::move(options)),
      shape_(shape),
      decomposition_(std::move(decomposition)) {
  std::string problem, e;
  if (comm != MPI_COMM_NULL) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    if (!options_.is_valid(&e)) {
      problem = "options." + e;
    } else if (!decomposition_.on_grid_lines) {
      problem = "decomposition: not on grid lines; expected a decomposition of a grid of cells";
    } else {
      try {
        boxes_ = BoxDistribution::from_decomposition(decomposition_);
      } catch (const Error& x) {
        problem = std::string("decomposition: ") + x.what();
      }
    }
    for (int a = 0; problem.empty() && a < 3; ++a) {
      const std::int64_t want = a < shape_.dims ? shape_.cells[static_cast<std::size_t>(a)] : 1;
      if (boxes_.cells[static_cast<std::size_t>(a)] != want)
        problem = "decomposition: its grid is not the " + std::to_string(shape_.dims) +
                  "-D shape of " + std::to_string(shape_.count()) + " cells given";
    }
    if (problem.empty() && !boxes_.is_valid(&e)) problem = "decomposition: " + e;
    if (problem.empty() && boxes_.parts() != size)
      problem = "decomposition has " + std::to_string(boxes_.parts()) +
                " parts for a communicator of " + std::to_string(size) + " ranks";
    if (problem.empty() && options_.speeds && options_.speeds->ranks() != size)
      problem = std::to_string(options_.speeds->ranks()) + " speeds for " + std::to_string(size) +
                " ranks";
    if (problem.empty() && options_.pipeline.policy == BalancePolicy::diffusion &&
        decomposition_.process_grid.counts.size() > 2)
      problem = "policy diffusion: a " + std::to_string(decomposition_.process_grid.counts.size()) +
                "-level process grid has no diffusive plan (rows and jagged grids only)";
  }
  const internal::Same same[] = {{boxes_.hash(), "the decomposition"},
                                 internal::same_options(options_)};
  pipeline_->start(comm, "GridBalancer", problem, same);
}

GridBalancer::~GridBalancer() = default;

std::int64_t GridBalancer::local_count() const { return boxes_.count(rank()); }

void GridBalancer::set_observer(std::function<void(const GridEvent&)> observer) {
  observer_ = std::move(observer);
}

void GridBalancer::finish(GridEvent event) {
  event_ = std::move(event);
  pending_ = false;
  pipeline_->log(event_.to_json());
  if (observer_) observer_(event_);
}

namespace {

// Every rank's box costs (gathered in rank order) placed in `grid` (sized to
// the grid), x fastest.
void grid_costs(const BoxDistribution& boxes, const std::vector<double>& gathered,
                const std::vector<int>& displ, std::vector<double>& grid) {
  const std::int64_t nx = boxes.cells[0], ny = boxes.cells[1];
  for (std::size_t r = 0; r < boxes.boxes.size(); ++r) {
    const CellBox& b = boxes.boxes[r];
    std::size_t at = static_cast<std::size_t>(displ[r]);
    for (std::int64_t k = b.lo[2]; k < b.hi[2]; ++k)
      for (std::int64_t j = b.lo[1]; j < b.hi[1]; ++j)
        for (std::int64_t i = b.lo[0]; i < b.hi[0]; ++i)
          grid[static_cast<std::size_t>(i + nx * (j + ny * k))] = gathered[at++];
  }
}

}  // namespace

GridPlan GridBalancer::decide(double bytes) { return decide_data(bytes, {}); }

namespace {

// Two decompositions of the grid give every part the same cells.
bool same_cells(const Decomposition& a, const Decomposition& b) {
  if (a.parts.size() != b.parts.size()) return false;
  for (std::size_t r = 0; r < a.parts.size(); ++r)
    if (a.parts[r].cell_lo != b.parts[r].cell_lo || a.parts[r].cell_hi != b.parts[r].cell_hi)
      return false;
  return true;
}

}  // namespace

GridPlan GridBalancer::decide_data(double bytes, std::span<const std::size_t> sizes) {
  internal::Pipeline& p = *pipeline_;
  const char* what = "GridBalancer::decide";
  if (pending_) finish(event_);  // a moving plan that was never applied
  GridPlan plan;
  plan.step = p.monitor().steps();
  plan.from = plan.to = boxes_;
  plan.decomposition = decomposition_;
  std::string problem = have_costs_ ? check_costs(local_count(), "cell") : std::string();
  for (const std::size_t n : sizes)
    if (problem.empty() && static_cast<std::int64_t>(n) != local_count())
      problem =
          "holds " + std::to_string(n) + " cells, but its box has " + std::to_string(local_count());
  const internal::CheckNumbers c = p.check(what, plan.step, problem, bytes);
  if (!c.decided) {
    plan.reason = "not a check step";
    event_ = GridEvent{plan};
    p.post(plan.step, false, problem, bytes);
    return plan;
  }
  p.begin(plan, c);
  // As BlockBalancer: a forecast that just moved the data plans again.
  plan.following = !plan.check.fired && following_ && options_.predict > 1;
  if (!plan.check.fired && !plan.following) {
    finish(GridEvent{plan});
    p.post(plan.step, false, problem, bytes);
    return plan;
  }

  const double t0 = MPI_Wtime();
  const std::size_t P = static_cast<std::size_t>(p.size());
  // The gathered costs and the grid of them, allocated before the gather:
  // its flag carries a failure to every rank (as BlockBalancer::decide()).
  std::vector<double> gathered, cell_costs;
  double costs_flag = have_costs_ ? 1.0 : 0.0;  // -1: no memory for them
  if (have_costs_) {
    try {
      gathered.resize(static_cast<std::size_t>(boxes_.size()));
      cell_costs.resize(static_cast<std::size_t>(boxes_.size()));
    } catch (const std::bad_alloc&) {
      costs_flag = -1.0;
    }
  }
  const double mine[3] = {c.my_load, static_cast<double>(local_count()), costs_flag};
  std::vector<double> all(3 * P);
  MPI_Allgather(mine, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, p.comm());
  std::vector<double> loads(P), counts(P);
  std::size_t with_costs = 0;
  std::vector<int> no_memory;
  for (std::size_t r = 0; r < P; ++r) {
    loads[r] = all[3 * r];
    counts[r] = all[3 * r + 1];
    with_costs += all[3 * r + 2] != 0 ? 1 : 0;
    if (all[3 * r + 2] < 0) no_memory.push_back(static_cast<int>(r));
  }
  if (!no_memory.empty())
    throw Error(std::string(what) + ": out of memory on " +
                (no_memory.size() == 1 ? "rank " : "ranks ") + internal::rank_list(no_memory) +
                " (room for the " + std::to_string(boxes_.size()) +
                " per-cell costs); nothing decided");
  if (with_costs != 0 && with_costs != P)
    throw Error(std::string(what) + ": " + std::to_string(with_costs) + " of " + std::to_string(P) +
                " ranks gave per-cell costs; expected all or none");
  if (with_costs == P) {
    std::vector<int> n(P), displ(P, 0);
    for (std::size_t r = 0; r < P; ++r) n[r] = static_cast<int>(boxes_.count(int(r)));
    std::partial_sum(n.begin(), n.end() - 1, displ.begin() + 1);
    MPI_Allgatherv(costs_.data(), static_cast<int>(costs_.size()), MPI_DOUBLE, gathered.data(),
                   n.data(), displ.data(), MPI_DOUBLE, p.comm());
    grid_costs(boxes_, gathered, displ, cell_costs);
    plan.used_costs = true;
  }
  // From here every rank holds the same numbers and computes the same plan.
  const bool can_diffuse = decomposition_.process_grid.counts.size() <= 2;
  plan.action = p.choose(plan, mesh_graph(decomposition_.process_grid.counts, false), loads, counts,
                         bytes, can_diffuse);
  const Speeds speeds = options_.speeds.value_or(Speeds::uniform(static_cast<int>(P)));
  if (plan.action == Strategy::diffusion) {
    plan.rebalance =
        rebalance_grid_diffusive(shape_, decomposition_, loads, options_.diffusive, cell_costs);
  } else if (plan.action == Strategy::global && plan.used_costs) {
    plan.rebalance =
        rebalance_grid_weights(shape_, decomposition_, cell_costs, speeds, options_.weights);
    // Predicted times in the measured loads' units (see BlockBalancer).
    const double measured = std::accumulate(loads.begin(), loads.end(), 0.0);
    double now = 0;
    for (std::size_t r = 0; r < P; ++r) {
      const CellBox& b = boxes_.boxes[r];
      const std::int64_t nx = boxes_.cells[0], ny = boxes_.cells[1];
      double s = 0;
      for (std::int64_t k = b.lo[2]; k < b.hi[2]; ++k)
        for (std::int64_t j = b.lo[1]; j < b.hi[1]; ++j)
          for (std::int64_t i = b.lo[0]; i < b.hi[0]; ++i)
            s += cell_costs[static_cast<std::size_t>(i + nx * (j + ny * k))];
      now += s / speeds.speed(static_cast<int>(r));
    }
    if (now > 0)
      for (double& t : plan.rebalance.predicted_time) t *= measured / now;
  } else if (plan.action == Strategy::global) {
    plan.rebalance =
        rebalance_grid_global(shape_, decomposition_, loads, speeds, options_.global, history_);
  }
  if (options_.history > 0 && options_.predict <= 1) {  // the forecast plans without it
    // As BlockBalancer: a round on parts already kept replaces it.
    std::erase_if(history_,
                  [&](const GridRound& h) { return same_cells(h.parts, decomposition_); });
    history_.push_back({decomposition_, loads});
    if (static_cast<int>(history_.size()) > options_.history) history_.erase(history_.begin());
  }
  if (plan.action == Strategy::global && options_.predict > 1) forecast(plan);
  p.decided(plan, t0);
  if (!plan.moves()) {
    plan.reason = "the cost model predicts no gain";
  } else if (!p.profitable(plan,
                           static_cast<double>(plan.rebalance.max_elements_received) * bytes)) {
    plan.action = Strategy::none;
    plan.reason = "not profitable";
  } else if (plan.rebalance.elements_moved == 0) {
    plan.action = Strategy::none;
    plan.reason = "the plan moves nothing";
  } else {
    plan.decomposition = plan.rebalance.decomposition;
    plan.to = BoxDistribution::from_decomposition(plan.decomposition);
    plan.reason = "rebalanced";
  }
  following_ = plan.moves() && plan.rebalance.forecast;
  if (plan.moves()) {
    event_ = GridEvent{plan};
    pending_ = true;
  } else {
    finish(GridEvent{plan});
  }
  p.post(plan.step, plan.moves(), problem, bytes);
  return plan;
}

void GridBalancer::forecast(GridPlan& plan) {
  // As BlockBalancer::forecast(): the window's centre, the coming interval's.
  const double s = static_cast<double>(plan.step);
  const int n = pipeline_->monitor().window_steps();
  planned_.push_back({s - (n + 1) / 2.0, plan.rebalance.decomposition});
  if (static_cast<int>(planned_.size()) > options_.predict) planned_.erase(planned_.begin());
  Decomposition next = forecast_decomposition(
      planned_, s + (options_.pipeline.trigger.every - 1) / 2.0, shape_, options_.predict / 2.0);
  if (same_cells(next, plan.rebalance.decomposition)) return;
  GridRebalance& r = plan.rebalance;
  std::tie(r.elements_moved, r.max_elements_received) = grid_cells_moved(decomposition_, next);
  r.decomposition = std::move(next);
  r.forecast = true;
}

bool GridBalancer::check_plan(const GridPlan& plan) {
  const char* what = "GridBalancer::apply";
  const std::string stale =
      "the plan is not the latest decide()'s on the current boxes (applied already, or from "
      "another decision); expected the plan decide() just returned";
  // As BlockBalancer::check_plan(): pending_ is the same on every rank.
  if (!pending_) {
    if (!plan.moves()) return false;
    throw Error(std::string(what) + ": " + stale);
  }
  const bool latest = plan.moves() && plan.from.hash() == boxes_.hash() && plan.step == event_.step;
  internal::agree(comm(), what, latest ? std::string() : stale);
  return true;
}

void GridBalancer::applied(const GridPlan& plan, const RedistributeSummary& s, double seconds) {
  const double predicted =
      *std::max_element(plan.rebalance.predicted_time.begin(), plan.rebalance.predicted_time.end());
  GridEvent e{plan};
  e.seconds = pipeline_->rebalanced(plan, seconds, predicted);
  e.migration = s;
  boxes_ = plan.to;
  decomposition_ = plan.decomposition;
  clear_costs();
  finish(std::move(e));
}

}  // namespace isocost::mpi
