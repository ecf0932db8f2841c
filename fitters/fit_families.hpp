// Internal to the fitters: the parametric families fit() solves for, each a
// T(x; θ) with gradient, start values from regressions of the sampled
// densities, bounds, and how θ becomes reported parameters and a CostModel;
// and the Ceres residuals over interval samples.
#pragma once

#include <ceres/ceres.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/fitters/expression.hpp"
#include "isocost/fitters/fit.hpp"

namespace isocost::detail {

// A parametric family: T(x; θ) with its gradient, start values, bounds, and
// how to turn θ into reported parameters and a CostModel.
struct Family {
  std::string formula;
  std::vector<std::string> names;    // reported names, one per θ entry
  std::vector<double> theta;         // start values
  std::vector<bool> fixed;           // held constant
  std::vector<double> lower, upper;  // bounds (±inf when none)
  // T(x; θ) and ∂T/∂θ (grad may be null).
  std::function<double(double x, const double* theta, double* grad)> value;
  // Reported value of θ_i and d(value)/dθ_i (for standard errors).
  std::function<std::pair<double, double>(const std::vector<double>&, std::size_t)> report;
  std::function<CostModel(const std::vector<double>&, double lo, double hi)> make;
  std::shared_ptr<Expression> expression;  // FitForm::expression only
};

// Residuals of samples [first, first + count): (T(hi) − T(lo) − dt)·w, with an
// analytic Jacobian from the family's gradient. One block per sample lets a
// robust loss see each sample on its own; without one, all samples form one
// block, which spares Ceres its per-block overhead (it dominates for
// thousands of cheap residuals).
class IntervalCost final : public ceres::CostFunction {
 public:
  IntervalCost(const Family& f, const Samples& s, const std::vector<double>& w, std::size_t first,
               std::size_t count)
      : f_(f), s_(s), w_(w), first_(first), count_(count) {
    set_num_residuals(static_cast<int>(count));
    mutable_parameter_block_sizes()->push_back(static_cast<int>(f.theta.size()));
  }
  bool Evaluate(double const* const* parameters, double* residuals,
                double** jacobians) const override {
    const std::size_t k = f_.theta.size();
    double g_hi[16], g_lo[16];
    const bool want = jacobians != nullptr && jacobians[0] != nullptr;
    for (std::size_t r = 0; r < count_; ++r) {
      const auto& iv = s_.intervals()[first_ + r];
      const double w = w_[first_ + r];
      const double t_hi = f_.value(iv.hi, parameters[0], want ? g_hi : nullptr);
      const double t_lo = f_.value(iv.lo, parameters[0], want ? g_lo : nullptr);
      residuals[r] = (t_hi - t_lo - iv.dt) * w;
      if (!std::isfinite(residuals[r])) return false;  // Ceres backs off the step
      if (want)
        for (std::size_t i = 0; i < k; ++i) jacobians[0][r * k + i] = (g_hi[i] - g_lo[i]) * w;
    }
    return true;
  }

 private:
  const Family& f_;
  const Samples& s_;
  const std::vector<double>& w_;
  std::size_t first_, count_;
};

// The same residual for formulas, by Ceres' numeric differentiation.
struct ExpressionResidual {
  const Family* family;
  IntervalSample s;
  double w;
  bool operator()(double const* const* parameters, double* residual) const {
    const std::size_t k = family->theta.size();
    const std::span<const double> theta(parameters[0], k);
    try {
      residual[0] = (family->expression->evaluate(s.hi, theta) -
                     family->expression->evaluate(s.lo, theta) - s.dt) *
                    w;
    } catch (const Error&) {
      return false;
    }
    return std::isfinite(residual[0]);
  }
};

/// The family of `spec` (not pchip/makima) with start values for `samples`
/// weighted by `w` (the residual weights).
Family make_family(const Samples& samples, const FitSpec& spec, const std::vector<double>& w);

}  // namespace isocost::detail
