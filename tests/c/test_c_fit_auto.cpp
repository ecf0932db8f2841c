// Tests for the C interface's model choice: isocost_fit() with "auto" equals
// isocost::select_model()'s winner, isocost_model_describe() and
// isocost_density_describe() give the C++ descriptions, and
// isocost_fit_density() fits and chooses densities as isocost::fit_density()
// and select_density() do, with its error paths named.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "c_test_support.hpp"
#include "isocost/fitters/fit.hpp"
#include "isocost/fitters/fit_density.hpp"
#include "isocost/isocost.h"

namespace {

using isocost::testing::ExpectFailure;
using isocost::testing::Model;

using isocost::testing::Density;

std::string described(const isocost_model* m) {
  std::int64_t length = -1;
  EXPECT_EQ(isocost_model_describe(m, nullptr, 0, &length), ISOCOST_OK) << isocost_last_error();
  std::string text(static_cast<std::size_t>(length) + 1, '?');
  EXPECT_EQ(isocost_model_describe(m, text.data(), length + 1, nullptr), ISOCOST_OK);
  EXPECT_EQ(text[static_cast<std::size_t>(length)], '\0');
  text.resize(static_cast<std::size_t>(length));
  return text;
}

// x^2 timed on 24 equal intervals of [1, 25], with a ±1 % alternating error.
struct SquareTimings {
  std::vector<double> lo, hi, dt;
  isocost::Samples samples() const {
    std::vector<isocost::IntervalSample> v;
    for (std::size_t k = 0; k < dt.size(); ++k) v.push_back({lo[k], hi[k], dt[k]});
    return isocost::Samples(v);
  }
};
SquareTimings squares() {
  SquareTimings t;
  for (int k = 0; k < 24; ++k) {
    const double a = 1 + k, b = 2 + k;
    t.lo.push_back(a);
    t.hi.push_back(b);
    t.dt.push_back((b * b * b - a * a * a) / 3 * (k % 2 ? 0.99 : 1.01));
  }
  return t;
}

TEST(CFitAuto, AutoIsSelectModelsWinner) {
  const SquareTimings t = squares();
  isocost_model* out = nullptr;
  isocost_fit_summary s{};
  ASSERT_EQ(isocost_fit(t.lo.data(), t.hi.data(), t.dt.data(), 24, "auto", &out, &s), ISOCOST_OK)
      << isocost_last_error();
  Model m(out);
  const isocost::Selection cpp = isocost::select_model(t.samples(), isocost::SelectOptions{});
  ASSERT_TRUE(cpp.best.model.has_value());
  EXPECT_EQ(described(m.get()), cpp.best.model->describe());
  ASSERT_EQ(s.n_parameters, static_cast<int>(cpp.best.summary.parameters.size()));
  for (int i = 0; i < s.n_parameters; ++i)
    EXPECT_EQ(s.parameters[i], cpp.best.summary.parameters[static_cast<std::size_t>(i)].value);
  EXPECT_EQ(s.rmse, cpp.best.summary.rmse);
  // Whatever won, it is the cost of the timings: within the 1 % noise.
  double cost = 0;
  ASSERT_EQ(isocost_model_cost(m.get(), 13, &cost), ISOCOST_OK);
  EXPECT_NEAR(cost, (13.0 * 13 * 13 - 1) / 3, 0.01 * cost);
}

TEST(CFitAuto, DescribeTruncatesAndNamesItsErrors) {
  isocost_model* out = nullptr;
  ASSERT_EQ(isocost_model_power(2, 3, 0, 0, 1, &out), ISOCOST_OK) << isocost_last_error();
  Model m(out);
  const std::string full = described(m.get());
  ASSERT_GT(full.size(), 5u);
  char text[6] = "xxxxx";
  std::int64_t length = 0;
  ASSERT_EQ(isocost_model_describe(m.get(), text, 6, &length), ISOCOST_OK);
  EXPECT_EQ(std::string(text), full.substr(0, 5));  // 5 characters and the NUL
  EXPECT_EQ(length, static_cast<std::int64_t>(full.size()));
  const int bad = ISOCOST_ERROR_INVALID_ARGUMENT;
  ExpectFailure(isocost_model_describe(nullptr, text, 6, nullptr), bad,
                {"isocost_model_describe: model is NULL"});
  ExpectFailure(isocost_model_describe(m.get(), nullptr, 6, nullptr), bad, {"text is NULL"});
  ExpectFailure(isocost_model_describe(m.get(), text, -1, nullptr), bad,
                {"size: expected an integer >= 0, got -1"});
}

// Box timings of rho = (1 + x)(1 + 2y) on a 6 × 5 grid of [0, 3] × [0, 2]:
// the mass of [a, b] × [c, d] is (b − a + (b² − a²)/2)(d − c + d² − c²).
struct Boxes {
  std::vector<double> lo, hi, cost;
};
double mass(double a, double b, double c, double d) {
  return (b - a + (b * b - a * a) / 2) * (d - c + d * d - c * c);
}
Boxes grid_boxes() {
  Boxes s;
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 6; ++i) {
      const double a = 0.5 * i, b = 0.5 * (i + 1), c = 0.4 * j, d = 0.4 * (j + 1);
      s.lo.insert(s.lo.end(), {a, c});
      s.hi.insert(s.hi.end(), {b, d});
      s.cost.push_back(mass(a, b, c, d));
    }
  return s;
}

