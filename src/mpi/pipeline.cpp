// The pipeline the balancers share (pipeline.hpp): the check, the choice,
// profitability, the measured costs and gains, the log.
#include "mpi/pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <vector>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost::mpi::detail {

using isocost::detail::exact;

namespace {

// The check's reduction: tuples (min, max, sum, max) in one MPI_Allreduce
// with a user operation, so one collective carries the trigger's numbers, the
// error-agreement flag, the phase counts and the bytes per element. Every
// rank must reach the same decision from them: min and max are exact, and the
// sum relies on MPI_Allreduce giving every rank the same result (MPI-3.1
// §5.9.1 advises it; in OpenMPI's algorithms partners add the same two
// partial sums, and floating-point addition is commutative, or copy a result).
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

Pipeline::Pipeline(const BalancerOptions& options)
    // An invalid monitor setting is reported by start(), agreed on every rank.
    : options_(options),
      monitor_(options.monitor.is_valid(nullptr) ? options.monitor : MonitorOptions{}) {}

Pipeline::~Pipeline() {
  // After MPI_Finalize nothing may be freed (an application that lets the
  // balancer outlive MPI leaks the handles rather than aborting).
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (request_ != MPI_REQUEST_NULL) MPI_Wait(&request_, MPI_STATUS_IGNORE);
  if (op_ != MPI_OP_NULL) MPI_Op_free(&op_);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void Pipeline::start(MPI_Comm comm, const char* who, std::string problem,
                     std::span<const Same> same) {
  if (comm == MPI_COMM_NULL)
    throw Error(std::string(who) + ": expected a communicator, got MPI_COMM_NULL");
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  if (problem.empty() && rank_ == 0 && !options_.log_path.empty()) {
    log_.open(options_.log_path, std::ios::trunc);
    if (!log_) problem = "cannot open the log '" + options_.log_path + "' for writing";
  }
  agree(comm, who, problem, same);
  MPI_Comm_dup(comm, &comm_);
  MPI_Op_create(&reduce_check, 1, &op_);
  if (options_.comm)
    comm_model_ = *options_.comm;
  else
    calibrate();
}

namespace {

// The models measured in this process, by the communicator's members (their
// ranks in MPI_COMM_WORLD, in order): a later balancer over the same
// processes reuses the measurement instead of repeating it.
std::mutex measured_lock;
std::map<std::vector<int>, CommModel>& measured_models() {
  static std::map<std::vector<int>, CommModel> models;
  return models;
}

std::vector<int> world_ranks(MPI_Comm comm) {
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int n = 0;
  MPI_Group_size(group, &n);
  std::vector<int> mine(static_cast<std::size_t>(n)), theirs(mine.size());
  std::iota(mine.begin(), mine.end(), 0);
  MPI_Group_translate_ranks(group, n, mine.data(), world, theirs.data());
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  // A process outside MPI_COMM_WORLD (spawned) has no world rank to tell it
  // apart: such a communicator is measured every time.
  if (std::find(theirs.begin(), theirs.end(), MPI_UNDEFINED) != theirs.end()) return {};
  return theirs;
}

}  // namespace

// Pearce eq. 6: time pairwise MPI_Sendrecv of 8 B … 1 MiB (slowest pair,
// mean of 3) and fit latency + per_byte·bytes. One rank: data never leave it.
// Once per set of processes: every rank holds the same model (the samples
// are maxima over the ranks), so a later balancer over them takes it from
// measured_models() when every rank has it (one MPI_Allreduce says so).
void Pipeline::calibrate() {
  if (size_ == 1) {
    comm_model_ = {};
    return;
  }
  const std::vector<int> key = world_ranks(comm_);  // empty: not to be kept
  int known = 0;
  if (!key.empty()) {
    std::lock_guard<std::mutex> hold(measured_lock);
    const auto it = measured_models().find(key);
    if (it != measured_models().end()) {
      comm_model_ = it->second;
      known = 1;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &known, 1, MPI_INT, MPI_MIN, comm_);
  if (known) return;
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
  comm_model_ = fit_comm_model(samples).model;
  if (key.empty()) return;
  std::lock_guard<std::mutex> hold(measured_lock);
  measured_models()[key] = comm_model_;
}

namespace {

// This rank's part of a check, (load ×3, flag, phases ×3, 0, bytes ×3, 0),
// reduced to (min, max, sum, any bad, …); and what is wrong with it.
void contribute(const LoadMonitor& m, const std::string& given, double bytes, double* out,
                double& load, std::vector<double>& phases, std::string& problem) {
  load = m.load();
  phases = m.phase_means();
  problem = given;
  if (problem.empty() && m.step_open())
    problem = "decide() called inside an open step";
  else if (problem.empty() && (!(load >= 0) || !std::isfinite(load)))
    problem = isocost::detail::expected_got("load", "a finite number >= 0", exact(load));
  else if (problem.empty() && (!(bytes >= 0) || !std::isfinite(bytes)))
    problem =
        isocost::detail::expected_got("bytes per element", "a finite number >= 0", exact(bytes));
  const double f = static_cast<double>(phases.size());
  const double values[] = {load,  load,  load, problem.empty() ? 0.0 : 1.0, f, f, f, 0.0, bytes,
                           bytes, bytes, 0.0};
  std::copy(std::begin(values), std::end(values), out);
}

}  // namespace

CheckNumbers Pipeline::check(const char* who, long long step, const std::string& problem,
                             double bytes) {
  CheckNumbers c;
  double numbers[kNumbers] = {};
  std::string mine;
  if (options_.overlap) {
    if (request_ != MPI_REQUEST_NULL) {  // complete the check posted last call
      MPI_Wait(&request_, MPI_STATUS_IGNORE);
      std::copy(received_, received_ + kNumbers, numbers);
      c.my_load = posted_load_;
      c.my_phases = posted_phases_;
      mine = posted_problem_;
      c.step = posted_step_;
      c.decided = true;
    }
  } else if (is_check_step(step, options_.trigger.every)) {
    double values[kNumbers];
    contribute(monitor_, problem, bytes, values, c.my_load, c.my_phases, mine);
    MPI_Allreduce(values, numbers, kNumbers, MPI_DOUBLE, op_, comm_);
    c.step = step;
    c.decided = true;
  }
  if (!c.decided) return c;
  if (numbers[3] > 0) throw_agreed(comm_, who, mine);
  if (numbers[8] != numbers[9])  // the reduced min and max: the same on every rank
    throw Error(std::string(who) + ": the ranks gave between " + exact(numbers[8]) + " and " +
                exact(numbers[9]) + " bytes per element; expected the same on every rank");
  c.phases_min = numbers[4];
  c.phases_max = numbers[5];
  c.t_min = numbers[0];
  c.t_max = numbers[1];
  // The mean of equal loads can round a hair above them; keep it in range.
  c.t_avg = std::clamp(numbers[2] / size_, numbers[0], numbers[1]);
  return c;
}

void Pipeline::post(long long step, bool moved, const std::string& problem, double bytes) {
  if (!options_.overlap || moved || !is_check_step(step, options_.trigger.every)) return;
  contribute(monitor_, problem, bytes, sent_, posted_load_, posted_phases_, posted_problem_);
  posted_step_ = step;
  MPI_Iallreduce(sent_, received_, kNumbers, MPI_DOUBLE, op_, comm_, &request_);
}

void Pipeline::begin(Decision& d, const CheckNumbers& c) {
  d.check = check_trigger(c.step, c.t_min, c.t_avg, c.t_max, options_.trigger);
  d.checked = true;
  if (pending_gain_) {
    pending_gain_->t_max_after = d.check.t_max;
    d.gain = pending_gain_;
    pending_gain_.reset();
  }
  d.reason = d.check.fired ? "" : "below the trigger";
}

void Pipeline::check_phases(Decision& d, const CheckNumbers& c) {
  const std::size_t F = c.my_phases.size();
  std::vector<double> mine(4 * F, 0.0), all(4 * F);
  for (std::size_t p = 0; p < F; ++p)
    std::fill_n(mine.begin() + static_cast<long>(4 * p), 3, c.my_phases[p]);
  MPI_Allreduce(mine.data(), all.data(), static_cast<int>(all.size()), MPI_DOUBLE, op_, comm_);
  double lo = 0, hi = 0, sum = 0;
  for (std::size_t p = 0; p < F; ++p) lo += all[4 * p], hi += all[4 * p + 1], sum += all[4 * p + 2];
  d.phase_check = check_trigger(c.step, lo, std::clamp(sum / size_, lo, hi), hi, options_.trigger);
  if (d.phase_check->fired && !d.check.fired) {
    d.check.fired = true;
    d.reason = "";
  }
}

bool Pipeline::pays(const Decision& d) const {
  if (!options_.profit_trigger || d.check.fired) return false;
  // Watts §2.2.2 as the trigger: the saving against what rebalancing has
  // cost, or before the first a message and a decision (Pearce eqs 5–6; the
  // bytes are known once there is a plan, and profitable() weighs them).
  const TriggerCheck& t = d.phase_check ? *d.phase_check : d.check;
  ProfitabilityOptions po;
  po.cost = cost(last_decision_seconds_.value_or(0));
  po.expected_improvement = options_.expected_improvement;
  return assess_profitability(t.t_avg, t.t_max, 0, measured_costs(0), po).profitable;
}

RebalanceCostOptions Pipeline::cost(double measured_decision_seconds) const {
  RebalanceCostOptions c;
  c.steps_ahead = options_.steps_ahead;
  c.comm = comm_model_;
  c.decision_seconds = options_.decision_seconds.value_or(measured_decision_seconds);
  return c;
}

Strategy Pipeline::choose(Decision& d, const ProcessGraph& graph, std::span<const double> loads,
                          std::span<const double> elements, double bytes, bool can_diffuse) {
  switch (options_.policy) {
    case BalancePolicy::global:
      return Strategy::global;
    case BalancePolicy::diffusion:
      return Strategy::diffusion;
    case BalancePolicy::choose:
      break;
  }
  // C_LbDecision: given, or what the last decision measured (the plan is
  // computed after the choice, for the chosen strategy only); one diffusion
  // step is taken to cost as much.
  StrategyOptions so;
  so.cost = cost(last_decision_seconds_.value_or(0));
  so.element_bytes = bytes;
  so.diffusion_decision_seconds = so.cost.decision_seconds;
  so.simulation = options_.simulation;
  d.choice = choose_strategy(graph, loads, elements, so);
  Strategy action = d.choice->choice;
  if (action == Strategy::diffusion && !can_diffuse)  // no diffusive plan: the better other
    action = d.choice->time_global < d.choice->time_none ? Strategy::global : Strategy::none;
  return action;
}

void Pipeline::decided(Decision& d, double t0) {
  const double local = MPI_Wtime() - t0;
  MPI_Allreduce(&local, &d.decision_seconds, 1, MPI_DOUBLE, MPI_MAX, comm_);
  if (d.moves()) last_decision_seconds_ = d.decision_seconds;
}

std::vector<double> Pipeline::measured_costs(double bytes) const {
  std::vector<double> out;
  for (const Spent& s : spent_) {
    if (!(bytes > 0) || !(s.bytes > 0)) {
      out.push_back(s.decision + s.migration);
      continue;
    }
    const double latency = std::min(comm_model_.latency, s.migration);
    out.push_back(s.decision + latency + (s.migration - latency) * (bytes / s.bytes));
  }
  return out;
}

bool Pipeline::profitable(Decision& d, double received_bytes) {
  ProfitabilityOptions po;
  po.cost = cost(d.decision_seconds);
  po.expected_improvement = options_.expected_improvement;
  // Phases that synchronise wait for each phase's slowest rank: the step
  // takes Σ_p T_max,p >= the slowest total, and that is what a plan saves.
  const TriggerCheck& t = d.phase_check ? *d.phase_check : d.check;
  d.received_bytes = received_bytes;
  d.profit =
      assess_profitability(t.t_avg, t.t_max, received_bytes, measured_costs(received_bytes), po);
  return d.profit->profitable;
}

bool Pipeline::gains(const Decision& d, double predicted_t_max, double received_bytes) const {
  const double t_max = d.check.t_max;
  if (!(predicted_t_max < t_max)) return false;
  ProfitabilityOptions po;
  po.cost = cost(d.decision_seconds);
  po.expected_improvement = options_.expected_improvement;
  return assess_profitability(predicted_t_max, t_max, received_bytes,
                              measured_costs(received_bytes), po)
      .profitable;
}

double Pipeline::rebalanced(const Decision& d, double seconds, double predicted_t_max) {
  double migration = 0;
  MPI_Allreduce(&seconds, &migration, 1, MPI_DOUBLE, MPI_MAX, comm_);
  const double cost = d.decision_seconds + migration;
  spent_.push_back({d.decision_seconds, migration, d.received_bytes});
  monitor_.clear_window();  // its loads were measured on the old distribution
  pending_gain_ = Decision::Gain{d.check.step, d.check.t_max, 0.0, predicted_t_max, cost};
  return cost;
}

void Pipeline::log(const std::string& json) {
  if (rank_ == 0 && log_.is_open()) {
    log_ << json << '\n';
    log_.flush();
  }
}

}  // namespace isocost::mpi::detail
