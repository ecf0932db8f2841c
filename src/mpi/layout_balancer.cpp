// The pipeline over one layout (balancer.hpp's LayoutBalancer), written once
// for BlockBalancer and GridBalancer and compiled for both (the end of this
// file): the check, the gather, the choice, profitability, the history, the
// plan checks of apply() and the events. Each layout's plans are in its own
// file (block_balancer.cpp, grid_balancer.cpp).
#include <algorithm>
#include <cmath>
#include <new>
#include <numeric>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/mpi/block_balancer.hpp"
#include "isocost/mpi/grid_balancer.hpp"
#include "mpi/agreement.hpp"
#include "mpi/pipeline.hpp"

namespace isocost::mpi {

using isocost::detail::exact;

template <class Plan, class Event, class Options>
LayoutBalancer<Plan, Event, Options>::LayoutBalancer(Options options, const char* name)
    : BalancerBase(options.pipeline),
      options_(std::move(options)),
      name_(name),
      decide_what_(std::string(name) + "::decide"),
      apply_what_(std::string(name) + "::apply") {}

template <class Plan, class Event, class Options>
LayoutBalancer<Plan, Event, Options>::~LayoutBalancer() = default;

template <class Plan, class Event, class Options>
void LayoutBalancer<Plan, Event, Options>::start(
    MPI_Comm comm, const char* layout, const std::function<std::string()>& check_layout,
    const std::function<std::uint64_t()>& layout_hash) {
  std::string problem, e;
  if (comm != MPI_COMM_NULL) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    if (!options_.is_valid(&e))
      problem = "options." + e;
    else
      problem = check_layout();
    if (problem.empty() && parts() != size)
      problem = std::string(layout) + " has " + std::to_string(parts()) +
                " parts for a communicator of " + std::to_string(size) + " ranks";
    if (problem.empty() && options_.speeds && options_.speeds->ranks() != size)
      problem = std::to_string(options_.speeds->ranks()) + " speeds for " + std::to_string(size) +
                " ranks";
  }
  const detail::Same same[] = {{layout_hash(), std::string("the ") + layout},
                               detail::same_options(options_)};
  pipeline_->start(comm, name_, std::move(problem), same);
}

template <class Plan, class Event, class Options>
void LayoutBalancer<Plan, Event, Options>::set_observer(
    std::function<void(const Event&)> observer) {
  observer_ = std::move(observer);
}

template <class Plan, class Event, class Options>
void LayoutBalancer<Plan, Event, Options>::finish(Event event) {
  event_ = std::move(event);
  pending_ = false;
  pipeline_->log(event_.to_json());
  if (observer_) observer_(event_);
}

