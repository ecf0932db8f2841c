// isocost/monitor.hpp — per-rank load measurement: the "Measure" phase of the
// balancing pipeline (Watts §2.1 and §3.2.2; vector loads, Watts ch. 4).
//
// A LoadMonitor lives on one rank and never communicates. Each time step is
// timed between begin_step() and end_step() (or a StepScope); inside it,
// named phases give a load vector per step and optional task timings give the
// load of each task. The last `window` steps are kept; the rank's load is the
// window's mean busy time, optionally blended with a user prediction (Watts
// §2.1.3 hybrid evaluation, see LoadEstimate). The mpi layer reduces these
// numbers over ranks; strategy.hpp decides on them.
//
//   isocost::MonitorOptions o;
//   o.window = 20;                                 // the last 20 steps
//   isocost::LoadMonitor m(o);
//   const auto force = m.add_phase("force");      // look the name up once
//   for (...) {
//     isocost::StepScope step(m);
//     { isocost::PhaseScope p(m, force); compute_forces(); }
//     integrate();
//   }
//   double my_load = m.load();                      // mean busy s/step
//
// Busy time is wall time (std::chrono::steady_clock) or this thread's CPU
// time (CLOCK_THREAD_CPUTIME_ID), chosen in MonitorOptions: use CPU time when
// ranks outnumber cores, since a descheduled rank's wall time is not its load.
// Time inside an IdleScope (waiting on a neighbour, the balancer's own work;
// Watts §3.2.2 "non-user execution time") is left out of the busy time.
//
// Not thread-safe: one monitor per rank (or thread), all calls of a step on
// the thread that began it (the CPU clock is per thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "isocost/options.hpp"

namespace isocost {

/// Which clock times a step.
enum class MonitorClock {
  wall,  ///< std::chrono::steady_clock: elapsed time, waiting included
  cpu,   ///< CLOCK_THREAD_CPUTIME_ID: CPU time of the calling thread
};
/// "wall", "cpu".
std::string_view to_string(MonitorClock clock);
/// Parses "wall" or "cpu"; throws Error naming anything else.
MonitorClock parse_monitor_clock(std::string_view name);

/// Settings for LoadMonitor.
struct MonitorOptions {
  MonitorClock clock = MonitorClock::wall;
  /// Sliding window: the load is the mean over the last `window` steps
  /// (>= 1). A long window damps spurious changes, a short one follows a
  /// quickly changing load (Watts §3.2.2).
  int window = 10;
  /// Hybrid evaluation (Watts §2.1.3): weight w in [0, 1] given to a user
  /// prediction when one is set and steps were measured;
  /// load = w·predicted + (1 − w)·measured. 1 (the default) lets the
  /// prediction replace the measurement, as Watts's user `loadfun` does.
  double prediction_weight = 1.0;
  /// If set, replaces `clock`: returns the time in seconds, never
  /// decreasing. For tests and for applications with their own timer.
  std::function<double()> custom_clock;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("clock", self.clock);
    v("window", self.window, at_least(1));
    v("prediction_weight", self.prediction_weight, closed(0, 1));
    v("custom_clock", self.custom_clock);
  }
  /// False, with a message naming the field, its value and the constraint,
  /// if an option is out of range.
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("monitor: …") unless is_valid().
  void validate() const { validate_options(*this, "monitor"); }
};

/// A phase handle from LoadMonitor::add_phase(): phase timing does no string
/// lookup on the hot path.
struct PhaseId {
  std::size_t index = 0;  ///< position in LoadMonitor::phase_names()
};

/// Time spent on one task inside one step.
struct TaskTime {
  std::int64_t id = 0;
  double seconds = 0;
};

/// One step given as numbers, for LoadMonitor::record_step(): replays timings
/// taken elsewhere, or feeds tests deterministically.
struct StepSample {
  double seconds = 0;           ///< busy time of the step, finite, >= 0
  std::vector<double> phases;   ///< seconds per phase id (fewer: the rest are 0);
                                ///< their sum may not exceed `seconds`
  std::vector<TaskTime> tasks;  ///< task timings (an id may repeat; times add)
  double work = 0;              ///< work units done (operations, particles, ...)
                                ///< for hybrid evaluation; 0: not given
};

/// A task's load over the window.
struct TaskLoad {
  std::int64_t id = 0;
  /// Mean seconds per step over the window's steps in which the task ran, so
  /// a task that arrived mid-window is not diluted by steps it missed.
  double seconds = 0;
  int steps = 0;  ///< window steps in which the task ran
};

/// Where LoadEstimate::load came from.
enum class LoadSource {
  none,       ///< nothing measured, nothing predicted: load = 0
  measured,   ///< the window's mean busy time
  predicted,  ///< the user's prediction alone
  blended,    ///< w·predicted + (1 − w)·measured, 0 < w < 1
};
/// "none", "measured", "predicted", "blended".
std::string_view to_string(LoadSource source);

