// Tests for isocost/monitor.hpp: window means, phase vectors and task loads
// from synthetic timings; the sliding window; hybrid (measured/predicted)
// evaluation; the RAII scopes against a hand-driven clock and against a real
// busy-wait; and bad input.
#include "isocost/monitor.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "support/expect_error.hpp"

namespace {

using isocost::LoadMonitor;
using isocost::LoadSource;
using isocost::MonitorClock;
using isocost::MonitorOptions;
using isocost::PhaseId;
using isocost::StepSample;
using isocost::testing::expect_error;

MonitorOptions window(int w) {
  MonitorOptions o;
  o.window = w;
  return o;
}

TEST(Monitor, WindowMeansAndPhaseVectors) {
  LoadMonitor m(window(3));
  const PhaseId a = m.add_phase("a"), b = m.add_phase("b");
  EXPECT_EQ(a.index, 0u);
  EXPECT_EQ(b.index, 1u);
  m.record_step(1.0, std::vector<double>{0.5, 0.25});
  m.record_step(2.0, std::vector<double>{1.0, 0.5});
  m.record_step(4.5, std::vector<double>{2.0});  // b missing: 0
  EXPECT_EQ(m.steps(), 3);
  EXPECT_EQ(m.window_steps(), 3);
  EXPECT_DOUBLE_EQ(m.mean_busy(), 7.5 / 3);
  EXPECT_DOUBLE_EQ(m.min_busy(), 1.0);
  EXPECT_DOUBLE_EQ(m.max_busy(), 4.5);
  const auto means = m.phase_means();
  ASSERT_EQ(means.size(), 2u);
  EXPECT_DOUBLE_EQ(means[0], 3.5 / 3);
  EXPECT_DOUBLE_EQ(means[1], 0.75 / 3);
  EXPECT_DOUBLE_EQ(m.last_step(), 4.5);
  EXPECT_EQ(m.last_phases(), (std::vector<double>{2.0, 0.0}));
  const auto e = m.estimate();
  EXPECT_EQ(e.source, LoadSource::measured);
  EXPECT_DOUBLE_EQ(m.load(), 7.5 / 3);
}

TEST(Monitor, SlidingWindowDropsOldSteps) {
  LoadMonitor m(window(2));
  const PhaseId p = m.add_phase("p");
  m.record_step(100.0, std::vector<double>{100.0});
  m.record_step(2.0, std::vector<double>{1.0});
  m.record_step(4.0, std::vector<double>{3.0});
  EXPECT_EQ(m.steps(), 3);
  EXPECT_EQ(m.window_steps(), 2);
  EXPECT_DOUBLE_EQ(m.mean_busy(), 3.0);  // the 100 s step is gone
  EXPECT_DOUBLE_EQ(m.min_busy(), 2.0);
  EXPECT_DOUBLE_EQ(m.max_busy(), 4.0);
  EXPECT_DOUBLE_EQ(m.phase_means()[p.index], 2.0);
  for (int k = 0; k < 5; ++k) m.record_step(1.0);
  EXPECT_DOUBLE_EQ(m.mean_busy(), 1.0);
  EXPECT_EQ(m.steps(), 8);
  m.clear_window();
  EXPECT_EQ(m.window_steps(), 0);
  EXPECT_EQ(m.steps(), 8);  // still counting
  EXPECT_EQ(m.load(), 0.0);
  EXPECT_EQ(m.estimate().source, LoadSource::none);
  m.record_step(6.0);
  EXPECT_DOUBLE_EQ(m.mean_busy(), 6.0);
}

TEST(Monitor, WindowOfOneIsTheLastStep) {
  LoadMonitor m(window(1));
  m.record_step(3.0);
  m.record_step(5.0);
  EXPECT_DOUBLE_EQ(m.mean_busy(), 5.0);
  EXPECT_EQ(m.window_steps(), 1);
}

TEST(Monitor, PhaseAddedLaterCountsZeroInEarlierSteps) {
  LoadMonitor m(window(4));
  m.add_phase("a");
  m.record_step(1.0, std::vector<double>{1.0});
  EXPECT_EQ(m.add_phase("a").index, 0u);  // idempotent
  const PhaseId b = m.add_phase("b");
  m.record_step(1.0, std::vector<double>{0.5, 0.5});
  EXPECT_EQ(m.phase("b").index, b.index);
  const auto means = m.phase_means();
  EXPECT_DOUBLE_EQ(means[0], 0.75);
  EXPECT_DOUBLE_EQ(means[1], 0.25);
}

TEST(Monitor, TaskLoadsPerStepTheTaskRan) {
  LoadMonitor m(window(2));
  StepSample s1;
  s1.seconds = 2;
  s1.tasks = {{7, 0.5}, {3, 0.25}, {7, 0.25}};  // task 7 twice in one step: 0.75
  m.record_step(s1);
  StepSample s2;
  s2.seconds = 2;
  s2.tasks = {{3, 0.75}};
  m.record_step(s2);
  auto t = m.task_loads();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].id, 3);
  EXPECT_DOUBLE_EQ(t[0].seconds, 0.5);  // (0.25 + 0.75) / 2 steps
  EXPECT_EQ(t[0].steps, 2);
  EXPECT_EQ(t[1].id, 7);
  EXPECT_DOUBLE_EQ(t[1].seconds, 0.75);  // one step, not diluted by step 2
  EXPECT_EQ(t[1].steps, 1);

  StepSample s3;
  s3.seconds = 1;
  s3.tasks = {{9, 1.0}};
  m.record_step(s3);  // step 1 leaves the window: task 7 is gone
  t = m.task_loads();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].id, 3);
  EXPECT_DOUBLE_EQ(t[0].seconds, 0.75);
  EXPECT_EQ(t[1].id, 9);

  m.forget_task(3);  // migrated away
  t = m.task_loads();
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].id, 9);
}

