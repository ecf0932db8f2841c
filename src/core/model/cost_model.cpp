#include "isocost/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <utility>

#include "core/model/polynomial.hpp"
#include "core/shared/scaling.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

// pchip.hpp in Boost 1.74 uses isnan unqualified: fpclassify must come first.
#include <boost/math/special_functions/fpclassify.hpp>
// (keep the order)
#include <boost/math/interpolators/makima.hpp>
#include <boost/math/interpolators/pchip.hpp>

namespace isocost {

using detail::exact;

namespace detail {
void require_domain(double lo, double hi, const char* model) {
  for (const auto& [value, name] : {std::pair{lo, "lo"}, std::pair{hi, "hi"}})
    if (!std::isfinite(value))
      throw Error(
          expected_got(std::string(model) + ": domain " + name, "a finite number", exact(value)));
  if (!(lo < hi))
    throw Error(std::string(model) + ": domain needs lo < hi, got lo=" + exact(lo) +
                ", hi=" + exact(hi));
}
}  // namespace detail

namespace {

void require_finite(double value, const char* model, const char* name) {
  if (!std::isfinite(value))
    throw Error(
        detail::expected_got(std::string(model) + ": " + name, "a finite number", exact(value)));
}

using detail::require_domain;

// --------------------------------------------------------------------------
class SieveImpl final : public detail::CostModelImpl {
 public:
  SieveImpl(const SieveParams& p, double lo) : p_(p), t_lo_(raw(lo)) {}

  // Swartz Appendix B FUNCD: r = 1/(ln x − c), T = A·x^p·r, T' = T·(p − r)/x;
  // with a log power q: T = A·x^p·r^q, T' = T·(p − q·r)/x.
  CostPoint evaluate(double x) const override {
    const double r = 1.0 / (std::log(x) - p_.c);
    const double T = p_.A * std::pow(x, p_.p) * (p_.q == 1 ? r : std::pow(r, p_.q));
    return {T - t_lo_, T * (p_.p - p_.q * r) / x};
  }
  double cost(double x) const override { return raw(x) - t_lo_; }
  std::string kind() const override { return "sieve"; }
  std::string describe() const override {
    return (p_.q == 1 ? "sieve t(x) = A*x^p/(ln x - c), A="
                      : "sieve t(x) = A*x^p/(ln x - c)^q, A=") +
           exact(p_.A) + " p=" + exact(p_.p) + " c=" + exact(p_.c) +
           (p_.q == 1 ? "" : " q=" + exact(p_.q));
  }

 private:
  // Same operations as evaluate(), so cost(x) and evaluate(x).cost agree bit for bit.
  double raw(double x) const {
    const double r = 1.0 / (std::log(x) - p_.c);
    return p_.A * std::pow(x, p_.p) * (p_.q == 1 ? r : std::pow(r, p_.q));
  }
  SieveParams p_;
  double t_lo_;
};

// --------------------------------------------------------------------------
class PowerImpl final : public detail::CostModelImpl {
 public:
  PowerImpl(double A, double p, double B, double lo)
      : A_(A), p_(p), B_(B), t_lo_(A * std::pow(lo, p)) {}
  CostPoint evaluate(double x) const override {
    const double xp = std::pow(x, p_);
    // d/dx A·x^p = A·p·x^(p−1); written as A·p·x^p/x except at x = 0.
    const double d = x == 0.0 ? A_ * p_ * std::pow(x, p_ - 1) : A_ * p_ * xp / x;
    return {A_ * xp - t_lo_, d};
  }
  double cost(double x) const override { return A_ * std::pow(x, p_) - t_lo_; }
  std::string kind() const override { return "power"; }
  std::string describe() const override {
    return "power t(x) = A*x^p + B, A=" + exact(A_) + " p=" + exact(p_) + " B=" + exact(B_);
  }

 private:
  double A_, p_, B_, t_lo_;
};

// --------------------------------------------------------------------------
class PolynomialImpl final : public detail::CostModelImpl {
 public:
  // t(x) = Σ c_k u^k with u = (x − x0)/scale.
  PolynomialImpl(std::vector<double> c, double lo, double x0, double scale)
      : c_(std::move(c)), x0_(x0), scale_(scale), t_lo_(raw(lo)) {}
  CostPoint evaluate(double x) const override {
    // Horner for t and dt/du together.
    const double u = (x - x0_) / scale_;
    double t = 0, d = 0;
    for (std::size_t k = c_.size(); k-- > 0;) {
      d = d * u + t;
      t = t * u + c_[k];
    }
    return {t - t_lo_, d / scale_};
  }
  double cost(double x) const override { return raw(x) - t_lo_; }
  std::string kind() const override { return "polynomial"; }
  std::string describe() const override {
    const bool scaled = x0_ != 0 || scale_ != 1;
    const std::string var = scaled ? "u" : "x";
    std::string s = "polynomial t(x) =";
    for (std::size_t k = 0; k < c_.size(); ++k)
      s += (k ? " + " : " ") + exact(c_[k]) + (k ? "*" + var + "^" + std::to_string(k) : "");
    if (scaled) s += ", u = (x - " + exact(x0_) + ")/" + exact(scale_);
    return s;
  }

