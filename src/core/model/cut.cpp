#include "isocost/cut.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>

#include <boost/math/tools/roots.hpp>
#include <boost/math/tools/toms748_solve.hpp>

#include "core/model/cut_internal.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

using detail::exact;

std::string_view to_string(CutMethod method) {
  switch (method) {
    case CutMethod::newton:
      return "newton";
    case CutMethod::secant:
      return "secant";
    case CutMethod::bisection:
      return "bisection";
    case CutMethod::toms748:
      return "toms748";
    case CutMethod::binary_search:
      return "binary_search";
  }
  return "?";
}

CutMethod parse_cut_method(std::string_view name) {
  for (auto m : {CutMethod::newton, CutMethod::secant, CutMethod::bisection, CutMethod::toms748})
    if (name == to_string(m)) return m;
  throw Error(
      detail::expected_got("method", "newton, secant, bisection or toms748", detail::quote(name)));
}

std::string_view to_string(CutTermination termination) {
  switch (termination) {
    case CutTermination::exact:
      return "exact";
    case CutTermination::cost_tolerance:
      return "cost_tolerance";
    case CutTermination::x_tolerance:
      return "x_tolerance";
    case CutTermination::nearest_integer:
      return "nearest_integer";
    case CutTermination::optimum:
      return "optimum";
    case CutTermination::iteration_limit:
      return "iteration_limit";
    case CutTermination::failed:
      return "failed";
  }
  return "?";
}

std::string_view to_string(CutFallback fallback) {
  switch (fallback) {
    case CutFallback::none:
      return "none";
    case CutFallback::bisection_steps:
      return "bisection_steps";
    case CutFallback::method_switch:
      return "method_switch";
  }
  return "?";
}

bool CutOptions::is_valid(std::string* error) const {
  auto fail = [&](std::string message) {
    if (error) *error = std::move(message);
    return false;
  };
  if (!check_fields(*this, error)) return false;
  if (cost_tolerance > 0 && cost_tolerance < kMinCostTolerance)
    return fail(detail::expected_got(
        "cost_tolerance",
        "0 (solve to the x tolerance) or a value >= " + exact(kMinCostTolerance) +
            " (what double precision can reach)",
        exact(cost_tolerance)));
  if (method == CutMethod::binary_search)
    return fail(
        "cut method binary_search is chosen automatically for discrete models; "
        "expected newton, secant, bisection or toms748");
  return true;
}

void CutOptions::validate() const {
  std::string error;
  if (!is_valid(&error)) throw Error(error);
}

std::string CutSummary::brief_report() const {
  std::string s = "x=" + exact(x) + " target=" + exact(target) + " residual=" + exact(residual) +
                  " method=" + std::string(to_string(used));
  if (used != requested) s += " (requested " + std::string(to_string(requested)) + ")";
  s += " iterations=" + std::to_string(iterations) + " evaluations=" + std::to_string(evaluations) +
       " termination=" + std::string(to_string(termination));
  if (fallback != CutFallback::none)
    s += " fallback=" + std::string(to_string(fallback)) +
         " bisection_steps=" + std::to_string(bisection_steps);
  return s;
}

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

// What the functors share with the driver: the bracket implied by the signs
// seen so far, the best point, and why we asked the Boost routine to stop.
struct Probe {
  const detail::CostModelImpl* model;
  double target;
  double ftol;  // absolute cost tolerance
  double xtol;  // absolute x tolerance (0: machine precision)
  double a, fa, b, fb;
  double best_x, best_f;
  // The local slope t' at best_x when the method knows it (Newton's density,
  // the secant's slope), else NaN: backs a claim that a step fell below the x
  // tolerance.
  double best_slope = std::numeric_limits<double>::quiet_NaN();
  int evaluations = 0;
  CutTermination stop = CutTermination::iteration_limit;
  bool stopped = false;

  // At least the smallest subnormal step, so that domains spanned by a handful
  // of representable points still stop (between two neighbouring doubles).
  double x_width_ok(double x) const {
    return std::max({xtol, 4 * kEps * std::abs(x), std::numeric_limits<double>::denorm_min()});
  }