// Watts §2.1.3: "if the previous time step … involved 1000 operations and
// took 15 seconds … the next time step will involve 1500 … approximately
// 22.5 seconds".
TEST(Monitor, HybridEvaluationFromWorkUnits) {
  LoadMonitor m(window(4));
  StepSample s;
  s.seconds = 15;
  s.work = 1000;
  m.record_step(s);
  ASSERT_TRUE(m.seconds_per_work().has_value());
  EXPECT_DOUBLE_EQ(*m.seconds_per_work(), 0.015);
  m.set_predicted_work(1500);
  const auto e = m.estimate();
  EXPECT_EQ(e.source, LoadSource::predicted);
  EXPECT_EQ(e.load, 22.5);
  EXPECT_EQ(e.measured, 15.0);
  EXPECT_EQ(e.weight, 1.0);
  m.clear_prediction();
  EXPECT_EQ(m.load(), 15.0);
}

TEST(Monitor, HybridBlendWeightAndFallbacks) {
  MonitorOptions o = window(4);
  o.prediction_weight = 0.25;
  LoadMonitor m(o);
  // Predicted only (nothing measured yet): the prediction, whole.
  m.set_predicted_load(8);
  auto e = m.estimate();
  EXPECT_EQ(e.source, LoadSource::predicted);
  EXPECT_EQ(e.load, 8.0);
  // Both: 0.25·8 + 0.75·4 = 5.
  m.record_step(4);
  e = m.estimate();
  EXPECT_EQ(e.source, LoadSource::blended);
  EXPECT_DOUBLE_EQ(e.load, 5.0);
  EXPECT_EQ(e.weight, 0.25);
  // A work prediction with no work counted cannot be converted: measured.
  m.set_predicted_work(100);
  e = m.estimate();
  EXPECT_FALSE(e.prediction_usable);
  EXPECT_FALSE(e.predicted.has_value());
  EXPECT_EQ(e.source, LoadSource::measured);
  EXPECT_EQ(e.load, 4.0);
}

TEST(Monitor, PredictionWeightZeroIgnoresPrediction) {
  MonitorOptions o = window(2);
  o.prediction_weight = 0;
  LoadMonitor m(o);
  m.record_step(3);
  m.set_predicted_load(100);
  EXPECT_EQ(m.load(), 3.0);
  EXPECT_EQ(m.estimate().source, LoadSource::measured);
}

// A clock the test drives: every scope boundary reads it once.
struct FakeClock {
  double t = 0;
  MonitorOptions options(int w) {
    MonitorOptions o = window(w);
    o.custom_clock = [this] { return t; };
    return o;
  }
};

