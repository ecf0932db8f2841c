// isocost/mpi/balancer.hpp — what the two balancers share (mpi layer): the
// pipeline settings and the decision a check makes. The balancers themselves
// are BlockBalancer (1-D blocks of elements, block_balancer.hpp) and
// GridBalancer (boxes of a 2-D/3-D grid of cells, grid_balancer.hpp).
//
// The pipeline (Watts ch. 2–3; Swartz §6; Pearce §5; Eijkhout: rebalancing is
// a copy between two distributions), run by decide() every `trigger.every`
// steps:
//  1. Initiate: one MPI_Allreduce of (T_min, T_max, ΣT) of the ranks' window
//     loads (LoadMonitor::load()) → check_trigger() (drift, Swartz §6;
//     efficiency, Watts's mineff). With `overlap` an MPI_Iallreduce is posted
//     instead and completed at the next decide(), which then decides exactly
//     as the blocking check would have at the step it was posted
//     (Chrisochoides: balancing should not stall the computation). Below
//     the trigger the check still plans when removing the imbalance would
//     pay for a rebalance at its measured cost (`profit_trigger`).
//  2. If it fired: one MPI_Allgather of (load, elements[, phase loads]) —
//     and, when the code gave per-element or per-cell costs, an
//     MPI_Allgatherv of those — after which every rank computes the same
//     decision and plan.
//  3. Choose (Pearce eqs 5–11, choose_strategy()): none, global or diffusion
//     by predicted run time, unless the policy forces one; then only the
//     chosen plan is computed.
//  4. Profitability (Watts §2.2.2): the saving (T_max − T_avg)·steps_ahead
//     against the mean measured cost of earlier rebalances or, before the
//     first, latency + per_byte·bytes (Pearce eq. 6) plus the decision time;
//     then the same test on the plan's own predicted T_max, so that a plan
//     the history predicts no better than the current layout is not carried
//     out.
//  5. apply(plan, arrays…) migrates (only what changes owner) and clears the
//     timing window: its loads were measured on the old distribution.
// Every check is logged (JSON lines, rank 0) and passed to the observer; the
// next check after a rebalance also logs the measured gain.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "isocost/diffusion.hpp"
#include "isocost/monitor.hpp"
#include "isocost/mpi/exchange.hpp"
#include "isocost/mpi/redistribute.hpp"
#include "isocost/options.hpp"
#include "isocost/partition.hpp"
#include "isocost/strategy.hpp"
#include "isocost/trigger.hpp"

