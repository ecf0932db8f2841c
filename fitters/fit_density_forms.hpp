// Internal to fit_density(): the two fitted forms of a density on its domain,
// in scaled coordinates u = (x − lo)/width — a separable product of
// nonnegative Bernstein factors, or a polynomial of total degree n — with
// closed-form box integrals and cross-sections, and their formulas as text.
#pragma once

#include <algorithm>
#include <array>
#include <span>
#include <string>
#include <vector>

#include "isocost/fitters/fit_density.hpp"

namespace isocost::detail {

inline constexpr int kMaxSeparableDegree = 10;
inline constexpr int kMaxPolynomialDegree = 6;

// B_{j,m}(u) for j = 0..m, built up degree by degree (no binomials, stable on [0, 1]).
inline void bernstein(int m, double u, double* out) {
  out[0] = 1;
  for (int r = 1; r <= m; ++r) {
    out[r] = u * out[r - 1];
    for (int j = r - 1; j >= 1; --j) out[j] = (1 - u) * out[j] + u * out[j - 1];
    out[0] *= 1 - u;
  }
}

// ∫_0^u B_{k,n}(s) ds for k = 0..n, which is (1/(n+1))·Σ_{j>k} B_{j,n+1}(u).
inline void bernstein_integrals(int n, double u, double* out) {
  double B[kMaxSeparableDegree + 2];
  bernstein(n + 1, u, B);
  double tail = 0;
  for (int k = n; k >= 0; --k) {
    tail += B[k + 1];
    out[k] = tail / (n + 1);
  }
}

// A fitted form on the domain, in scaled coordinates u = (x − lo)/width.
// Immutable once built, hence safe to share between threads.
class Form {
 public:
  explicit Form(const Box& domain) : domain_(domain) {}
  virtual ~Form() = default;
  /// Number of basis functions (columns of the design matrix).
  virtual int columns() const = 0;
  /// ∫_b of each basis function, in the parameter layout of the fit.
  virtual void basis_integrals(const Box& b, double* out) const = 0;
  virtual double rho(std::span<const double> p) const = 0;
  virtual double mass(const Box& b) const = 0;
  virtual double cross_section(const Box& b, int axis, double x) const = 0;
  /// F(p) = ∫ rho over [lo, p].
  double antiderivative(std::span<const double> p) const {
    Box b = domain_;
    for (int a = 0; a < b.dims; ++a) b.hi[a] = p[static_cast<std::size_t>(a)];
    return mass(b);
  }
  const Box& domain() const { return domain_; }

 protected:
  double u(int a, double x) const {
    return std::clamp((x - domain_.lo[a]) / domain_.width(a), 0.0, 1.0);
  }
  Box domain_;
};

// rho = Π_a f_a(x_a), f_a = Σ_k b_ak·B_{k,n}(u_a).
class SeparableForm final : public Form {
 public:
  SeparableForm(const Box& domain, int degree) : Form(domain), n_(degree) {
    for (int a = 0; a < domain.dims; ++a) b_[a].assign(static_cast<std::size_t>(n_ + 1), 0.0);
  }
  int columns() const override { return domain_.dims * (n_ + 1); }
  // Per axis: ∫ B_{k,n}(u(x)) dx over the box's interval, = width·ΔI_k.
  void basis_integrals(const Box& b, double* out) const override {
    for (int a = 0; a < b.dims; ++a) axis_integrals(a, b.lo[a], b.hi[a], out + a * (n_ + 1));
  }
  double rho(std::span<const double> p) const override {
    double v = 1;
    for (int a = 0; a < domain_.dims; ++a) v *= factor(a, p[static_cast<std::size_t>(a)]);
    return v;
  }
  double mass(const Box& b) const override {
    double v = 1;
    for (int a = 0; a < b.dims; ++a) v *= factor_integral(a, b.lo[a], b.hi[a]);
    return v;
  }
  double cross_section(const Box& b, int axis, double x) const override {
    double v = factor(axis, x);
    for (int a = 0; a < b.dims; ++a)
      if (a != axis) v *= factor_integral(a, b.lo[a], b.hi[a]);
    return v;
  }
  int degree() const { return n_; }
  std::vector<double>& coefficients(int a) { return b_[a]; }
  const std::vector<double>& coefficients(int a) const { return b_[a]; }

