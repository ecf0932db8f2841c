// isocost/mpi/balancer.hpp — the balancing pipeline an application calls every
// time step (mpi layer): measure, initiate, choose, repartition, migrate
// (Watts ch. 2–3; Swartz §6; Pearce §5; Eijkhout: rebalancing is a copy
// between two distributions).
//
//   isocost::mpi::Balancer b(MPI_COMM_WORLD, isocost::mpi::BlockDistribution::uniform(N, P));
//   std::vector<double> cells(b.distribution().count(rank));
//   for (int step = 0; step < steps; ++step) {
//     {
//       auto s = b.step();            // times this rank's work in the step
//       compute(cells);
//     }
//     auto e = b.maybe_rebalance(cells);  // collective; moves cells when it pays
//   }
//
// What maybe_rebalance() does, every `trigger.every` steps:
//  1. Initiate: one MPI_Allreduce of (T_min, T_max, ΣT) of the ranks' window
//     loads (LoadMonitor::load()) → check_trigger() (drift, Swartz §6;
//     efficiency, Watts's mineff). With `overlap`, an MPI_Iallreduce is posted
//     instead and completed at the next call, which then decides exactly as
//     the blocking check would have at the step it was posted (Chrisochoides:
//     balancing should not stall the computation).
//  2. If it fired: one MPI_Allgather of (load, elements[, phase loads]) and
//     every rank computes the same plans (rebalance.hpp): the global
//     functional repartition and the diffusive one.
//  3. Profitability (Watts §2.2.2): saving (T_max − T_avg)·steps_ahead against
//     the mean measured cost of earlier rebalances, or before the first one
//     α + β·bytes (Pearce eq. 6, α and β calibrated at construction) plus
//     the measured decision time.
//  4. Choose (Pearce eqs 5–11, choose_strategy()): none, global or diffusion
//     by predicted run time, unless a policy forces one.
//  5. Migrate: redistribute() (MPI_Alltoallv of only what changes owner),
//     then one MPI_Allreduce (max) of the elapsed time: the measured cost.
// Every check is logged (JSON lines, rank 0) and passed to the observer; the
// next check after a rebalance also logs the measured gain.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "isocost/monitor.hpp"
#include "isocost/mpi/redistribute.hpp"
#include "isocost/rebalance.hpp"
#include "isocost/rebalance_grid.hpp"
#include "isocost/strategy.hpp"
#include "isocost/trigger.hpp"

