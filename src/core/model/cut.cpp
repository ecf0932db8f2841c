#include "isocost/cut.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>

#include <boost/math/tools/roots.hpp>
#include <boost/math/tools/toms748_solve.hpp>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "model/cut_internal.hpp"

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
  throw Error("unknown method '" + std::string(name) +
              "', expected newton, secant, bisection or toms748");
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
    case CutTermination::iteration_limit:
      return "iteration_limit";
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
  int evaluations = 0;
  CutTermination stop = CutTermination::iteration_limit;
  bool stopped = false;

  double x_width_ok(double x) const { return std::max(xtol, 4 * kEps * std::abs(x)); }

  // Records t(x) − target; returns true when a tolerance now holds.
  bool record(double x, double f) {
    ++evaluations;
    if (std::abs(f) < std::abs(best_f)) {
      best_x = x;
      best_f = f;
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
    if (!std::isnan(prev_x)) {
      const double newton_x = prev_x - prev_step;
      if (!(std::abs(x - newton_x) <= 1e-12 * std::abs(x) + 1e-300)) ++safeguard;
    }
    prev_x = x;
    prev_step = v / p.density;
    if (probe.record(x, v)) return std::make_tuple(0.0, p.density);
    return std::make_tuple(v, p.density);
  };
  std::uintmax_t iterations = static_cast<std::uintmax_t>(budget);
  bool gave_up = false;
  try {
    boost::math::tools::newton_raphson_iterate(f, guess, probe.a, probe.b,
                                               std::numeric_limits<double>::digits - 2, iterations);
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
  double f1 = probe.model->cost(x1) - probe.target;
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
      break;
    }
    const double f = probe.model->cost(x) - probe.target;
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
  s.termination = s.residual == 0 ? CutTermination::exact : CutTermination::nearest_integer;
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
  // Targets at the bracket ends need no iteration.
  if (fa == 0 || fb == 0) {
    s.x = fa == 0 ? a : b;
    s.residual = 0;
    s.termination = CutTermination::exact;
    return s;
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
  if (std::abs(probe.best_f) <= probe.ftol) {  // an end is already close enough
    s.x = probe.best_x;
    s.residual = probe.best_f;
    s.termination = CutTermination::cost_tolerance;
    return s;
  }
  double guess = options.initial_guess
                     ? *options.initial_guess
                     : model.lo() + (model.hi() - model.lo()) * (target / model.total());
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