 private:
  // Same operations as evaluate(), so cost(x) and evaluate(x).cost agree bit for bit.
  double raw(double x) const { return detail::polynomial_value(c_, (x - x0_) / scale_); }
  std::vector<double> c_;
  double x0_, scale_, t_lo_;
};

// --------------------------------------------------------------------------
class ExponentialImpl final : public detail::CostModelImpl {
 public:
  ExponentialImpl(double A, double b, double lo) : A_(A), b_(b), lo_(lo) {}
  CostPoint evaluate(double x) const override {
    const double e = std::exp(b_ * (x - lo_));
    return {A_ * (e - 1), A_ * b_ * e};
  }
  double cost(double x) const override { return A_ * (std::exp(b_ * (x - lo_)) - 1); }
  std::string kind() const override { return "exponential"; }
  std::string describe() const override {
    return "exponential t(x) = A*exp(b*(x - lo)) + B, A=" + exact(A_) + " b=" + exact(b_) +
           " lo=" + exact(lo_);
  }

 private:
  double A_, b_, lo_;
};

// --------------------------------------------------------------------------
class AnalyticImpl final : public detail::CostModelImpl {
 public:
  AnalyticImpl(std::function<double(double)> t, std::function<double(double)> d, double lo,
               double hi)
      : t_(std::move(t)), d_(std::move(d)), lo_(lo), hi_(hi), t_lo_(t_(lo)) {}

  CostPoint evaluate(double x) const override { return {cost(x), density(x)}; }
  double cost(double x) const override { return t_(x) - t_lo_; }
  std::string kind() const override { return "analytic"; }
  std::string describe() const override {
    return std::string("analytic t(x) from a callable, ") +
           (d_ ? "analytic density" : "numeric density (central differences)");
  }

  double density(double x) const {
    if (d_) return d_(x);
    // Step rule documented in cost_model.hpp.
    const double width = hi_ - lo_;
    const double h =
        std::min(std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(std::abs(x), width),
                 width / 8);
    if (x - h >= lo_ && x + h <= hi_) return (t_(x + h) - t_(x - h)) / (2 * h);
    const double s = x + 2 * h <= hi_ ? h : -h;  // one-sided, away from the end
    return (-3 * t_(x) + 4 * t_(x + s) - t_(x + 2 * s)) / (2 * s);
  }

 private:
  std::function<double(double)> t_, d_;
  double lo_, hi_, t_lo_;
};

// --------------------------------------------------------------------------
// Tabulated models interpolate samples scaled by powers of two (u = x·2^kx,
// τ = t·2^kt) that bring the largest |x| and |t| into [1, 2). The scaling is
// exact, so ordinary data gives the same interpolant bit for bit, while totals
// near the double limit or subnormal x spacing no longer overflow inside the
// interpolation (slopes Δt/Δx, Hermite basis products).
struct SampleScale {
  int kx = 0, kt = 0;
  double u(double x) const { return std::ldexp(x, kx); }
  double cost(double tau) const { return std::ldexp(tau, -kt); }
  double density(double dtau_du) const { return std::ldexp(dtau_du, kx - kt); }
};

template <class Interpolant>
class HermiteImpl final : public detail::CostModelImpl {
 public:
  HermiteImpl(Interpolant f, double tau0, SampleScale scale, std::string kind)
      : f_(std::move(f)), tau0_(tau0), scale_(scale), kind_(std::move(kind)) {}
  CostPoint evaluate(double x) const override {
    const double u = scale_.u(x);
    return {scale_.cost(f_(u) - tau0_), scale_.density(f_.prime(u))};
  }
  double cost(double x) const override { return scale_.cost(f_(scale_.u(x)) - tau0_); }
  std::string kind() const override { return kind_; }
  std::string describe() const override {
    return kind_ + " interpolation of cumulative samples (Boost.Math)";
  }

