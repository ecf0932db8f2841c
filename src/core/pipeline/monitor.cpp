#include "isocost/monitor.hpp"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

using detail::exact;

std::string_view to_string(MonitorClock clock) {
  switch (clock) {
    case MonitorClock::wall:
      return "wall";
    case MonitorClock::cpu:
      return "cpu";
  }
  return "?";
}

MonitorClock parse_monitor_clock(std::string_view name) {
  if (name == "wall") return MonitorClock::wall;
  if (name == "cpu") return MonitorClock::cpu;
  throw Error("clock: expected 'wall' or 'cpu', got '" + std::string(name) + "'");
}

std::string_view to_string(LoadSource source) {
  switch (source) {
    case LoadSource::measured:
      return "measured";
    case LoadSource::predicted:
      return "predicted";
    case LoadSource::blended:
      return "blended";
    case LoadSource::none:
      break;
  }
  return "none";
}

namespace {

void check_seconds(double s, const std::string& what) {
  if (!std::isfinite(s) || s < 0)
    throw Error(detail::expected_got("monitor: " + what, "a finite time >= 0", exact(s) + " s"));
}

}  // namespace

LoadMonitor::LoadMonitor(MonitorOptions options) : options_(std::move(options)) {
  options_.validate();
#ifndef CLOCK_THREAD_CPUTIME_ID
  if (options_.clock == MonitorClock::cpu && !options_.custom_clock)
    throw Error("monitor: clock 'cpu' needs CLOCK_THREAD_CPUTIME_ID, not available here");
#endif
  ring_.resize(static_cast<std::size_t>(options_.window) + 1);
  epoch_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now().time_since_epoch())
                  .count();
}

double LoadMonitor::now() const {
  if (options_.custom_clock) return options_.custom_clock();
  if (options_.clock == MonitorClock::cpu) {
#ifdef CLOCK_THREAD_CPUTIME_ID
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
#endif
  }
  // Nanoseconds since construction, so the double keeps full resolution.
  const long long ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count();
  return 1e-9 * static_cast<double>(ns - epoch_ns_);
}

PhaseId LoadMonitor::add_phase(std::string_view name) {
  if (name.empty()) throw Error("monitor: phase name is empty; expected a non-empty name");
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return PhaseId{i};
  names_.emplace_back(name);
  return PhaseId{names_.size() - 1};
}

PhaseId LoadMonitor::phase(std::string_view name) const {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return PhaseId{i};
  std::string known;
  for (const auto& n : names_) known += (known.empty() ? "" : ", ") + n;
  throw Error("monitor: unknown phase '" + std::string(name) +
              "'; known phases: " + (known.empty() ? "(none)" : known));
}

void LoadMonitor::check_open(const char* what) const {
  if (!open_)
    throw Error(std::string("monitor: ") + what + " outside a step; expected it between " +
                "begin_step() and end_step() (inside a StepScope)");
}

void LoadMonitor::begin_step() {
  if (open_)
    throw Error("monitor: begin_step() while step " + std::to_string(total_steps_ + 1) +
                " is open; step scopes do not nest");
  Slot& s = current();
  s.busy = 0;
  s.work = 0;
  s.phases.assign(names_.size(), 0.0);  // keeps its capacity: no allocation once warm
  s.tasks.clear();
  idle_ = 0;
  open_ = true;
  step_start_ = now();
}

double LoadMonitor::end_step() {
  const double t = now();
  check_open("end_step()");
  if (open_phase_ != kNone)
    throw Error("monitor: end_step() while phase '" + names_[open_phase_] +
                "' is open; end the phase first");
  if (idle_open_) throw Error("monitor: end_step() while an idle timer is open");
  if (task_open_)
    throw Error("monitor: end_step() while task " + std::to_string(open_task_) + " is being timed");
  const double busy = t - step_start_ - idle_;
  if (!(busy >= 0)) {
    abandon_step();
    throw Error(detail::expected_got("monitor: step busy time", ">= 0", exact(busy) + " s") +
                " (did the clock go backwards, or the step end on another thread than it "
                "began?)");
  }
  commit(busy);
  return busy;
}

void LoadMonitor::abandon_step() noexcept {
  open_ = false;
  open_phase_ = kNone;
  idle_open_ = false;
  task_open_ = false;
}

void LoadMonitor::commit(double busy) {
  current().busy = busy;
  open_ = false;
  head_ = (head_ + 1) % ring_.size();
  count_ = std::min(count_ + 1, options_.window);
  ++total_steps_;
}

void LoadMonitor::begin_phase(PhaseId id) {
  check_open("begin_phase()");
  if (id.index >= names_.size())
    throw Error("monitor: phase id " + std::to_string(id.index) + " is unknown; expected < " +
                std::to_string(names_.size()) + " (the registered phases)");
  if (open_phase_ != kNone)
    throw Error("monitor: phase '" + names_[id.index] + "' started while phase '" +
                names_[open_phase_] + "' is open; phases do not nest");
  if (idle_open_)
    throw Error("monitor: phase '" + names_[id.index] + "' started inside an idle timer");
  open_phase_ = id.index;
  phase_start_ = now();
}