  // t(x) − target; a non-finite t inside the domain is a broken model, not a
  // residual to report.
  double eval(double x) const {
    const double f = model->cost(x) - target;
    if (!std::isfinite(f)) throw_not_finite(x, f + target);
    return f;
  }
  [[noreturn]] void throw_not_finite(double x, double t) const {
    throw Error(model->kind() + " model: t(" + exact(x) + ") = " + exact(t) +
                " is not finite; a cut needs finite costs inside the domain");
  }

  // Records t(x) − target; returns true when a tolerance now holds.
  bool record(double x, double f) {
    ++evaluations;
    if (!std::isfinite(f)) throw_not_finite(x, f + target);
    if (std::abs(f) < std::abs(best_f)) {
      best_x = x;
      best_f = f;
      best_slope = std::numeric_limits<double>::quiet_NaN();
    }
    if (f <= 0 && x >= a) {
      a = x;
      fa = f;
    }
    if (f >= 0 && x <= b) {
      b = x;
      fb = f;
    }
    if (f == 0) {
      stop = CutTermination::exact;
      stopped = true;
    } else if (std::abs(f) <= ftol) {
      stop = CutTermination::cost_tolerance;
      stopped = true;
    } else if (b - a <= x_width_ok(x)) {
      stop = CutTermination::x_tolerance;
      stopped = true;
    }
    return stopped;
  }
};

void finish_from_best(Probe& probe, CutSummary& s) {
  s.x = probe.best_x;
  s.residual = probe.best_f;
  s.evaluations = probe.evaluations;
  s.termination = probe.stop;
}

// Boost.Math toms748_solve on the probe's bracket.
void run_toms748(Probe& probe, CutSummary& s, int budget) {
  std::uintmax_t iterations = static_cast<std::uintmax_t>(std::max(budget, 1));
  auto f = [&probe](double x) {
    const double v = probe.model->cost(x) - probe.target;
    return probe.record(x, v) ? 0.0 : v;
  };
  auto tol = [&probe](double u, double v) {
    return probe.stopped || std::abs(v - u) <= probe.x_width_ok(u);
  };
  if (!probe.stopped && probe.fa < 0 && probe.fb > 0) {
    boost::math::tools::toms748_solve(f, probe.a, probe.b, probe.fa, probe.fb, tol, iterations);
    if (!probe.stopped) {
      if (probe.b - probe.a <= probe.x_width_ok(probe.best_x)) {
        probe.stop = CutTermination::x_tolerance;
        probe.stopped = true;
      }
    }
  }
  s.iterations += static_cast<int>(iterations);
  finish_from_best(probe, s);
}

void run_newton(Probe& probe, CutSummary& s, double guess, int budget) {
  // Remember the previous Newton point to tell pure steps from the safeguard
  // steps Boost takes when a step leaves the bracket or converges too slowly.
  double prev_x = std::numeric_limits<double>::quiet_NaN(), prev_step = 0;
  int safeguard = 0;
  auto f = [&](double x) {
    const CostPoint p = probe.model->evaluate(x);
    const double v = p.cost - probe.target;
    // An infinite or NaN density (a singular end such as x^0.5 at 0, or a
    // slope beyond the double range) would make Boost's step 0 or NaN and stop
    // it on the spot: use the bracket's secant slope instead.
    double d = p.density;
    if (!std::isfinite(d)) {
      const double secant = (probe.fb - probe.fa) / (probe.b - probe.a);
      d = std::isfinite(secant) && secant > 0 ? secant : 0;
    }
    if (!std::isnan(prev_x)) {
      const double newton_x = prev_x - prev_step;
      if (!(std::abs(x - newton_x) <= 1e-12 * std::abs(x) + 1e-300)) ++safeguard;
    }
    prev_x = x;
    prev_step = v / d;
    const bool done = probe.record(x, v);
    if (probe.best_x == x && std::isfinite(p.density)) probe.best_slope = p.density;
    return std::make_tuple(done ? 0.0 : v, d);
  };
  std::uintmax_t iterations = static_cast<std::uintmax_t>(budget);
  bool gave_up = false;
  try {
    boost::math::tools::newton_raphson_iterate(f, guess, probe.a, probe.b,
                                               std::numeric_limits<double>::digits - 2, iterations);
  } catch (const Error&) {
    throw;  // a non-finite t, from Probe::record
  } catch (const std::exception&) {
    gave_up = true;  // Boost: "no root to be found" (no sign change seen)
  }
  s.iterations = static_cast<int>(iterations);
  s.bisection_steps = safeguard;
  if (safeguard > 0) s.fallback = CutFallback::bisection_steps;
  if (!gave_up && !probe.stopped && static_cast<int>(iterations) < budget) {
    // Boost stopped on its own step criterion: its next iterate is within
    // 4ε|x| of the last evaluated point, which we return (with its exact
    // residual) rather than spend an evaluation on the unevaluated iterate.
    probe.stop = CutTermination::x_tolerance;
    probe.stopped = true;
  }
  if (gave_up && !probe.stopped) {
    s.fallback = CutFallback::method_switch;
    s.used = CutMethod::toms748;
    run_toms748(probe, s, std::max(budget - s.iterations, 8));
    return;
  }
  finish_from_best(probe, s);
}