namespace isocost::mpi {

/// What the balancer may do once a check fired and rebalancing pays.
enum class BalancePolicy {
  choose,     ///< Pearce's cost model picks none, global or diffusion
  global,     ///< always the global repartition
  diffusion,  ///< always the diffusive repartition
};
/// "choose", "global", "diffusion".
std::string_view to_string(BalancePolicy policy);

/// Settings for Balancer. Must be the same on every rank (checked).
struct BalancerOptions {
  MonitorOptions monitor;       ///< clock, window (Watts §3.2.2), hybrid loads
  TriggerOptions trigger;       ///< every k steps; drift and/or efficiency
  ProfitabilityOptions profit;  ///< steps ahead; comm model (see calibrate)
  StrategyOptions strategy;     ///< Pearce's model; steps and comm are taken from `profit`
  BlockRebalanceOptions plan;   ///< interpolation, model hook, speeds, diffusion, shift
  /// Grids: min widths (cells) and cut options of the new decompositions
  /// (plan.speeds, plan.diffusion and plan.shift apply too).
  DecomposeOptions decompose;
  BalancePolicy policy = BalancePolicy::choose;
  /// Time MPI_Sendrecv exchanges of 8 B … 1 MiB between rank pairs at
  /// construction and fit α, β (Pearce eq. 6) into profit.comm. Off: use
  /// profit.comm as given.
  bool calibrate = true;
  /// Earlier rounds of measurements merged into the global plan's
  /// cumulative cost (BlockRebalanceOptions::history), >= 0: with one load
  /// per rank each round adds P − 1 points of the cost's shape, but they go
  /// stale as the load moves. On the moving bell (tests/mpi) one round lifted
  /// the mean efficiency on 2 ranks from 0.72 to 0.82 and lowered it on 3, 4
  /// and 8 ranks (0.81 → 0.76, 0.81 → 0.70, 0.73 → 0.55); hence 0.
  int history = 0;
  /// Post the check as MPI_Iallreduce and decide at the next call.
  bool overlap = false;
  /// Phase-synchronised balance (Watts ch. 4): with phases registered, the
  /// global plan minimises Σ_phases max_ranks T (rebalance_phases()). 1-D
  /// only: grids balance the total.
  bool balance_phases = false;
  /// C_LbDecision (Pearce eq. 5) is measured: the gather, the choice and the
  /// chosen plan (max over ranks) — in the profitability of this rebalance,
  /// and in the next choice (the first uses strategy.*_decision_seconds).
  /// false: strategy.*_decision_seconds and profit.decision_seconds as given,
  /// which makes decisions reproducible.
  bool measure_decision = true;
  /// Verify migrations (global count and checksum; migrate.hpp).
  bool verify = false;
  /// JSON-lines log written by rank 0, one object per check ("" = none).
  std::string log_path;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  /// Every field steers what the ranks do together, so every one is compared.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("monitor", self.monitor);
    v("trigger", self.trigger);
    v("profit", self.profit);
    v("strategy", self.strategy);
    v("plan", self.plan);
    v("decompose", self.decompose);
    v("policy", self.policy);
    v("calibrate", self.calibrate);
    v("history", self.history, at_least(0));
    v("overlap", self.overlap);
    v("balance_phases", self.balance_phases);
    v("measure_decision", self.measure_decision);
    v("verify", self.verify);
    v("log_path", self.log_path);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("balancer options: …") unless is_valid().
  void validate() const { validate_options(*this, "balancer options"); }
};

/// What one call of maybe_rebalance() did. Identical on every rank except
/// `migration` (seen from this rank).
struct BalanceEvent {
  long long step = 0;                    ///< steps completed when the call was made
  bool checked = false;                  ///< a check was decided in this call
  TriggerCheck check;                    ///< its numbers (step: when it was taken)
  std::optional<Profitability> profit;   ///< when the check fired
  std::optional<StrategyChoice> choice;  ///< when profitable and policy == choose
  Strategy action = Strategy::none;      ///< what was done
  std::string reason;                    ///< why (one phrase)
  BlockRebalance plan;                   ///< 1-D: the plan migrated (action != none)
  GridRebalance grid_plan;               ///< grids: the plan migrated (action != none)
  RedistributeSummary migration;         ///< this rank's view of the migration
  double decision_seconds = 0;           ///< max over ranks: gather + plans + choice
  double seconds = 0;                    ///< max over ranks: the whole rebalance
  /// The previous rebalance's outcome, measured at this check: T_max then,
  /// T_max now, and the predicted T_max.
  struct Gain {
    long long rebalance_step = 0;
    double t_max_before = 0, t_max_after = 0, predicted_t_max = 0;
    double cost_seconds = 0;
  };
  std::optional<Gain> gain;

  /// One JSON object on one line (the log's format).
  std::string to_json() const;
};

/// The balancing pipeline over a 1-D block distribution, or over a 2-D/3-D
/// grid of cells decomposed into boxes (rows, jagged grids, 3-D sections).
/// Not copyable.
class Balancer {
 public:
  /// 1-D: N elements in blocks. Collective over `comm` (duplicated; freed by
  /// the destructor). Throws the same Error on every rank for an invalid or
  /// different distribution or options, or a distribution without one part
  /// per rank.
  Balancer(MPI_Comm comm, BlockDistribution distribution, BalancerOptions options = {});
  /// Grids: a decomposition on grid lines of `shape` cells (e.g. decompose()
  /// of a grid_density), parts in rank order; rank r's data are its box's
  /// cells, x fastest (BoxDistribution). The global plan re-decomposes with
  /// the same process grid (rebalance_grid_global()); the diffusive one shifts
  /// rows or jagged cuts (rebalance_grid_diffusive(); not for 3 levels, where
  /// Pearce's choice is between none and global). Collective, errors as above.
  Balancer(MPI_Comm comm, const GridShape& shape, Decomposition decomposition,
           BalancerOptions options = {});
  ~Balancer();
  Balancer(const Balancer&) = delete;
  Balancer& operator=(const Balancer&) = delete;

