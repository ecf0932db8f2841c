// The parametric families of fit() (fit_families.hpp): sieve, power,
// polynomial, exponential and formulas, with start values from log-log (or
// log-linear) regressions of the sampled densities.
#include "fit_families.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "isocost/detail/text.hpp"

namespace isocost::detail {

namespace {

constexpr double kLegendreC = 1.08366;  // π(n) ≈ n/(ln n − 1.08366), Swartz §3
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
  if (!(A0 > 0))
    throw Error(detail::expected_got("sieve fit: starting value A", "a value > 0", exact(A0)));
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
  if (!(A0 > 0))
    throw Error(detail::expected_got("power fit: starting value A", "a value > 0", exact(A0)));
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
  if (!(A0 > 0))
    throw Error(
        detail::expected_got("exponential fit: starting value A", "a value > 0", exact(A0)));
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

}  // namespace

Family make_family(const Samples& samples, const FitSpec& spec, const std::vector<double>& w) {
  switch (spec.form) {
    case FitForm::sieve:
      return sieve_family(samples, spec, w);
    case FitForm::power:
      return power_family(samples, spec, w);
    case FitForm::polynomial:
      return polynomial_family(samples, spec);
    case FitForm::exponential:
      return exponential_family(samples, spec, w);
    case FitForm::expression:
      return expression_family(spec);
    case FitForm::pchip:
    case FitForm::makima:
      break;
  }
  throw Error("fit: " + spec.name() + " is not a parametric family");
}

}  // namespace isocost::detail