TEST(Monitor, ScopesWithADrivenClock) {
  FakeClock clock;
  LoadMonitor m(clock.options(4));
  const PhaseId force = m.add_phase("force"), comm = m.add_phase("comm");
  {
    isocost::StepScope step(m);
    EXPECT_TRUE(m.step_open());
    clock.t += 0.5;  // unphased work
    {
      isocost::PhaseScope p(m, force);
      {
        isocost::TaskScope task(m, 42);
        clock.t += 1.0;
      }
      clock.t += 0.25;
    }
    {
      isocost::IdleScope idle(m);  // waiting: not load
      clock.t += 8.0;
    }
    {
      isocost::PhaseScope p(m, comm);
      clock.t += 0.125;
    }
    {
      isocost::PhaseScope p(m, force);  // a phase may recur; times add
      clock.t += 2.0;
    }
    m.record_task(43, 0.0625);
    m.add_work(10);
  }
  EXPECT_FALSE(m.step_open());
  EXPECT_EQ(m.steps(), 1);
  EXPECT_EQ(m.last_step(), 0.5 + 1.0 + 0.25 + 0.125 + 2.0);
  EXPECT_EQ(m.last_phases(), (std::vector<double>{3.25, 0.125}));
  const auto tasks = m.task_loads();
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0].id, 42);
  EXPECT_EQ(tasks[0].seconds, 1.0);
  EXPECT_EQ(tasks[1].seconds, 0.0625);
  EXPECT_EQ(*m.seconds_per_work(), 3.875 / 10);

  // Explicit calls give the same, and end_step returns the busy time.
  m.begin_step();
  clock.t += 1.5;
  EXPECT_EQ(m.end_step(), 1.5);
  EXPECT_EQ(m.mean_busy(), (3.875 + 1.5) / 2);
}

TEST(Monitor, WindowIsIntactWhileAStepIsOpen) {
  FakeClock clock;
  LoadMonitor m(clock.options(2));
  m.record_step(1);
  m.record_step(3);
  isocost::StepScope step(m);  // writes into the slot after the window
  clock.t += 1;
  EXPECT_EQ(m.mean_busy(), 2.0);
  EXPECT_EQ(m.window_steps(), 2);
}