 private:
  void axis_integrals(int a, double x0, double x1, double* out) const {
    double I0[kMaxSeparableDegree + 1], I1[kMaxSeparableDegree + 1];
    bernstein_integrals(n_, u(a, x0), I0);
    bernstein_integrals(n_, u(a, x1), I1);
    for (int k = 0; k <= n_; ++k) out[k] = domain_.width(a) * (I1[k] - I0[k]);
  }
  double factor(int a, double x) const {
    double B[kMaxSeparableDegree + 1];
    bernstein(n_, u(a, x), B);
    double v = 0;
    for (int k = 0; k <= n_; ++k) v += b_[a][static_cast<std::size_t>(k)] * B[k];
    return v;
  }
  double factor_integral(int a, double x0, double x1) const {
    double I[kMaxSeparableDegree + 1];
    axis_integrals(a, x0, x1, I);
    double v = 0;
    for (int k = 0; k <= n_; ++k) v += b_[a][static_cast<std::size_t>(k)] * I[k];
    return v;
  }

  int n_;
  std::array<std::vector<double>, kMaxDims> b_;
};

// rho = Σ_m c_m·Π_a u_a^{e_ma} over exponents of total degree <= n.
class PolynomialForm final : public Form {
 public:
  PolynomialForm(const Box& domain, int degree) : Form(domain), n_(degree) {
    const int d = domain.dims;
    // Graded order: c00, c10, c01, c20, c11, c02, …
    for (int t = 0; t <= n_; ++t) {
      if (d == 1) exponents_.push_back({t, 0, 0});
      for (int i = t; d >= 2 && i >= 0; --i) {
        if (d == 2) exponents_.push_back({i, t - i, 0});
        for (int j = t - i; d == 3 && j >= 0; --j) exponents_.push_back({i, j, t - i - j});
      }
    }
    c_.assign(exponents_.size(), 0.0);
  }
  int columns() const override { return static_cast<int>(exponents_.size()); }
  void basis_integrals(const Box& b, double* out) const override {
    Table t;
    integrals(b, -1, t);
    for (std::size_t m = 0; m < exponents_.size(); ++m) out[m] = term(t, m, b.dims);
  }
  double rho(std::span<const double> p) const override {
    Table t;
    for (int a = 0; a < domain_.dims; ++a) powers(u(a, p[static_cast<std::size_t>(a)]), t[a]);
    double v = 0;
    for (std::size_t m = 0; m < exponents_.size(); ++m) v += c_[m] * term(t, m, domain_.dims);
    return v;
  }
  double mass(const Box& b) const override {
    Table t;
    integrals(b, -1, t);
    double v = 0;
    for (std::size_t m = 0; m < exponents_.size(); ++m) v += c_[m] * term(t, m, b.dims);
    return v;
  }
  double cross_section(const Box& b, int axis, double x) const override {
    Table t;
    integrals(b, axis, t);
    powers(u(axis, x), t[axis]);
    double v = 0;
    for (std::size_t m = 0; m < exponents_.size(); ++m) v += c_[m] * term(t, m, b.dims);
    return v;
  }
  const std::vector<std::array<int, kMaxDims>>& exponents() const { return exponents_; }
  std::vector<double>& coefficients() { return c_; }

 private:
  // t[a][e]: u_a^e, or ∫ u_a^e dx_a over an interval.
  using Table = std::array<std::array<double, kMaxPolynomialDegree + 2>, kMaxDims>;
  void powers(double v, std::array<double, kMaxPolynomialDegree + 2>& out) const {
    out[0] = 1;
    for (int e = 1; e <= n_ + 1; ++e) out[e] = out[e - 1] * v;
  }
  // ∫_{lo}^{hi} u^e dx = width·(u1^{e+1} − u0^{e+1})/(e + 1), for every axis but `skip`.
  void integrals(const Box& b, int skip, Table& t) const {
    for (int a = 0; a < b.dims; ++a) {
      if (a == skip) continue;
      std::array<double, kMaxPolynomialDegree + 2> p0, p1;
      powers(u(a, b.lo[a]), p0);
      powers(u(a, b.hi[a]), p1);
      for (int e = 0; e <= n_; ++e) t[a][e] = domain_.width(a) * (p1[e + 1] - p0[e + 1]) / (e + 1);
    }
  }
  double term(const Table& t, std::size_t m, int dims) const {
    double v = 1;
    for (int a = 0; a < dims; ++a) v *= t[a][exponents_[m][a]];
    return v;
  }

  int n_;
  std::vector<std::array<int, kMaxDims>> exponents_;
  std::vector<double> c_;
};

/// "rho(x, y) = Π_a Σ_k b_ak·B_{k,n}(u_a)" style text of the separable form.
std::string separable_formula(int d, int n);
/// The polynomial form's formula on `box`.
std::string polynomial_formula(const Box& box, int n);

}  // namespace isocost::detail
