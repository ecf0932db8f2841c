// The balancing pipeline over 1-D blocks (block_balancer.hpp): the plans on
// gathered loads or costs, and the migration of the application's arrays.
#include "isocost/mpi/block_balancer.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <nlohmann/json.hpp>
#include <numeric>

#include "isocost/error.hpp"
#include "mpi/balancer_report.hpp"
#include "mpi/migrate_internal.hpp"
#include "mpi/pipeline.hpp"

namespace isocost::mpi {

std::string BlockPlan::brief_report() const { return detail::plan_brief(*this, "elements"); }

std::string BlockPlan::full_report() const { return detail::plan_lines(*this, "element"); }

std::string BlockEvent::to_json() const { return detail::event_json(*this); }

bool BlockBalancerOptions::is_valid(std::string* why) const {
  if (!check_fields(*this, why)) return false;
  if (const char* e = detail::learning_conflict(learn_speeds, speeds.has_value(), global.history)) {
    if (why) *why = e;
    return false;
  }
  return true;
}

BlockBalancer::BlockBalancer(MPI_Comm comm, BlockDistribution distribution,
                             BlockBalancerOptions options)
    : LayoutBalancer(std::move(options), "BlockBalancer"), distribution_(std::move(distribution)) {
  start(
      comm, "distribution",
      [&]() -> std::string {
        std::string e;
        return distribution_.is_valid(&e) ? std::string() : "distribution: " + e;
      },
      [&] { return distribution_.hash(); });
}

BlockBalancer::~BlockBalancer() = default;

std::int64_t BlockBalancer::local_count() const { return distribution_.count(rank()); }
std::int64_t BlockBalancer::local_begin() const { return distribution_.begin(rank()); }

BlockPlan BlockBalancer::decide(double bytes) { return decide_data(bytes, {}); }

BlockPlan BlockBalancer::current_plan() const {
  BlockPlan plan;
  plan.from = plan.to = distribution_;
  return plan;
}

ProcessGraph BlockBalancer::process_graph() const {
  return mesh_graph({distribution_.parts()}, false);
}

void BlockBalancer::make_plan(BlockPlan& plan, const Inputs& in) {
  const auto& offsets = distribution_.offsets;
  if (plan.action == Strategy::diffusion) {
    plan.rebalance = rebalance_diffusive(offsets, in.loads, options_.diffusive, in.costs);
  } else if (plan.action == Strategy::global && plan.used_costs) {
    plan.rebalance = rebalance_weights(offsets, in.costs, in.speeds, options_.weights);
  } else if (plan.action == Strategy::global && in.phases > 0) {
    plan.rebalance = rebalance_phases(offsets, in.phase_loads, in.speeds, options_.phases);
  } else if (plan.action == Strategy::global) {
    // With the forecast no history is kept: each plan is its window's alone.
    plan.rebalance = rebalance_global(offsets, in.loads, in.speeds, options_.global, history_);
    if (options_.predict > 1) forecast(plan);
  }
}

std::optional<Speeds> BlockBalancer::plan_speeds(BlockPlan& plan,
                                                 const std::vector<double>& loads) {
  if (!options_.learn_speeds) return std::nullopt;
  // The kept rounds (a round on the current distribution is replaced by
  // this one, as remember() will) and the current round, oldest first.
  std::vector<BlockRound> rounds;
  for (const BlockRound& h : history_)
    if (h.offsets != distribution_.offsets) rounds.push_back(h);
  rounds.push_back({distribution_.offsets, loads});
  plan.learned = learn_speeds(rounds, options_.learning);
  if (const auto& used = tracker_.update(*plan.learned)) learned_ = Speeds::from_values(*used);
  return learned_;
}

void BlockBalancer::normalise_costs(Inputs& in) const {
  if (!options_.learn_speeds || !learned_) return;
  // Element i was timed on its current owner: time × speed is its cost.
  const auto& o = distribution_.offsets;
  for (int r = 0; r < distribution_.parts(); ++r) {
    const double s = learned_->speed(r);
    const auto q = static_cast<std::size_t>(r);
    if (q < in.cost_sums.size()) in.cost_sums[q] *= s;
    if (in.costs.empty()) continue;
    for (std::int64_t i = o[q]; i < o[q + 1]; ++i) in.costs[static_cast<std::size_t>(i)] *= s;
  }
}

void BlockBalancer::remember(const std::vector<double>& loads) {
  // A round on a distribution already kept replaces it: repeated checks on
  // a settled distribution would otherwise crowd out the rounds that cut
  // elsewhere, which are what the history knows.
  std::erase_if(history_, [&](const BlockRound& h) { return h.offsets == distribution_.offsets; });
  history_.push_back({distribution_.offsets, loads});
  if (static_cast<int>(history_.size()) > options_.global.history) history_.erase(history_.begin());
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
  detail::RollBack rb;
  const MigrateSummary m =
      detail::migrate_elements(comm(), held, moves, callbacks, o, "BlockBalancer::apply", &rb);
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