/// The rank's load (Watts §2.1.3 hybrid evaluation): measured where
/// available, predicted where not, blended with MonitorOptions::
/// prediction_weight where both exist. A prediction is either seconds
/// (set_predicted_load) or work units (set_predicted_work), the latter turned
/// into seconds with the measured seconds per work unit of the window —
/// Watts's example: 1000 operations took 15 s, so 1500 will take 22.5 s.
struct LoadEstimate {
  double load = 0;  ///< what the balancer should use, s/step
  LoadSource source = LoadSource::none;
  double measured = 0;              ///< window mean busy time (0 with no steps)
  std::optional<double> predicted;  ///< the prediction in seconds, when usable
  double weight = 0;                ///< weight actually given to the prediction
  /// False when a work prediction is set but the window has no work counts
  /// (nothing to convert it with): the estimate then ignores it.
  bool prediction_usable = true;
};

/// Measures one rank's load (see the file comment). Not collective.
class LoadMonitor {
 public:
  /// Validates `options` (throws Error).
  explicit LoadMonitor(MonitorOptions options = {});

  /// Registers phase `name` (non-empty) and returns its handle; a name
  /// registered before returns its existing handle. Allowed at any time.
  PhaseId add_phase(std::string_view name);
  /// The handle of a registered phase; throws Error naming an unknown name.
  PhaseId phase(std::string_view name) const;
  std::size_t phase_count() const { return names_.size(); }
  /// Phase names in registration order (index = PhaseId::index).
  const std::vector<std::string>& phase_names() const { return names_; }

  // -- Timing with the clock (StepScope/PhaseScope/IdleScope/TaskScope call
  //    these; all throw Error on misuse, e.g. a nested step).

  /// Starts a step. Throws if a step is open.
  void begin_step();
  /// Ends the open step, records it and returns its busy time (end − begin −
  /// idle time). Throws if no step, or a phase, idle or task timer, is open.
  double end_step();
  /// Drops the open step without recording it (no-op if none is open).
  void abandon_step() noexcept;
  /// Starts timing phase `id` inside the open step; phases do not nest.
  void begin_phase(PhaseId id);
  /// Ends the open phase and adds its time to the step's phase vector.
  void end_phase();
  /// Starts time that is not load: left out of the step's busy time. Only
  /// directly inside a step (not in a phase or task timer).
  void begin_idle();
  void end_idle();
  /// Starts timing task `id` inside the open step; task timers do not nest.
  void begin_task(std::int64_t id);
  void end_task();
  /// Adds task time measured by the caller to the open step.
  void record_task(std::int64_t id, double seconds);
  /// Adds work units (finite, >= 0) to the open step, for hybrid evaluation.
  void add_work(double units);
  bool step_open() const { return open_; }

  // -- Deterministic entry points: timings given as numbers.

  /// Records a finished step of `seconds` busy time with `phase_seconds` per
  /// phase (at most phase_count() values). Throws Error on negative or NaN
  /// times, too many phase values, phase times summing to more than
  /// `seconds`, or while a step is open.
  void record_step(double seconds, std::span<const double> phase_seconds = {});
  /// The same with task timings and work units.
  void record_step(const StepSample& sample);

  // -- Hybrid evaluation (Watts §2.1.3). A prediction holds until replaced
  //    or cleared.

  /// The user's predicted load of the coming steps, in seconds per step.
  void set_predicted_load(double seconds);
  /// The predicted work units per coming step; converted to seconds with the
  /// window's measured seconds per unit.
  void set_predicted_work(double units);
  void clear_prediction() noexcept;

  // -- Results (all over the window unless stated).

  /// Steps recorded since construction (not only those in the window).
  long long steps() const { return total_steps_; }
  /// Steps in the window now: min(steps(), window), less after clear_window().
  int window_steps() const { return count_; }
  /// Mean busy time per step over the window: the measured load. 0 if empty.
  double mean_busy() const;
  /// Smallest and largest step busy time in the window (0 if empty).
  double min_busy() const;
  double max_busy() const;
  /// Mean seconds per step of each phase (phase_count() values; Watts ch. 4
  /// vector load).
  std::vector<double> phase_means() const;
  /// Busy time of the last recorded step (0 if none).
  double last_step() const;
  /// Phase times of the last recorded step (phase_count() values).
  std::vector<double> last_phases() const;
  /// Loads of the tasks timed in the window, by increasing id.
  std::vector<TaskLoad> task_loads() const;
  /// Σ busy / Σ work over the window's steps that counted work; empty if none.
  std::optional<double> seconds_per_work() const;
  /// The hybrid load estimate (see LoadEstimate).
  LoadEstimate estimate() const;
  /// estimate().load: the number to reduce over ranks.
  double load() const { return estimate().load; }