void LoadMonitor::end_phase() {
  const double t = now();
  if (open_phase_ == kNone) throw Error("monitor: end_phase() with no phase open");
  const double d = t - phase_start_;
  const std::size_t i = open_phase_;
  open_phase_ = kNone;
  if (!(d >= 0))
    throw Error(
        detail::expected_got("monitor: phase '" + names_[i] + "' time", ">= 0", exact(d) + " s") +
        " (did the clock go backwards?)");
  auto& p = current().phases;
  if (i >= p.size()) p.resize(names_.size(), 0.0);  // registered during this step
  p[i] += d;
}

void LoadMonitor::begin_idle() {
  check_open("begin_idle()");
  if (open_phase_ != kNone)
    throw Error("monitor: idle timer started inside phase '" + names_[open_phase_] +
                "'; expected it directly inside the step");
  if (task_open_)
    throw Error("monitor: idle timer started while task " + std::to_string(open_task_) +
                " is being timed");
  if (idle_open_) throw Error("monitor: idle timers do not nest");
  idle_open_ = true;
  idle_start_ = now();
}

void LoadMonitor::end_idle() {
  const double t = now();
  if (!idle_open_) throw Error("monitor: end_idle() with no idle timer open");
  idle_open_ = false;
  const double d = t - idle_start_;
  if (!(d >= 0))
    throw Error(detail::expected_got("monitor: idle time", ">= 0", exact(d) + " s") +
                " (clock went backwards?)");
  idle_ += d;
}

void LoadMonitor::begin_task(std::int64_t id) {
  check_open("begin_task()");
  if (task_open_)
    throw Error("monitor: task " + std::to_string(id) + " started while task " +
                std::to_string(open_task_) + " is being timed; task timers do not nest");
  if (idle_open_)
    throw Error("monitor: task " + std::to_string(id) + " started inside an idle timer");
  task_open_ = true;
  open_task_ = id;
  task_start_ = now();
}

void LoadMonitor::end_task() {
  const double t = now();
  if (!task_open_) throw Error("monitor: end_task() with no task being timed");
  task_open_ = false;
  const double d = t - task_start_;
  check_seconds(d, "time of task " + std::to_string(open_task_));
  current().tasks.push_back({open_task_, d});
}

void LoadMonitor::record_task(std::int64_t id, double seconds) {
  check_open("record_task()");
  check_seconds(seconds, "time of task " + std::to_string(id));
  current().tasks.push_back({id, seconds});
}

void LoadMonitor::add_work(double units) {
  check_open("add_work()");
  if (!std::isfinite(units) || units < 0)
    throw Error(
        detail::expected_got("monitor: work", "a finite number >= 0", exact(units) + " units"));
  current().work += units;
}

void LoadMonitor::record_step(double seconds, std::span<const double> phase_seconds) {
  StepSample s;
  s.seconds = seconds;
  s.phases.assign(phase_seconds.begin(), phase_seconds.end());
  record_step(s);
}

void LoadMonitor::record_step(const StepSample& sample) {
  if (open_)
    throw Error("monitor: record_step() while step " + std::to_string(total_steps_ + 1) +
                " is open; expected it between steps");
  check_seconds(sample.seconds, "step time");
  if (sample.phases.size() > names_.size())
    throw Error("monitor: " + std::to_string(sample.phases.size()) + " phase times for " +
                std::to_string(names_.size()) + " registered phases");
  double sum = 0;
  for (std::size_t i = 0; i < sample.phases.size(); ++i) {
    check_seconds(sample.phases[i], "time of phase '" + names_[i] + "'");
    sum += sample.phases[i];
  }
  // Phases are parts of the step; allow only rounding in the sum.
  if (sum > sample.seconds * (1 + 1e-12))
    throw Error("monitor: phase times sum to " + exact(sum) + " s, more than the step's " +
                exact(sample.seconds) + " s");
  for (const auto& t : sample.tasks)
    check_seconds(t.seconds, "time of task " + std::to_string(t.id));
  if (!std::isfinite(sample.work) || sample.work < 0)
    throw Error(detail::expected_got("monitor: work", "a finite number >= 0",
                                     exact(sample.work) + " units"));
  Slot& s = current();
  s.phases.assign(names_.size(), 0.0);
  std::copy(sample.phases.begin(), sample.phases.end(), s.phases.begin());
  s.tasks.assign(sample.tasks.begin(), sample.tasks.end());
  s.work = sample.work;
  commit(sample.seconds);
}

void LoadMonitor::set_predicted_load(double seconds) {
  check_seconds(seconds, "predicted load");
  prediction_ = Prediction::seconds;
  predicted_ = seconds;
}

