// Tests for isocost/shift.hpp, 1-D, the limits of a shift: the max_move cap,
// pooled conflicts, order preservation whatever the transfers, the
// measure → diffuse → shift loop, and bad input. Closed forms: t = x, ratio 1
// (see test_shift_cuts.cpp).
#include "isocost/shift.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "core/diffusion/shift_test_support.hpp"
#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/diffusion.hpp"
#include "isocost/metrics.hpp"
#include "isocost/partition.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::CostModel;
using isocost::imbalance;
using isocost::ShiftOptions;
using isocost::testing::after_transfers;
using isocost::testing::chain_transfers;
using isocost::testing::costs;
using isocost::testing::expect_error;
using isocost::testing::expect_relative;
using isocost::testing::kInf;
using isocost::testing::v;

// ---------------------------------------------------------------------------
// The max_move cap and ordering

TEST(ShiftCuts, MaxMoveCapsHowFarABoundaryMoves) {
  const auto t = isocost::power_model(1, 1, 0, 0, 10);
  ShiftOptions o;
  o.max_move = 0.2;  // at most 0.2 × 5 = 1 into rank 0's range [0, 5)
  auto r = isocost::shift_cuts(t, v({0, 5, 10}), v({3}), v({5, 5}), o);
  EXPECT_DOUBLE_EQ(r.cuts[1], 4);
  EXPECT_TRUE(r.capped[0]);
  EXPECT_DOUBLE_EQ(r.requested[0], 3);
  EXPECT_DOUBLE_EQ(r.applied[0], 1);
  // The cap is the width of the range moved INTO: rightwards into [5, 7.5).
  r = isocost::shift_cuts(t, v({0, 5, 7.5}), v({-3}), v({5, 2.5}), o);
  EXPECT_DOUBLE_EQ(r.cuts[1], 5.5);
  EXPECT_TRUE(r.capped[0]);
  // Within the cap nothing changes.
  r = isocost::shift_cuts(t, v({0, 5, 10}), v({0.5}), v({5, 5}), o);
  EXPECT_DOUBLE_EQ(r.cuts[1], 4.5);
  EXPECT_FALSE(r.capped[0]);
  // No cap: a transfer beyond everything to the left stops at the end.
  r = isocost::shift_cuts(t, v({0, 5, 10}), v({7}), v({5, 5}));
  EXPECT_EQ(r.cuts[1], 0);
  EXPECT_TRUE(r.capped[0]);
  EXPECT_DOUBLE_EQ(r.applied[0], 5);
  // max_move = 1 with min_width keeps the range open.
  o.max_move = 1;
  o.min_width = 0.5;
  r = isocost::shift_cuts(t, v({0, 5, 10}), v({7}), v({5, 5}), o);
  EXPECT_DOUBLE_EQ(r.cuts[1], 0.5);
  EXPECT_TRUE(r.capped[0]);

  // Equal ranges of width 2 with ratio 1 (loads 2): rank 1 passes 1.5 to
  // rank 2, which passes 3 to rank 3. Boundary 3 (at 6) targets 3, across
  // range 2 into range 1; boundary 2 targets 2.5.
  const auto cuts = v({0, 2, 4, 6, 8, 10});
  const auto loads = v({2, 2, 2, 2, 2});
  const auto T = v({0, 1.5, 3, 0});
  r = isocost::shift_cuts(t, cuts, T, loads);  // no cap
  EXPECT_DOUBLE_EQ(r.cuts[2], 2.5);
  EXPECT_DOUBLE_EQ(r.cuts[3], 3);
  EXPECT_EQ(r.capped_count(), 0);
  o = ShiftOptions{};
  o.max_move = 2;  // at most 2 × 2 = 4: not binding
  r = isocost::shift_cuts(t, cuts, T, loads, o);
  EXPECT_DOUBLE_EQ(r.cuts[3], 3);
  EXPECT_EQ(r.capped_count(), 0);
  o.max_move = 1.2;  // at most 2.4: boundary 3 stops at 3.6, past range 2's start
  r = isocost::shift_cuts(t, cuts, T, loads, o);
  EXPECT_DOUBLE_EQ(r.cuts[3], 3.6);
  EXPECT_DOUBLE_EQ(r.cuts[2], 2.5);
  EXPECT_TRUE(r.capped[2]);
  EXPECT_FALSE(r.capped[1]);
  o.max_move = 1;  // inside range 2: boundary 3 stops at its start, 4
  r = isocost::shift_cuts(t, cuts, T, loads, o);
  EXPECT_DOUBLE_EQ(r.cuts[3], 4);
  EXPECT_DOUBLE_EQ(r.applied[2], 2);
  EXPECT_TRUE(r.capped[2]);

  // The example of loads 3, 1, 1, 1, 1 with max_move = 0.5: a boundary moves at most
  // 1 (half of the width 2 it moves into), so boundaries 1 to 3, which want
  // more, stop at 1, 3 and 5; boundary 4 (wants 0.67) is free.
  const auto l5 = v({3, 1, 1, 1, 1});
  const auto T5 = chain_transfers(l5);
  o.max_move = 0.5;
  r = isocost::shift_cuts(t, cuts, T5, l5, o);
  EXPECT_EQ(r.cuts[1], 1);
  EXPECT_EQ(r.cuts[2], 3);
  EXPECT_EQ(r.cuts[3], 5);
  EXPECT_EQ(r.capped, std::vector<bool>({true, true, true, false}));
  EXPECT_NEAR(r.applied[3], T5[3], 1e-14);
  EXPECT_NEAR(r.cuts[4], 8 - T5[3] * 2, 1e-14);  // range 4 has ratio 2
  // L(1) = 1.5 (ratio 2/3), L(3) = 3.5, L(5) = 4.5, L(cut 4) = 6 − T5[3].
  expect_relative(r.predicted_load, v({1.5, 2, 1, 1.5 - T5[3], 1 + T5[3]}), 1e-14);
  for (std::size_t k = 1; k < 5; ++k) EXPECT_LE(std::abs(r.cuts[k] - cuts[k]), 1);
}

