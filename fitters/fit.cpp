// Parametric fits of t(x) to interval samples with Ceres Solver, and the
// summary a user needs to trust them.
#include "isocost/fitters/fit.hpp"

#include <ceres/ceres.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <sstream>

#include "ceres_support.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/fitters/expression.hpp"
#include "isocost/metrics.hpp"

namespace isocost {

using detail::exact;
using detail::fixed_digits;

namespace {
constexpr double kLegendreC = 1.08366;  // π(n) ≈ n/(ln n − 1.08366), Swartz §3
}

std::string FitSpec::name() const {
  switch (form) {
    case FitForm::sieve:
      return std::string("sieve") + (fit_c ? "+c" : "") + (fit_q ? "+q" : "");
    case FitForm::power:
      return "power";
    case FitForm::polynomial:
      return "poly:" + std::to_string(degree);
    case FitForm::exponential:
      return "exp";
    case FitForm::expression:
      return "expr:" + expression;
    case FitForm::pchip:
      return "pchip";
    case FitForm::makima:
      return "makima";
  }
  return "?";
}

FitSpec parse_fit_spec(const std::string& text) {
  FitSpec s;
  if (text == "sieve") return s;
  if (text == "sieve+c" || text == "sieve+q" || text == "sieve+c+q") {
    s.fit_c = text.find("+c") != std::string::npos;
    s.fit_q = text.find("+q") != std::string::npos;
    return s;
  }
  if (text == "power") {
    s.form = FitForm::power;
    return s;
  }
  if (text == "exp") {
    s.form = FitForm::exponential;
    return s;
  }
  if (text == "pchip" || text == "makima") {
    s.form = text == "pchip" ? FitForm::pchip : FitForm::makima;
    return s;
  }
  if (text.rfind("poly:", 0) == 0) {
    s.form = FitForm::polynomial;
    const std::string n = text.substr(5);
    double degree = 0;
    if (!detail::parse_number(n, degree) || degree != std::floor(degree) || degree < 1 ||
        degree > 10)
      throw Error("model '" + text + "': expected poly:N with N an integer in [1, 10]");
    s.degree = static_cast<int>(degree);
    return s;
  }
  if (text.rfind("expr:", 0) == 0) {
    s.form = FitForm::expression;
    s.expression = text.substr(5);
    if (s.expression.empty()) throw Error("model 'expr:' needs a formula, e.g. expr:A*x^p");
    return s;
  }
  throw Error("unknown model '" + text +
              "', expected sieve, sieve+c, sieve+q, sieve+c+q, power, poly:N, exp, expr:FORMULA, "
              "pchip or makima");
}

FitLoss parse_fit_loss(const std::string& text) {
  if (text == "none") return FitLoss::none;
  if (text == "huber") return FitLoss::huber;
  if (text == "cauchy") return FitLoss::cauchy;
  throw Error("unknown loss '" + text + "', expected none, huber or cauchy");
}

bool FitOptions::is_valid(std::string* error) const {
  auto fail = [&](std::string m) {
    if (error) *error = std::move(m);
    return false;
  };
  if (!(loss_scale > 0) || !std::isfinite(loss_scale))
    return fail("loss_scale must be a finite number > 0, got " + exact(loss_scale));
  if (max_iterations < 1)
    return fail("max_iterations must be >= 1, got " + std::to_string(max_iterations));
  if (!(function_tolerance > 0) || !std::isfinite(function_tolerance))
    return fail("function_tolerance must be a finite number > 0, got " + exact(function_tolerance));
  if (lo && !std::isfinite(*lo)) return fail("lo must be finite, got " + exact(*lo));
  if (hi && !std::isfinite(*hi)) return fail("hi must be finite, got " + exact(*hi));
  if (lo && hi && !(*lo < *hi))
    return fail("the domain needs lo < hi, got lo=" + exact(*lo) + ", hi=" + exact(*hi));
  if (ranks < 0) return fail("ranks must be >= 0, got " + std::to_string(ranks));
  return true;
}

void FitOptions::validate() const {
  std::string error;
  if (!is_valid(&error)) throw Error("fit options: " + error);
}

double FitSummary::parameter(const std::string& name) const {
  for (const auto& p : parameters)
    if (p.name == name) return p.value;
  throw Error("fit of " + model + " has no parameter '" + name + "'");
}

std::string FitSummary::brief_report() const {
  std::ostringstream out;
  out << "model " << model << ": " << formula << "\n";
  for (const auto& p : parameters) {
    out << "  " << p.name << " = " << fixed_digits(p.value, 8);
    if (p.fixed)
      out << " (fixed)";
    else if (p.std_error)
      out << " +- " << fixed_digits(*p.std_error, 3);
    out << "\n";
  }
  out << "samples " << samples << ", RMSE " << fixed_digits(rmse, 4) << ", max relative error "
      << fixed_digits(max_rel_error, 4) << ", R^2 " << fixed_digits(r_squared, 8) << ", AICc "
      << fixed_digits(aicc, 6) << "\n";
  out << "solver: " << termination << ", " << iterations << " iterations, "
      << fixed_digits(solve_seconds * 1e3, 3) << " ms\n";
  if (le_of_samples)
    out << "L_E of the measured partition " << fixed_digits(*le_of_samples, 6) << " %\n";
  if (le_on_samples)
    out << "L_E of the fitted partition, costed on the samples " << fixed_digits(*le_on_samples, 6)
        << " %\n";
  return out.str();
}

namespace {

// ---------------------------------------------------------------------------
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

constexpr double kInf = std::numeric_limits<double>::infinity();

double guess_or(const FitSpec& spec, const std::string& name, double fallback) {
  auto it = spec.guess.find(name);
  return it == spec.guess.end() ? fallback : it->second;
}

// Least-squares slope and intercept of y on x.
std::pair<double, double> line_fit(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  const double slope = sxx > 0 ? sxy / sxx : 0;
  return {slope, my - slope * mx};
}

// For T = A·f(x), the A minimising Σ ((A·Δf_k − dt_k)·w_k)².
double best_scale(const Samples& s, const std::vector<double>& w,
                  const std::function<double(double)>& f) {
  double num = 0, den = 0;
  for (std::size_t k = 0; k < s.size(); ++k) {
    const auto& iv = s.intervals()[k];
    const double d = (f(iv.hi) - f(iv.lo)) * w[k];
    num += d * iv.dt * w[k];
    den += d * d;
  }
  return den > 0 ? num / den : 1.0;
}

// Sampled densities dt/(hi − lo) at the interval midpoints: the data behind
// the log-log (or log-linear) regressions that give start values.
void densities(const Samples& s, std::vector<double>& mid, std::vector<double>& rho) {
  for (const auto& iv : s.intervals()) {
    mid.push_back(0.5 * (iv.lo + iv.hi));
    rho.push_back(iv.dt / (iv.hi - iv.lo));
  }
}

Family sieve_family(const Samples& s, const FitSpec& spec, const std::vector<double>& w) {
  const double c0 = guess_or(spec, "c", kLegendreC);
  const double q0 = guess_or(spec, "q", 1.0);
  if (!(s.lo() > std::exp(c0)))
    throw Error("sieve fit: the samples start at x=" + exact(s.lo()) +
                ", where ln x - c <= 0 (c=" + exact(c0) +
                "); the sieve form is defined for x > exp(c + q/p) (Swartz uses x > 6)"
                ": drop or clip samples below that");
  Family f;
  f.formula = "t(x) = A*x^p/(ln x - c)^q";
  f.names = fit_parameter_names(spec);
  // p from a log-log regression of ρ·(ln x − c)^q on x (t' ∝ x^(p−1)/(ln x − c)^q).
  std::vector<double> mid, rho, lx, ly;
  densities(s, mid, rho);
  for (std::size_t i = 0; i < mid.size(); ++i) {
    lx.push_back(std::log(mid[i]));
    ly.push_back(std::log(rho[i] * std::pow(std::log(mid[i]) - c0, q0)));
  }
  const double p0 = guess_or(spec, "p", std::clamp(line_fit(lx, ly).first + 1, 0.2, 5.0));
  const double A0 = guess_or(spec, "A", best_scale(s, w, [&](double x) {
                               return std::pow(x, p0) / std::pow(std::log(x) - c0, q0);
                             }));
  if (!(A0 > 0)) throw Error("sieve fit: starting value A=" + exact(A0) + " must be > 0");
  f.theta = {std::log(A0), p0, c0, q0};
  f.fixed = {false, false, !spec.fit_c, !spec.fit_q};
  // Keep ln x − c away from 0 on the samples while iterating.
  f.lower = {-kInf, 1e-3, -kInf, 0};
  f.upper = {kInf, 10, std::log(s.lo()) - 1e-3, 10};
  // T = exp(a + p·L − q·ln(L − c)) with L = ln x.
  f.value = [](double x, const double* th, double* g) {
    const double L = std::log(x), d = L - th[2];
    const double T = std::exp(th[0] + th[1] * L - th[3] * std::log(d));
    if (g) {
      g[0] = T;
      g[1] = T * L;
      g[2] = T * th[3] / d;
      g[3] = -T * std::log(d);
    }
    return T;
  };
  f.report = [](const std::vector<double>& th, std::size_t i) {
    if (i == 0) return std::make_pair(std::exp(th[0]), std::exp(th[0]));  // A = e^θ0
    return std::make_pair(th[i], 1.0);
  };
  f.make = [](const std::vector<double>& th, double lo, double hi) {
    return sieve_model({std::exp(th[0]), th[1], th[2], th[3]}, lo, hi);
  };
  return f;
}

Family power_family(const Samples& s, const FitSpec& spec, const std::vector<double>& w) {
  if (!(s.lo() >= 0))
    throw Error("power fit: samples start at x=" + exact(s.lo()) + " < 0; A*x^p needs x >= 0");
  Family f;
  f.formula = "t(x) = A*x^p + B (B cancels)";
  f.names = {"A", "p"};
  std::vector<double> mid, rho, lx, ly;
  densities(s, mid, rho);
  for (std::size_t i = 0; i < mid.size(); ++i) {
    lx.push_back(std::log(mid[i]));
    ly.push_back(std::log(rho[i]));
  }
  const double p0 = guess_or(spec, "p", std::clamp(line_fit(lx, ly).first + 1, 0.05, 8.0));
  const double A0 =
      guess_or(spec, "A", best_scale(s, w, [&](double x) { return std::pow(x, p0); }));
  if (!(A0 > 0)) throw Error("power fit: starting value A=" + exact(A0) + " must be > 0");
  f.theta = {std::log(A0), p0};
  f.fixed = {false, false};
  f.lower = {-kInf, 1e-3};
  f.upper = {kInf, 20};
  f.value = [](double x, const double* th, double* g) {
    if (x <= 0) {  // A·0^p = 0 for p > 0, with zero gradient
      if (g) g[0] = g[1] = 0;
      return 0.0;
    }
    const double L = std::log(x), T = std::exp(th[0] + th[1] * L);
    if (g) {
      g[0] = T;
      g[1] = T * L;
    }
    return T;
  };
  f.report = [](const std::vector<double>& th, std::size_t i) {
    if (i == 0) return std::make_pair(std::exp(th[0]), std::exp(th[0]));
    return std::make_pair(th[i], 1.0);
  };
  f.make = [](const std::vector<double>& th, double lo, double hi) {
    return power_model(std::exp(th[0]), th[1], 0.0, lo, hi);
  };
  return f;
}

// Polynomial and exponential forms work in u = (x − x0)/W over the samples'
// span, which keeps powers and exponents in range for x ≈ 1e8.
Family polynomial_family(const Samples& s, const FitSpec& spec) {
  const double x0 = s.lo(), W = s.hi() - s.lo();
  Family f;
  f.formula = "t(x) = c1*u + ... + c" + std::to_string(spec.degree) + "*u^" +
              std::to_string(spec.degree) + ", u = (x - " + exact(x0) + ")/" + exact(W);
  const int n = spec.degree;
  f.names = fit_parameter_names(spec);
  for (int k = 1; k <= n; ++k) {
    // Linear in θ: any start converges in one Gauss-Newton step; start from a
    // straight line through the total.
    double total = 0;
    for (const auto& iv : s.intervals()) total = std::max(total, iv.dt);
    f.theta.push_back(guess_or(spec, f.names[k - 1], k == 1 ? total : 0.0));
    f.fixed.push_back(false);
    f.lower.push_back(-kInf);
    f.upper.push_back(kInf);
  }
  f.value = [x0, W, n](double x, const double* th, double* g) {
    const double u = (x - x0) / W;
    double T = 0, power = 1;
    for (int k = 1; k <= n; ++k) {
      power *= u;
      T += th[k - 1] * power;
      if (g) g[k - 1] = power;
    }
    return T;
  };
  f.report = [](const std::vector<double>& th, std::size_t i) {
    return std::make_pair(th[i], 1.0);
  };
  f.make = [x0, W](const std::vector<double>& th, double lo, double hi) {
    std::vector<double> c{0.0};
    c.insert(c.end(), th.begin(), th.end());
    return polynomial_model(std::move(c), lo, hi, x0, W);
  };
  return f;
}

Family exponential_family(const Samples& s, const FitSpec& spec, const std::vector<double>& w) {
  const double x0 = s.lo(), W = s.hi() - s.lo();
  Family f;
  f.formula = "t(x) = A*exp(b*(x - lo)) + B (B cancels)";
  f.names = {"A", "b"};
  std::vector<double> mid, rho, ly;
  densities(s, mid, rho);
  std::vector<double> u;
  for (std::size_t i = 0; i < mid.size(); ++i) {
    u.push_back((mid[i] - x0) / W);
    ly.push_back(std::log(rho[i]));
  }
  // ln ρ = ln(A·β/W) + β·u.
  const double beta0 = spec.guess.count("b") ? spec.guess.at("b") * W
                                             : std::clamp(line_fit(u, ly).first, 1e-3, 600.0);
  const double A0 = spec.guess.count("A") ? spec.guess.at("A") : best_scale(s, w, [&](double x) {
    return std::exp(beta0 * (x - x0) / W);
  });
  if (!(A0 > 0)) throw Error("exponential fit: starting value A=" + exact(A0) + " must be > 0");
  f.theta = {std::log(A0), beta0};
  f.fixed = {false, false};
  f.lower = {-kInf, 1e-9};
  f.upper = {kInf, 700};
  f.value = [x0, W](double x, const double* th, double* g) {
    const double u = (x - x0) / W, T = std::exp(th[0] + th[1] * u);
    if (g) {
      g[0] = T;
      g[1] = T * u;
    }
    return T;
  };
  f.report = [W](const std::vector<double>& th, std::size_t i) {
    if (i == 0) return std::make_pair(std::exp(th[0]), std::exp(th[0]));
    return std::make_pair(th[1] / W, 1.0 / W);  // b in units of 1/x
  };
  f.make = [x0, W](const std::vector<double>& th, double lo, double hi) {
    // exponential_model measures from its own lo: A·e^{b(x − lo)} = A0·e^{b(x − x0)}.
    const double b = th[1] / W;
    return exponential_model(std::exp(th[0] + b * (lo - x0)), b, lo, hi);
  };
  return f;
}

Family expression_family(const FitSpec& spec) {
  Family f;
  f.expression = std::make_shared<Expression>(spec.expression);
  f.formula = "t(x) = " + spec.expression;
  f.names = f.expression->parameters();
  if (f.names.empty()) throw Error("formula '" + spec.expression + "' has no parameters to fit");
  for (const auto& name : f.names) {
    f.theta.push_back(guess_or(spec, name, 1.0));
    f.fixed.push_back(false);
    f.lower.push_back(-kInf);
    f.upper.push_back(kInf);
  }
  f.report = [](const std::vector<double>& th, std::size_t i) {
    return std::make_pair(th[i], 1.0);
  };
  auto expression = spec.expression;
  auto names = f.names;
  f.make = [expression, names](const std::vector<double>& th, double lo, double hi) {
    std::map<std::string, double> values;
    for (std::size_t i = 0; i < names.size(); ++i) values[names[i]] = th[i];
    return expression_model(expression, values, lo, hi);
  };
  return f;
}

// Goodness of fit of any model against the samples.
void score(const CostModel& model, const Samples& s, const FitOptions& options, int k,
           FitSummary& out) {
  double rss_rel = 0, rss_metric = 0, ss_tot = 0, mean_dt = 0;
  for (const auto& iv : s.intervals()) mean_dt += iv.dt;
  mean_dt /= static_cast<double>(s.size());
  for (const auto& iv : s.intervals()) {
    const double lo = std::clamp(iv.lo, model.lo(), model.hi());
    const double hi = std::clamp(iv.hi, model.lo(), model.hi());
    const double r = model.cost(lo, hi) - iv.dt;
    rss_rel += (r / iv.dt) * (r / iv.dt);
    const double m = options.relative ? r / iv.dt : r / mean_dt;
    rss_metric += m * m;
    ss_tot += (iv.dt - mean_dt) * (iv.dt - mean_dt);
    out.max_rel_error = std::max(out.max_rel_error, std::abs(r) / iv.dt);
    out.r_squared += r * r;  // SS_res for now
  }
  const double n = static_cast<double>(s.size());
  out.samples = s.size();
  out.rmse = std::sqrt(rss_metric / n);
  out.r_squared = ss_tot > 0 ? 1 - out.r_squared / ss_tot : 1.0;
  const double rss = std::max(rss_rel, std::numeric_limits<double>::min());
  out.aicc =
      n * std::log(rss / n) + 2 * k + (n - k - 1 > 0 ? 2.0 * k * (k + 1) / (n - k - 1) : kInf);
}

// L_E of the samples' own partition, and of the fitted model's partition
// costed on a monotone interpolant of the samples (only for one tiling run).
void balance_on_samples(const CostModel& model, const Samples& s, const FitOptions& options,
                        FitSummary& out) {
  if (!s.tiles()) return;
  std::vector<double> dt;
  for (const auto& iv : s.intervals()) dt.push_back(iv.dt);
  out.le_of_samples = load_stats(dt).le;
  const int P = options.ranks > 0 ? options.ranks : static_cast<int>(s.size());
  const auto truth = tabulate(s, s.size() + 1 >= 4 ? Interpolation::pchip : Interpolation::linear);
  const auto part = partition(model, Speeds::uniform(P));
  std::vector<double> cost(static_cast<std::size_t>(P));
  for (int i = 0; i < P; ++i) {
    const double a = std::clamp(part.cuts[i], truth.lo(), truth.hi());
    const double b = std::clamp(part.cuts[i + 1], truth.lo(), truth.hi());
    cost[i] = truth.cost(a, b);
  }
  if (part.cuts.front() > truth.lo()) cost.front() += truth.cost(truth.lo(), part.cuts.front());
  if (part.cuts.back() < truth.hi()) cost.back() += truth.cost(part.cuts.back(), truth.hi());
  out.le_on_samples = load_stats(cost).le;
}

FitResult fit_tabulated(const Samples& samples, const FitSpec& spec, const FitOptions& options) {
  FitResult r{
      tabulate(samples, spec.form == FitForm::pchip ? Interpolation::pchip : Interpolation::makima),
      FitSummary{}};
  r.summary.model = spec.name();
  r.summary.formula = r.model.describe();
  r.summary.termination = "no solve (interpolation)";
  score(r.model, samples, options, static_cast<int>(samples.size()), r.summary);
  balance_on_samples(r.model, samples, options, r.summary);
  return r;
}

// Standard errors from the Jacobian at the solution. The columns are scaled to
// unit norm before the SVD, so parameters of very different size (ln A next to
// p, or a formula's A ≈ 1e-7 next to p ≈ 1.4) do not look rank deficient; the
// covariance is (JᵀJ)⁻¹·s² with s² = RSS/(n − k). Directions the data do not
// determine (relative singular value below 1e-10) leave every error undefined
// rather than reported as deceptively small.
std::vector<std::optional<double>> standard_errors(ceres::Problem& problem,
                                                   const std::vector<bool>& fixed, std::size_t n,
                                                   int k, double final_cost) {
  std::vector<std::optional<double>> out(fixed.size());
  ceres::CRSMatrix crs;
  double cost = 0;
  if (!problem.Evaluate(ceres::Problem::EvaluateOptions(), &cost, nullptr, nullptr, &crs))
    return out;
  // With a SubsetManifold the Jacobian has one column per free parameter.
  if (crs.num_cols != k) return out;
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(crs.num_rows, crs.num_cols);
  for (int r = 0; r < crs.num_rows; ++r)
    for (int e = crs.rows[r]; e < crs.rows[r + 1]; ++e) J(r, crs.cols[e]) = crs.values[e];
  const Eigen::VectorXd norms = J.colwise().norm();
  if ((norms.array() <= 0).any() || !norms.allFinite()) return out;
  const Eigen::MatrixXd scaled = J * norms.cwiseInverse().asDiagonal();
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(scaled, Eigen::ComputeThinV);
  const Eigen::VectorXd sv = svd.singularValues();
  if (!(sv.minCoeff() > 1e-10 * sv.maxCoeff())) return out;
  const Eigen::MatrixXd V = svd.matrixV();
  const Eigen::MatrixXd cov_scaled =
      V * sv.array().square().inverse().matrix().asDiagonal() * V.transpose();
  const double s2 = 2 * final_cost / static_cast<double>(n - static_cast<std::size_t>(k));
  for (std::size_t i = 0, col = 0; i < fixed.size(); ++i) {
    if (fixed[i]) continue;
    const double var =
        cov_scaled(static_cast<Eigen::Index>(col), static_cast<Eigen::Index>(col)) /
        (norms[static_cast<Eigen::Index>(col)] * norms[static_cast<Eigen::Index>(col)]);
    out[i] = std::sqrt(var * s2);
    ++col;
  }
  return out;
}

}  // namespace

std::vector<std::string> fit_parameter_names(const FitSpec& spec) {
  switch (spec.form) {
    case FitForm::sieve:
      return {"A", "p", "c", "q"};
    case FitForm::power:
      return {"A", "p"};
    case FitForm::exponential:
      return {"A", "b"};
    case FitForm::polynomial: {
      std::vector<std::string> names;
      for (int k = 1; k <= spec.degree; ++k) {
        std::string name = "c";  // not "c" + …: GCC 12 warns falsely (-Wrestrict)
        name += std::to_string(k);
        names.push_back(name);
      }
      return names;
    }
    case FitForm::expression:
      return Expression(spec.expression).parameters();
    case FitForm::pchip:
    case FitForm::makima:
      return {};
  }
  return {};
}

void validate_fit_spec(const FitSpec& spec) {
  if (spec.form == FitForm::polynomial && (spec.degree < 1 || spec.degree > 10))
    throw Error("polynomial degree must be in [1, 10], got " + std::to_string(spec.degree));
  const auto names = fit_parameter_names(spec);
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  for (const auto& [name, value] : spec.guess) {
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw Error(
          "guess: unknown parameter '" + name + "' for model " + spec.name() +
          (names.empty() ? std::string(", which has no parameters") : "; expected " + list));
    if (!std::isfinite(value))
      throw Error("guess: " + name + " must be finite, got " + exact(value));
  }
}

FitResult fit(const Samples& samples, const FitSpec& spec, const FitOptions& options) {
  options.validate();
  validate_fit_spec(spec);
  if (samples.size() == 0) throw Error("fit: no samples");
  if (spec.form == FitForm::pchip || spec.form == FitForm::makima)
    return fit_tabulated(samples, spec, options);
  {
    bool same = true;
    for (const auto& iv : samples.intervals())
      same = same && iv.lo == samples.intervals()[0].lo && iv.hi == samples.intervals()[0].hi;
    if (same && samples.size() > 1)
      throw Error("fit: all " + std::to_string(samples.size()) +
                  " samples cover the same interval [" + exact(samples.lo()) + ", " +
                  exact(samples.hi()) + "]; a shape cannot be fitted from one x range");
  }

  // Residual weights: relative (1/dt) or absolute in units of the mean dt.
  std::vector<double> w(samples.size());
  double mean_dt = 0;
  for (const auto& iv : samples.intervals()) mean_dt += iv.dt;
  mean_dt /= static_cast<double>(samples.size());
  for (std::size_t k = 0; k < samples.size(); ++k)
    w[k] = options.relative ? 1.0 / samples.intervals()[k].dt : 1.0 / mean_dt;

  Family family;
  switch (spec.form) {
    case FitForm::sieve:
      family = sieve_family(samples, spec, w);
      break;
    case FitForm::power:
      family = power_family(samples, spec, w);
      break;
    case FitForm::polynomial:
      family = polynomial_family(samples, spec);
      break;
    case FitForm::exponential:
      family = exponential_family(samples, spec, w);
      break;
    case FitForm::expression:
      family = expression_family(spec);
      break;
    default:
      break;
  }
  const int k = static_cast<int>(std::count(family.fixed.begin(), family.fixed.end(), false));
  if (static_cast<int>(samples.size()) < k + 1)
    throw Error("fit of " + spec.name() + ": " + std::to_string(samples.size()) + " samples for " +
                std::to_string(k) +
                " parameters; need at least parameters + 1 = " + std::to_string(k + 1));

  // --- Ceres problem: one residual block per sample, so that robust losses act
  // per sample, or one block for all when there is no robust loss.
  std::vector<double> theta = family.theta;
  ceres::Problem::Options problem_options;
  problem_options.loss_function_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
  ceres::Problem problem(problem_options);
  const auto loss = detail::make_loss(options.loss, options.loss_scale);
  const bool batch = !family.expression && !loss;
  if (batch)
    problem.AddResidualBlock(new IntervalCost(family, samples, w, 0, samples.size()), nullptr,
                             theta.data());

  for (std::size_t s = 0; s < (batch ? 0 : samples.size()); ++s) {
    const auto& iv = samples.intervals()[s];
    ceres::CostFunction* cost;
    if (family.expression) {
      auto* numeric = new ceres::DynamicNumericDiffCostFunction<ExpressionResidual, ceres::CENTRAL>(
          new ExpressionResidual{&family, iv, w[s]});
      numeric->AddParameterBlock(static_cast<int>(theta.size()));
      numeric->SetNumResiduals(1);
      cost = numeric;
    } else {
      cost = new IntervalCost(family, samples, w, s, 1);
    }
    problem.AddResidualBlock(cost, loss.get(), theta.data());
  }
  std::vector<int> constant;
  for (std::size_t i = 0; i < theta.size(); ++i) {
    if (family.fixed[i]) constant.push_back(static_cast<int>(i));
    if (std::isfinite(family.lower[i]))
      problem.SetParameterLowerBound(theta.data(), static_cast<int>(i), family.lower[i]);
    if (std::isfinite(family.upper[i]))
      problem.SetParameterUpperBound(theta.data(), static_cast<int>(i), family.upper[i]);
  }
  if (!constant.empty())
    problem.SetManifold(theta.data(),
                        new ceres::SubsetManifold(static_cast<int>(theta.size()), constant));

  const ceres::Solver::Options solver =
      detail::solver_options(options.max_iterations, options.function_tolerance);
  ceres::Solver::Summary summary;
  ceres::Solve(solver, &problem, &summary);

  FitSummary out;
  out.model = spec.name();
  out.formula = family.formula;
  detail::record_solve(summary, "fit of " + spec.name(), out);

  std::vector<std::optional<double>> std_error(theta.size());
  if (options.covariance && static_cast<int>(samples.size()) > k)
    std_error = standard_errors(problem, family.fixed, samples.size(), k, summary.final_cost);
  for (std::size_t i = 0; i < theta.size(); ++i) {
    const auto [value, slope] = family.report(theta, i);
    FitParameter p{family.names[i], value, std::nullopt, family.fixed[i]};
    if (std_error[i]) p.std_error = std::abs(slope) * *std_error[i];
    out.parameters.push_back(p);
  }

  const double lo = options.lo.value_or(samples.lo()), hi = options.hi.value_or(samples.hi());
  std::optional<CostModel> model;
  try {
    model = family.make(theta, lo, hi);
  } catch (const Error& e) {
    throw Error("fit of " + spec.name() + " gave a model that is not valid on [" + exact(lo) +
                ", " + exact(hi) + "]: " + e.what());
  }
  score(*model, samples, options, k, out);
  balance_on_samples(*model, samples, options, out);
  return {*model, std::move(out)};
}

}  // namespace isocost