void LoadMonitor::set_predicted_work(double units) {
  if (!std::isfinite(units) || units < 0)
    throw Error(detail::expected_got("monitor: predicted work", "a finite number >= 0",
                                     exact(units) + " units"));
  prediction_ = Prediction::work;
  predicted_ = units;
}

void LoadMonitor::clear_prediction() noexcept { prediction_ = Prediction::none; }

// Calls f(slot) for the window's slots, oldest first. The ring holds
// window + 1 slots so the open step's slot, ring_[head_], is never one of them.
template <class F>
void LoadMonitor::for_window(F&& f) const {
  const std::size_t n = ring_.size(), c = static_cast<std::size_t>(count_);
  for (std::size_t k = 0; k < c; ++k) f(ring_[(head_ + n - c + k) % n]);
}

double LoadMonitor::mean_busy() const {
  if (count_ == 0) return 0;
  double sum = 0;
  for_window([&](const Slot& s) { sum += s.busy; });
  return sum / count_;
}

double LoadMonitor::min_busy() const {
  if (count_ == 0) return 0;
  double m = INFINITY;
  for_window([&](const Slot& s) { m = std::min(m, s.busy); });
  return m;
}

double LoadMonitor::max_busy() const {
  double m = 0;
  for_window([&](const Slot& s) { m = std::max(m, s.busy); });
  return m;
}

std::vector<double> LoadMonitor::phase_means() const {
  std::vector<double> mean(names_.size(), 0.0);
  if (count_ == 0) return mean;
  for_window([&](const Slot& s) {
    for (std::size_t i = 0; i < s.phases.size(); ++i) mean[i] += s.phases[i];
  });
  for (double& m : mean) m /= count_;
  return mean;
}

double LoadMonitor::last_step() const {
  if (count_ == 0) return 0;
  return ring_[(head_ + ring_.size() - 1) % ring_.size()].busy;
}

std::vector<double> LoadMonitor::last_phases() const {
  std::vector<double> out(names_.size(), 0.0);
  if (count_ == 0) return out;
  const auto& p = ring_[(head_ + ring_.size() - 1) % ring_.size()].phases;
  std::copy(p.begin(), p.end(), out.begin());
  return out;
}

std::vector<TaskLoad> LoadMonitor::task_loads() const {
  struct Acc {
    double sum = 0;
    int steps = 0;
    int last = -1;  // window position that last counted a step for this task
  };
  std::map<std::int64_t, Acc> acc;
  int position = 0;
  for_window([&](const Slot& s) {
    for (const auto& t : s.tasks) {
      Acc& a = acc[t.id];
      a.sum += t.seconds;
      if (a.last != position) {
        a.last = position;
        ++a.steps;
      }
    }
    ++position;
  });
  std::vector<TaskLoad> out;
  out.reserve(acc.size());
  for (const auto& [id, a] : acc) out.push_back({id, a.sum / a.steps, a.steps});
  return out;
}

std::optional<double> LoadMonitor::seconds_per_work() const {
  double busy = 0, work = 0;
  for_window([&](const Slot& s) {
    if (s.work > 0) {
      busy += s.busy;
      work += s.work;
    }
  });
  if (!(work > 0)) return std::nullopt;
  return busy / work;
}

LoadEstimate LoadMonitor::estimate() const {
  LoadEstimate e;
  e.measured = mean_busy();
  if (prediction_ == Prediction::seconds) {
    e.predicted = predicted_;
  } else if (prediction_ == Prediction::work) {
    // Watts §2.1.3: the measured seconds per unit times the predicted units,
    // multiplied before dividing so 15 s · 1500 / 1000 is exactly 22.5.
    double busy = 0, work = 0;
    for_window([&](const Slot& s) {
      if (s.work > 0) {
        busy += s.busy;
        work += s.work;
      }
    });
    if (work > 0)
      e.predicted = busy * predicted_ / work;
    else
      e.prediction_usable = false;
  }
  const bool measured = count_ > 0;
  if (e.predicted && measured) {
    const double w = options_.prediction_weight;
    e.weight = w;
    if (w == 1) {
      e.load = *e.predicted;
      e.source = LoadSource::predicted;
    } else if (w == 0) {
      e.load = e.measured;
      e.source = LoadSource::measured;
    } else {
      e.load = w * *e.predicted + (1 - w) * e.measured;
      e.source = LoadSource::blended;
    }
  } else if (e.predicted) {
    e.weight = 1;
    e.load = *e.predicted;
    e.source = LoadSource::predicted;
  } else if (measured) {
    e.load = e.measured;
    e.source = LoadSource::measured;
  }
  return e;
}

void LoadMonitor::clear_window() {
  if (open_)
    throw Error("monitor: clear_window() while step " + std::to_string(total_steps_ + 1) +
                " is open");
  count_ = 0;
}

void LoadMonitor::forget_task(std::int64_t id) {
  for (auto& s : ring_) std::erase_if(s.tasks, [id](const TaskTime& t) { return t.id == id; });
}

}  // namespace isocost
