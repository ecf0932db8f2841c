// isocost/cut.hpp — solving t(x) = target for one cut point (Swartz eq. 1).
//
// Every solve is bracketed: the root lies in [a, b] (by default the whole
// domain, where t(lo) = 0 <= target <= TT = t(hi)), and no method ever leaves
// the bracket. Newton and bisection are Boost.Math's newton_raphson_iterate and
// bisect, TOMS748 is Boost.Math's toms748_solve; Boost has no secant, so the
// safeguarded secant is ours.
//
// Guarantee (post-condition): the returned x lies in [a, b], is a point where t
// was evaluated, and `residual` = t(x) − target exactly as evaluated. Either a
// tolerance held (`converged()`), or the iteration budget ran out or the claim
// could not be confirmed, and `termination` says so. A claimed tolerance is
// checked against the points evaluated before it is reported: |residual| within
// the cost tolerance, or a sign change of t − target within the x tolerance of
// x (a Newton or secant step below it counts when the local slope is finite).
// A non-finite t inside the domain is an Error naming x and the value.
//
// Plateaus: where t is flat at the target (zero density over an interval, e.g.
// a run of zero weights or repeated tabulated values), every point of the flat
// stretch solves t(x) = target. The cut is then the plateau's left end (to the
// x tolerance, within the bracket), whatever the method; discrete models take
// the smallest such boundary.
//
//   isocost::CutOptions opt;              // Newton from the linear guess
//   auto s = isocost::solve_cut(model, 0.5 * model.total(), opt);
//   std::cout << s.brief_report() << "\n";
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "isocost/cost_model.hpp"
#include "isocost/options.hpp"

namespace isocost {

/// Root-finding method for a cut.
enum class CutMethod : std::uint8_t {
  newton,         ///< Boost.Math newton_raphson_iterate (needs density)
  secant,         ///< safeguarded secant (ours; Boost has none)
  bisection,      ///< Boost.Math bisect
  toms748,        ///< Boost.Math toms748_solve
  binary_search,  ///< used (never requested) for discrete models: prefix-sum search
};

/// "newton", "secant", "bisection", "toms748", "binary_search".
std::string_view to_string(CutMethod method);
/// Parses a method name accepted on the command line; throws Error otherwise.
CutMethod parse_cut_method(std::string_view name);

/// Why a solve stopped.
enum class CutTermination : std::uint8_t {
  exact,            ///< target is 0 or TT (x is lo or hi), or t(x) == target exactly
  cost_tolerance,   ///< |t(x) − target| within the cost tolerance
  x_tolerance,      ///< the root is bracketed within the x tolerance, or a Newton
                    ///< step fell below 4ε·|x|
  nearest_integer,  ///< discrete model: the integer boundary closest to the target
  optimum,          ///< discrete model: a boundary of the chains-on-chains optimum
                    ///< (partition_optimal(), --optimal), not the one nearest the target
  iteration_limit,  ///< max_iterations used up: x is the best point seen, not converged
  failed,           ///< no tolerance could be confirmed at the best point seen (e.g.
                    ///< a discontinuous t); x is that point, not converged
};
std::string_view to_string(CutTermination termination);

/// Whether the requested method needed help.
enum class CutFallback : std::uint8_t {
  none,             ///< the requested method ran as is
  bisection_steps,  ///< some Newton/secant steps left the bracket or progressed too
                    ///< slowly and were replaced by bisection steps
  method_switch,    ///< the requested method gave up (no sign change, no progress);
                    ///< TOMS748 finished on the bracket it had reached
};
std::string_view to_string(CutFallback fallback);

/// The smallest nonzero relative cost tolerance CutOptions accepts: 4ε.
inline constexpr double kMinCostTolerance = 4 * std::numeric_limits<double>::epsilon();

/// Settings for one cut (Ceres-style: plain struct, documented defaults).
struct CutOptions {
  /// Root finder to use.
  CutMethod method = CutMethod::newton;
  /// Stop once |t(x) − target| <= cost_tolerance · scale, where scale is TT for
  /// solve_cut and, inside partition()/rank_range(), the target cost of the
  /// smaller of the two parts the cut separates (so every part's cost is within
  /// 2·cost_tolerance of its own target, whatever P). Must be 0 (solve to the
  /// x tolerance) or >= kMinCostTolerance = 4ε: a relative tolerance of a few
  /// ulps is the most double precision can reach. Where the scale makes it
  /// unreachable (tiny parts), solves stop at the x tolerance instead.
  double cost_tolerance = 1e-12;
  /// Stop once the root is bracketed in an interval no wider than
  /// max(x_tolerance, 4ε·|x|). Must be >= 0; 0 means machine precision.
  double x_tolerance = 0.0;
  /// Budget of iterations (each costs about one model evaluation). Must be >= 1.
  int max_iterations = 100;
  /// Starting point for Newton and secant; default: the linear distribution
  /// lo + (hi − lo)·target/TT. Clamped into the bracket. Ignored by bisection
  /// and TOMS748, which work on the bracket alone.
  std::optional<double> initial_guess;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("method", self.method);
    v("cost_tolerance", self.cost_tolerance, at_least(0));
    v("x_tolerance", self.x_tolerance, at_least(0));
    v("max_iterations", self.max_iterations, at_least(1));
    v("initial_guess", self.initial_guess);
  }
  /// True if the options are usable; otherwise describes the first bad field.
  bool is_valid(std::string* error) const;
  /// Throws Error with the is_valid() message if the options are not usable.
  void validate() const;
};

