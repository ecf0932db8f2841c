// The balancing pipeline over 1-D blocks (block_balancer.hpp): the plans on
// gathered loads or costs, and the migration of the application's arrays.
#include "isocost/mpi/block_balancer.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <numeric>

#include "balancer_report.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "migrate_internal.hpp"
#include "pipeline.hpp"

namespace isocost::mpi {

using isocost::detail::exact;

std::string BlockPlan::brief_report() const {
  std::string s = Decision::brief_report();
  if (!rebalance.method.empty())
    s += "; plan " + rebalance.method + ": imbalance " + exact(rebalance.measured_imbalance) +
         " -> " + exact(rebalance.predicted_imbalance) + ", " +
         std::to_string(rebalance.elements_moved) + " elements move" +
         (rebalance.converged() ? "" : " (NOT converged)");
  return s;
}

std::string BlockPlan::full_report() const {
  std::string s = internal::decision_lines(*this);
  if (!rebalance.method.empty())
    s += "  plan: " + rebalance.brief_report() + (used_costs ? " (per-element costs)" : "") + "\n";
  return s;
}

std::string BlockEvent::to_json() const {
  auto j = internal::decision_json(*this);
  if (!rebalance.method.empty())
    j["plan"] = {{"method", rebalance.method},
                 {"costs", used_costs},
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

BlockBalancer::BlockBalancer(MPI_Comm comm, BlockDistribution distribution,
                             BlockBalancerOptions options)
    : BalancerBase(options.pipeline),
      options_(std::move(options)),
      distribution_(std::move(distribution)) {
  std::string problem, e;
  if (comm != MPI_COMM_NULL) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    if (!options_.is_valid(&e))
      problem = "options." + e;
    else if (!distribution_.is_valid(&e))
      problem = "distribution: " + e;
    else if (distribution_.parts() != size)
      problem = "distribution has " + std::to_string(distribution_.parts()) +
                " parts for a communicator of " + std::to_string(size) + " ranks";
    else if (options_.speeds && options_.speeds->ranks() != size)
      problem = std::to_string(options_.speeds->ranks()) + " speeds for " + std::to_string(size) +
                " ranks";
  }
  const internal::Same same[] = {{distribution_.hash(), "the distribution"},
                                 internal::same_options(options_)};
  pipeline_->start(comm, "BlockBalancer", problem, same);
}

BlockBalancer::~BlockBalancer() = default;

std::int64_t BlockBalancer::local_count() const { return distribution_.count(rank()); }
std::int64_t BlockBalancer::local_begin() const { return distribution_.begin(rank()); }

void BlockBalancer::set_observer(std::function<void(const BlockEvent&)> observer) {
  observer_ = std::move(observer);
}

void BlockBalancer::finish(BlockEvent event) {
  event_ = std::move(event);
  pending_ = false;
  pipeline_->log(event_.to_json());
  if (observer_) observer_(event_);
}

BlockPlan BlockBalancer::decide(double bytes) { return decide_data(bytes, {}); }

BlockPlan BlockBalancer::decide_data(double bytes, std::span<const std::size_t> sizes) {
  internal::Pipeline& p = *pipeline_;
  const char* what = "BlockBalancer::decide";
  if (pending_) finish(event_);  // a moving plan that was never applied: log it as decided
  BlockPlan plan;
  plan.step = p.monitor().steps();
  plan.from = plan.to = distribution_;
  std::string problem = have_costs_ ? check_costs(local_count(), "element") : std::string();
  for (const std::size_t n : sizes)
    if (problem.empty() && static_cast<std::int64_t>(n) != local_count())
      problem = "holds " + std::to_string(n) + " elements, but the distribution gives it " +
                std::to_string(local_count());
  const internal::CheckNumbers c = p.check(what, plan.step, problem, bytes);
  if (!c.decided) {
    plan.reason = "not a check step";
    event_ = BlockEvent{plan};
    p.post(plan.step, false, problem, bytes);
    return plan;
  }
  p.begin(plan, c);
  if (options_.balance_phases && c.phases_min != c.phases_max)
    throw Error(std::string(what) + ": the ranks registered between " + exact(c.phases_min) +
                " and " + exact(c.phases_max) +
                " phases; balance_phases needs the same phases on every rank");
  if (options_.balance_phases && !c.my_phases.empty()) p.check_phases(plan, c);
  // A forecast that just moved the data follows a moving load: a good plan
  // leaves the last window nearly balanced, but the load has moved on since.
  plan.following = !plan.check.fired && following_ && options_.predict > 1;
  if (!plan.check.fired && !plan.following) {
    finish(BlockEvent{plan});
    p.post(plan.step, false, problem, bytes);
    return plan;
  }

  const double t0 = MPI_Wtime();
  const std::size_t P = static_cast<std::size_t>(p.size());
  const std::size_t F = options_.balance_phases ? c.my_phases.size() : 0;
  // The whole cost vector, in element order (every rank needs all of it),
  // allocated before the gather: its flag carries a failure to every rank.
  std::vector<double> element_costs;
  double costs_flag = have_costs_ ? 1.0 : 0.0;  // -1: no memory for them
  if (have_costs_) {
    try {
      element_costs.resize(static_cast<std::size_t>(distribution_.size()));
    } catch (const std::bad_alloc&) {
      costs_flag = -1.0;
    }
  }
  // Every rank's (load, elements, costs flag[, phase loads]).
  std::vector<double> mine{c.my_load, static_cast<double>(local_count()), costs_flag};
  mine.insert(mine.end(), c.my_phases.begin(), c.my_phases.begin() + static_cast<long>(F));
  const std::size_t w = mine.size();
  std::vector<double> all(w * P);
  MPI_Allgather(mine.data(), static_cast<int>(w), MPI_DOUBLE, all.data(), static_cast<int>(w),
                MPI_DOUBLE, p.comm());
  std::vector<double> loads(P), counts(P), phase_loads(P * F);
  std::size_t with_costs = 0;
  std::vector<int> no_memory;
  for (std::size_t r = 0; r < P; ++r) {
    loads[r] = all[r * w];
    counts[r] = all[r * w + 1];
    with_costs += all[r * w + 2] != 0 ? 1 : 0;
    if (all[r * w + 2] < 0) no_memory.push_back(static_cast<int>(r));
    for (std::size_t f = 0; f < F; ++f) phase_loads[r * F + f] = all[r * w + 3 + f];
  }
  if (!no_memory.empty())
    throw Error(std::string(what) + ": out of memory on " +
                (no_memory.size() == 1 ? "rank " : "ranks ") + internal::rank_list(no_memory) +
                " (room for the " + std::to_string(distribution_.size()) +
                " per-element costs); nothing decided");
  if (with_costs != 0 && with_costs != P)
    throw Error(std::string(what) + ": " + std::to_string(with_costs) + " of " + std::to_string(P) +
                " ranks gave per-element costs; expected all or none");
  if (with_costs == P) {
    std::vector<int> n(P), displ(P, 0);
    for (std::size_t r = 0; r < P; ++r) n[r] = static_cast<int>(distribution_.count(int(r)));
    std::partial_sum(n.begin(), n.end() - 1, displ.begin() + 1);
    MPI_Allgatherv(costs_.data(), static_cast<int>(costs_.size()), MPI_DOUBLE, element_costs.data(),
                   n.data(), displ.data(), MPI_DOUBLE, p.comm());
    plan.used_costs = true;
  }
  // From here every rank holds the same numbers and computes the same plan.
  plan.action =
      p.choose(plan, mesh_graph({static_cast<int>(P)}, false), loads, counts, bytes, true);
  const Speeds speeds = options_.speeds.value_or(Speeds::uniform(static_cast<int>(P)));
  const auto& offsets = distribution_.offsets;
  if (plan.action == Strategy::diffusion) {
    plan.rebalance = rebalance_diffusive(offsets, loads, options_.diffusive, element_costs);
  } else if (plan.action == Strategy::global && plan.used_costs) {
    plan.rebalance = rebalance_weights(offsets, element_costs, speeds, options_.weights);
    // Predicted times in the measured loads' units: the costs' shape, the
    // loads' total (so the gain and the profitability compare like with like).
    double now = 0, measured = 0;
    for (std::size_t r = 0; r < P; ++r) measured += loads[r];
    for (std::size_t r = 0; r < P; ++r)
      for (std::int64_t k = offsets[r]; k < offsets[r + 1]; ++k)
        now += element_costs[static_cast<std::size_t>(k)] / speeds.speed(static_cast<int>(r));
    if (now > 0)
      for (double& t : plan.rebalance.predicted_time) t *= measured / now;
  } else if (plan.action == Strategy::global && F > 0) {
    plan.rebalance = rebalance_phases(offsets, phase_loads, speeds, options_.phases);
  } else if (plan.action == Strategy::global) {
    // With the forecast no history is kept: each plan is its window's alone.
    plan.rebalance = rebalance_global(offsets, loads, speeds, options_.global, history_);
    if (options_.predict > 1) forecast(plan);
  }
  if (options_.history > 0 && options_.predict <= 1) {  // the forecast plans without it
    // A round on a distribution already kept replaces it: repeated checks on
    // a settled distribution would otherwise crowd out the rounds that cut
    // elsewhere, which are what the history knows.
    std::erase_if(history_, [&](const BlockRound& h) { return h.offsets == offsets; });
    history_.push_back({offsets, loads});
    if (static_cast<int>(history_.size()) > options_.history) history_.erase(history_.begin());
  }
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
    plan.to.offsets = plan.rebalance.offsets;
    plan.reason = "rebalanced";
  }
  following_ = plan.moves() && plan.rebalance.forecast;
  if (plan.moves()) {
    event_ = BlockEvent{plan};
    pending_ = true;  // logged once apply() has moved the data
  } else {
    finish(BlockEvent{plan});
  }
  p.post(plan.step, plan.moves(), problem, bytes);
  return plan;
}

void BlockBalancer::forecast(BlockPlan& plan) {
  // The window's loads stand for its centre; the plan serves the steps up to
  // the next check (Eijkhout §4: the balancer otherwise lags the load).
  const double s = static_cast<double>(plan.step);
  const int n = pipeline_->monitor().window_steps();
  planned_.push_back({s - (n + 1) / 2.0, plan.rebalance.offsets});
  if (static_cast<int>(planned_.size()) > options_.predict) planned_.erase(planned_.begin());
  const double at = s + (options_.pipeline.trigger.every - 1) / 2.0;
  std::vector<std::int64_t> next = forecast_offsets(planned_, at, options_.predict / 2.0);
  if (next == plan.rebalance.offsets) return;
  BlockRebalance& r = plan.rebalance;
  r.offsets = std::move(next);
  r.forecast = true;
  std::tie(r.elements_moved, r.max_elements_received) =
      block_elements_moved(distribution_.offsets, r.offsets);
}

bool BlockBalancer::check_plan(const BlockPlan& plan, const std::function<std::string()>& prepare) {
  const char* what = "BlockBalancer::apply";
  const std::string stale =
      "the plan is not the latest decide()'s on the current distribution (applied already, or "
      "from another decision); expected the plan decide() just returned";
  // pending_ is the same on every rank (decide() is agreed): without a
  // pending plan no rank communicates, and a moving plan is stale everywhere.
  if (!pending_) {
    if (!plan.moves()) return false;
    throw Error(std::string(what) + ": " + stale);
  }
  // With one, every rank enters here: agree that every rank applies it.
  std::string problem;
  if (!plan.moves() || plan.from.offsets != distribution_.offsets || plan.step != event_.step)
    problem = stale;
  else if (prepare)
    problem = prepare();
  internal::agree(comm(), what, problem);
  return true;
}

void BlockBalancer::applied(const BlockPlan& plan, const RedistributeSummary& s, double seconds) {
  const double predicted =
      *std::max_element(plan.rebalance.predicted_time.begin(), plan.rebalance.predicted_time.end());
  BlockEvent e{plan};
  e.seconds = pipeline_->rebalanced(plan, seconds, predicted);
  e.migration = s;
  distribution_ = plan.to;
  clear_costs();  // they described the old ranges
  finish(std::move(e));
}

MigrateSummary BlockBalancer::apply(const BlockPlan& plan, const MigrationCallbacks& callbacks) {
  const double t0 = MPI_Wtime();
  const int rank = BalancerBase::rank();
  // Every element whose owner changes, with its global index as id; built
  // before the agreement, so that running out of memory is agreed too.
  std::vector<TaskMove> moves;
  std::vector<std::int64_t> held;
  const auto prepare = [&]() -> std::string {
    try {
      const auto& a = plan.from.offsets;
      const auto& b = plan.to.offsets;
      for (std::size_t r = 0; r + 1 < a.size(); ++r)
        for (std::size_t q = 0; q + 1 < b.size(); ++q) {
          if (q == r) continue;
          for (std::int64_t i = std::max(a[r], b[q]); i < std::min(a[r + 1], b[q + 1]); ++i)
            moves.push_back({i, static_cast<int>(r), static_cast<int>(q), 0.0});
        }
      held.resize(static_cast<std::size_t>(plan.from.count(rank)));
      std::iota(held.begin(), held.end(), plan.from.begin(rank));
    } catch (const std::bad_alloc&) {
      return "could not allocate the list of " + std::to_string(moves.size()) + "+ moves";
    }
    return {};
  };
  if (!check_plan(plan, prepare)) return {};
  MigrateOptions o;
  o.verify = verify();
  // All or nothing: a block distribution cannot leave an element behind, so
  // one failure rolls every move back and the plan stays pending.
  internal::RollBack rb;
  const MigrateSummary m =
      internal::migrate_elements(comm(), held, moves, callbacks, o, "BlockBalancer::apply", &rb);
  if (rb.rolled_back)  // the same list and counts on every rank
    throw Error("BlockBalancer::apply: " + std::to_string(m.failed.size()) +
                " elements could not move (first: element " + std::to_string(m.failed[0].id) +
                ", rank " + std::to_string(m.failed[0].from) + " -> " +
                std::to_string(m.failed[0].to) + ", at " + to_string(m.failed[0].stage) +
                "); every move was rolled back, the distribution is unchanged" +
                (rb.free_errors > 0 ? " (but " + std::to_string(rb.free_errors) +
                                          " unpacked copies could not be freed: free() threw)"
                                    : ""));
  RedistributeSummary s;
  s.rank = m.rank;
  s.ranks = m.ranks;
  s.elements_sent = m.elements_sent;
  s.elements_received = m.elements_received;
  s.bytes_sent = m.bytes_sent;
  s.bytes_received = m.bytes_received;
  s.global_elements = plan.from.size();
  s.global_elements_moved = m.global_moved;
  s.global_bytes_moved = m.global_bytes_moved;
  s.verified = m.verified;
  s.seconds = m.seconds;
  applied(plan, s, MPI_Wtime() - t0);
  return m;
}

}  // namespace isocost::mpi