TEST(ShiftCuts, ConflictsPoolAtTheMeetingPoint) {
  const auto t = isocost::power_model(1, 1, 0, 0, 9);  // ratio 1 below: L = x
  const auto cuts = v({0, 3, 6, 9});
  const auto loads = v({3, 3, 3});
  // Rank 1 sends 3 to each side but owns only 3: targets L* = 6 and 3 cross;
  // the pool meets at L = (6 + 3)/2 = 4.5.
  auto r = isocost::shift_cuts(t, cuts, v({-3, 3}), loads);
  EXPECT_DOUBLE_EQ(r.cuts[1], 4.5);
  EXPECT_DOUBLE_EQ(r.cuts[2], 4.5);
  EXPECT_TRUE(r.conflict[0] && r.conflict[1]);
  EXPECT_DOUBLE_EQ(r.applied[0], -1.5);
  EXPECT_DOUBLE_EQ(r.applied[1], 1.5);
  EXPECT_DOUBLE_EQ(r.predicted_load[1], 0);
  // 4 to the left, 2 to the right: targets 7 and 4 meet at 5.5.
  r = isocost::shift_cuts(t, cuts, v({-4, 2}), loads);
  EXPECT_DOUBLE_EQ(r.cuts[1], 5.5);
  EXPECT_DOUBLE_EQ(r.cuts[2], 5.5);
  // With a minimum width the range keeps it, centred on the meeting point.
  ShiftOptions o;
  o.min_width = 1;
  r = isocost::shift_cuts(t, cuts, v({-3, 3}), loads, o);
  EXPECT_DOUBLE_EQ(r.cuts[1], 4);
  EXPECT_DOUBLE_EQ(r.cuts[2], 5);
  // Transfers the range can afford do not conflict.
  r = isocost::shift_cuts(t, cuts, v({-1, 1.5}), loads);
  EXPECT_EQ(r.conflict_count(), 0);
  EXPECT_DOUBLE_EQ(r.cuts[1], 4);
  EXPECT_DOUBLE_EQ(r.cuts[2], 4.5);
  // ... unless min_width forbids the 0.5 left: then they pool and meet at
  // (4 + 4.5)/2 = 4.25, spread to 3.75 and 4.75.
  r = isocost::shift_cuts(t, cuts, v({-1, 1.5}), loads, o);
  EXPECT_DOUBLE_EQ(r.cuts[1], 3.75);
  EXPECT_DOUBLE_EQ(r.cuts[2], 4.75);
  EXPECT_EQ(r.conflict_count(), 2);

  // Pools merge until they are in order: on [0, 12] with ratio 1, targets
  // 6, 5, 2 (transfers −3, 1, 7): boundaries 1 and 2 pool at 5.5, which is
  // still above 2, so all three meet at (6 + 5 + 2)/3 = 13/3.
  const auto t12 = isocost::power_model(1, 1, 0, 0, 12);
  const auto c12 = v({0, 3, 6, 9, 12});
  const auto l12 = v({3, 3, 3, 3});
  r = isocost::shift_cuts(t12, c12, v({-3, 1, 7}), l12);
  for (int k = 1; k <= 3; ++k) EXPECT_NEAR(r.cuts[k], 13.0 / 3, 1e-14) << k;
  EXPECT_EQ(r.conflict_count(), 3);
  // Minimum width 1: boundary 3 first stops at 3 (capped: ranks 0 to 2 need
  // 1 each), so the pool meets at (6 + 5 + 3)/3 = 14/3, spread by the gaps
  // G = 1, 2, 3 around their mean 2.
  r = isocost::shift_cuts(t12, c12, v({-3, 1, 7}), l12, o);
  EXPECT_TRUE(r.capped[2]);
  EXPECT_NEAR(r.cuts[1], 11.0 / 3, 1e-14);
  EXPECT_NEAR(r.cuts[2], 14.0 / 3, 1e-14);
  EXPECT_NEAR(r.cuts[3], 17.0 / 3, 1e-14);
  expect_relative(r.predicted_load, v({11.0 / 3, 1, 1, 12 - 17.0 / 3}), 1e-14);

  // A discrete model pools on whole cells: weights 1 (L = x with loads =
  // widths); targets 6 and 3 meet at 4.5, whose nearest grid lines 4 and 5
  // tie: the smaller, 4, as solve_cut() breaks ties. With min_width 1 the
  // spread 4 ∓ 0.5 rounds (half away from zero, in z = x − G) to 4 and 5.
  const auto d = isocost::discrete_model(std::vector<double>(9, 1.0));
  r = isocost::shift_cuts(d, cuts, v({-3, 3}), loads);
  EXPECT_EQ(r.cuts, v({0, 4, 4, 9}));
  r = isocost::shift_cuts(d, cuts, v({-3, 3}), loads, o);
  EXPECT_EQ(r.cuts, v({0, 4, 5, 9}));
}

