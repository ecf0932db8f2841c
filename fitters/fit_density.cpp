// Fits of a cost density rho(x, y[, z]) to box costs with Ceres Solver: a
// separable product of nonnegative Bernstein factors, or a polynomial in
// x, y(, z). Both have closed-form box integrals, so neither the fit nor the
// returned density needs quadrature after construction.
#include "isocost/fitters/fit_density.hpp"

#include <ceres/ceres.h>

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <utility>

#include "ceres_support.hpp"
#include "fit_density_forms.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

using detail::exact;
using detail::Form;
using detail::PolynomialForm;
using detail::SeparableForm;

namespace {

using detail::kMaxPolynomialDegree;
using detail::kMaxSeparableDegree;
constexpr const char* kAxes = "xyz";

std::string box_text(const Box& b) {
  std::string s;
  for (int a = 0; a < b.dims; ++a)
    s += (a ? " x [" : "[") + exact(b.lo[a]) + ", " + exact(b.hi[a]) + "]";
  return s;
}

std::string point_text(const std::array<double, kMaxDims>& p, int dims) {
  std::string s = "(";
  for (int a = 0; a < dims; ++a) s += (a ? ", " : "") + exact(p[a]);
  return s + ")";
}

// ---------------------------------------------------------------------------
// Residuals (∫_{box_k} rho − cost_k)·w_k of samples [first, first + count),
// with analytic Jacobians from the precomputed basis integrals. As in fit.cpp,
// one block for all samples unless a robust loss needs them one by one.

struct Data {
  int dims = 0;
  int columns = 0;
  std::vector<double> basis;  // samples × columns
  std::vector<double> cost, w;
  const double* row(std::size_t s) const {
    return basis.data() + s * static_cast<std::size_t>(columns);
  }
};

// Mass = Π_a ⟨b_a, I_a⟩, one parameter block per axis.
class SeparableCost final : public ceres::CostFunction {
 public:
  SeparableCost(const Data& data, int degree, std::size_t first, std::size_t count)
      : data_(data), k_(degree + 1), first_(first), count_(count) {
    set_num_residuals(static_cast<int>(count));
    for (int a = 0; a < data.dims; ++a) mutable_parameter_block_sizes()->push_back(k_);
  }
  bool Evaluate(double const* const* b, double* residuals, double** jacobians) const override {
    const int d = data_.dims;
    for (std::size_t r = 0; r < count_; ++r) {
      const std::size_t s = first_ + r;
      const double* row = data_.row(s);
      double m[kMaxDims], product = 1;
      for (int a = 0; a < d; ++a) {
        m[a] = 0;
        for (int k = 0; k < k_; ++k) m[a] += b[a][k] * row[a * k_ + k];
        product *= m[a];
      }
      residuals[r] = (product - data_.cost[s]) * data_.w[s];
      if (!std::isfinite(residuals[r])) return false;
      if (!jacobians) continue;
      for (int a = 0; a < d; ++a) {
        if (!jacobians[a]) continue;
        double others = data_.w[s];
        for (int c = 0; c < d; ++c)
          if (c != a) others *= m[c];
        for (int k = 0; k < k_; ++k)
          jacobians[a][r * static_cast<std::size_t>(k_) + static_cast<std::size_t>(k)] =
              row[a * k_ + k] * others;
      }
    }
    return true;
  }

 private:
  const Data& data_;
  int k_;
  std::size_t first_, count_;
};

// Mass = ⟨c, I⟩: linear, one parameter block.
class LinearCost final : public ceres::CostFunction {
 public:
  LinearCost(const Data& data, std::size_t first, std::size_t count)
      : data_(data), first_(first), count_(count) {
    set_num_residuals(static_cast<int>(count));
    mutable_parameter_block_sizes()->push_back(data.columns);
  }
  bool Evaluate(double const* const* c, double* residuals, double** jacobians) const override {
    const auto k = static_cast<std::size_t>(data_.columns);
    for (std::size_t r = 0; r < count_; ++r) {
      const std::size_t s = first_ + r;
      const double* row = data_.row(s);
      double mass = 0;
      for (std::size_t j = 0; j < k; ++j) mass += c[0][j] * row[j];
      residuals[r] = (mass - data_.cost[s]) * data_.w[s];
      if (!std::isfinite(residuals[r])) return false;
      if (jacobians && jacobians[0])
        for (std::size_t j = 0; j < k; ++j) jacobians[0][r * k + j] = row[j] * data_.w[s];
    }
    return true;
  }

