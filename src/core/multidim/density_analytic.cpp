// Analytic densities: rho from a callable, box masses by nested Boost.Math
// quadrature or by inclusion–exclusion over an antiderivative (Swartz §5).
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>

#include <cmath>
#include <optional>
#include <utility>

#include "isocost/density.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

std::string_view to_string(Quadrature quadrature) {
  switch (quadrature) {
    case Quadrature::gauss_kronrod:
      return "gauss_kronrod";
    case Quadrature::tanh_sinh:
      return "tanh_sinh";
  }
  return "?";
}

using detail::exact;

namespace {

using Callable = std::function<double(std::span<const double>)>;
using Point = std::array<double, kMaxDims>;

std::string point_text(const Point& p, int dims) {
  std::string s = "(";
  for (int a = 0; a < dims; ++a) s += (a ? ", " : "") + exact(p[a]);
  return s + ")";
}

std::string box_text(const Box& b) {
  std::string s;
  for (int a = 0; a < b.dims; ++a)
    s += (a ? " x [" : "[") + exact(b.lo[a]) + ", " + exact(b.hi[a]) + "]";
  return s;
}

class AnalyticDensityImpl final : public detail::DensityImpl {
 public:
  AnalyticDensityImpl(Callable rho, Callable antiderivative, const Box& box,
                      const DensityOptions& options)
      : rho_(std::move(rho)), F_(std::move(antiderivative)), box_(box), options_(options) {
    // Building the tanh-sinh abscissae is the expensive part; one per density,
    // shared by all calls (Boost extends its rows under a lock).
    if (options.quadrature == Quadrature::tanh_sinh)
      tanh_sinh_.emplace(static_cast<std::size_t>(options.max_depth));
  }

  double mass(const Box& b) const override {
    if (F_) return corners(b);
    return quadrature_mass(b);
  }

  double cross_section(const Box& b, int axis, double x) const override {
    Point p = b.lo;
    p[axis] = x;
    int axes[kMaxDims];
    int n = 0;
    for (int a = 0; a < b.dims; ++a)
      if (a != axis) axes[n++] = a;
    std::int64_t count = 0;
    return guarded(b, [&] { return nested(b, axes, n, p, count); });
  }

  std::string describe() const override {
    const std::string how =
        F_ ? "antiderivative" : std::string(to_string(options_.quadrature)) + " quadrature";
    return "analytic density (" + how + ") on " + box_text(box_);
  }

  /// ∫_b rho by nested quadrature, whether or not there is an antiderivative.
  double quadrature_mass(const Box& b) const {
    Point p = b.lo;
    const int axes[kMaxDims] = {0, 1, 2};
    std::int64_t count = 0;
    return guarded(b, [&] { return nested(b, axes, b.dims, p, count); });
  }

  /// ∫_b rho from F: Σ over the 2^d corners of (−1)^(number of lo coordinates)·F.
  double corners(const Box& b) const {
    double sum = 0;
    Point p{};
    for (int mask = 0; mask < (1 << b.dims); ++mask) {
      int lows = 0;
      for (int a = 0; a < b.dims; ++a) {
        const bool hi = (mask >> a) & 1;
        p[a] = hi ? b.hi[a] : b.lo[a];
        lows += hi ? 0 : 1;
      }
      const double f = F_(std::span<const double>(p.data(), static_cast<std::size_t>(b.dims)));
      if (!std::isfinite(f))
        throw Error("analytic density: antiderivative F" + point_text(p, b.dims) + " = " +
                    exact(f) + " is not finite");
      sum += (lows % 2 ? -f : f);
    }
    return sum;
  }

 private:
  // rho at p, refused when negative or not finite wherever quadrature asks
  // for it (the construction-time lattice only samples).
  double rho(const Point& p) const {
    const double v = rho_(std::span<const double>(p.data(), static_cast<std::size_t>(box_.dims)));
    if (!(v >= 0) || !std::isfinite(v))
      throw Error(detail::expected_got("analytic density: rho" + point_text(p, box_.dims),
                                       "a finite value >= 0", exact(v)));
    return v;
  }

  template <class F>
  double integrate(F&& f, double a, double b) const {
    if (!(a < b)) return 0;  // a degenerate cross-section; tanh-sinh refuses a == b
    if (tanh_sinh_) return tanh_sinh_->integrate(f, a, b, options_.tolerance);
    return boost::math::quadrature::gauss_kronrod<double, 15>::integrate(
        f, a, b, static_cast<unsigned>(options_.max_depth), options_.tolerance);
  }