TEST(ShiftCuts, OrderIsPreservedWhateverTheTransfers) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  const auto smooth = isocost::power_model(1, 1.7, 0, 0, 50);
  std::vector<double> w(50);
  for (auto& x : w) x = u(rng) < 0.2 ? 0 : u(rng);  // zero runs: flat stretches
  const auto cells = isocost::discrete_model(w);
  int conflicts = 0, capped = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const bool discrete = trial % 4 == 3;
    const CostModel& t = discrete ? cells : smooth;
    const int P = 2 + trial % 9;
    std::vector<double> cuts{0};
    for (int i = 1; i < P; ++i) cuts.push_back(discrete ? std::floor(50 * u(rng)) : 50 * u(rng));
    cuts.push_back(50);
    std::sort(cuts.begin(), cuts.end());
    std::vector<double> loads, T;
    for (int i = 0; i < P; ++i) loads.push_back(u(rng) < 0.1 ? 0 : 10 * u(rng));
    loads[0] += 1;
    for (int b = 0; b + 1 < P; ++b) T.push_back(40 * (u(rng) - 0.5));  // often too much
    ShiftOptions o;
    switch (trial % 3) {
      case 0:
        break;  // no cap
      case 1:
        o.max_move = 0.3 + 0.7 * u(rng);
        break;
      default:
        o.max_move = 1 + 2 * u(rng);
        break;
    }
    o.min_width = trial % 2 ? 0 : 3 * u(rng);
    const auto r = isocost::shift_cuts(t, cuts, T, loads, o);
    SCOPED_TRACE("trial " + std::to_string(trial));
    EXPECT_EQ(isocost::options_hash(r.options), isocost::options_hash(o));  // the options given
    ASSERT_EQ(r.cuts.size(), cuts.size());
    EXPECT_EQ(r.cuts.front(), 0);
    EXPECT_EQ(r.cuts.back(), 50);
    conflicts += r.conflict_count();
    capped += r.capped_count();
    const double mw = discrete ? std::ceil(o.min_width) : o.min_width;
    for (int i = 0; i < P; ++i) {
      const double w_old = cuts[i + 1] - cuts[i], w_new = r.cuts[i + 1] - r.cuts[i];
      EXPECT_GE(w_new, 0) << "rank " << i;
      // At least min_width where the old range was that wide, and never
      // narrower than before otherwise.
      EXPECT_GE(w_new, std::min(mw, w_old) - 1e-12) << "rank " << i;
      if (discrete) {
        EXPECT_EQ(r.cuts[i], std::floor(r.cuts[i]));
      }
    }
    for (int b = 0; b + 1 < P; ++b) {
      const double x = cuts[b + 1], y = r.cuts[b + 1];
      // max_move <= 1: every boundary stays within max_move × the width it moves into,
      // pooled or not. max_move > 1: those not pooled.
      if (o.max_move <= 1 || (std::isfinite(o.max_move) && !r.conflict[b])) {
        const double wd = y < x ? x - cuts[b] : cuts[b + 2] - x;
        EXPECT_LE(std::abs(y - x), o.max_move * wd * (1 + 1e-12) + 1e-12) << "boundary " << b;
      }
      if (r.conflict[b]) continue;
      // Not pooled: never the wrong way, never more than asked (on cells, by
      // at most the rounding to the nearest grid line: half a cell, whose
      // load is at most its weight / the smallest ratio).
      EXPECT_GE(r.applied[b] * T[b], 0) << "boundary " << b;
      const double slack = discrete ? *std::max_element(w.begin(), w.end()) /
                                          *std::min_element(r.ratio.begin(), r.ratio.end())
                                    : 1e-9;
      EXPECT_LE(std::abs(r.applied[b]), std::abs(T[b]) * (1 + 1e-12) + slack) << "boundary " << b;
    }
    // Conservation: the new ranges hold the whole cost and the whole L.
    double total_L = 0;
    const auto c_old = costs(t, cuts);
    const double ratio_global = t.cost(50) / std::accumulate(loads.begin(), loads.end(), 0.0);
    for (int i = 0; i < P; ++i)
      total_L += c_old[i] / (loads[i] > 0 && c_old[i] > 0 ? c_old[i] / loads[i] : ratio_global);
    EXPECT_NEAR(std::accumulate(r.predicted_load.begin(), r.predicted_load.end(), 0.0), total_L,
                1e-12 * total_L);
    EXPECT_NEAR(std::accumulate(r.cost.begin(), r.cost.end(), 0.0), t.total(), 1e-12 * t.total());
  }
  EXPECT_GT(conflicts, 50);
  EXPECT_GT(capped, 50);
}