  /// This rank's load monitor (phases, tasks, predictions, synthetic steps).
  LoadMonitor& monitor() noexcept { return monitor_; }
  /// Times one step (RAII). Not collective.
  StepScope step() { return StepScope(monitor_); }
  /// Registers a phase (same order on every rank). Not collective.
  PhaseId add_phase(std::string_view name) { return monitor_.add_phase(name); }
  /// Times a phase inside the open step (RAII). Not collective.
  PhaseScope phase(PhaseId id) { return PhaseScope(monitor_, id); }

  /// True for a grid Balancer.
  bool grid() const noexcept { return grid_; }
  /// 1-D: the current distribution (the same on every rank).
  const BlockDistribution& distribution() const noexcept { return distribution_; }
  /// Grids: the current decomposition and its boxes (the same on every rank).
  const Decomposition& decomposition() const noexcept { return decomposition_; }
  const BoxDistribution& boxes() const noexcept { return boxes_; }
  /// Pearce eq. 6's α and β in use (calibrated or given).
  const CommModel& comm_model() const noexcept { return options_.profit.comm; }
  /// Measured costs (seconds) of the rebalances so far.
  const std::vector<double>& costs() const noexcept { return costs_; }
  /// Called on every rank after every check, with the event. Not collective.
  void set_observer(std::function<void(const BalanceEvent&)> observer) {
    observer_ = std::move(observer);
  }

  /// The pipeline step (see the file comment). Call it on every rank after
  /// every step, outside step scopes, with this rank's elements of the
  /// current distribution (1-D: its range; grids: its box, x fastest); they
  /// are replaced by its new range or box when a rebalance happens.
  /// Collective over the communicator on check steps (and, with `overlap`,
  /// the step after); no communication otherwise. Throws the same Error on
  /// every rank, nothing moved, if any rank's data size is not its count in
  /// the distribution, or a load is negative or not finite.
  template <class T>
  BalanceEvent maybe_rebalance(std::vector<T>& data) {
    static_assert(std::is_trivially_copyable_v<T>,
                  "Balancer moves elements as bytes; T must be trivially copyable");
    return step_impl(static_cast<double>(sizeof(T)), data.size(),
                     [&](const BlockDistribution* to, const BoxDistribution* to_boxes) {
                       std::vector<T> next;
                       RedistributeOptions o;
                       o.verify = options_.verify;
                       auto s = to ? redistribute_into(comm_, distribution_, *to, data, next, o)
                                   : redistribute_into(comm_, boxes_, *to_boxes, data, next, o);
                       data.swap(next);
                       return s;
                     });
  }

 private:
  using Migrate =
      std::function<RedistributeSummary(const BlockDistribution*, const BoxDistribution*)>;
  void init(MPI_Comm comm, std::string problem, std::uint64_t distribution_hash);
  std::int64_t local_count() const {
    return grid_ ? boxes_.count(rank_) : distribution_.count(rank_);
  }
  BalanceEvent step_impl(double element_bytes, std::size_t local_count, const Migrate& migrate);
  void decide_and_move(BalanceEvent& e, double my_load, const std::vector<double>& my_phases,
                       double element_bytes, std::size_t local_count, const Migrate& migrate);
  void calibrate();
  void log(const BalanceEvent& e);

  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Op op_ = MPI_OP_NULL;  // the check's (min, max, sum, flag) reduction
  int rank_ = 0, size_ = 1;
  bool grid_ = false;
  BlockDistribution distribution_;  // 1-D
  GridShape shape_;                 // grids
  Decomposition decomposition_;
  BoxDistribution boxes_;
  BalancerOptions options_;
  LoadMonitor monitor_;
  std::vector<double> costs_;
  std::optional<double> last_decision_seconds_;  // gather + choice + plan, last time
  std::vector<BlockRound> history_;              // the last options_.history rounds, oldest first
  std::function<void(const BalanceEvent&)> observer_;
  std::ofstream log_;
  // The posted nonblocking check (overlap): its request, buffers, and the
  // loads this rank had when it was posted.
  MPI_Request request_ = MPI_REQUEST_NULL;
  double sent_[8] = {}, received_[8] = {};
  long long posted_step_ = -1;
  double posted_load_ = 0;
  std::vector<double> posted_phases_;
  std::string posted_problem_;
  // The last rebalance, for the gain logged at the next check.
  std::optional<BalanceEvent::Gain> pending_gain_;
};

}  // namespace isocost::mpi