  // ∫ rho over axes[0..n) of b, the other coordinates held in p; the first
  // listed axis is the outermost integral. `count` is the evaluations of rho
  // so far in this integral, held to max_evaluations (density.hpp).
  double nested(const Box& b, const int* axes, int n, Point& p, std::int64_t& count) const {
    if (n == 0) {
      if (++count > options_.max_evaluations)
        throw Error("analytic density: the integral over " + box_text(b) + " used its budget of " +
                    std::to_string(options_.max_evaluations) +
                    " evaluations of rho (max_evaluations) without reaching the relative "
                    "tolerance " +
                    exact(options_.tolerance) +
                    ": rho is probably discontinuous or sharply peaked; raise the tolerance or "
                    "the budget, or give the density as cell weights");
      return rho(p);
    }
    const int a = axes[0];
    return integrate(
        [&](double t) {
          p[a] = t;
          return nested(b, axes + 1, n - 1, p, count);
        },
        b.lo[a], b.hi[a]);
  }

  // Boost reports a non-finite sum (e.g. a singular rho under tanh-sinh) with
  // its own exceptions: turn them into Error naming the box.
  template <class F>
  double guarded(const Box& b, F&& f) const {
    double v;
    try {
      v = f();
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw Error("analytic density: " + std::string(to_string(options_.quadrature)) +
                  " quadrature over " + box_text(b) + " failed: " + e.what());
    }
    if (!std::isfinite(v))
      throw Error("analytic density: the integral over " + box_text(b) + " is " + exact(v));
    return v;
  }

  Callable rho_, F_;
  Box box_;
  DensityOptions options_;
  // Boost 1.74 declares tanh_sinh::integrate non-const (its trailing "const"
  // qualifies the return type); the state it reaches is the shared detail
  // object, whose lazily built rows are guarded by a lock.
  mutable std::optional<boost::math::quadrature::tanh_sinh<double>> tanh_sinh_;
};

// rho >= 0 and finite on the 5^d lattice lo + (k/4)·width, k = 0..4, which
// holds the 2^d corners and the centre.
void check_lattice(const Callable& rho, const Box& box) {
  constexpr int n = 5;
  int count = 1;
  for (int a = 0; a < box.dims; ++a) count *= n;
  Point p{};
  for (int i = 0; i < count; ++i) {
    for (int a = 0, rest = i; a < box.dims; ++a, rest /= n) {
      const int k = rest % n;
      p[a] = k == n - 1 ? box.hi[a] : box.lo[a] + box.width(a) * k / (n - 1);
    }
    const double v = rho(std::span<const double>(p.data(), static_cast<std::size_t>(box.dims)));
    if (!(v >= 0) || !std::isfinite(v))
      throw Error(detail::expected_got("analytic density: rho" + point_text(p, box.dims),
                                       "a finite value >= 0", exact(v)));
  }
}

// A wrong antiderivative would silently give wrong partitions: compare it
// with quadrature on the whole box (F's value at the hi corner when
// F(lo) = 0) and on the lower half-box [lo, centre].
void check_antiderivative(const AnalyticDensityImpl& impl, const Box& box,
                          const DensityOptions& options) {
  const double rel = std::max(1e-6, 10 * options.tolerance);
  Box half = box;
  for (int a = 0; a < box.dims; ++a) half.hi[a] = box.lo[a] + 0.5 * box.width(a);
  const double scale = std::abs(impl.quadrature_mass(box));
  for (const Box& b : {box, half}) {
    const double q = impl.quadrature_mass(b), f = impl.corners(b);
    if (!(std::abs(f - q) <= rel * scale))
      throw Error("analytic density: the antiderivative gives " + exact(f) + " over " +
                  box_text(b) + " but quadrature of rho gives " + exact(q) +
                  " (relative tolerance " + exact(rel) +
                  "); F(p) must be the integral of rho over [lo, p]");
  }
}

}  // namespace

// rho and the antiderivative are called from whichever thread asks for a mass
// or cross-section, so a density shared between threads needs thread-safe
// callables; nothing else here is mutable (tanh-sinh's lazily built abscissa
// rows are guarded by Boost's lock).
Density analytic_density(std::function<double(std::span<const double>)> rho, const Box& box,
                         const DensityOptions& options,
                         std::function<double(std::span<const double>)> antiderivative) {
  if (!rho) throw Error("analytic density: the rho callable is empty");
  box.validate("analytic density box");
  options.validate();
  check_lattice(rho, box);
  const bool has_F = static_cast<bool>(antiderivative);
  auto impl = std::make_shared<AnalyticDensityImpl>(std::move(rho), std::move(antiderivative), box,
                                                    options);
  if (has_F) check_antiderivative(*impl, box, options);
  return Density(std::move(impl), box);  // checks total > 0
}

}  // namespace isocost