void run_secant(Probe& probe, CutSummary& s, double guess, int budget) {
  int iterations = 1;
  double x1 = guess;
  double f1 = probe.eval(x1);
  if (probe.record(x1, f1)) {
    s.iterations = iterations;
    return finish_from_best(probe, s);
  }
  // The second point is the bracket end on the other side of the root.
  double x0 = f1 < 0 ? probe.b : probe.a;
  double f0 = f1 < 0 ? probe.fb : probe.fa;
  // Safeguard: a step outside the bracket, or three steps in a row that fail
  // to halve the bracket, become bisection steps.
  double reference_width = probe.b - probe.a;
  int steps_without_halving = 0;
  while (!probe.stopped && iterations < budget) {
    double x = x1 - f1 * (x1 - x0) / (f1 - f0);
    if (!(x > probe.a && x < probe.b) || steps_without_halving >= 3) {
      x = 0.5 * (probe.a + probe.b);
      ++s.bisection_steps;
      s.fallback = CutFallback::bisection_steps;
    }
    if (x == x1) {  // no representable progress left
      probe.stop = CutTermination::x_tolerance;
      probe.stopped = true;
      const double slope = (f1 - f0) / (x1 - x0);
      if (probe.best_x == x1 && std::isfinite(slope) && slope > 0) probe.best_slope = slope;
      break;
    }
    const double f = probe.eval(x);
    ++iterations;
    probe.record(x, f);
    if (probe.b - probe.a <= 0.5 * reference_width) {
      reference_width = probe.b - probe.a;
      steps_without_halving = 0;
    } else {
      ++steps_without_halving;
    }
    x0 = x1;
    f0 = f1;
    x1 = x;
    f1 = f;
  }
  s.iterations = iterations;
  finish_from_best(probe, s);
}

void run_bisection(Probe& probe, CutSummary& s, int budget) {
  // Boost's bisect spends 3 of its budget re-evaluating the bracket ends we
  // already know; give it those on top, so `budget` counts midpoints.
  std::uintmax_t iterations = static_cast<std::uintmax_t>(budget) + 3;
  auto f = [&probe](double x) {
    const double v = probe.model->cost(x) - probe.target;
    return probe.record(x, v) ? 0.0 : v;
  };
  auto tol = [&probe](double u, double v) {
    return probe.stopped || std::abs(v - u) <= probe.x_width_ok(u);
  };
  if (probe.fa < 0 && probe.fb > 0) {
    boost::math::tools::bisect(f, probe.a, probe.b, tol, iterations);
    if (!probe.stopped && probe.b - probe.a <= probe.x_width_ok(probe.best_x)) {
      probe.stop = CutTermination::x_tolerance;
      probe.stopped = true;
    }
  }
  s.iterations = static_cast<int>(iterations > 3 ? iterations - 3 : 0);
  finish_from_best(probe, s);
}