namespace isocost::mpi {

/// What a balancer may do once a check fired and rebalancing pays.
enum class BalancePolicy {
  choose,     ///< Pearce's cost model picks none, global or diffusion
  global,     ///< always the global repartition
  diffusion,  ///< always the diffusive repartition
};
/// "choose", "global", "diffusion" ("?" for other values).
std::string_view to_string(BalancePolicy policy);

/// The pipeline settings both balancers share. Every field must be the same
/// on every rank (checked by the constructor, naming the fields that differ).
struct BalancerOptions {
  /// Clock, window (Watts §3.2.2) and hybrid loads of the load monitor.
  /// Defaults: the wall clock, a window of 10 steps. Use MonitorClock::cpu
  /// when ranks outnumber cores (a descheduled rank's wall time is not its
  /// load).
  MonitorOptions monitor;
  /// When to check: every `trigger.every` steps (default 10), on drift (> 10 %
  /// by default) and/or efficiency.
  TriggerOptions trigger;
  /// Pearce's horizon: the steps over which a rebalance must pay off and over
  /// which the strategies are compared, >= 1.
  int steps_ahead = 100;
  /// Fraction of T_max − T_avg a rebalance is expected to remove, in (0, 1]
  /// (Watts §2.2.2).
  double expected_improvement = 1.0;
  /// Also plan at a check the trigger did not fire when a rebalance would
  /// pay (Watts §2.2.2 as the trigger; Decision::pays): when the saving
  /// (T_max − T_avg)·steps_ahead·expected_improvement exceeds the mean
  /// measured cost of the rebalances so far (before the first: the comm
  /// model's latency plus the decision time). The data then move only if
  /// the plan is profitable for the bytes it moves and predicts a lower
  /// T_max that pays for them. Without it an imbalance below the drift
  /// threshold is lost at every step; turn it off (or lower
  /// expected_improvement) when step times are so noisy that the loads'
  /// differences are mostly noise.
  bool profit_trigger = true;
  /// Latency and per-byte cost of moving data (Pearce eq. 6). Empty: measured
  /// at construction with MPI_Sendrecv exchanges of 8 B … 1 MiB between rank
  /// pairs (comm_model() tells what was measured), once per set of processes:
  /// a later balancer over the same processes reuses it.
  std::optional<CommModel> comm;
  /// C_LbDecision (Pearce eq. 5): the seconds a global repartition's decision
  /// costs, and one diffusion step's. Empty: measured — the gather, the choice
  /// and the chosen plan of the last decision, max over ranks (0 before the
  /// first) — which makes decisions depend on timing; set it for
  /// reproducible ones.
  std::optional<double> decision_seconds;
  /// Pearce's diffusion simulator (Alg. 2) behind the choice.
  SimulationOptions simulation;
  BalancePolicy policy = BalancePolicy::choose;
  /// Post the check as MPI_Iallreduce and decide at the next decide().
  bool overlap = false;
  /// Verify migrations (global count and checksum; redistribute.hpp).
  bool verify = false;
  /// JSON-lines log written by rank 0, one object per check ("" = none).
  std::string log_path;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("monitor", self.monitor);
    v("trigger", self.trigger);
    v("steps_ahead", self.steps_ahead, at_least(1));
    v("expected_improvement", self.expected_improvement, left_open(0, 1));
    v("profit_trigger", self.profit_trigger);
    v("comm", self.comm);
    v("decision_seconds", self.decision_seconds, at_least(0));
    v("simulation", self.simulation);
    v("policy", self.policy);
    v("overlap", self.overlap);
    v("verify", self.verify);
    v("log_path", self.log_path);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("balancer options: …") unless is_valid().
  void validate() const { validate_options(*this, "balancer options"); }
};

/// What one decide() decided, identical on every rank.
struct Decision {
  long long step = 0;    ///< steps completed when decide() was called
  bool checked = false;  ///< a check was decided in this call (it was collective)
  TriggerCheck check;    ///< its numbers (check.step: when the loads were taken)
  /// BlockBalancer with balance_phases: the same trigger on the phases'
  /// synchronised times (T_min, T_avg, T_max each summed over the phases, so
  /// the efficiency is Watts's Σ_p T_avg / Σ_p T_max). A check fires when
  /// either fires: ranks can be balanced in total while each phase waits
  /// for its slowest rank (Watts §4.2).
  std::optional<TriggerCheck> phase_check;
  /// The check planned although the trigger did not fire: the last plan was
  /// a forecast that moved the data (`predict`), and a load that moves keeps
  /// moving while the window it left behind looks balanced.
  bool following = false;
  /// The check planned although the trigger did not fire: removing
  /// T_max − T_avg would pay for a rebalance at the mean measured cost of the
  /// earlier ones (before the first, at a message and a decision;
  /// BalancerOptions::profit_trigger).
  bool pays = false;
  /// When a plan was computed: its saving against the cost of rebalancing,
  /// the measured costs of earlier rebalances each scaled to this plan's
  /// bytes (Pearce eq. 6 is linear in them) or, before any, the comm model.
  std::optional<Profitability> profit;
  double received_bytes = 0;             ///< the plan's most bytes into one rank (when planned)
  std::optional<StrategyChoice> choice;  ///< when the check fired and policy == choose
  /// What apply() will do: Strategy::none moves nothing (and communicates
  /// nothing); global or diffusion migrate to the plan's new distribution.
  Strategy action = Strategy::none;
  std::string reason;           ///< why, in a phrase
  double decision_seconds = 0;  ///< max over ranks: gather + choice + plan
  /// The previous rebalance's outcome, measured at this check: T_max then,
  /// T_max now, and what its plan predicted.
  struct Gain {
    long long rebalance_step = 0;
    double t_max_before = 0, t_max_after = 0, predicted_t_max = 0;
    double cost_seconds = 0;
  };
  std::optional<Gain> gain;