template <class Plan, class Event, class Options>
Plan LayoutBalancer<Plan, Event, Options>::decide_data(double bytes,
                                                       std::span<const std::size_t> sizes) {
  detail::Pipeline& p = *pipeline_;
  const std::string& what = decide_what_;
  if (pending_) finish(event_);  // a moving plan that was never applied: log it as decided
  Plan plan = current_plan();
  plan.step = p.monitor().steps();
  const std::int64_t local = part_count(rank());
  std::string problem = have_costs_ ? check_costs(local, unit()) : std::string();
  for (const std::size_t n : sizes)
    if (problem.empty() && static_cast<std::int64_t>(n) != local)
      problem = "holds " + std::to_string(n) + " " + unit() + "s, but the distribution gives it " +
                std::to_string(local);
  const detail::CheckNumbers c = p.check(what.c_str(), plan.step, problem, bytes);
  if (!c.decided) {
    plan.reason = "not a check step";
    event_ = Event{plan};
    p.post(plan.step, false, problem, bytes);
    return plan;
  }
  p.begin(plan, c);
  const bool phases = balance_phases();
  if (phases && c.phases_min != c.phases_max)
    throw Error(what + ": the ranks registered between " + exact(c.phases_min) + " and " +
                exact(c.phases_max) +
                " phases; balance_phases needs the same phases on every rank");
  if (phases && !c.my_phases.empty()) p.check_phases(plan, c);
  // A forecast that just moved the data follows a moving load: a good plan
  // leaves the last window nearly balanced, but the load has moved on since.
  plan.following = !plan.check.fired && following_ && options_.predict > 1;
  plan.pays = !plan.following && p.pays(plan);
  if (!plan.check.fired && !plan.following && !plan.pays) {
    finish(Event{plan});
    p.post(plan.step, false, problem, bytes);
    return plan;
  }

  const double t0 = MPI_Wtime();
  const std::size_t P = static_cast<std::size_t>(p.size());
  Inputs in;
  in.phases = phases ? c.my_phases.size() : 0;
  const std::size_t F = in.phases;
  // Every rank's (load, elements, has costs, Σ its costs[, phase loads]).
  double cost_sum = 0;
  for (const double v : costs_) cost_sum += v;
  std::vector<double> mine{c.my_load, static_cast<double>(local), have_costs_ ? 1.0 : 0.0,
                           cost_sum};
  mine.insert(mine.end(), c.my_phases.begin(), c.my_phases.begin() + static_cast<long>(F));
  const std::size_t w = mine.size();
  std::vector<double> all(w * P);
  MPI_Allgather(mine.data(), static_cast<int>(w), MPI_DOUBLE, all.data(), static_cast<int>(w),
                MPI_DOUBLE, p.comm());
  in.loads.resize(P);
  in.phase_loads.resize(P * F);
  in.cost_sums.resize(P);
  std::vector<double> counts(P);
  std::size_t with_costs = 0;
  for (std::size_t r = 0; r < P; ++r) {
    in.loads[r] = all[r * w];
    counts[r] = all[r * w + 1];
    with_costs += all[r * w + 2] != 0 ? 1 : 0;
    in.cost_sums[r] = all[r * w + 3];
    for (std::size_t f = 0; f < F; ++f) in.phase_loads[r * F + f] = all[r * w + 4 + f];
  }
  if (with_costs != 0 && with_costs != P)
    throw Error(what + ": " + std::to_string(with_costs) + " of " + std::to_string(P) +
                " ranks gave per-" + unit() + " costs; expected all or none");
  plan.used_costs = with_costs == P;
  // From here every rank holds the same numbers and computes the same plan.
  plan.action = p.choose(plan, process_graph(), in.loads, counts, bytes, can_diffuse());
  // Learned speeds only where a plan will use them.
  const std::optional<Speeds> learned =
      plan.action != Strategy::none ? plan_speeds(plan, in.loads) : std::nullopt;
  in.speeds = learned.value_or(options_.speeds.value_or(Speeds::uniform(static_cast<int>(P))));
  if (plan.used_costs && gathers_costs(plan.action)) gather_costs(in);
  if (plan.used_costs) normalise_costs(in);
  make_plan(plan, in);
  if (plan.action == Strategy::global && plan.used_costs) {
    // Predicted times in the measured loads' units: the costs' shape, the
    // loads' total (so the gain and the profitability compare like with like).
    const double measured = std::accumulate(in.loads.begin(), in.loads.end(), 0.0);
    double now = 0;
    for (std::size_t r = 0; r < P; ++r)
      now += in.cost_sums[r] / in.speeds.speed(static_cast<int>(r));
    if (now > 0)
      for (double& t : plan.rebalance.predicted_time) t *= measured / now;
  }
  if (options_.global.history > 0 && options_.predict <= 1)  // the forecast plans without it
    remember(in.loads);
  p.decided(plan, t0);
  const double received = static_cast<double>(plan.rebalance.max_elements_received) * bytes;
  if (!plan.moves()) {
    plan.reason = "the cost model predicts no gain";
  } else if (!p.profitable(plan, received)) {
    plan.action = Strategy::none;
    plan.reason = "not profitable";
  } else if (plan.rebalance.elements_moved == 0) {
    plan.action = Strategy::none;
    plan.reason = "the plan moves nothing";
  } else if (!predicts_gain(plan, received)) {
    plan.action = Strategy::none;
    plan.reason = "the plan predicts no gain worth its cost";
  } else {
    take_plan(plan);
    plan.reason = "rebalanced";
  }
  following_ = plan.moves() && plan.rebalance.forecast;
  if (plan.moves()) {
    event_ = Event{plan};
    pending_ = true;  // logged once apply() has moved the data
  } else {
    finish(Event{plan});
  }
  p.post(plan.step, plan.moves(), problem, bytes);
  return plan;
}

