// The real runs of the cost_model example: one strategy over a scenario's
// steps, the three strategies in lockstep, and the calibration of a global
// rebalance's cost (see cost_model_scenarios.hpp).
#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <utility>

#include "cost_model_scenarios.hpp"
#include "example_support.hpp"
#include "isocost/error.hpp"
#include "isocost/mpi/samples.hpp"

namespace cost_model {

namespace {

using isocost::Strategy;
namespace mpi = isocost::mpi;

// What one element carries through a migration: value, index, units.
constexpr double kBytesPerElement = sizeof(double) + sizeof(std::int64_t) + sizeof(std::int32_t);
// A horizon so long that the profitability test (Watts §2.2.2) never vetoes
// a forced strategy: BalancePolicy::global/diffusion only skip the choice.
constexpr int kForcedHorizon = 1'000'000'000;

mpi::BlockBalancerOptions options_for(Strategy strategy, bool choose, int steps,
                                      const Calibration& cal) {
  mpi::BlockBalancerOptions o;
  auto& p = o.pipeline;
  p.monitor.clock = isocost::MonitorClock::cpu;  // ranks outnumber cores
  p.monitor.window = 1;                          // the decision sees the step just done
  p.trigger.every = 1;
  p.comm = cal.comm;                  // Pearce eq. 6, in CPU seconds as the runs are timed
  p.decision_seconds = cal.decision;  // eq. 5's C_LbDecision, measured at this N
  if (choose) {
    // The check always reaches the cost model: it, not the trigger, is on trial.
    p.policy = mpi::BalancePolicy::choose;
    p.trigger.drift_threshold = 0.0;
    p.steps_ahead = std::max(1, steps - 1);  // the steps left after the first
  } else if (strategy == Strategy::global) {
    p.policy = mpi::BalancePolicy::global;
    p.trigger.drift_threshold = 0.0;
    p.steps_ahead = kForcedHorizon;
  } else {
    // Diffusion after every step while T_max > (1 + threshold)·T_avg: the
    // stopping rule of the simulator (Alg. 2) that predicts it.
    p.policy = mpi::BalancePolicy::diffusion;
    p.trigger.drift_threshold.reset();
    p.trigger.min_efficiency = 1 / (1 + p.simulation.threshold);
    p.profit_trigger = false;  // the stopping rule alone (at this horizon anything pays)
    p.steps_ahead = kForcedHorizon;
  }
  return o;
}

// One strategy on one scenario: its cells, its balancer, its clock.
class Runner {
 public:
  Runner(MPI_Comm comm, const Scenario& sc, Strategy strategy, const Calibration& cal,
         Verdict* verdict)
      : comm_(comm),
        scenario_(sc),
        verdict_(verdict),
        b_(comm, mpi::BlockDistribution::uniform(sc.profile.elements, ranks(comm)),
           options_for(strategy, verdict != nullptr, sc.steps, cal)) {
    // The cells carry their global index, their value and their work units.
    const auto n = static_cast<std::size_t>(b_.local_count());
    index_.resize(n);
    value_.resize(n);
    units_.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
      index_[k] = b_.local_begin() + static_cast<std::int64_t>(k);
      value_[k] = 0.05 + 0.9 * std::fmod(0.6180339887 * static_cast<double>(index_[k]), 1.0);
      units_[k] = sc.profile.units(index_[k]);
    }
    out_.strategy = strategy;
  }

  // Step `step` (1 … S) and the balancer after it. Collective.
  void step(int step) {
    {
      auto scope = b_.step();
      step_work(value_, units_);
    }
    const auto stats = mpi::gather_load_stats(comm_, b_.monitor().last_step());
    const int S = scenario_.steps;
    out_.total += stats.max;
    out_.mean_efficiency += stats.efficiency / S;
    if (step == 1) out_.first_step = stats.max;
    if (step == S) return;  // no step left to gain from balancing
    const Strategy s = out_.strategy;
    const bool ask = verdict_ != nullptr && step == 1;
    if (!ask && s != Strategy::diffusion && !(s == Strategy::global && step == 1)) return;
    // The elements' modelled costs (their units), so that the plans cut on
    // them; costs and plan are the balancer's work, timed with it.
    const double c0 = examples::cpu_seconds();
    costs_.assign(units_.begin(), units_.end());
    b_.set_costs(costs_);
    const mpi::BlockPlan plan = b_.decide(kBytesPerElement);
    const double c1 = examples::cpu_seconds();
    if (ask) {  // the run without balancing asks the model, untimed, and ignores it
      verdict_->action = plan.action;
      verdict_->reason = plan.reason;
      if (plan.choice) verdict_->choice = *plan.choice;
      verdict_->first_step = out_.first_step;
      return;
    }
    if (plan.moves()) b_.apply(plan, value_, index_, units_);
    const double c2 = examples::cpu_seconds();
    const double mine[3] = {c1 - c0, c2 - c1, c2 - c0};
    double slowest[3] = {};
    MPI_Allreduce(mine, slowest, 3, MPI_DOUBLE, MPI_MAX, comm_);
    out_.balancing += slowest[2];
    out_.total += slowest[2];
    if (!plan.moves()) return;
    if (out_.rebalances == 0) {
      out_.decide_seconds = slowest[0];
      out_.apply_seconds = slowest[1];
      out_.received_bytes =
          static_cast<double>(plan.rebalance.max_elements_received) * kBytesPerElement;
    }
    ++out_.rebalances;
    out_.moved += plan.rebalance.elements_moved;
  }