  /// True when apply() moves data.
  bool moves() const noexcept { return action != Strategy::none; }
  /// One line: step, check, action and reason.
  std::string brief_report() const;
};

namespace detail {
class Pipeline;
}

/// What BlockBalancer and GridBalancer share: measuring this rank's steps,
/// the code's own costs, the comm model and the rebalances' measured costs.
/// Nothing here is collective. Not used on its own.
class BalancerBase {
 public:
  BalancerBase(const BalancerBase&) = delete;
  BalancerBase& operator=(const BalancerBase&) = delete;

  // -- Measuring (not collective) ---------------------------------------

  /// Times one step of this rank's work (RAII; LoadMonitor::begin_step()).
  StepScope step();
  /// Registers a phase (the same names, in the same order, on every rank).
  PhaseId add_phase(std::string_view name);
  /// Times a phase inside the open step (RAII).
  PhaseScope phase(PhaseId id);
  /// Time inside the open step that is not load (waiting on neighbours).
  IdleScope idle();
  /// Records a step timed elsewhere (seconds, per-phase seconds).
  void record_step(double seconds, std::span<const double> phase_seconds = {});
  /// The monitor, read-only: window, loads, phases.
  const LoadMonitor& monitor() const noexcept;
  /// True when the next decide() (or maybe_rebalance()) makes a check: the
  /// only calls that read the costs of set_costs(), so a code may compute
  /// them only then:
  ///   if (b.next_decide_is_check()) b.set_costs(per_cell_costs());
  /// Asked inside a step (a step() scope), it answers for the decide() after
  /// that step ends. With `overlap` the check is the one the previous call
  /// posted. Not collective; the same on every rank that recorded the same
  /// steps.
  bool next_decide_is_check() const;

  /// Costs the code measured or modelled, one per local element
  /// (BlockBalancer: its range, in order) or cell (GridBalancer: its box, x
  /// fastest), e.g. particles per cell: the next check that fires plans on
  /// them instead of the per-rank loads' estimate (the trigger still uses
  /// the measured loads). Kept until replaced, clear_costs() or a rebalance
  /// (they describe the old ranges). Finite, >= 0; checked at decide() on
  /// every rank (the count too), not here. Only a check reads them
  /// (next_decide_is_check()): between checks they need not be set.
  void set_costs(std::span<const double> costs);
  void clear_costs() noexcept;

  /// Latency and per-byte cost in use (given, or measured at construction).
  const CommModel& comm_model() const noexcept;
  /// Measured costs (seconds, max over ranks) of the rebalances so far: each
  /// one's decision plus its migration.
  std::vector<double> rebalance_seconds() const;

 protected:
  explicit BalancerBase(const BalancerOptions& options);
  /// Collective through the pipeline (see the balancers' destructors).
  ~BalancerBase();

  MPI_Comm comm() const noexcept;
  int rank() const noexcept;
  bool verify() const noexcept;
  /// "" or what is wrong with this rank's costs for `count` local `unit`s.
  std::string check_costs(std::int64_t count, const char* unit) const;
  /// apply()'s data movement for both balancers: `arrays` from `from` to `to`
  /// in one redistribute_arrays(), `seconds` set to what it took. Without
  /// arrays nothing moves (the balancer only adopts the plan).
  template <class Distribution, class... T>
  RedistributeSummary move_arrays(const Distribution& from, const Distribution& to, double& seconds,
                                  std::vector<T>&... arrays) {
    return move_arrays_with(from, to, seconds, nullptr, arrays...);
  }

