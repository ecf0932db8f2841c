// The scalar the core's Eigen code is instantiated on: a double in an unnamed
// namespace. Internal.
//
// Why not double: Ceres's static library carries its own copies of Eigen's
// templates on double (sparse Cholesky and its ordering, VectorXd, QR), and
// the linker keeps one copy of each name, the first it meets. Where the two
// were built with other allocation settings (the core under GCC's
// AddressSanitizer, or with AVX), the core ran Ceres's copies and freed their
// blocks with its own allocator (issue #23). Templates instantiated on a type
// of an unnamed namespace have internal linkage: each file keeps its own
// copies, whatever the link order. (Index vectors depend on the index type
// alone: the core's sparse indices are std::ptrdiff_t, not Ceres's int.)
// The price: Eigen does not vectorise this type. The sparse Cholesky, scalar
// code either way, takes about 7 % longer than on double (a 128x128 mesh);
// conjugate gradients took twice as long, so diffusion's are written out on
// plain double instead, without Eigen. Double with Eigen's other vector
// options (DontAlign) or index types would not do: Eigen's solvers keep their
// work vectors as Matrix<Scalar, Dynamic, 1>, VectorXd on double.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <limits>

namespace isocost::detail {
namespace {

struct Real {
  double v;
  Real() = default;                   // trivial, as double (RequireInitialization 0)
  constexpr Real(double x) : v(x) {}  // implicit: Eigen mixes scalars and literals
  constexpr explicit operator double() const { return v; }

  constexpr Real operator-() const { return -v; }
  constexpr Real operator+() const { return v; }
  constexpr Real& operator+=(Real o) { return v += o.v, *this; }
  constexpr Real& operator-=(Real o) { return v -= o.v, *this; }
  constexpr Real& operator*=(Real o) { return v *= o.v, *this; }
  constexpr Real& operator/=(Real o) { return v /= o.v, *this; }
  friend constexpr Real operator+(Real a, Real b) { return a.v + b.v; }
  friend constexpr Real operator-(Real a, Real b) { return a.v - b.v; }
  friend constexpr Real operator*(Real a, Real b) { return a.v * b.v; }
  friend constexpr Real operator/(Real a, Real b) { return a.v / b.v; }
  friend constexpr bool operator==(Real a, Real b) { return a.v == b.v; }
  friend constexpr bool operator!=(Real a, Real b) { return a.v != b.v; }
  friend constexpr bool operator<(Real a, Real b) { return a.v < b.v; }
  friend constexpr bool operator<=(Real a, Real b) { return a.v <= b.v; }
  friend constexpr bool operator>(Real a, Real b) { return a.v > b.v; }
  friend constexpr bool operator>=(Real a, Real b) { return a.v >= b.v; }

  // Found by argument-dependent lookup from Eigen's numext functions.
  friend Real abs(Real a) { return std::abs(a.v); }
  friend Real sqrt(Real a) { return std::sqrt(a.v); }
  friend bool isfinite(Real a) { return std::isfinite(a.v); }
  friend bool isnan(Real a) { return std::isnan(a.v); }
  friend bool isinf(Real a) { return std::isinf(a.v); }
};

}  // namespace
}  // namespace isocost::detail

template <>
struct std::numeric_limits<isocost::detail::Real> : std::numeric_limits<double> {};

template <>
struct Eigen::NumTraits<isocost::detail::Real> : Eigen::GenericNumTraits<double> {
  using Real = isocost::detail::Real;
  using NonInteger = Real;
  using Literal = Real;
  using Nested = Real;
  enum { RequireInitialization = 0, ReadCost = 1, AddCost = 1, MulCost = 1 };
  static constexpr Real epsilon() { return std::numeric_limits<double>::epsilon(); }
  static constexpr Real dummy_precision() { return NumTraits<double>::dummy_precision(); }
  static constexpr Real highest() { return std::numeric_limits<double>::max(); }
  static constexpr Real lowest() { return std::numeric_limits<double>::lowest(); }
  static constexpr Real infinity() { return std::numeric_limits<double>::infinity(); }
  static constexpr Real quiet_NaN() { return std::numeric_limits<double>::quiet_NaN(); }
};