 private:
  const Data& data_;
  std::size_t first_, count_;
};

// The weighted design matrix of a linear fit, columns scaled to unit norm
// (the scales are returned) so that rank and conditioning do not depend on
// the units of the coefficients.
Eigen::MatrixXd scaled_design(const Data& data, Eigen::VectorXd& norms) {
  const auto n = static_cast<Eigen::Index>(data.cost.size());
  Eigen::MatrixXd A(n, data.columns);
  for (Eigen::Index s = 0; s < n; ++s)
    for (Eigen::Index j = 0; j < data.columns; ++j)
      A(s, j) = data.row(static_cast<std::size_t>(s))[j] * data.w[static_cast<std::size_t>(s)];
  norms = A.colwise().norm();
  for (Eigen::Index j = 0; j < A.cols(); ++j)
    if (norms[j] > 0) A.col(j) /= norms[j];
  return A;
}

// Standard errors of a linear fit: sqrt(diag((AᵀA)⁻¹)·s²), s² = RSS/(n − k).
std::vector<std::optional<double>> linear_std_errors(const Data& data, double rss) {
  const std::size_t k = static_cast<std::size_t>(data.columns), n = data.cost.size();
  std::vector<std::optional<double>> out(k);
  if (n <= k) return out;
  Eigen::VectorXd norms;
  const Eigen::MatrixXd A = scaled_design(data, norms);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(A, Eigen::ComputeThinV);
  const Eigen::VectorXd sv = svd.singularValues();
  if (!(sv.minCoeff() > 1e-10 * sv.maxCoeff()) || (norms.array() <= 0).any()) return out;
  const Eigen::MatrixXd V = svd.matrixV();
  const Eigen::MatrixXd cov =
      V * sv.array().square().inverse().matrix().asDiagonal() * V.transpose();
  const double s2 = rss / static_cast<double>(n - k);
  for (std::size_t j = 0; j < k; ++j) {
    const auto i = static_cast<Eigen::Index>(j);
    out[j] = std::sqrt(cov(i, i) * s2) / norms[i];
  }
  return out;
}

// The returned density: closed-form masses and cross-sections from the form,
// after analytic_density has validated rho and the antiderivative.
class FittedDensityImpl final : public detail::DensityImpl {
 public:
  FittedDensityImpl(std::shared_ptr<const Form> form, std::string description)
      : form_(std::move(form)), description_(std::move(description)) {}
  double mass(const Box& b) const override { return form_->mass(b); }
  double cross_section(const Box& b, int axis, double x) const override {
    return form_->cross_section(b, axis, x);
  }
  std::string describe() const override { return description_; }