  /// move_arrays() with `rider`'s records in the same collective (the
  /// residents of maybe_rebalance(residents(…), cells…)).
  template <class Distribution, class... T>
  RedistributeSummary move_arrays_with([[maybe_unused]] const Distribution& from,
                                       [[maybe_unused]] const Distribution& to, double& seconds,
                                       [[maybe_unused]] detail::Rider* rider,
                                       std::vector<T>&... arrays) {
    seconds = 0;
    if constexpr (sizeof...(T) == 0) {
      return {};
    } else {
      RedistributeOptions o;
      o.verify = verify();
      const double t0 = MPI_Wtime();
      RedistributeSummary s =
          detail::redistribute_arrays_with(comm(), from, to, o, rider, arrays...);
      seconds = MPI_Wtime() - t0;
      return s;
    }
  }

  std::unique_ptr<detail::Pipeline> pipeline_;
  std::vector<double> costs_;  // the code's own, set_costs()
  bool have_costs_ = false;
};

/// The pipeline over one layout of the data, written once for both
/// balancers: the check, the gather of loads and costs, the choice, the
/// profitability, the history, the plan checks of apply() and the events.
/// The layout (BlockBalancer: 1-D blocks of elements; GridBalancer: boxes of
/// a grid of cells) gives its plans through the private hooks below. `Plan`
/// derives from Decision and has `from`, `to`, `rebalance` and `used_costs`;
/// `Event` derives from Plan. Not used on its own; its members are compiled
/// once, for the two layouts (layout_balancer.cpp).
template <class Plan, class Event, class Options>
class LayoutBalancer : public BalancerBase {
 public:
  /// The last decision, with the migration if one followed.
  const Event& last_event() const noexcept { return event_; }
  const Options& options() const noexcept { return options_; }

  /// The residents' exchange of the latest maybe_rebalance(residents(…), …).
  const ExchangeSummary& last_exchange() const noexcept { return last_exchange_; }

  /// Called on every rank after every check, with the event (after the
  /// migration when the plan moved data), on the calling thread. Not
  /// collective. The balancer's state is already updated when it runs; an
  /// exception from it propagates out of decide()/apply()/maybe_rebalance()
  /// on that rank only, leaving the other ranks to go on: an observer should
  /// not throw, or the application must treat that as fatal.
  void set_observer(std::function<void(const Event&)> observer);

 protected:
  /// What a layout's plan is made from, the same on every rank.
  struct Inputs {
    std::vector<double> loads;        ///< per rank, the window's
    std::size_t phases = 0;           ///< phases per rank in phase_loads (balance_phases)
    std::vector<double> phase_loads;  ///< rank-major: rank r's phase f at r·phases + f
    /// With costs (Plan::used_costs): Σ of each rank's; and, when the
    /// layout's plan needs them (gathers_costs()), every rank's costs in rank
    /// order.
    std::vector<double> cost_sums, costs;
    Speeds speeds;
  };

  /// `name`: the balancer's class name, which its errors begin with.
  LayoutBalancer(Options options, const char* name);
  ~LayoutBalancer();