template <class Plan, class Event, class Options>
double LayoutBalancer<Plan, Event, Options>::residents_per_element() const {
  const std::int64_t n = total_count();
  return n > 0 ? static_cast<double>(last_exchange_.global_elements) / static_cast<double>(n) : 0.0;
}

template <class Plan, class Event, class Options>
void LayoutBalancer<Plan, Event, Options>::gather_costs(Inputs& in) {
  // Room for every rank's costs, agreed before the gather: a rank without
  // it stops every rank.
  const std::string& what = decide_what_;
  int no_memory = 0;
  try {
    in.costs.resize(static_cast<std::size_t>(total_count()));
  } catch (const std::bad_alloc&) {
    no_memory = 1;
  }
  const auto P = static_cast<std::size_t>(pipeline_->size());
  std::vector<int> flags(P);
  MPI_Allgather(&no_memory, 1, MPI_INT, flags.data(), 1, MPI_INT, comm());
  std::vector<int> short_of;
  for (std::size_t r = 0; r < P; ++r)
    if (flags[r] != 0) short_of.push_back(static_cast<int>(r));
  if (!short_of.empty())
    throw Error(what + ": out of memory on " + (short_of.size() == 1 ? "rank " : "ranks ") +
                detail::rank_list(short_of) + " (room for the " + std::to_string(total_count()) +
                " per-" + unit() + " costs); nothing decided");
  std::vector<int> n(P), displ(P, 0);
  for (std::size_t r = 0; r < P; ++r) n[r] = static_cast<int>(part_count(static_cast<int>(r)));
  std::partial_sum(n.begin(), n.end() - 1, displ.begin() + 1);
  MPI_Allgatherv(costs_.data(), static_cast<int>(costs_.size()), MPI_DOUBLE, in.costs.data(),
                 n.data(), displ.data(), MPI_DOUBLE, comm());
}

template <class Plan, class Event, class Options>
bool LayoutBalancer<Plan, Event, Options>::predicts_gain(const Plan& plan, double bytes) const {
  // A forecast is predicted on the loads as measured, not on its own cuts;
  // a phase plan lowers the synchronised time, which its total may not show.
  const auto& r = plan.rebalance;
  if (r.forecast || r.method() == PlanMethod::phases || r.predicted_time.empty()) return true;
  const double predicted = *std::max_element(r.predicted_time.begin(), r.predicted_time.end());
  return pipeline_->gains(plan, predicted, bytes);
}

template <class Plan, class Event, class Options>
bool LayoutBalancer<Plan, Event, Options>::check_plan(const Plan& plan,
                                                      const std::function<std::string()>& prepare) {
  const std::string& what = apply_what_;
  const std::string stale =
      "the plan is not the latest decide()'s on the current distribution (applied already, or "
      "from another decision); expected the plan decide() just returned";
  // pending_ is the same on every rank (decide() is agreed): without a
  // pending plan no rank communicates, and a moving plan is stale everywhere.
  if (!pending_) {
    if (!plan.moves()) return false;
    throw Error(what + ": " + stale);
  }
  // With one, every rank enters here: agree that every rank applies it.
  std::string problem;
  if (!plan.moves() || !is_current(plan) || plan.step != event_.step)
    problem = stale;
  else if (prepare)
    problem = prepare();
  detail::agree(comm(), what, problem);
  return true;
}

template <class Plan, class Event, class Options>
void LayoutBalancer<Plan, Event, Options>::applied(const Plan& plan, const RedistributeSummary& s,
                                                   double seconds) {
  const double predicted =
      *std::max_element(plan.rebalance.predicted_time.begin(), plan.rebalance.predicted_time.end());
  Event e{plan};
  e.seconds = pipeline_->rebalanced(plan, seconds, predicted);
  e.migration = s;
  adopt(plan);
  clear_costs();  // they described the old layout
  finish(std::move(e));
}

template class LayoutBalancer<BlockPlan, BlockEvent, BlockBalancerOptions>;
template class LayoutBalancer<GridPlan, GridEvent, GridBalancerOptions>;

}  // namespace isocost::mpi