 private:
  std::shared_ptr<const Form> form_;
  std::string description_;
};

// The domain and the per-sample checks named in the header.
Box check_samples(const std::vector<BoxSample>& samples, const DensityFitOptions& options) {
  if (samples.empty()) throw Error("fit_density: no samples");
  const int d = options.box ? options.box->dims : samples[0].box.dims;
  Box domain = samples[0].box;
  for (std::size_t k = 0; k < samples.size(); ++k) {
    const auto& s = samples[k];
    const std::string name = "fit_density: sample " + std::to_string(k);
    if (s.box.dims != d)
      throw Error(detail::expected_got("fit_density: dims of sample " + std::to_string(k),
                                       std::to_string(d) + " (those of sample 0)",
                                       std::to_string(s.box.dims)));
    s.box.validate(name + " box");
    if (!std::isfinite(s.cost) || s.cost < 0 || (options.relative && s.cost == 0))
      throw Error(
          detail::expected_got(name + " cost",
                               options.relative ? "a finite number > 0" : "a finite number >= 0",
                               exact(s.cost)) +
          (options.relative && s.cost == 0 ? " (relative residuals divide by the cost)" : ""));
    for (int a = 0; a < d; ++a) {
      domain.lo[a] = std::min(domain.lo[a], s.box.lo[a]);
      domain.hi[a] = std::max(domain.hi[a], s.box.hi[a]);
    }
  }
  if (!options.box) return domain;
  const Box& box = *options.box;
  box.validate("fit_density: options.box");
  for (std::size_t k = 0; k < samples.size(); ++k)
    for (int a = 0; a < d; ++a) {
      const auto& s = samples[k].box;
      const double slack = 1e-12 * std::max(std::abs(box.lo[a]), std::abs(box.hi[a]));
      if (s.lo[a] < box.lo[a] - slack || s.hi[a] > box.hi[a] + slack)
        throw Error("fit_density: sample " + std::to_string(k) + " box " + box_text(s) +
                    " is not inside the domain " + box_text(box) + " (along " + kAxes[a] + ")");
    }
  return box;
}

// A separable factor of degree n is undetermined unless the boxes cut its
// axis into at least n + 1 distinct intervals.
void check_separable_coverage(const std::vector<BoxSample>& samples, int d, int n) {
  for (int a = 0; a < d; ++a) {
    std::vector<std::pair<double, double>> intervals;
    for (const auto& s : samples) intervals.emplace_back(s.box.lo[a], s.box.hi[a]);
    std::sort(intervals.begin(), intervals.end());
    const auto distinct = std::unique(intervals.begin(), intervals.end()) - intervals.begin();
    if (distinct < n + 1)
      throw Error("fit_density: a separable fit of degree " + std::to_string(n) +
                  " needs boxes with at least " + std::to_string(n + 1) +
                  " distinct intervals along each axis; along " + kAxes[a] + " they have " +
                  std::to_string(distinct) +
                  " (lower the degree, or sample boxes that vary along " + kAxes[a] + ")");
  }
}

void check_nonnegative(const Form& form, int points) {
  const Box& box = form.domain();
  std::size_t count = 1;
  for (int a = 0; a < box.dims; ++a) count *= static_cast<std::size_t>(points);
  std::array<double, kMaxDims> p{};
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t rest = i;
    for (int a = 0; a < box.dims; ++a, rest /= static_cast<std::size_t>(points)) {
      const auto k = static_cast<int>(rest % static_cast<std::size_t>(points));
      p[a] = k == points - 1 ? box.hi[a] : box.lo[a] + box.width(a) * k / (points - 1);
    }
    const double v =
        form.rho(std::span<const double>(p.data(), static_cast<std::size_t>(box.dims)));
    if (!(v >= 0))
      throw Error("fit_density: the fitted polynomial is negative, rho" + point_text(p, box.dims) +
                  " = " + exact(v) +
                  "; use the separable form (nonnegative by construction) or a lower degree");
  }
}

// Goodness of fit on the samples (fit.cpp's definitions, on box masses).
void score(const Form& form, const std::vector<BoxSample>& samples,
           const DensityFitOptions& options, int k, FitSummary& out) {
  const double n = static_cast<double>(samples.size());
  double mean = 0;
  for (const auto& s : samples) mean += s.cost;
  mean /= n;
  double rss_metric = 0, ss_res = 0, ss_tot = 0;
  for (const auto& s : samples) {
    const double r = form.mass(s.box) - s.cost;
    const double m = options.relative ? r / s.cost : r / mean;
    rss_metric += m * m;
    ss_res += r * r;
    ss_tot += (s.cost - mean) * (s.cost - mean);
    if (s.cost > 0) out.max_rel_error = std::max(out.max_rel_error, std::abs(r) / s.cost);
  }
  out.samples = samples.size();
  out.rmse = std::sqrt(rss_metric / n);
  out.r_squared = ss_tot > 0 ? 1 - ss_res / ss_tot : 1.0;
  const double rss = std::max(rss_metric, std::numeric_limits<double>::min());
  out.aicc =
      n * std::log(rss / n) + 2 * k +
      (n - k - 1 > 0 ? 2.0 * k * (k + 1) / (n - k - 1) : std::numeric_limits<double>::infinity());
}

}  // namespace

