// isocost/fitters/fit_density.hpp — fitting a cost density rho(x, y[, z]) to measured
// box costs (fitters layer, Ceres Solver), the multi-dimensional counterpart
// of fit.hpp (Swartz §5: a time density rho(V) over the domain).
//
// Each sample is the cost of the work inside one box: a cell's, or one rank's
// part of a decomposition. Residuals are taken on box masses, r_k =
// ∫_{box_k} rho − cost_k, relative (r_k/cost_k) by default as in fit.hpp. The
// box integrals of both forms are closed-form, so fitting needs no quadrature,
// and the returned density has an exact antiderivative.
//
//   std::vector<isocost::BoxSample> s = …;   // {box, seconds} per rank
//   auto fit = isocost::fit_density(s);      // separable, Bernstein degree 3
//   std::cout << fit.summary.brief_report();
//   double part = fit.density.mass(some_box);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "isocost/density.hpp"
#include "isocost/fitters/fit.hpp"

namespace isocost {

/// One measurement: the cost (e.g. seconds) of the work inside `box`.
struct BoxSample {
  Box box;
  double cost = 0;
};

/// Forms fit_density() knows. Both work in scaled coordinates
/// u_a = (x_a − lo_a)/width_a ∈ [0, 1] of the domain.
enum class DensityForm {
  /// rho = f_x(x)·f_y(y)[·f_z(z)], each factor Σ_k b_k·B_{k,n}(u) in the
  /// Bernstein basis of degree n with every b_k >= 0 (Ceres bounds), so rho >= 0
  /// by construction. The factors' common scale is fixed after the fit: f_y and
  /// f_z have mean 1 over the domain, f_x carries the magnitude.
  separable,
  /// rho = Σ c_ijk·u^i·v^j·w^k over i + j + k <= n (total degree n), linear in
  /// the coefficients; rho >= 0 is checked on a lattice after the fit.
  polynomial,
};
/// "separable", "polynomial".
std::string_view to_string(DensityForm form);

/// Settings for fit_density() (Ceres-style: defaults at the declaration).
struct DensityFitOptions {
  DensityForm form = DensityForm::separable;
  /// separable: the Bernstein degree of every factor, 0..10 (n + 1
  /// coefficients per axis); polynomial: the total degree, 0..6.
  int degree = 3;
  /// The domain of the density; default: the bounding box of the samples.
  /// Every sample box must lie inside it.
  std::optional<Box> box;
  /// Residuals relative to each cost (default) or absolute, in units of the
  /// mean cost. Relative residuals need every cost > 0; absolute ones allow 0.
  bool relative = true;
  FitLoss loss = FitLoss::none;
  /// Scale of the robust loss, in residual units (0.05 = 5 % for relative).
  double loss_scale = 0.05;
  /// Ceres iteration budget.
  int max_iterations = 200;
  /// Ceres function tolerance (relative decrease of the cost).
  double function_tolerance = 1e-12;
  /// polynomial: rho >= 0 is checked on a lattice of check_points per axis
  /// (>= 2, the domain's corners included); a negative value is an Error.
  int check_points = 41;
  /// Settings of the returned density's quadrature. Masses and cross-sections
  /// are closed-form; quadrature only checks the antiderivative when the
  /// density is built.
  DensityOptions density;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("form", self.form);
    v("degree", self.degree, at_least(0));  // the upper limit depends on the form
    v("box", self.box);
    v("relative", self.relative);
    v("loss", self.loss);
    v("loss_scale", self.loss_scale, above(0));
    v("max_iterations", self.max_iterations, at_least(1));
    v("function_tolerance", self.function_tolerance, above(0));
    v("check_points", self.check_points, closed(2, 1001));
    v("density", self.density);
  }
  /// The fields in range, and the degree within the form's own limit
  /// (separable 0..10, polynomial 0..6).
  bool is_valid(std::string* why) const;
  /// Throws Error("fit_density options: …") naming the first bad setting.
  void validate() const { validate_options(*this, "fit_density options"); }
};

/// A fitted density and its summary.
struct DensityFitResult {
  /// An analytic density with the fitted rho and its exact antiderivative
  /// (closed-form masses and cross-sections); thread-safe.
  Density density;
  /// model "separable:N" or "poly:N"; parameters named "x.b0"…"x.bN",
  /// "y.b0"… (separable; no standard errors: the factors' common scale makes
  /// them undefined) or "c00", "c10", "c01", … with the exponents of x, y(, z)
  /// (polynomial, with standard errors from the linear least-squares
  /// covariance); RMSE and AICc in the residual metric (relative, or absolute
  /// in units of the mean cost), AICc with the number of free parameters
  /// (d·(n + 1) − (d − 1) for separable); max relative error and R² on the
  /// costs; iterations, the termination and Ceres' message. The L_E fields
  /// are unset.
  FitSummary summary;
  DensityFitOptions options;  ///< the options given
};

/// Fits options.form to the samples. Throws Error for: no samples; boxes of
/// different dimensions, with lo >= hi or outside options.box; a cost that is
/// negative or not finite (or zero with relative residuals); fewer samples
/// than free parameters + 1; separable fits whose boxes take fewer than n + 1
/// distinct intervals along some axis (e.g. rows spanning all of x say nothing
/// about f_x); polynomial fits whose samples do not determine every
/// coefficient; a fit that fails (Ceres' failure; running out of iterations
/// is a result: summary.termination); a polynomial negative somewhere on the
/// check lattice (naming the point); a fitted density with zero total.
DensityFitResult fit_density(const std::vector<BoxSample>& samples,
                             const DensityFitOptions& options = {});

/// Parses "separable:N" or "poly:N" (also "separable", degree 3) into the
/// form and degree of `options`; throws Error naming the text otherwise.
DensityFitOptions parse_density_form(const std::string& text, DensityFitOptions options = {});

/// One candidate of select_density().
struct DensityCandidate {
  std::string model;  ///< "separable:N" or "poly:N"
  bool ok = false;    ///< fitted (and non-negative, for polynomials)
  double aicc = 0;    ///< the candidate's AICc (summary.aicc) when ok
  std::string error;  ///< why it could not be fitted, when not ok
};

/// The density with the lowest AICc and the table that explains the choice.
struct DensitySelection {
  DensityFitResult best;
  std::vector<DensityCandidate> candidates;
};

/// Fits separable:0…4 and poly:0…4 (options.form and degree are ignored; the
/// rest apply to every candidate) and keeps the one of lowest AICc. AICc
/// compares them fairly: every candidate has the same residual metric
/// (options.relative) on the same samples. Candidates the samples cannot
/// determine (too few, too little coverage, a negative polynomial) are
/// skipped with their reason. Throws Error, with every candidate's reason,
/// when none can be fitted.
DensitySelection select_density(const std::vector<BoxSample>& samples,
                                const DensityFitOptions& options = {});

}  // namespace isocost
