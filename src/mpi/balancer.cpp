// The balancing pipeline (balancer.hpp): measure, initiate, choose,
// repartition, migrate.
#include "isocost/mpi/balancer.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "agreement.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost::mpi {

using isocost::detail::exact;
using json = nlohmann::ordered_json;

std::string_view to_string(BalancePolicy policy) {
  switch (policy) {
    case BalancePolicy::choose:
      return "choose";
    case BalancePolicy::global:
      return "global";
    case BalancePolicy::diffusion:
      return "diffusion";
  }
  return "?";
}

std::string BalanceEvent::to_json() const {
  json j;
  j["step"] = step;
  j["checked"] = checked;
  if (checked) {
    j["check"] = {{"step", check.step},
                  {"t_min", check.t_min},
                  {"t_avg", check.t_avg},
                  {"t_max", check.t_max},
                  {"drift", check.drift},
                  {"efficiency", check.efficiency},
                  {"drift_fired", check.drift_fired},
                  {"efficiency_fired", check.efficiency_fired},
                  {"fired", check.fired}};
  }
  if (gain)
    j["gain"] = {{"rebalance_step", gain->rebalance_step},
                 {"t_max_before", gain->t_max_before},
                 {"t_max_after", gain->t_max_after},
                 {"predicted_t_max", gain->predicted_t_max},
                 {"measured_gain_per_step", gain->t_max_before - gain->t_max_after},
                 {"predicted_gain_per_step", gain->t_max_before - gain->predicted_t_max},
                 {"cost_seconds", gain->cost_seconds}};
  if (profit)
    j["profit"] = {{"saving", profit->saving},
                   {"cost", profit->cost},
                   {"source", to_string(profit->source)},
                   {"profitable", profit->profitable}};
  if (choice) j["choice"] = json::parse(choice->to_json());
  j["action"] = isocost::to_string(action);
  j["reason"] = reason;
  if (action != Strategy::none && !grid_plan.method.empty()) {
    j["plan"] = {{"method", grid_plan.method},
                 {"grid", grid_plan.decomposition.grid.name()},
                 {"elements_moved", grid_plan.elements_moved},
                 {"max_elements_received", grid_plan.max_elements_received},
                 {"measured_imbalance", grid_plan.measured_imbalance},
                 {"predicted_imbalance", grid_plan.predicted_imbalance}};
  } else if (action != Strategy::none) {
    j["plan"] = {{"method", plan.method},
                 {"elements_moved", plan.elements_moved},
                 {"max_elements_received", plan.max_elements_received},
                 {"measured_imbalance", plan.measured_imbalance},
                 {"predicted_imbalance", plan.predicted_imbalance}};
  }
  if (action != Strategy::none) {
    j["migration"] = {{"global_elements_moved", migration.global_elements_moved},
                      {"global_bytes_moved", migration.global_bytes_moved},
                      {"verified", migration.verified}};
    j["decision_seconds"] = decision_seconds;
    j["seconds"] = seconds;
  }
  return j.dump();
}

namespace {

// The check's reduction: tuples (min, max, sum, max) in one MPI_Allreduce
// with a user operation, so one collective carries the trigger's numbers, the
// error-agreement flag and the phase counts. Every rank must reach the same
// decision from them: min and max are exact, and the sum relies on
// MPI_Allreduce giving every rank the same result (MPI-3.1 §5.9.1 advises
// it; in OpenMPI's algorithms partners add the same two partial sums, and
// floating-point addition is commutative, or copy a result). Everything a
// plan needs comes from one MPI_Allgather after that.
void reduce_check(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const double*>(in);
  auto* b = static_cast<double*>(inout);
  for (int k = 0; k + 3 < *len; k += 4) {
    b[k] = std::min(a[k], b[k]);
    b[k + 1] = std::max(a[k + 1], b[k + 1]);
    b[k + 2] = a[k + 2] + b[k + 2];
    b[k + 3] = std::max(a[k + 3], b[k + 3]);
  }
}

}  // namespace

Balancer::Balancer(MPI_Comm comm, BlockDistribution distribution, BalancerOptions options)
    : options_(std::move(options)),
      monitor_(options_.monitor.is_valid(nullptr) ? options_.monitor : MonitorOptions{}) {
  distribution_ = std::move(distribution);
  std::string problem, e;
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_size(comm, &size_);
    if (!distribution_.is_valid(&e))
      problem = "distribution: " + e;
    else if (distribution_.parts() != size_)
      problem = "distribution has " + std::to_string(distribution_.parts()) +
                " parts for a communicator of " + std::to_string(size_) + " ranks";
  }
  init(comm, problem, distribution_.hash());
}