/// Everything a caller needs to trust one cut.
struct CutSummary {
  double x = 0;                             ///< the cut point
  double target = 0;                        ///< the requested cumulative cost
  double residual = 0;                      ///< t(x) − target, evaluated at x
  int iterations = 0;                       ///< iterations used
  int evaluations = 0;                      ///< model evaluations (t, or t and t')
  int bisection_steps = 0;                  ///< Newton/secant steps replaced by bisection
  CutMethod requested = CutMethod::newton;  ///< method asked for
  CutMethod used = CutMethod::newton;       ///< method that produced x
  CutFallback fallback = CutFallback::none;
  CutTermination termination = CutTermination::exact;

  /// True unless the iteration budget ran out or the solve failed.
  bool converged() const noexcept {
    return termination != CutTermination::iteration_limit && termination != CutTermination::failed;
  }
  /// One line: x, residual, method requested/used, iterations, termination.
  std::string brief_report() const;
};

/// Solves t(x) = target over the whole domain. target must lie in [0, TT].
/// For discrete models the cut is the integer boundary b whose prefix sum is
/// closest to target (ties to the smaller b), found by exponential search from
/// the bracket's lower end and then binary search; the method option is then
/// ignored and `used` is binary_search.
CutSummary solve_cut(const CostModel& model, double target, const CutOptions& options = {});

/// As above with a known bracket: lo <= a <= b <= hi and t(a) <= target <= t(b).
/// Used to warm-start repartitioning (the neighbouring cut bounds this one).
CutSummary solve_cut(const CostModel& model, double target, double a, double b,
                     const CutOptions& options = {});

/// Solves t(x) = target for any callable `f(x)` returning CostPoint{t(x),
/// t'(x)} on [lo, hi] (t nondecreasing, t' used by Newton only), as Boost.Math's
/// root finders take a functor: the same solver, fallbacks and summary as for
/// a CostModel, whose t is the callable's shifted to t(lo) = 0 — so `target`
/// counts from t(lo). Throws Error as solve_cut(callable_model(f, lo, hi), …).
template <CostFunction F>
CutSummary solve_cut(F f, double target, double lo, double hi, const CutOptions& options = {}) {
  return solve_cut(callable_model(std::move(f), lo, hi), target, options);
}

}  // namespace isocost