TEST(Monitor, ExceptionInsideAStepAbandonsIt) {
  FakeClock clock;
  LoadMonitor m(clock.options(2));
  const PhaseId p = m.add_phase("p");
  try {
    isocost::StepScope step(m);
    isocost::PhaseScope phase(m, p);
    clock.t += 1;
    throw std::runtime_error("application failure");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(m.step_open());
  EXPECT_EQ(m.steps(), 0);
  { isocost::StepScope step(m); }  // usable again
  EXPECT_EQ(m.steps(), 1);
}

// Spins until `clock` has advanced by `seconds` (no sleeping: the CPU clock
// must advance too).
void busy_wait(const LoadMonitor& m, double seconds) {
  const double start = m.now();
  volatile double sink = 0;
  while (m.now() - start < seconds) sink = sink + 1;
}

TEST(Monitor, RealClocksMeasureABusyWait) {
  for (const MonitorClock c : {MonitorClock::wall, MonitorClock::cpu}) {
    MonitorOptions o = window(4);
    o.clock = c;
    LoadMonitor m(o);
    const PhaseId p = m.add_phase("spin");
    {
      isocost::StepScope step(m);
      isocost::PhaseScope phase(m, p);
      busy_wait(m, 0.002);
    }
    SCOPED_TRACE(std::string(isocost::to_string(c)));
    EXPECT_GE(m.last_step(), 0.002);
    EXPECT_GE(m.last_phases()[0], 0.002);
    EXPECT_LE(m.last_phases()[0], m.last_step());
    EXPECT_LT(m.last_step(), 60.0);  // sanity only: not a speed assertion
  }
}

TEST(Monitor, ClockNames) {
  EXPECT_EQ(isocost::parse_monitor_clock("cpu"), MonitorClock::cpu);
  EXPECT_EQ(isocost::parse_monitor_clock("wall"), MonitorClock::wall);
  EXPECT_EQ(isocost::to_string(MonitorClock::cpu), "cpu");
  EXPECT_EQ(isocost::to_string(LoadSource::blended), "blended");
  expect_error([] { isocost::parse_monitor_clock("sundial"); }, {"sundial", "wall", "cpu"});
}

TEST(Monitor, BadOptions) {
  expect_error([] { LoadMonitor m(window(0)); }, {"window", "got 0", ">= 1"});
  expect_error([] { LoadMonitor m(window(-3)); }, {"window", "got -3"});
  MonitorOptions o;
  o.prediction_weight = 1.5;
  expect_error([&] { LoadMonitor m(o); }, {"prediction_weight", "1.5", "[0, 1]"});
  std::string why;
  EXPECT_FALSE(window(0).is_valid(&why));
  EXPECT_NE(why.find("window"), std::string::npos);
  EXPECT_TRUE(window(1).is_valid(nullptr));
}

TEST(Monitor, BadTimings) {
  LoadMonitor m(window(3));
  m.add_phase("a");
  m.add_phase("b");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_error([&] { m.record_step(-1.0); }, {"step time", "-1", ">= 0"});
  expect_error([&] { m.record_step(nan); }, {"step time", "nan"});
  expect_error(
      [&] {
        m.record_step(1.0, std::vector<double>{0.5, -0.25});
      },
      {"phase 'b'", "-0.25"});
  expect_error(
      [&] {
        m.record_step(1.0, std::vector<double>{0.5, 0.25, 0.0});
      },
      {"3 phase times", "2 registered"});
  expect_error([&] { m.record_step(1.0, std::vector<double>{0.75, 0.5}); }, {"sum to 1.25", "1 s"});
  StepSample s;
  s.seconds = 1;
  s.tasks = {{5, -2.0}};
  expect_error([&] { m.record_step(s); }, {"task 5", "-2"});
  s.tasks.clear();
  s.work = nan;
  expect_error([&] { m.record_step(s); }, {"work", "nan"});
  expect_error([&] { m.set_predicted_load(-3); }, {"predicted load", "-3"});
  expect_error([&] { m.set_predicted_work(nan); }, {"predicted work", "nan"});
  EXPECT_EQ(m.steps(), 0);  // nothing half-recorded
}

TEST(Monitor, Misuse) {
  FakeClock clock;
  LoadMonitor m(clock.options(3));
  const PhaseId a = m.add_phase("a"), b = m.add_phase("b");
  expect_error([&] { m.phase("c"); }, {"unknown phase 'c'", "a, b"});
  expect_error([&] { m.add_phase(""); }, {"phase name", "empty"});
  expect_error([&] { m.begin_phase(a); }, {"begin_phase()", "outside a step"});
  expect_error([&] { m.end_step(); }, {"end_step()", "outside a step"});
  expect_error([&] { m.record_task(1, 1.0); }, {"record_task()", "outside a step"});
  expect_error([&] { m.end_phase(); }, {"no phase open"});

  m.begin_step();
  expect_error([&] { m.begin_step(); }, {"step 1 is open", "do not nest"});
  expect_error([&] { isocost::StepScope nested(m); }, {"do not nest"});
  expect_error([&] { m.record_step(1.0); }, {"record_step()", "open"});
  expect_error([&] { m.clear_window(); }, {"clear_window()", "open"});
  expect_error([&] { m.begin_phase(PhaseId{7}); }, {"phase id 7", "< 2"});
  m.begin_phase(a);
  expect_error([&] { m.begin_phase(b); }, {"'b'", "phase 'a' is open", "do not nest"});
  expect_error([&] { m.begin_idle(); }, {"idle", "inside phase 'a'"});
  expect_error([&] { m.end_step(); }, {"phase 'a' is open"});
  m.end_phase();
  m.begin_task(1);
  expect_error([&] { m.begin_task(2); }, {"task 2", "task 1", "do not nest"});
  m.end_task();
  m.end_step();
  EXPECT_EQ(m.steps(), 1);

  // A clock that runs backwards is caught, and the step is dropped.
  m.begin_step();
  clock.t -= 1;
  expect_error([&] { m.end_step(); }, {"busy time: expected >= 0, got -1 s", "backwards"});
  EXPECT_FALSE(m.step_open());
  EXPECT_EQ(m.steps(), 1);
}

}  // namespace