Balancer::Balancer(MPI_Comm comm, const GridShape& shape, Decomposition decomposition,
                   BalancerOptions options)
    : options_(std::move(options)),
      monitor_(options_.monitor.is_valid(nullptr) ? options_.monitor : MonitorOptions{}) {
  grid_ = true;
  shape_ = shape;
  decomposition_ = std::move(decomposition);
  std::string problem, e;
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_size(comm, &size_);
    if (!decomposition_.on_grid_lines) {
      problem = "decomposition: not on grid lines; expected a decomposition of a grid of cells";
    } else {
      try {
        boxes_ = BoxDistribution::from_decomposition(decomposition_);
      } catch (const Error& x) {
        problem = std::string("decomposition: ") + x.what();
      }
    }
    if (problem.empty()) {
      for (int a = 0; a < 3; ++a) {
        const std::int64_t want = a < shape_.dims ? shape_.cells[static_cast<std::size_t>(a)] : 1;
        if (boxes_.cells[static_cast<std::size_t>(a)] != want)
          problem = "decomposition: its grid is not the " + std::to_string(shape_.dims) +
                    "-D shape of " + std::to_string(shape_.count()) + " cells given";
      }
      if (problem.empty() && !boxes_.is_valid(&e)) problem = "decomposition: " + e;
      if (problem.empty() && boxes_.parts() != size_)
        problem = "decomposition has " + std::to_string(boxes_.parts()) +
                  " parts for a communicator of " + std::to_string(size_) + " ranks";
    }
  }
  init(comm, problem, boxes_.hash());
}

void Balancer::init(MPI_Comm comm, std::string problem, std::uint64_t distribution_hash) {
  if (comm == MPI_COMM_NULL) throw Error("Balancer: expected a communicator, got MPI_COMM_NULL");
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  std::string e;
  if (!options_.is_valid(&e))
    problem = "options: " + e;
  else if (!options_.plan.speeds.empty() &&
           options_.plan.speeds.size() != static_cast<std::size_t>(size_))
    problem = std::to_string(options_.plan.speeds.size()) + " speeds for " + std::to_string(size_) +
              " ranks";
  else if (grid_ && options_.policy == BalancePolicy::diffusion &&
           decomposition_.grid.counts.size() > 2)
    problem = "policy diffusion: a " + std::to_string(decomposition_.grid.counts.size()) +
              "-level grid has no diffusive plan (rows and jagged grids only)";
  if (problem.empty() && rank_ == 0 && !options_.log_path.empty()) {
    log_.open(options_.log_path, std::ios::trunc);
    if (!log_) problem = "cannot open the log '" + options_.log_path + "' for writing";
  }
  const internal::Same same[] = {
      {distribution_hash, grid_ ? "the decomposition" : "the distribution"},
      internal::same_options(options_)};
  internal::agree(comm, "Balancer", problem, same);
  MPI_Comm_dup(comm, &comm_);
  MPI_Op_create(&reduce_check, 1, &op_);
  if (options_.calibrate) calibrate();
}

Balancer::~Balancer() {
  // After MPI_Finalize nothing may be freed (an application that lets the
  // Balancer outlive MPI leaks the handles rather than aborting).
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (request_ != MPI_REQUEST_NULL) MPI_Wait(&request_, MPI_STATUS_IGNORE);
  if (op_ != MPI_OP_NULL) MPI_Op_free(&op_);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

// Pearce eq. 6: time pairwise MPI_Sendrecv of 8 B … 1 MiB (slowest pair,
// mean of 3) and fit α + β·bytes. One rank: data never leave it, cost 0.
void Balancer::calibrate() {
  if (size_ == 1) {
    options_.profit.comm = {};
    return;
  }
  const int partner = (rank_ ^ 1) < size_ ? (rank_ ^ 1) : MPI_PROC_NULL;
  std::vector<char> out(1 << 20, 1), in(1 << 20);
  std::vector<CommSample> samples;
  for (int bytes : {8, 1 << 10, 1 << 14, 1 << 17, 1 << 20}) {
    const int reps = 3;
    MPI_Barrier(comm_);
    const double t0 = MPI_Wtime();
    for (int r = 0; r < reps; ++r)
      MPI_Sendrecv(out.data(), bytes, MPI_CHAR, partner, 7, in.data(), bytes, MPI_CHAR, partner, 7,
                   comm_, MPI_STATUS_IGNORE);
    double dt = (MPI_Wtime() - t0) / reps, slowest = 0;
    MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm_);
    samples.push_back({static_cast<double>(bytes), std::max(slowest, 1e-9)});
  }
  options_.profit.comm = fit_comm_model(samples).model;
}

void Balancer::log(const BalanceEvent& e) {
  if (rank_ == 0 && log_.is_open()) {
    log_ << e.to_json() << '\n';
    log_.flush();
  }
  if (observer_) observer_(e);
}