// Cuts the density in two along x (isocost_decompose): each half's cost must
// be the exact mass of its box, and the halves equal.
void ExpectHalvesAreExact(const isocost_density* d, double total) {
  isocost_part parts[2]{};
  isocost_decomposition info{};
  const int counts[1] = {2}, axes[1] = {0};
  ASSERT_EQ(isocost_decompose(d, 1, counts, axes, nullptr, parts, &info), ISOCOST_OK)
      << isocost_last_error();
  for (const isocost_part& p : parts) {
    EXPECT_NEAR(p.cost, total / 2, 1e-8 * total);
    EXPECT_NEAR(p.cost, mass(p.lo[0], p.hi[0], p.lo[1], p.hi[1]), 1e-7 * total);
  }
}

TEST(CFitDensity, ASeparableFormRecoversTheDensity) {
  const Boxes s = grid_boxes();
  isocost_density* out = nullptr;
  isocost_fit_summary summary{};
  ASSERT_EQ(isocost_fit_density(s.lo.data(), s.hi.data(), s.cost.data(), 30, 2, "separable:1", &out,
                                &summary),
            ISOCOST_OK)
      << isocost_last_error();
  Density d(out);
  EXPECT_EQ(summary.converged, 1);
  EXPECT_EQ(summary.n_parameters, 0);
  EXPECT_LT(summary.max_rel_error, 1e-8);  // (1 + x)(1 + 2y) is separable of degree 1
  int dims = 0;
  double total = 0;
  ASSERT_EQ(isocost_density_info(d.get(), &dims, &total), ISOCOST_OK);
  EXPECT_EQ(dims, 2);
  EXPECT_NEAR(total, mass(0, 3, 0, 2), 1e-8 * total);
  ExpectHalvesAreExact(d.get(), total);
  // The same density as C++'s fit.
  std::vector<isocost::BoxSample> cpp;
  for (std::size_t k = 0; k < s.cost.size(); ++k)
    cpp.push_back({isocost::Box::of({s.lo[2 * k], s.lo[2 * k + 1]}, {s.hi[2 * k], s.hi[2 * k + 1]}),
                   s.cost[k]});
  const auto r = isocost::fit_density(cpp, isocost::parse_density_form("separable:1"));
  std::int64_t length = 0;
  ASSERT_EQ(isocost_density_describe(d.get(), nullptr, 0, &length), ISOCOST_OK);
  std::string text(static_cast<std::size_t>(length) + 1, '\0');
  ASSERT_EQ(isocost_density_describe(d.get(), text.data(), length + 1, nullptr), ISOCOST_OK);
  text.resize(static_cast<std::size_t>(length));
  EXPECT_EQ(text, r.density.describe());
}

TEST(CFitDensity, AutoIsSelectDensitysWinner) {
  const Boxes s = grid_boxes();
  isocost_density* out = nullptr;
  ASSERT_EQ(
      isocost_fit_density(s.lo.data(), s.hi.data(), s.cost.data(), 30, 2, "auto", &out, nullptr),
      ISOCOST_OK)
      << isocost_last_error();
  Density d(out);
  std::vector<isocost::BoxSample> cpp;
  for (std::size_t k = 0; k < s.cost.size(); ++k)
    cpp.push_back({isocost::Box::of({s.lo[2 * k], s.lo[2 * k + 1]}, {s.hi[2 * k], s.hi[2 * k + 1]}),
                   s.cost[k]});
  const isocost::DensitySelection sel = isocost::select_density(cpp);
  std::int64_t length = 0;
  ASSERT_EQ(isocost_density_describe(d.get(), nullptr, 0, &length), ISOCOST_OK);
  std::string text(static_cast<std::size_t>(length) + 1, '\0');
  ASSERT_EQ(isocost_density_describe(d.get(), text.data(), length + 1, nullptr), ISOCOST_OK);
  text.resize(static_cast<std::size_t>(length));
  EXPECT_EQ(text, sel.best.density.describe());
  double total = 0;
  ASSERT_EQ(isocost_density_info(d.get(), nullptr, &total), ISOCOST_OK);
  EXPECT_NEAR(total, mass(0, 3, 0, 2), 1e-6 * total);
  ExpectHalvesAreExact(d.get(), total);
}

TEST(CFitDensity, EveryBadArgumentNamesItself) {
  const Boxes s = grid_boxes();
  const double *lo = s.lo.data(), *hi = s.hi.data(), *c = s.cost.data();
  isocost_density* out = nullptr;
  const int bad = ISOCOST_ERROR_INVALID_ARGUMENT;
  ExpectFailure(isocost_fit_density(nullptr, hi, c, 30, 2, "auto", &out, nullptr), bad,
                {"isocost_fit_density: lo is NULL"});
  ExpectFailure(isocost_fit_density(lo, hi, c, 30, 2, nullptr, &out, nullptr), bad,
                {"form is NULL"});
  ExpectFailure(isocost_fit_density(lo, hi, c, 0, 2, "auto", &out, nullptr), bad,
                {"count: expected an integer >= 1, got 0"});
  ExpectFailure(isocost_fit_density(lo, hi, c, 30, 4, "auto", &out, nullptr), bad,
                {"dims: expected 1, 2 or 3, got 4"});
  ExpectFailure(isocost_fit_density(lo, hi, c, 30, 2, "poly:x", &out, nullptr), bad,
                {"density form: expected 'separable:N'", "got 'poly:x'"});
  ExpectFailure(isocost_fit_density(lo, hi, c, 30, 2, "poly:7", &out, nullptr), bad,
                {"density form 'poly:7'", "degree"});
  ExpectFailure(isocost_fit_density(lo, hi, c, 3, 2, "separable:3", &out, nullptr), bad,
                {"3 samples for 7 parameters"});
  EXPECT_EQ(out, nullptr);
  // No form fits one box: every candidate's reason is in the message.
  ExpectFailure(isocost_fit_density(lo, hi, c, 1, 2, "auto", &out, nullptr), bad,
                {"select_density: no form could be fitted", "separable:0", "poly:4"});
}

}  // namespace