bool DensityFitOptions::is_valid(std::string* why) const {
  if (!check_fields(*this, why)) return false;
  const int max_degree =
      form == DensityForm::separable ? kMaxSeparableDegree : kMaxPolynomialDegree;
  if (degree > max_degree) {
    if (why)
      *why = detail::expected_got(std::string(to_string(form)) + " degree",
                                  "an integer in [0, " + std::to_string(max_degree) + "]",
                                  std::to_string(degree));
    return false;
  }
  return true;
}

std::string_view to_string(DensityForm form) {
  switch (form) {
    case DensityForm::separable:
      return "separable";
    case DensityForm::polynomial:
      return "polynomial";
  }
  return "?";
}

DensityFitResult fit_density(const std::vector<BoxSample>& samples,
                             const DensityFitOptions& options) {
  options.validate();
  const Box domain = check_samples(samples, options);
  const int d = domain.dims, n = options.degree;
  const bool separable = options.form == DensityForm::separable;
  const std::string model = (separable ? "separable:" : "poly:") + std::to_string(n);

  std::shared_ptr<SeparableForm> sep;
  std::shared_ptr<PolynomialForm> poly;
  std::shared_ptr<Form> form;
  if (separable)
    form = sep = std::make_shared<SeparableForm>(domain, n);
  else
    form = poly = std::make_shared<PolynomialForm>(domain, n);

  // Free parameters: the factors of a product share one scale.
  const int k = separable ? d * (n + 1) - (d - 1) : form->columns();
  if (samples.size() < static_cast<std::size_t>(k) + 1)
    throw Error("fit_density of " + model + " in " + std::to_string(d) +
                "-D: " + std::to_string(samples.size()) + " samples for " + std::to_string(k) +
                " parameters; need at least parameters + 1 = " + std::to_string(k + 1));
  if (separable) check_separable_coverage(samples, d, n);

  Data data;
  data.dims = d;
  data.columns = form->columns();
  data.basis.resize(samples.size() * static_cast<std::size_t>(data.columns));
  double total_cost = 0, total_volume = 0;
  for (std::size_t s = 0; s < samples.size(); ++s) {
    form->basis_integrals(samples[s].box,
                          data.basis.data() + s * static_cast<std::size_t>(data.columns));
    data.cost.push_back(samples[s].cost);
    total_cost += samples[s].cost;
    total_volume += samples[s].box.volume();
  }
  if (!(total_cost > 0)) throw Error("fit_density: every sample cost is 0");
  const double mean_cost = total_cost / static_cast<double>(samples.size());
  for (const auto& s : samples) data.w.push_back(options.relative ? 1 / s.cost : 1 / mean_cost);
  const double mean_density = total_cost / total_volume;

  if (!separable) {
    Eigen::VectorXd norms;
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(scaled_design(data, norms));
    qr.setThreshold(1e-10);
    if (qr.rank() < data.columns)
      throw Error("fit_density: the sample boxes do not determine a " + std::to_string(d) +
                  "-D polynomial of degree " + std::to_string(n) + " (rank " +
                  std::to_string(qr.rank()) + " of " + std::to_string(data.columns) +
                  " coefficients); use more varied boxes or a lower degree");
  }

  // Start from the constant density with the samples' mean: every Bernstein
  // coefficient m^(1/d) (the basis sums to 1), or c_0 = m.
  std::array<std::vector<double>, kMaxDims> theta;
  const int blocks = separable ? d : 1;
  for (int a = 0; a < blocks; ++a) {
    if (separable)
      theta[a].assign(static_cast<std::size_t>(n + 1), std::pow(mean_density, 1.0 / d));
    else {
      theta[a].assign(static_cast<std::size_t>(data.columns), 0.0);
      theta[a][0] = mean_density;
    }
  }

  ceres::Problem::Options problem_options;
  problem_options.loss_function_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
  ceres::Problem problem(problem_options);
  const auto loss = detail::make_loss(options.loss, options.loss_scale);
  std::vector<double*> blocks_ptr;
  for (int a = 0; a < blocks; ++a) blocks_ptr.push_back(theta[a].data());
  auto cost = [&](std::size_t first, std::size_t count) -> ceres::CostFunction* {
    if (separable) return new SeparableCost(data, n, first, count);
    return new LinearCost(data, first, count);
  };
  if (!loss)
    problem.AddResidualBlock(cost(0, samples.size()), nullptr, blocks_ptr);
  else
    for (std::size_t s = 0; s < samples.size(); ++s)
      problem.AddResidualBlock(cost(s, 1), loss.get(), blocks_ptr);
  if (separable)
    for (int a = 0; a < d; ++a)
      for (int j = 0; j <= n; ++j) problem.SetParameterLowerBound(theta[a].data(), j, 0.0);

  const ceres::Solver::Options solver =
      detail::solver_options(options.max_iterations, options.function_tolerance);
  ceres::Solver::Summary summary;
  ceres::Solve(solver, &problem, &summary);

  FitSummary out;
  out.model = model;
  detail::record_solve(summary, out);
  if (out.termination == Termination::failed)
    throw Error("fit_density of " + model + " failed: " + out.message);

  if (separable) {
    // Fix the common scale: f_y, f_z get mean 1 over the domain (a Bernstein
    // factor's mean is its coefficients' mean), f_x the product of the scales.
    for (int a = 1; a < d; ++a) {
      double mean = 0;
      for (double b : theta[a]) mean += b;
      mean /= n + 1;
      if (!(mean > 0)) throw Error("fit_density: the fitted density is zero everywhere");
      for (double& b : theta[a]) b /= mean;
      for (double& b : theta[0]) b *= mean;
    }
    out.formula = detail::separable_formula(d, n);
    for (int a = 0; a < d; ++a) {
      sep->coefficients(a) = theta[a];
      for (int j = 0; j <= n; ++j) {
        std::string name(1, kAxes[a]);
        name += ".b" + std::to_string(j);
        out.parameters.push_back({name, theta[a][static_cast<std::size_t>(j)], std::nullopt});
      }
    }
  } else {
    poly->coefficients() = theta[0];
    out.formula = detail::polynomial_formula(domain, n);
    const auto errors = linear_std_errors(data, 2 * summary.final_cost);
    for (std::size_t m = 0; m < theta[0].size(); ++m) {
      std::string name = "c";
      for (int a = 0; a < d; ++a) name += std::to_string(poly->exponents()[m][a]);
      out.parameters.push_back({name, theta[0][m], errors[m]});
    }
    check_nonnegative(*form, options.check_points);
  }
  score(*form, samples, options, k, out);

  // analytic_density checks rho on its lattice and the antiderivative against
  // quadrature: a guard on the closed forms above.
  std::shared_ptr<const Form> fitted = form;
  try {
    analytic_density([fitted](std::span<const double> p) { return fitted->rho(p); }, domain,
                     options.density,
                     [fitted](std::span<const double> p) { return fitted->antiderivative(p); });
  } catch (const Error& e) {
    throw Error("fit_density of " + model + ": the fitted density is not valid: " + e.what());
  }
  const std::string description = "fitted " + std::string(to_string(options.form)) + " density (" +
                                  (separable ? "Bernstein degree " + std::to_string(n) + " per axis"
                                             : "total degree " + std::to_string(n)) +
                                  ") on " + box_text(domain);
  return {Density(std::make_shared<FittedDensityImpl>(fitted, description), domain), std::move(out),
          options};
}

}  // namespace isocost