  /// Forgets the window (e.g. after a rebalance: old timings describe the old
  /// distribution). steps() keeps counting. Throws if a step is open.
  void clear_window();
  /// Removes task `id`'s timings from the window (it migrated away).
  void forget_task(std::int64_t id);

  /// The clock reading in seconds (relative to an arbitrary origin).
  double now() const;
  const MonitorOptions& options() const { return options_; }

 private:
  struct Slot {
    double busy = 0, work = 0;
    std::vector<double> phases;
    std::vector<TaskTime> tasks;
  };
  Slot& current() { return ring_[head_]; }
  void commit(double busy);
  void check_open(const char* what) const;
  template <class F>
  void for_window(F&& f) const;

  MonitorOptions options_;
  std::vector<std::string> names_;
  // window + 1 slots: the count_ slots before head_ are the window (oldest
  // first); ring_[head_] receives the open step, so the window stays intact
  // while a step is being timed.
  std::vector<Slot> ring_;
  std::size_t head_ = 0;
  int count_ = 0;
  long long total_steps_ = 0;
  long long epoch_ns_ = 0;  // steady_clock origin, keeps wall readings small

  bool open_ = false;
  double step_start_ = 0, idle_ = 0;
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t open_phase_ = kNone;
  double phase_start_ = 0;
  bool idle_open_ = false;
  double idle_start_ = 0;
  bool task_open_ = false;
  std::int64_t open_task_ = 0;
  double task_start_ = 0;

  enum class Prediction { none, seconds, work };
  Prediction prediction_ = Prediction::none;
  double predicted_ = 0;
};

/// Times one step of `monitor` for the scope's lifetime (begin_step() /
/// end_step()). If the scope is left by an exception the step is abandoned,
/// not recorded. The destructor may throw Error (misuse such as a phase still
/// open through begin_phase()), hence noexcept(false).
class StepScope {
 public:
  explicit StepScope(LoadMonitor& monitor)
      : monitor_(monitor), exceptions_(std::uncaught_exceptions()) {
    monitor_.begin_step();
  }
  ~StepScope() noexcept(false) {
    if (std::uncaught_exceptions() > exceptions_)
      monitor_.abandon_step();
    else
      monitor_.end_step();
  }
  StepScope(const StepScope&) = delete;
  StepScope& operator=(const StepScope&) = delete;

 private:
  LoadMonitor& monitor_;
  int exceptions_;
};

/// Times phase `id` inside the open step for the scope's lifetime.
class PhaseScope {
 public:
  PhaseScope(LoadMonitor& monitor, PhaseId id)
      : monitor_(monitor), exceptions_(std::uncaught_exceptions()) {
    monitor_.begin_phase(id);
  }
  ~PhaseScope() noexcept(false) {
    // While unwinding the step is abandoned anyway; do not throw on top.
    if (std::uncaught_exceptions() > exceptions_) {
      try {
        monitor_.end_phase();
      } catch (...) {
      }
    } else {
      monitor_.end_phase();
    }
  }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  LoadMonitor& monitor_;
  int exceptions_;
};

/// Time that is not load (left out of the step's busy time), e.g. waiting in
/// a halo exchange: directly inside a step, not in a phase or task scope.
class IdleScope {
 public:
  explicit IdleScope(LoadMonitor& monitor)
      : monitor_(monitor), exceptions_(std::uncaught_exceptions()) {
    monitor_.begin_idle();
  }
  ~IdleScope() noexcept(false) {
    if (std::uncaught_exceptions() > exceptions_) {
      try {
        monitor_.end_idle();
      } catch (...) {
      }
    } else {
      monitor_.end_idle();
    }
  }
  IdleScope(const IdleScope&) = delete;
  IdleScope& operator=(const IdleScope&) = delete;

 private:
  LoadMonitor& monitor_;
  int exceptions_;
};

/// Times task `id` inside the open step (may be inside a phase).
class TaskScope {
 public:
  TaskScope(LoadMonitor& monitor, std::int64_t id)
      : monitor_(monitor), exceptions_(std::uncaught_exceptions()) {
    monitor_.begin_task(id);
  }
  ~TaskScope() noexcept(false) {
    if (std::uncaught_exceptions() > exceptions_) {
      try {
        monitor_.end_task();
      } catch (...) {
      }
    } else {
      monitor_.end_task();
    }
  }
  TaskScope(const TaskScope&) = delete;
  TaskScope& operator=(const TaskScope&) = delete;

 private:
  LoadMonitor& monitor_;
  int exceptions_;
};

}  // namespace isocost