  // The checks: this rank holds exactly its block, and the cells' results.
  // Collective.
  Run finish() {
    const long long lo = b_.local_begin();
    int ok = static_cast<long long>(index_.size()) == b_.local_count() ? 1 : 0;
    std::uint64_t h = 0;
    for (std::size_t k = 0; k < index_.size(); ++k) {
      ok = ok && index_[k] == lo + static_cast<long long>(k) &&
           units_[k] == scenario_.profile.units(index_[k]);
      h ^= examples::mix64(static_cast<std::uint64_t>(index_[k]) ^
                           examples::mix64(std::bit_cast<std::uint64_t>(value_[k])));
    }
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm_);
    MPI_Allreduce(&h, &out_.hash, 1, MPI_UINT64_T, MPI_BXOR, comm_);
    out_.blocks_ok = all_ok == 1;
    return out_;
  }

 private:
  static int ranks(MPI_Comm comm) {
    int P = 1;
    MPI_Comm_size(comm, &P);
    return P;
  }

  MPI_Comm comm_;
  const Scenario& scenario_;
  Verdict* verdict_;
  mpi::BlockBalancer b_;
  std::vector<std::int64_t> index_;
  std::vector<double> value_;
  std::vector<std::int32_t> units_;
  std::vector<double> costs_;
  Run out_;
};

}  // namespace

Run run(MPI_Comm comm, const Scenario& scenario, Strategy strategy, const Calibration& cal) {
  Runner r(comm, scenario, strategy, cal, nullptr);
  for (int step = 1; step <= scenario.steps; ++step) r.step(step);
  return r.finish();
}

std::array<Run, 3> run_lockstep(MPI_Comm comm, const Scenario& scenario, const Calibration& cal,
                                Verdict& verdict) {
  std::array<std::unique_ptr<Runner>, 3> runners;
  const Strategy order[3] = {Strategy::none, Strategy::global, Strategy::diffusion};
  for (int k = 0; k < 3; ++k)
    runners[k] =
        std::make_unique<Runner>(comm, scenario, order[k], cal, k == 0 ? &verdict : nullptr);
  for (int step = 1; step <= scenario.steps; ++step)
    for (auto& r : runners) r->step(step);
  return {runners[0]->finish(), runners[1]->finish(), runners[2]->finish()};
}

Calibration calibrate(MPI_Comm comm, long long elements) {
  int P = 1;
  MPI_Comm_size(comm, &P);
  // The fastest of 3 per profile: other work on the machine only ever makes
  // a rebalance slower, and the runs keep their fastest repeat too.
  std::vector<double> decide;
  std::vector<isocost::CommSample> data;
  const Calibration none;  // the timed runs are forced; their model is unused
  for (const auto& [shape, target] : {std::pair{"ramp", 1.3}, std::pair{"hot", 2.5}}) {
    const Scenario sc{make_profile(shape, target, elements, P), 2};
    Run best;
    for (int rep = 0; rep < 3; ++rep) {
      const Run r = run(comm, sc, Strategy::global, none);
      if (rep == 0 || r.balancing < best.balancing) best = r;
    }
    if (best.rebalances == 0) continue;
    decide.push_back(best.decide_seconds);
    data.push_back({best.received_bytes, best.apply_seconds});
  }
  Calibration c;
  c.samples = static_cast<int>(data.size());
  for (const double d : decide) c.decision += d / static_cast<double>(decide.size());
  try {  // eq. 6 through the two profiles' migrations
    c.comm = isocost::fit_comm_model(data).model;
  } catch (const isocost::Error&) {  // fewer than two sizes: a constant
    for (const auto& d : data) c.comm.latency += d.seconds / static_cast<double>(data.size());
  }
  return c;
}

Calibration median(const std::vector<Calibration>& history) {
  const auto mid = [&](auto field) {
    std::vector<double> v;
    for (const Calibration& c : history) v.push_back(field(c));
    std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  Calibration m;
  m.decision = mid([](const Calibration& c) { return c.decision; });
  m.comm.latency = mid([](const Calibration& c) { return c.comm.latency; });
  m.comm.per_byte = mid([](const Calibration& c) { return c.comm.per_byte; });
  m.samples = static_cast<int>(history.size());
  return m;
}

double unit_seconds(MPI_Comm comm) {
  std::vector<double> v(1000, 0.3);
  const std::vector<std::int32_t> u(v.size(), 200);
  const double t = examples::fastest_cpu_seconds(comm, 3, [&] { step_work(v, u); });
  double slowest = 0;
  MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  return slowest / 200000.0;
}

}  // namespace cost_model