// ---------------------------------------------------------------------------
// The loop: measure, diffuse, shift, measure again.

TEST(ShiftCuts, MeasureDiffuseShiftReducesTheImbalance) {
  const int P = 8;
  auto linear_cuts = [&](double lo, double hi) {
    std::vector<double> c;
    for (int i = 0; i <= P; ++i) c.push_back(lo + (hi - lo) * i / P);
    return c;
  };
  // Measured loads: seconds = 2 × the true cost.
  auto measure = [](const CostModel& truth, const std::vector<double>& c) {
    auto l = costs(truth, c);
    for (auto& x : l) x *= 2;
    return l;
  };
  const isocost::DiffusionScheme schemes[] = {isocost::DiffusionScheme::crank_nicolson,
                                              isocost::DiffusionScheme::implicit,
                                              isocost::DiffusionScheme::least_squares};
  for (auto scheme : schemes) {
    isocost::DiffusionOptions o;
    o.scheme = scheme;
    const bool lsq = scheme == isocost::DiffusionScheme::least_squares;
    SCOPED_TRACE(std::string(isocost::to_string(scheme)));
    // With the true model, one round lands exactly where diffusion balanced
    // the loads, a mild imbalance (t = x² on [1, 2] from the linear
    // distribution: costs rise from 0.27 to 0.48) as a strong one (t = x³ on
    // [1, 4]: rank 7 holds 10× rank 0, and work crosses several ranges).
    for (const auto& truth :
         {isocost::power_model(1, 2, 0, 1, 2), isocost::power_model(1, 3, 0, 1, 4)}) {
      SCOPED_TRACE(truth.describe());
      const auto cuts = linear_cuts(truth.lo(), truth.hi());
      const auto loads = measure(truth, cuts);
      const auto g = isocost::mesh_graph({P}, false);
      const auto d = isocost::diffuse(g, loads, o);
      const auto r = isocost::shift_cuts(truth, cuts, chain_transfers(loads, o), loads);
      EXPECT_EQ(r.capped_count(), 0);
      EXPECT_EQ(r.conflict_count(), 0);
      const auto after = measure(truth, r.cuts);
      for (int i = 0; i < P; ++i) {
        EXPECT_NEAR(after[i], d.loads[i], 1e-10 * d.loads[i]);
        EXPECT_NEAR(r.predicted_load[i], d.loads[i], 1e-10 * d.loads[i]);
      }
      EXPECT_GT(imbalance(loads), 0.25);
      EXPECT_LE(imbalance(after), (lsq ? 0 : o.alpha) + 1e-9);
    }
    {
      // The strong case with a wrong model (linear), which the measured
      // ratios correct round by round; and with the cap max_move = 1 (a
      // boundary stays inside the range it enters), which needs several
      // rounds even with the true model. The imbalance never grows and
      // reaches α within a few rounds.
      const auto truth = isocost::power_model(1, 3, 0, 1, 4);
      ShiftOptions capped;
      capped.max_move = 1;
      for (const auto& [model, so] :
           {std::pair{isocost::power_model(1, 1, 0, 1, 4), ShiftOptions{}},
            std::pair{truth, capped}}) {
        SCOPED_TRACE(model.describe() + ", max_move " + std::to_string(so.max_move));
        auto c = linear_cuts(1, 4);
        double last = imbalance(measure(truth, c));
        EXPECT_GT(last, 1);
        int rounds = 0, caps = 0;
        while (last > o.alpha * (1 + 1e-9) && rounds < 20) {
          const auto l = measure(truth, c);
          const auto r = isocost::shift_cuts(model, c, chain_transfers(l, o), l, so);
          caps += r.capped_count();
          c = r.cuts;
          const double now = imbalance(measure(truth, c));
          EXPECT_LE(now, last) << "round " << rounds;
          last = now;
          ++rounds;
        }
        if (std::isfinite(so.max_move)) {
          EXPECT_GT(caps, 0);
        }
        EXPECT_LE(last, o.alpha * (1 + 1e-9));
        EXPECT_LE(rounds, 8);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Bad input

TEST(ShiftCuts, BadInput) {
  const auto t = isocost::power_model(1, 1, 0, 0, 10);
  const auto cuts = v({0, 5, 10});
  const double nan = std::nan("");
  expect_error([&] { isocost::shift_cuts(t, v({0}), v({}), v({1})); }, {"at least 2 cuts"});
  expect_error(
      [&] {
        isocost::shift_cuts(t, cuts, v({1, 2}), v({1, 1}));
      },
      {"2 transfers", "2 ranks"});
  expect_error([&] { isocost::shift_cuts(t, cuts, v({1}), v({1, 1, 1})); }, {"3 loads", "2 ranks"});
  expect_error([&] { isocost::shift_cuts(t, cuts, v({1}), v({1, -2})); }, {"rank 1", "-2"});
  expect_error([&] { isocost::shift_cuts(t, cuts, v({1}), v({nan, 1})); }, {"rank 0", "nan"});
  expect_error([&] { isocost::shift_cuts(t, cuts, v({nan}), v({1, 1})); }, {"transfer 0", "nan"});
  expect_error([&] { isocost::shift_cuts(t, cuts, v({INFINITY}), v({1, 1})); }, {"transfer 0"});
  expect_error([&] { isocost::shift_cuts(t, cuts, v({1}), v({0, 0})); }, {"all loads are zero"});
  expect_error(
      [&] {
        isocost::shift_cuts(t, v({0, 11, 10}), v({1}), v({1, 1}));
      },
      {"cut 1", "11", "[0, 10]"});
  expect_error(
      [&] {
        isocost::shift_cuts(t, v({0, 6, 5, 10}), v({1, 1}), v({1, 1, 1}));
      },
      {"cut 2", "nondecreasing"});
  expect_error([&] { isocost::shift_cuts(t, v({0, nan, 10}), v({1}), v({1, 1})); }, {"cut 1"});
  ShiftOptions o;
  EXPECT_TRUE(std::isinf(o.max_move));  // the default: no cap
  o.max_move = 0;
  expect_error(
      [&] {
        isocost::shift_cuts(t, cuts, v({1}), v({1, 1}), o);
      },
      {"max_move: expected +inf or a finite number > 0", "got 0"});
  o.max_move = -0.5;
  expect_error([&] { isocost::shift_cuts(t, cuts, v({1}), v({1, 1}), o); }, {"max_move", "-0.5"});
  o.max_move = nan;
  expect_error([&] { isocost::shift_cuts(t, cuts, v({1}), v({1, 1}), o); }, {"max_move", "nan"});
  // Any max_move > 0 is a cap, above 1 too: 1.5 × 5 = 7.5 > the 3 asked.
  o.max_move = 1.5;
  EXPECT_DOUBLE_EQ(isocost::shift_cuts(t, cuts, v({3}), v({5, 5}), o).cuts[1], 2);
  o.max_move = kInf;
  EXPECT_DOUBLE_EQ(isocost::shift_cuts(t, cuts, v({3}), v({5, 5}), o).cuts[1], 2);
  o.max_move = 1;
  o.min_width = -1;
  expect_error([&] { isocost::shift_cuts(t, cuts, v({1}), v({1, 1}), o); }, {"min_width", "-1"});
  // One rank: nothing to shift, and that is fine.
  EXPECT_EQ(isocost::shift_cuts(t, v({0, 10}), v({}), v({3})).cuts, v({0, 10}));
}

}  // namespace