  /// The constructor's end, collective on `comm` (nothing with
  /// MPI_COMM_NULL): the checks every layout shares — the options, then
  /// `check_layout()` (the layout's own, "" when it finds nothing), then the
  /// layout's parts against the ranks and the speeds' count — and one
  /// agreement that no rank found a problem and that all hold the same
  /// layout (`layout_hash()`, after the checks) and options. `layout` names
  /// the layout in the errors ("distribution").
  void start(MPI_Comm comm, const char* layout, const std::function<std::string()>& check_layout,
             const std::function<std::uint64_t()>& layout_hash);
  /// decide() with this rank's array lengths checked (agreed at the check).
  Plan decide_data(double bytes, std::span<const std::size_t> sizes);
  /// apply()'s start: false (no communication) when no plan is pending and
  /// `plan` moves nothing; else, with a pending plan, collective: one
  /// agreement that every rank applies it (and that `prepare`, run then,
  /// found no problem); throws the agreed Error otherwise.
  bool check_plan(const Plan& plan, const std::function<std::string()>& prepare = {});
  /// apply()'s end: the rebalance's cost, the layout adopts plan.to, the
  /// event is logged.
  void applied(const Plan& plan, const RedistributeSummary& s, double seconds);
  /// Residents per element (cell) over all ranks, from the last exchanged().
  double residents_per_element() const;
  /// Keeps a residents' exchange (last_exchange()).
  void exchanged(const ExchangeSummary& s) { last_exchange_ = s; }
  /// maybe_rebalance(residents(…), cells…) after its decide(), for both
  /// layouts: a moving plan redistributes the cells with the residents
  /// riding in their collective; otherwise the residents go to the owners of
  /// their cells in `current`.
  template <class Layout, class Key, class... R, class... T>
  void move_with_residents(const Plan& plan, const Layout& current, Residents<Key, R...>& residents,
                           std::vector<T>&... cells) {
    if (plan.moves() && check_plan(plan)) {
      double seconds = 0;
      RedistributeSummary s;
      exchanged(residents.exchange_riding(comm(), plan.to, [&](detail::Rider* rider) {
        s = move_arrays_with(plan.from, plan.to, seconds, rider, cells...);
      }));
      applied(plan, s, seconds);
    } else {
      exchanged(residents.exchange_to(comm(), current));
    }
  }

  Options options_;

 private:
  // -- The layout's part --------------------------------------------------
  virtual const char* unit() const = 0;  ///< "element"
  virtual int parts() const = 0;
  virtual std::int64_t part_count(int rank) const = 0;
  virtual std::int64_t total_count() const = 0;
  /// A plan on the current layout (from == to).
  virtual Plan current_plan() const = 0;
  virtual bool balance_phases() const { return false; }
  virtual ProcessGraph process_graph() const = 0;
  /// False when the layout has no diffusive plan (3-level grids).
  virtual bool can_diffuse() const { return true; }
  /// True when the plan for `action` needs every rank's costs gathered
  /// (in.costs); false when the layout plans from the costs where they are.
  virtual bool gathers_costs(Strategy action) const = 0;
  /// plan.rebalance for plan.action (global or diffusion), forecast included.
  virtual void make_plan(Plan& plan, const Inputs& in) = 0;
  /// The speeds the plan uses when they are not options_.speeds: learned
  /// from the loads (BlockBalancer's learn_speeds), or empty.
  virtual std::optional<Speeds> plan_speeds(Plan&, const std::vector<double>&) { return {}; }
  /// The costs of set_costs() as the plan needs them, after gather_costs():
  /// times measured on each element's rank become speed-1 costs when the
  /// speeds are learned (BlockBalancer); a no-op otherwise.
  virtual void normalise_costs(Inputs&) const {}
  /// Keeps this check's loads on the current layout in the history.
  virtual void remember(const std::vector<double>& loads) = 0;
  /// plan.to (and what else the layout keeps) from plan.rebalance.
  virtual void take_plan(Plan& plan) const = 0;
  /// plan.from is the current layout.
  virtual bool is_current(const Plan& plan) const = 0;
  /// After the migration: plan.to becomes the current layout.
  virtual void adopt(const Plan& plan) = 0;

  void finish(Event event);
  /// Collective: in.costs from every rank's costs_,
  /// after one agreement that every rank found room for them.
  void gather_costs(Inputs& in);
  /// The guard after a plan's profitability: its own predicted T_max is
  /// lower than the measured one by a saving that pays for moving `bytes`.
  bool predicts_gain(const Plan& plan, double bytes) const;

  // What decide() and apply() errors begin with ("BlockBalancer::decide").
  const char* name_;
  std::string decide_what_, apply_what_;
  Event event_;
  bool pending_ = false;  // event_ decided a move that apply() has not made yet
  // The forecast's last check moved the data: the load moves, so the next
  // check plans even below the trigger (the window lags the load).
  bool following_ = false;
  std::function<void(const Event&)> observer_;
  ExchangeSummary last_exchange_;
};

}  // namespace isocost::mpi