 private:
  Interpolant f_;
  double tau0_;
  SampleScale scale_;
  std::string kind_;
};

class LinearImpl final : public detail::CostModelImpl {
 public:
  // x and t are the scaled samples u and τ.
  LinearImpl(std::vector<double> x, std::vector<double> t, SampleScale scale)
      : x_(std::move(x)), t_(std::move(t)), scale_(scale) {}
  CostPoint evaluate(double x) const override {
    const double u = scale_.u(x);
    const std::size_t k = segment(u);
    const double slope = (t_[k + 1] - t_[k]) / (x_[k + 1] - x_[k]);
    return {scale_.cost(t_[k] - t_[0] + slope * (u - x_[k])), scale_.density(slope)};
  }
  double cost(double x) const override { return evaluate(x).cost; }
  std::string kind() const override { return "linear"; }
  std::string describe() const override {
    return "piecewise-linear interpolation of " + std::to_string(x_.size()) + " cumulative samples";
  }

 private:
  std::size_t segment(double x) const {
    auto it = std::upper_bound(x_.begin(), x_.end(), x);
    std::size_t k = static_cast<std::size_t>(it - x_.begin());
    return std::min(k == 0 ? 0 : k - 1, x_.size() - 2);
  }
  std::vector<double> x_, t_;
  SampleScale scale_;
};

}  // namespace

// ---------------------------------------------------------------------------
CostModel::CostModel(std::shared_ptr<const detail::CostModelImpl> impl, double lo, double hi)
    : impl_(std::move(impl)), lo_(lo), hi_(hi), total_(impl_->cost(hi)) {
  if (!std::isfinite(total_) || !(total_ > 0))
    throw Error(detail::expected_got(impl_->kind() + " model: total cost t(hi) - t(lo)",
                                     "a finite number > 0", exact(total_)));
}

namespace {
void check_x(const CostModel& m, double x) {
  if (!(x >= m.lo() && x <= m.hi()))
    throw Error("x=" + exact(x) + " is outside the model domain [" + exact(m.lo()) + ", " +
                exact(m.hi()) + "]");
}
}  // namespace

double CostModel::cost(double x) const {
  check_x(*this, x);
  return impl_->cost(x);
}

double CostModel::cost(double a, double b) const {
  check_x(*this, a);
  check_x(*this, b);
  if (a > b) throw Error("cost(a, b) needs a <= b, got a=" + exact(a) + ", b=" + exact(b));
  return impl_->cost(b) - impl_->cost(a);
}

double CostModel::density(double x) const {
  check_x(*this, x);
  return impl_->evaluate(x).density;
}

CostPoint CostModel::evaluate(double x) const {
  check_x(*this, x);
  return impl_->evaluate(x);
}

// ---------------------------------------------------------------------------
double sieve_increasing_from(const SieveParams& params) {
  return std::exp(params.c + params.q / params.p);
}

CostModel sieve_model(const SieveParams& params, double lo, double hi) {
  require_finite(params.A, "sieve model", "A");
  require_finite(params.p, "sieve model", "p");
  require_finite(params.c, "sieve model", "c");
  require_finite(params.q, "sieve model", "q");
  if (!(params.A > 0)) throw Error(detail::expected_got("sieve model: A", "> 0", exact(params.A)));
  if (!(params.p > 0)) throw Error(detail::expected_got("sieve model: p", "> 0", exact(params.p)));
  if (!(params.q >= 0))
    throw Error(detail::expected_got("sieve model: q", ">= 0", exact(params.q)));
  require_domain(lo, hi, "sieve model");
  const double from = sieve_increasing_from(params);
  if (!(lo >= from))
    throw Error("sieve model: domain lo=" + exact(lo) +
                " lies outside the increasing region x >= exp(c + q/p) = " + exact(from) +
                " (t'(x) <= 0 below it)");
  return CostModel(std::make_shared<SieveImpl>(params, lo), lo, hi);
}

CostModel power_model(double A, double p, double B, double lo, double hi) {
  require_finite(A, "power model", "A");
  require_finite(p, "power model", "p");
  require_finite(B, "power model", "B");
  require_domain(lo, hi, "power model");
  if (!(A * p > 0))
    throw Error("power model: t(x) = A*x^p + B increases only when A*p > 0, got A=" + exact(A) +
                ", p=" + exact(p));
  if (!(lo >= 0)) throw Error(detail::expected_got("power model: domain lo", ">= 0", exact(lo)));
  if (p < 0 && !(lo > 0))
    throw Error(detail::expected_got("power model: with p=" + exact(p) + " < 0 the domain lo",
                                     "> 0", exact(lo)));
  return CostModel(std::make_shared<PowerImpl>(A, p, B, lo), lo, hi);
}

CostModel polynomial_model(std::vector<double> c, double lo, double hi, double x0, double scale) {
  for (std::size_t k = 0; k < c.size(); ++k)
    if (!std::isfinite(c[k]))
      throw Error(detail::expected_got("polynomial model: coefficient c" + std::to_string(k),
                                       "a finite number", exact(c[k])));
  while (c.size() > 1 && c.back() == 0.0) c.pop_back();
  if (c.size() < 2)
    throw Error("polynomial model: needs degree >= 1 (a nonzero coefficient c1 or higher)");
  require_domain(lo, hi, "polynomial model");
  require_finite(x0, "polynomial model", "offset x0");
  require_finite(scale, "polynomial model", "scale");
  if (!(scale > 0))
    throw Error(detail::expected_got("polynomial model: scale", "> 0", exact(scale)));
  // Monotonicity in u = (x − x0)/scale, which has the same sign as in x.
  const double ulo = (lo - x0) / scale, uhi = (hi - x0) / scale;
  const auto worst = detail::polynomial_min_derivative(c, ulo, uhi);
  const double total = detail::polynomial_value(c, uhi) - detail::polynomial_value(c, ulo);
  const double slack = 1e-12 * std::abs(total) / (uhi - ulo) + 64 * worst.rounding;
  if (worst.value < -slack)
    throw Error(detail::expected_got(
        "polynomial model: t'(" + exact(x0 + worst.x * scale) + ")",
        "a value >= 0 (t(x) nondecreasing on [" + exact(lo) + ", " + exact(hi) + "])",
        exact(worst.value / scale)));
  return CostModel(std::make_shared<PolynomialImpl>(std::move(c), lo, x0, scale), lo, hi);
}

CostModel exponential_model(double A, double b, double lo, double hi) {
  require_finite(A, "exponential model", "A");
  require_finite(b, "exponential model", "b");
  require_domain(lo, hi, "exponential model");
  if (!(A * b > 0))
    throw Error(
        "exponential model: t(x) = A*exp(b*(x - lo)) + B increases only when A*b > 0, got A=" +
        exact(A) + ", b=" + exact(b));
  if (!(std::abs(b) * (hi - lo) <= 700))
    throw Error("exponential model: |b|*(hi - lo) = " + exact(std::abs(b) * (hi - lo)) +
                " exceeds 700; exp would overflow");
  return CostModel(std::make_shared<ExponentialImpl>(A, b, lo), lo, hi);
}

CostModel analytic_model(std::function<double(double)> cost, std::function<double(double)> density,
                         double lo, double hi) {
  if (!cost) throw Error("analytic model: the cost callable is empty");
  require_domain(lo, hi, "analytic model");
  auto impl = std::make_shared<AnalyticImpl>(cost, density, lo, hi);
  // Sampled sanity check (documented in the header).
  constexpr int samples = 256;
  double previous = 0;
  for (int k = 0; k <= samples; ++k) {
    const double x = k == samples ? hi : lo + (hi - lo) * k / samples;
    const double t = cost(x);
    if (!std::isfinite(t))
      throw Error("analytic model: t(" + exact(x) + ") = " + exact(t) + " is not finite");
    if (k > 0 && t < previous)
      throw Error(detail::expected_got(
          "analytic model: t(" + exact(x) + ")",
          "a value >= " + exact(previous) + " (t before it; t must be nondecreasing)", exact(t)));
    previous = t;
    if (density) {
      const double d = density(x);
      if (!std::isfinite(d) || d < 0)
        throw Error(detail::expected_got("analytic model: density(" + exact(x) + ")",
                                         "a finite value >= 0", exact(d)));
    }
  }
  return CostModel(std::move(impl), lo, hi);
}

std::string_view to_string(Interpolation interpolation) {
  switch (interpolation) {
    case Interpolation::pchip:
      return "pchip";
    case Interpolation::makima:
      return "makima";
    case Interpolation::linear:
      return "linear";
  }
  return "?";
}

Interpolation parse_interpolation(const std::string& name) {
  if (name == "pchip") return Interpolation::pchip;
  if (name == "makima") return Interpolation::makima;
  if (name == "linear") return Interpolation::linear;
  throw Error(
      detail::expected_got("interpolation", "pchip, makima or linear", detail::quote(name)));
}

namespace {
// Minimum over [0, 1] of the derivative of a cubic Hermite segment with end
// slopes s0, s1 and secant slope delta: p'(u) = s0 + 2(3δ − 2s0 − s1)u +
// 3(s0 + s1 − 2δ)u².
double hermite_min_slope(double s0, double s1, double delta) {
  const double a = 3 * (s0 + s1 - 2 * delta);
  const double b = 2 * (3 * delta - 2 * s0 - s1);
  double m = std::min(s0, s1);
  if (a > 0) {
    const double u = -b / (2 * a);
    if (u > 0 && u < 1) m = std::min(m, s0 + b * u + a * u * u);
  }
  return m;
}

// On the scaled samples u, τ (SampleScale); x only names the interval.
template <class Interpolant>
void check_hermite_monotone(const Interpolant& f, const std::vector<double>& u,
                            const std::vector<double>& tau, const std::vector<double>& x,
                            const SampleScale& scale, const std::string& kind) {
  const double mean_slope = (tau.back() - tau.front()) / (u.back() - u.front());
  for (std::size_t k = 0; k + 1 < u.size(); ++k) {
    const double h = u[k + 1] - u[k];
    const double m = hermite_min_slope(f.prime(u[k]), f.prime(u[k + 1]), (tau[k + 1] - tau[k]) / h);
    if (!(m >= -1e-12 * mean_slope))  // a NaN slope fails too
      throw Error(kind + " interpolation decreases between samples " + std::to_string(k) + " and " +
                  std::to_string(k + 1) + " (x in [" + exact(x[k]) + ", " + exact(x[k + 1]) +
                  "], slope " + exact(scale.density(m)) +
                  "); use pchip, which preserves monotonicity");
  }
}
}  // namespace

CostModel tabulated_model(std::vector<double> x, std::vector<double> t,
                          Interpolation interpolation) {
  const char* name = interpolation == Interpolation::pchip    ? "pchip"
                     : interpolation == Interpolation::makima ? "makima"
                                                              : "linear";
  if (x.size() != t.size())
    throw Error(std::string(name) + " model: " + std::to_string(x.size()) + " x values but " +
                std::to_string(t.size()) + " t values");
  const std::size_t need = interpolation == Interpolation::linear ? 2 : 4;
  if (x.size() < need)
    throw Error(std::string(name) + " model: needs at least " + std::to_string(need) +
                " samples, got " + std::to_string(x.size()));
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (!std::isfinite(x[k]) || !std::isfinite(t[k]))
      throw Error(std::string(name) + " model: sample " + std::to_string(k) + " (x=" + exact(x[k]) +
                  ", t=" + exact(t[k]) + ") is not finite");
    if (k > 0 && !(x[k] > x[k - 1]))
      throw Error(std::string(name) + " model: x must increase strictly, but sample " +
                  std::to_string(k) + " has x=" + exact(x[k]) + " after x=" + exact(x[k - 1]));
    if (k > 0 && t[k] < t[k - 1])
      throw Error(std::string(name) + " model: cumulative t must not decrease, but sample " +
                  std::to_string(k) + " has t=" + exact(t[k]) + " after t=" + exact(t[k - 1]) +
                  " (x=" + exact(x[k]) + ")");
  }
  const double lo = x.front(), hi = x.back();
  const SampleScale scale{detail::unit_exponent(x), detail::unit_exponent(t)};
  std::vector<double> u(x.size()), tau(t.size());
  for (std::size_t k = 0; k < x.size(); ++k) {
    u[k] = scale.u(x[k]);
    tau[k] = std::ldexp(t[k], scale.kt);
    if (k > 0 && !(u[k] > u[k - 1]))  // both below 2^-1074 of the largest |x|
      throw Error(std::string(name) + " model: samples " + std::to_string(k - 1) + " and " +
                  std::to_string(k) + " (x=" + exact(x[k - 1]) + ", " + exact(x[k]) +
                  ") are too close for the range of x up to " + exact(std::ldexp(1.0, -scale.kx)));
  }
  const double tau0 = tau.front();
  if (interpolation == Interpolation::linear)
    return CostModel(std::make_shared<LinearImpl>(std::move(u), std::move(tau), scale), lo, hi);

  auto us = u, taus = tau;  // Boost takes its vectors by rvalue; keep ours for the check
  if (interpolation == Interpolation::pchip) {
    boost::math::interpolators::pchip<std::vector<double>> f(std::move(us), std::move(taus));
    check_hermite_monotone(f, u, tau, x, scale, name);
    return CostModel(std::make_shared<HermiteImpl<decltype(f)>>(std::move(f), tau0, scale, name),
                     lo, hi);
  }
  boost::math::interpolators::makima<std::vector<double>> f(std::move(us), std::move(taus));
  check_hermite_monotone(f, u, tau, x, scale, name);
  return CostModel(std::make_shared<HermiteImpl<decltype(f)>>(std::move(f), tau0, scale, name), lo,
                   hi);
}

}  // namespace isocost