BalanceEvent Balancer::step_impl(double element_bytes, std::size_t local_count,
                                 const Migrate& migrate) {
  BalanceEvent e;
  e.step = monitor_.steps();
  const bool due = is_check_step(e.step, options_.trigger.every);

  // This rank's part of a check: (load ×3, flag, phases ×3, 0), reduced to
  // (min, max, sum, any bad, min F, max F, ·, ·); and what is wrong with it.
  auto contribute = [&](double* out, double& load, std::vector<double>& phases,
                        std::string& problem) {
    load = monitor_.load();
    phases = monitor_.phase_means();
    problem.clear();
    if (monitor_.step_open())
      problem = "maybe_rebalance() called inside an open step";
    else if (!(load >= 0) || !std::isfinite(load))
      problem = "load " + exact(load) + ", expected a finite number >= 0";
    else if (static_cast<std::int64_t>(local_count) != this->local_count())
      problem = "holds " + std::to_string(local_count) + " elements, but the " +
                (grid_ ? "decomposition" : "distribution") + " gives it " +
                std::to_string(this->local_count());
    const double f = static_cast<double>(phases.size());
    const double values[8] = {load, load, load, problem.empty() ? 0.0 : 1.0, f, f, f, 0.0};
    std::copy(values, values + 8, out);
  };

  double numbers[8] = {};
  double my_load = 0;
  std::vector<double> my_phases;
  std::string problem;
  bool decide = false;
  if (options_.overlap) {
    if (request_ != MPI_REQUEST_NULL) {  // complete the check posted last call
      MPI_Wait(&request_, MPI_STATUS_IGNORE);
      std::copy(received_, received_ + 8, numbers);
      my_load = posted_load_;
      my_phases = posted_phases_;
      problem = posted_problem_;
      e.check.step = posted_step_;
      decide = true;
    }
  } else if (due) {
    double mine[8];
    contribute(mine, my_load, my_phases, problem);
    MPI_Allreduce(mine, numbers, 8, MPI_DOUBLE, op_, comm_);
    e.check.step = e.step;
    decide = true;
  }

  if (decide) {
    if (numbers[3] > 0) internal::throw_agreed(comm_, "Balancer::maybe_rebalance", problem);
    if (options_.balance_phases && numbers[4] != numbers[5])
      throw Error("Balancer::maybe_rebalance: the ranks registered between " + exact(numbers[4]) +
                  " and " + exact(numbers[5]) +
                  " phases; balance_phases needs the same phases on every rank");
    // The mean of equal loads can round a hair above them; keep it in range.
    const double avg = std::clamp(numbers[2] / size_, numbers[0], numbers[1]);
    e.check = check_trigger(e.check.step, numbers[0], avg, numbers[1], options_.trigger);
    e.checked = true;
    if (pending_gain_) {
      pending_gain_->t_max_after = e.check.t_max;
      e.gain = pending_gain_;
      pending_gain_.reset();
    }
    if (e.check.fired)
      decide_and_move(e, my_load, my_phases, element_bytes, local_count, migrate);
    else
      e.reason = "below the trigger";
    log(e);
  }

  // Post this step's check for the next call (overlap), unless this call
  // just rebalanced: its window was cleared and holds nothing yet.
  if (options_.overlap && due && e.action == Strategy::none) {
    contribute(sent_, posted_load_, posted_phases_, posted_problem_);
    posted_step_ = e.step;
    MPI_Iallreduce(sent_, received_, 8, MPI_DOUBLE, op_, comm_, &request_);
  }
  return e;
}