// Confirms the stop reason against the points evaluated (cut.hpp): the
// residual within the cost tolerance, or a sign change within the x tolerance
// of x, or a step below it backed by a finite slope. An x-tolerance stop that
// none of these backs gets one evaluation on the side where the root lies.
bool confirm(Probe& probe) {
  if (!probe.stopped) return true;  // iteration_limit claims nothing
  auto holds = [&probe] {
    const double f = probe.best_f, w = probe.x_width_ok(probe.best_x);
    const double w_bracket = probe.x_width_ok(std::max(std::abs(probe.a), std::abs(probe.b)));
    if (f == 0) {
      probe.stop = CutTermination::exact;
    } else if (std::abs(f) <= probe.ftol) {
      probe.stop = CutTermination::cost_tolerance;
    } else if (probe.b - probe.a <= w_bracket ||
               (probe.best_slope > 0 && std::abs(f) <= probe.best_slope * w)) {
      probe.stop = CutTermination::x_tolerance;
    } else {
      return false;
    }
    return true;
  };
  if (holds()) return true;
  const double x = probe.best_x, w = probe.x_width_ok(x);
  const double y = probe.best_f < 0 ? std::min(x + w, probe.b) : std::max(x - w, probe.a);
  if (y != x) probe.record(y, probe.eval(y));
  return holds();
}

// On a plateau at the target (t flat through x, so every point of it solves
// the cut), moves x to the plateau's left end within [a0, x]: the smallest
// point whose t is still t(x), by bisection. Only for stops within the cost
// tolerance: elsewhere the root is where t rises through the target.
void to_plateau_left_end(Probe& probe, double a0) {
  const double x = probe.best_x, tx = probe.best_f + probe.target;
  if (!(std::abs(probe.best_f) <= probe.ftol) || x <= a0) return;
  if (!(probe.best_slope == 0)) {  // unknown slope: look just left of x
    if (!std::isnan(probe.best_slope)) return;
    const double y = std::max(a0, x - probe.x_width_ok(x));
    ++probe.evaluations;
    if (!(probe.eval(y) + probe.target >= tx)) return;
  }
  double lo = a0, hi = x;
  ++probe.evaluations;
  if (probe.eval(lo) + probe.target >= tx) {
    hi = lo;
  } else {
    while (hi - lo > probe.x_width_ok(hi)) {
      const double mid = lo + 0.5 * (hi - lo);
      if (mid <= lo || mid >= hi) break;
      ++probe.evaluations;
      (probe.eval(mid) + probe.target >= tx ? hi : lo) = mid;
    }
  }
  if (hi == x) return;
  probe.best_x = hi;
  ++probe.evaluations;
  probe.best_f = probe.eval(hi);
}

// Exponential (galloping) search: the cut is usually near the bracket's lower
// end (the previous cut when partitioning), so this costs O(log distance) probes
// that stay close together in memory, instead of a search over the whole array.
CutSummary discrete_cut(const CostModel& model, double target, double a, double b) {
  const auto prefix = model.prefix_sums();
  const double lo = model.lo();
  const auto first = static_cast<std::size_t>(std::ceil(a - lo));
  const auto last = static_cast<std::size_t>(std::floor(b - lo));
  int steps = 0;
  // First index k in [first, last] with prefix[k] >= target (or last).
  std::size_t below = first, span = 1;
  while (span <= last - first && prefix[first + span] < target) {
    below = first + span;
    span *= 2;
    ++steps;
  }
  const std::size_t above = std::min(first + span, last);
  auto begin = prefix.begin();
  std::size_t k =
      static_cast<std::size_t>(std::lower_bound(begin + below, begin + above + 1, target) - begin);
  steps += static_cast<int>(std::bit_width(above - below + 1));
  k = std::min(k, last);
  // Closest prefix sum to the target; ties to the smaller index.
  if (k > first && std::abs(prefix[k - 1] - target) <= std::abs(prefix[k] - target)) --k;
  // Among equal prefix sums (a run of zero weights) take the smallest index,
  // galloping backwards so that long runs stay cheap.
  std::size_t back = 1;
  while (back <= k - first && prefix[k - back] == prefix[k]) {
    back *= 2;
    ++steps;
  }
  const std::size_t from = back <= k - first ? k - back : first;
  k = static_cast<std::size_t>(std::lower_bound(begin + from, begin + k, prefix[k]) - begin);
  CutSummary s;
  s.x = lo + static_cast<double>(k);
  s.target = target;
  s.residual = prefix[k] - target;
  s.used = CutMethod::binary_search;
  s.iterations = steps;
  s.evaluations = 0;
  s.termination = detail::placed_termination(s.residual, CutTermination::nearest_integer);
  return s;
}

