// isocost/cost_model.hpp — one-dimensional cost models t(x).
//
// A cost model maps a position x in the domain [lo, hi] to the cumulative
// cost t(x) of all work in [lo, x): t(lo) = 0, t is nondecreasing, and
// t(hi) = TT is the total cost. density(x) = t'(x) >= 0. Only the shape of t
// matters for partitioning: t = A·t_ref gives the same cuts for every A > 0
// (Swartz §2).
//
// CostModel is a value type (cheap to copy, immutable, thread-safe) built by
// the factory functions below. Each factory validates its arguments and
// throws isocost::Error naming the bad value.
//
//   auto t = isocost::sieve_model({.A = 3.9098e-7, .p = 1.43, .c = 1.08366},
//                                 6, 268435456);
//   double TT = t.total();
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace isocost {

/// t(x) and t'(x) at one point.
struct CostPoint {
  double cost = 0;     ///< t(x), cumulative from lo
  double density = 0;  ///< t'(x)
};

namespace detail {
/// The interface every model implements. Implementations are immutable.
/// x is always inside [lo, hi] when these are called.
class CostModelImpl {
 public:
  virtual ~CostModelImpl() = default;
  virtual CostPoint evaluate(double x) const = 0;
  virtual double cost(double x) const = 0;
  virtual std::string kind() const = 0;
  virtual std::string describe() const = 0;
  /// Prefix sums P[0..n] of per-cell weights for discrete models, else empty.
  virtual std::span<const double> prefix_sums() const { return {}; }
};
}  // namespace detail

/// A validated, immutable one-dimensional cost model over [lo, hi].
class CostModel {
 public:
  /// Wraps an implementation; used by the factories. t(lo) must be 0.
  CostModel(std::shared_ptr<const detail::CostModelImpl> impl, double lo, double hi);

  /// Left end of the domain.
  double lo() const noexcept { return lo_; }
  /// Right end of the domain.
  double hi() const noexcept { return hi_; }
  /// Total cost TT = t(hi) > 0.
  double total() const noexcept { return total_; }

  /// Cumulative cost t(x) for x in [lo, hi]; throws Error outside.
  double cost(double x) const;
  /// Cost of [a, b] = t(b) − t(a), for lo <= a <= b <= hi; throws Error otherwise.
  double cost(double a, double b) const;
  /// Cost density t'(x) for x in [lo, hi]; throws Error outside.
  double density(double x) const;
  /// Both t(x) and t'(x) in one call (cheaper for most models).
  CostPoint evaluate(double x) const;

  /// Short name: "sieve", "power", "polynomial", "exponential", "analytic",
  /// "pchip", "makima", "linear", "discrete", "expression".
  std::string kind() const { return impl_->kind(); }
  /// One line with the formula and parameters.
  std::string describe() const { return impl_->describe(); }

  /// True for models built from per-cell weights (cuts are integers).
  bool is_discrete() const noexcept { return !impl_->prefix_sums().empty(); }
  /// Prefix sums P[0..n] of the weights of a discrete model (P[0] = 0), else empty.
  std::span<const double> prefix_sums() const noexcept { return impl_->prefix_sums(); }

  /// The implementation, unchecked; for solvers that keep x inside [lo, hi].
  const detail::CostModelImpl& impl() const noexcept { return *impl_; }

 private:
  std::shared_ptr<const detail::CostModelImpl> impl_;
  double lo_;
  double hi_;
  double total_;
};

/// A callable x → CostPoint{t(x), t'(x)}: what callable_model() and
/// solve_cut() take in place of a model.
template <class F>
concept CostFunction = std::is_invocable_r_v<CostPoint, const F&, double>;

namespace detail {
/// Throws Error("MODEL: domain …") unless lo < hi are finite.
void require_domain(double lo, double hi, const char* model);

/// A model over any callable x → CostPoint{t(x), t'(x)}, shifted so t(lo) = 0.
template <class F>
class CallableModel final : public CostModelImpl {
 public:
  CallableModel(F f, double lo, std::string kind, std::string description)
      : f_(std::move(f)),
        t_lo_(f_(lo).cost),
        kind_(std::move(kind)),
        description_(std::move(description)) {}
  CostPoint evaluate(double x) const override {
    CostPoint p = f_(x);
    p.cost -= t_lo_;
    return p;
  }
  double cost(double x) const override { return f_(x).cost - t_lo_; }
  std::string kind() const override { return kind_; }
  std::string describe() const override { return description_; }

 private:
  F f_;
  double t_lo_;
  std::string kind_, description_;
};
}  // namespace detail

/// A model over any callable `f(x)` returning CostPoint{t(x), t'(x)} on
/// [lo, hi] (as Boost.Math's root finders take a functor returning the value
/// and its derivative): t shifted so that t(lo) = 0. Unlike analytic_model()
/// nothing is sampled: the caller vouches that t is nondecreasing and t' >= 0
/// (decompose() builds its marginals this way). Throws Error if lo < hi is
/// not finite or t(hi) <= t(lo).
template <CostFunction F>
CostModel callable_model(F f, double lo, double hi, std::string kind = "callable",
                         std::string description = "a callable t(x), t'(x)") {
  detail::require_domain(lo, hi, "callable model");
  return CostModel(std::make_shared<detail::CallableModel<F>>(std::move(f), lo, std::move(kind),
                                                              std::move(description)),
                   lo, hi);
}

// ---------------------------------------------------------------------------
// Factories

/// Parameters of the sieve model t(x) = A·x^p / (ln x − c)^q. With q = 1 this is
/// Swartz eq. (4), from ~√n divisions for each of the n/(ln n − c) primes; trial
/// division by the primes up to √n only (Appendix C) costs ~√n/ln √n per prime,
/// which gives q = 2. Defaults are Swartz's fit on a Cray T3D.
struct SieveParams {
  double A = 3.9098e-7;  ///< machine constant, > 0 (cancels out of the cuts)
  double p = 1.43;       ///< power, > 0
  double c = 1.08366;    ///< Legendre's constant in π(n) ≈ n / (ln n − c)
  double q = 1.0;        ///< power of the logarithm, >= 0
};

/// Smallest x where the sieve model still increases: t'(x) > 0 iff
/// x > exp(c + q/p) (Swartz eq. 5 for q = 1: t' = A·r·x^(p−1)·(p − r) with
/// r = 1/(ln x − c); in general t' = t·(p − q·r)/x).
double sieve_increasing_from(const SieveParams& params);

/// The sieve model on [lo, hi]: cost(x) = T(x) − T(lo) with
/// T(x) = A·x^p/(ln x − c)^q, analytic density (Swartz eq. 5). Requires A > 0,
/// p > 0, q >= 0 and lo >= sieve_increasing_from(params): a domain reaching
/// outside the increasing region is an Error, not a silent wrong cut.
CostModel sieve_model(const SieveParams& params, double lo, double hi);

/// Power law t(x) = A·x^p + B on [lo, hi] (B cancels). Requires lo >= 0 and
/// A·p > 0 (so t increases), and lo > 0 when p < 0.
CostModel power_model(double A, double p, double B, double lo, double hi);

/// Polynomial t(x) = c[0] + c[1]·u + … + c[n]·u^n with u = (x − x0)/scale on
/// [lo, hi], n >= 1 (x0 = 0, scale = 1: a polynomial in x; fits use the scaled
/// variable to stay well conditioned). Checked to be nondecreasing on [lo, hi]
/// exactly: t' is evaluated at the ends and at every real root of t'' in
/// (lo, hi), found by recursive root isolation; a minimum of t' below
/// −1e-12·(TT/(hi−lo)) is an Error naming the x where t decreases.
CostModel polynomial_model(std::vector<double> coefficients, double lo, double hi, double x0 = 0,
                           double scale = 1);

/// Exponential t(x) = A·e^{b(x − lo)} + B on [lo, hi] (B cancels; the shift by lo
/// keeps e^{…} in range). Requires A·b > 0 and |b|·(hi − lo) <= 700.
CostModel exponential_model(double A, double b, double lo, double hi);

/// A model from user callables. `cost` is any t(x) (it is shifted so that
/// t(lo) = 0); `density` is optional. Without it, density(x) is a central
/// difference with step h = ε^(1/3)·max(|x|, hi − lo), capped at (hi − lo)/8,
/// replaced by the second-order one-sided formula
/// (−3t(x) + 4t(x ± h) − t(x ± 2h)) / (±2h) where x ± h would leave the domain.
/// The callables must be thread-safe if the model is used from several threads.
/// At construction t (and density, when given) are sampled at 257 evenly spaced
/// points: any non-finite value, a decrease of t, a negative density or
/// t(hi) <= t(lo) is an Error. This is a sanity check, not a proof.
CostModel analytic_model(std::function<double(double)> cost, std::function<double(double)> density,
                         double lo, double hi);

/// Interpolation used by tabulated_model.
enum class Interpolation {
  pchip,   ///< Boost.Math pchip (monotone piecewise cubic Hermite), >= 4 samples
  makima,  ///< Boost.Math makima (modified Akima), >= 4 samples; may overshoot
  linear,  ///< piecewise linear, >= 2 samples
};

/// Parses "pchip", "makima" or "linear"; throws Error otherwise.
Interpolation parse_interpolation(const std::string& name);
/// "pchip", "makima", "linear" ("?" for other values).
std::string_view to_string(Interpolation interpolation);

/// Monotone interpolation through cumulative samples (x_k, t_k): x strictly
/// increasing, t nondecreasing, all finite, t_last > t_first. The domain is
/// [x_0, x_last] and cost(x) = I(x) − t_0. The interpolant is checked on every
/// interval (its derivative, a quadratic, is minimised exactly); makima data that
/// overshoots into a decrease is an Error that suggests pchip.
CostModel tabulated_model(std::vector<double> x, std::vector<double> t,
                          Interpolation interpolation = Interpolation::pchip);

/// Per-cell weights w_0 … w_{n−1} >= 0 (finite, not all zero). Cell k covers
/// [first + k, first + k + 1); the domain is [first, first + n]. cost(x) is the
/// piecewise-linear prefix sum, so cost(first + k) = w_0 + … + w_{k−1} exactly as
/// accumulated; cuts on a discrete model are integers found by exponential
/// and binary search over the prefix sums.
CostModel discrete_model(std::vector<double> weights, std::int64_t first = 0);
namespace detail {
/// The discrete model's describe() for `cells` weights (also the command's
/// words for weights no rank holds whole).
std::string discrete_description(std::int64_t cells);
}  // namespace detail

}  // namespace isocost
