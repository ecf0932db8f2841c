// isocost/fitters/expression.hpp — cost formulas typed by a user, e.g.
// "A*x^p/(log(x)-c)", evaluated with muParser (fitters layer).
//
// The variable is x; every other identifier is a parameter. muParser's
// built-ins are available: in muParser 2.3.3 both log and ln are the natural
// logarithm (log10 and log2 are the others), plus exp, sqrt, abs, ^ (power),
// sin…, min/max/sum/avg, the constants _pi and _e (_pi redefined to the full
// double π: muParser's GCC build truncates it to 3.141592653589), comparisons
// and c ? a : b.
// Assignment (=) and comma-separated lists of expressions are rejected.
//
//   isocost::Expression e("A*x^p/(log(x)-c)");
//   // e.parameters() == {"A", "c", "p"} (sorted)
//   double t = e.evaluate(1e6, {3.9e-7, 1.08366, 1.43});
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "isocost/cost_model.hpp"
#include "isocost/density.hpp"

namespace isocost {

/// A compiled formula t(x; parameters). Copies are independent (each has its
/// own parser); one object must not be evaluated from two threads at once.
/// A moved-from Expression may only be assigned to or destroyed.
class Expression {
 public:
  /// Compiles the formula. Throws Error on a syntax error, naming the position
  /// (0-based character offset) and the offending token, e.g.
  /// "formula 'A*x^^p': syntax error at position 4 ('^'): Unexpected operator
  /// "^" found", and if the formula does not use x.
  explicit Expression(std::string formula);
  Expression(const Expression& other);
  Expression& operator=(const Expression& other);
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;
  ~Expression();

  /// The formula as given.
  const std::string& formula() const noexcept;
  /// Parameter names (every identifier except x and muParser's constants),
  /// sorted alphabetically; evaluate() takes values in this order.
  const std::vector<std::string>& parameters() const noexcept;
  /// t(x) for the given parameter values (size must match parameters(), else
  /// Error). Throws Error if muParser reports an evaluation error; domain
  /// problems such as log(-1) or 1/0 are not errors in muParser and come back
  /// as NaN or ±inf for the caller to judge.
  double evaluate(double x, std::span<const double> values) const;
  /// Same, for a braced list: evaluate(x, {A, c, p}) (std::span cannot be
  /// built from one before C++26).
  double evaluate(double x, std::initializer_list<double> values) const {
    return evaluate(x, std::span<const double>(values.begin(), values.size()));
  }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A CostModel from a formula and values for all of its parameters (an Error
/// names any missing or unknown one, or a non-finite value). Built on
/// analytic_model, so t is sampled for sanity and the density is numeric; its
/// kind() is "expression" and describe() shows the formula and the values.
/// All copies of the model share one parser behind a mutex, so the model may
/// be used from several threads (serialised, not parallel).
CostModel expression_model(const std::string& formula, const std::map<std::string, double>& values,
                           double lo, double hi);

/// A Density rho(x, y[, z]) from a formula with no free parameters, e.g.
/// "x + y" (Swartz §5) or "1 + exp(-((x-5)^2 + (y-5)^2))": the variables are
/// x (1-D), x, y (2-D) or x, y, z (3-D boxes), with muParser's functions and
/// constants as for Expression. Any other identifier (a parameter, or z on a
/// 2-D box) is an Error listing them all; syntax errors name the position.
/// Built on analytic_density with `options` (quadrature masses, the same
/// lattice checks); its describe() shows the formula. Copies share one parser
/// behind a mutex, so the density may be used from several threads
/// (serialised, not parallel).
Density expression_density(const std::string& formula, const Box& box,
                           const DensityOptions& options = {});

}  // namespace isocost