CutSummary solve(const CostModel& model, double target, double a, double fa, double b, double fb,
                 const CutOptions& options, double cost_scale) {
  CutSummary s;
  s.requested = s.used = options.method;
  s.target = target;
  if (model.is_discrete()) {
    auto d = discrete_cut(model, target, a, b);
    d.requested = options.method;
    return d;
  }
  Probe probe{&model.impl(),
              target,
              options.cost_tolerance * cost_scale,
              options.x_tolerance,
              a,
              fa,
              b,
              fb,
              std::abs(fa) <= std::abs(fb) ? a : b,
              std::abs(fa) <= std::abs(fb) ? fa : fb};
  if (fa == 0 || fb == 0 || std::abs(probe.best_f) <= probe.ftol) {
    // Targets at (or within the tolerance of) a bracket end need no iteration.
    if (fa == 0) {
      probe.best_x = a;
      probe.best_f = 0;
    }
    probe.stop = probe.best_f == 0 ? CutTermination::exact : CutTermination::cost_tolerance;
    probe.stopped = true;
  } else {
    double guess = options.initial_guess
                       ? *options.initial_guess
                       : model.lo() + (model.hi() - model.lo()) * (target / model.total());
    if (!std::isfinite(guess)) guess = 0.5 * a + 0.5 * b;  // hi − lo beyond the double range
    guess = std::clamp(guess, a, b);
    switch (options.method) {
      case CutMethod::newton:
        run_newton(probe, s, guess, options.max_iterations);
        break;
      case CutMethod::secant:
        run_secant(probe, s, guess, options.max_iterations);
        break;
      case CutMethod::bisection:
        run_bisection(probe, s, options.max_iterations);
        break;
      case CutMethod::toms748:
        run_toms748(probe, s, options.max_iterations);
        break;
      case CutMethod::binary_search:
        break;  // rejected by validate()
    }
    if (!confirm(probe)) {
      // The method stopped on a claim the points evaluated do not back: finish
      // on the bracket it reached with TOMS748, which only claims brackets.
      probe.stopped = false;
      probe.stop = CutTermination::iteration_limit;
      s.fallback = CutFallback::method_switch;
      s.used = CutMethod::toms748;
      run_toms748(probe, s, std::max(options.max_iterations - s.iterations, 8));
      if (!confirm(probe)) probe.stop = CutTermination::failed;
    }
  }
  to_plateau_left_end(probe, a);
  finish_from_best(probe, s);
  return s;
}

void check_target(const CostModel& model, double target) {
  if (!std::isfinite(target) || target < 0 || target > model.total())
    throw Error("cut target " + exact(target) + " is outside [0, TT=" + exact(model.total()) + "]");
}

}  // namespace

CutSummary solve_cut(const CostModel& model, double target, const CutOptions& options) {
  options.validate();
  check_target(model, target);
  return solve(model, target, model.lo(), -target, model.hi(), model.total() - target, options,
               model.total());
}

CutSummary solve_cut(const CostModel& model, double target, double a, double b,
                     const CutOptions& options) {
  options.validate();
  check_target(model, target);
  if (!(a >= model.lo() && b <= model.hi() && a <= b))
    throw Error("cut bracket [" + exact(a) + ", " + exact(b) +
                "] must satisfy lo <= a <= b <= hi"
                " with the domain [" +
                exact(model.lo()) + ", " + exact(model.hi()) + "]");
  const double fa = model.cost(a) - target, fb = model.cost(b) - target;
  if (fa > 0 || fb < 0)
    throw Error("cut bracket [" + exact(a) + ", " + exact(b) + "] does not contain the target " +
                exact(target) + ": t(a)=" + exact(fa + target) + ", t(b)=" + exact(fb + target));
  return solve(model, target, a, fa, b, fb, options, model.total());
}

namespace detail {
// Used by the partitioner, which already knows t at the bracket ends.
CutSummary solve_cut_known(const CostModel& model, double target, double a, double fa, double b,
                           double fb, const CutOptions& options, double cost_scale) {
  return solve(model, target, a, fa, b, fb, options, cost_scale);
}
}  // namespace detail

}  // namespace isocost