void Balancer::decide_and_move(BalanceEvent& e, double my_load,
                               const std::vector<double>& my_phases, double element_bytes,
                               std::size_t local_count, const Migrate& migrate) {
  const double t0 = MPI_Wtime();
  const std::size_t P = static_cast<std::size_t>(size_);
  const std::size_t F = options_.balance_phases ? my_phases.size() : 0;
  // Every rank's (load, elements[, phase loads]).
  std::vector<double> mine{my_load, static_cast<double>(local_count)};
  if (F > 0) mine.insert(mine.end(), my_phases.begin(), my_phases.end());
  std::vector<double> all(mine.size() * P);
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                static_cast<int>(mine.size()), MPI_DOUBLE, comm_);
  std::vector<double> loads(P), counts(P), phase_loads(P * F);
  for (std::size_t r = 0; r < P; ++r) {
    loads[r] = all[r * mine.size()];
    counts[r] = all[r * mine.size() + 1];
    for (std::size_t p = 0; p < F; ++p) phase_loads[r * F + p] = all[r * mine.size() + 2 + p];
  }
  // From here every rank holds the same numbers and computes the same plans
  // and decisions (the plans are deterministic; the measured times below are
  // made identical by a reduction).
  const BalancePolicy policy = options_.policy;
  const bool can_diffuse = !grid_ || decomposition_.grid.counts.size() <= 2;
  Strategy action = policy == BalancePolicy::global      ? Strategy::global
                    : policy == BalancePolicy::diffusion ? Strategy::diffusion
                                                         : Strategy::none;
  if (policy == BalancePolicy::choose) {
    StrategyOptions so = options_.strategy;
    so.steps = options_.profit.steps_ahead;
    so.comm = options_.profit.comm;
    so.element_bytes = element_bytes;
    if (options_.measure_decision && last_decision_seconds_) {
      // C_LbDecision: what the last decision measured (the plan is computed
      // after the choice, for the chosen strategy only).
      so.global_decision_seconds = *last_decision_seconds_;
      so.diffusion_decision_seconds = *last_decision_seconds_;
    }
    // The process graph diffusion would run on: the chain of blocks, or the
    // mesh of the process grid's levels.
    const ProcessGraph graph =
        grid_ ? mesh_graph(decomposition_.grid.counts, false) : mesh_graph({size_}, false);
    e.choice = choose_strategy(graph, loads, counts, so);
    action = e.choice->choice;
    if (action == Strategy::diffusion && !can_diffuse) {
      // No diffusive plan for 3 levels: the better of the other two.
      action = e.choice->time_global < e.choice->time_none ? Strategy::global : Strategy::none;
    }
  }
  const bool global = action == Strategy::global;
  // The chosen plan only.
  BlockRebalance plan;
  GridRebalance grid_plan;
  if (action != Strategy::none && grid_) {
    GridRebalanceOptions go;
    go.speeds = options_.plan.speeds;
    go.decompose = options_.decompose;
    go.diffusion = options_.plan.diffusion;
    go.shift = options_.plan.shift;
    grid_plan = global ? rebalance_grid_global(shape_, decomposition_, loads, go)
                       : rebalance_grid_diffusive(shape_, decomposition_, loads, go);
  } else if (action != Strategy::none) {
    const auto& offsets = distribution_.offsets;
    if (!global) {
      plan = rebalance_diffusive(offsets, loads, options_.plan);
    } else if (F > 0) {
      plan = rebalance_phases(offsets, phase_loads, options_.plan);
    } else {
      BlockRebalanceOptions with_history = options_.plan;
      with_history.history.insert(with_history.history.end(), history_.begin(), history_.end());
      plan = rebalance_global(offsets, loads, with_history);
    }
  }
  if (!grid_ && options_.history > 0) {
    history_.push_back({distribution_.offsets, loads});
    if (static_cast<int>(history_.size()) > options_.history) history_.erase(history_.begin());
  }
  double local = MPI_Wtime() - t0;
  MPI_Allreduce(&local, &e.decision_seconds, 1, MPI_DOUBLE, MPI_MAX, comm_);
  if (action == Strategy::none) {
    e.reason = "the cost model predicts no gain";
    return;
  }
  last_decision_seconds_ = e.decision_seconds;
  const std::int64_t moved = grid_ ? grid_plan.elements_moved : plan.elements_moved;
  const std::int64_t received =
      grid_ ? grid_plan.max_elements_received : plan.max_elements_received;
  ProfitabilityOptions po = options_.profit;
  if (options_.measure_decision) po.decision_seconds = e.decision_seconds;
  e.profit = assess_profitability(e.check.t_avg, e.check.t_max,
                                  static_cast<double>(received) * element_bytes, costs_, po);
  if (!e.profit->profitable) {
    e.reason = "not profitable";
    return;
  }
  if (moved == 0) {
    e.reason = "the plan moves nothing";
    return;
  }
  if (grid_) {
    BoxDistribution to = BoxDistribution::from_decomposition(grid_plan.decomposition);
    e.migration = migrate(nullptr, &to);
    boxes_ = std::move(to);
    decomposition_ = grid_plan.decomposition;
    e.grid_plan = grid_plan;
  } else {
    BlockDistribution to;
    to.offsets = plan.offsets;
    e.migration = migrate(&to, nullptr);
    distribution_ = std::move(to);
    e.plan = plan;
  }
  monitor_.clear_window();  // its loads were measured on the old ranges
  e.action = action;
  e.reason = "rebalanced";
  local = MPI_Wtime() - t0;
  MPI_Allreduce(&local, &e.seconds, 1, MPI_DOUBLE, MPI_MAX, comm_);
  costs_.push_back(e.seconds);
  const auto& predicted = grid_ ? grid_plan.predicted_time : plan.predicted_time;
  pending_gain_ =
      BalanceEvent::Gain{e.check.step, e.check.t_max, 0.0,
                         *std::max_element(predicted.begin(), predicted.end()), e.seconds};
}

}  // namespace isocost::mpi
