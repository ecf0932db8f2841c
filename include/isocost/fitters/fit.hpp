// isocost/fitters/fit.hpp — fitting a cost model to measured samples (fitters layer:
// Ceres Solver for parametric forms, Boost.Math interpolators for tabulation).
//
// Residuals are taken on interval differences, r_k = t(hi_k) − t(lo_k) − dt_k,
// so samples from different partitions combine correctly; by default they are
// relative, r_k/dt_k, because timings are heteroscedastic.
//
//   auto samples = isocost::read_samples("timings.csv");
//   auto fit = isocost::fit(samples, isocost::parse_fit_spec("sieve"));
//   std::cout << fit.summary.brief_report();
//   if (fit.summary.converged())   // else fit.summary says why, and model may be empty
//     part = isocost::partition(*fit.model, isocost::Speeds::uniform(16));
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "isocost/cost_model.hpp"
#include "isocost/guarantee.hpp"
#include "isocost/merge.hpp"
#include "isocost/partition.hpp"
#include "isocost/result.hpp"
#include "isocost/samples.hpp"

namespace isocost {

/// Model families that fit() knows.
enum class FitForm {
  sieve,        ///< A·x^p/(ln x − c)^q: fits A and p; c when fit_c, q when fit_q
                ///< (otherwise c = 1.08366 and q = 1, Swartz eq. 4, or their guesses)
  power,        ///< A·x^p + B: fits A, p (B cancels in costs)
  polynomial,   ///< c_1·u + … + c_n·u^n, u = (x − lo)/(hi − lo) (c_0 cancels)
  exponential,  ///< A·e^{b(x − lo)} + B: fits A, b (B cancels)
  expression,   ///< a formula in x with named parameters (muParser)
  pchip,        ///< no parameters: monotone interpolation (tabulate())
  makima,       ///< no parameters: makima interpolation (tabulate())
};
/// "sieve", "power", "polynomial", "exponential", "expression", "pchip", "makima".
std::string_view to_string(FitForm form);

/// What to fit.
struct FitSpec {
  FitForm form = FitForm::sieve;
  int degree = 2;          ///< polynomial degree n >= 1
  bool fit_c = false;      ///< sieve: also fit c (else c = 1.08366, Legendre's, or the guess)
  bool fit_q = false;      ///< sieve: also fit q (else q = 1, Swartz eq. 4, or the guess)
  std::string expression;  ///< formula for FitForm::expression, e.g. "A*x^p/(log(x)-c)"
  /// Starting values by parameter name; defaults are documented in fit().
  std::map<std::string, double> guess;

  /// The field list (options.hpp): JSON and the agreement hash (the form's
  /// own constraints are validate_fit_spec()'s).
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("form", self.form);
    v("degree", self.degree, closed(1, 10));
    v("fit_c", self.fit_c);
    v("fit_q", self.fit_q);
    v("expression", self.expression);
    v("guess", self.guess);
  }

  /// The name used in tables: "sieve", "sieve+c", "sieve+q", "sieve+c+q",
  /// "power", "poly:3", "exp", "expr:…", "pchip", "makima".
  std::string name() const;
};

/// Parses "sieve", "sieve+c", "sieve+q", "sieve+c+q", "power", "poly:N", "exp",
/// "expr:FORMULA", "pchip", "makima"; throws Error otherwise.
FitSpec parse_fit_spec(const std::string& text);

/// The parameters fit() reports for `spec`, in order: sieve A, p, c, q; power A,
/// p; poly:N c1…cN; exp A, b; an expression's identifiers other than x
/// (compiling it, so a syntax error throws); none for pchip/makima.
std::vector<std::string> fit_parameter_names(const FitSpec& spec);

/// Throws Error if spec.guess names a parameter the form does not have or holds
/// a non-finite value, or the polynomial degree is outside [1, 10]. fit() calls
/// it; callers may too, to reject a bad request before reading any data.
void validate_fit_spec(const FitSpec& spec);

/// Robust loss on the (relative) residuals.
enum class FitLoss { none, huber, cauchy };
/// "none", "huber", "cauchy".
std::string_view to_string(FitLoss loss);
/// Parses "none", "huber", "cauchy".
FitLoss parse_fit_loss(const std::string& text);

/// Settings for fit() (Ceres-style: defaults at the declaration).
struct FitOptions {
  /// Residuals relative to dt (default) or absolute, in units of the mean dt.
  bool relative = true;
  FitLoss loss = FitLoss::none;
  /// Scale of the robust loss, in residual units (0.05 = 5 % for relative).
  double loss_scale = 0.05;
  /// Ceres iteration budget.
  int max_iterations = 200;
  /// Ceres function tolerance (relative decrease of the cost).
  double function_tolerance = 1e-12;
  /// Compute parameter standard errors with ceres::Covariance.
  bool covariance = true;
  /// Domain of the returned model; default: the span of the samples. The
  /// model must be valid (increasing) on it.
  std::optional<double> lo, hi;
  /// Ranks for FitSummary::le_on_samples; 0: the number of samples when they
  /// tile the domain (one run), otherwise not computed.
  int ranks = 0;
  /// How far each timing may be off, relative, in [0, 1): each interval's
  /// cost lies within ±noise of its dt (FitSummary::guaranteed).
  double noise = 0;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("relative", self.relative);
    v("loss", self.loss);
    v("loss_scale", self.loss_scale, above(0));
    v("max_iterations", self.max_iterations, at_least(1));
    v("function_tolerance", self.function_tolerance, above(0));
    v("covariance", self.covariance);
    v("lo", self.lo);
    v("hi", self.hi);
    v("ranks", self.ranks, at_least(0));
    v("noise", self.noise, right_open(0, 1));
  }
  /// The fields in range, and lo < hi when both are set.
  bool is_valid(std::string* why) const;
  /// Throws Error("fit options: …") unless is_valid().
  void validate() const { validate_options(*this, "fit options"); }
};

/// One fitted parameter.
struct FitParameter {
  std::string name;
  double value = 0;
  std::optional<double> std_error;  ///< from ceres::Covariance, scaled by the residual variance
  bool fixed = false;               ///< held at its given value, not fitted
};

/// Everything a user needs to trust a fit.
struct FitSummary {
  std::string model;  ///< FitSpec::name()
  std::string formula;
  FitSpec spec;        ///< what was asked for
  FitOptions options;  ///< the options given
  /// The domain of the returned model: options.lo/hi, else the samples' span.
  double lo_used = 0, hi_used = 0;
  std::vector<FitParameter> parameters;
  std::size_t samples = 0;
  double rmse = 0;           ///< root mean square residual (relative when options.relative)
  double max_rel_error = 0;  ///< max_k |t(hi_k) − t(lo_k) − dt_k| / dt_k
  double r_squared = 0;      ///< 1 − SS_res/SS_tot on the dt values
  double aicc = 0;  ///< n·ln(RSS/n) + 2k + 2k(k+1)/(n − k − 1), RSS of relative residuals
  int iterations = 0;
  double solve_seconds = 0;
  /// converged; iteration_limit when Ceres ran out of iterations (the model
  /// of the last iterate is returned); failed when Ceres failed or the fitted
  /// parameters give no valid model on the domain (no model is returned).
  Termination termination = Termination::converged;
  /// Ceres' termination type and message, or why the fit failed.
  std::string message;
  /// The P of the balance below: options.ranks (default one per sample),
  /// but at most the samples' n intervals: finer parts than the samples
  /// cannot be costed on them (the guarantee alone covers options.ranks).
  int balance_ranks = 0;
  /// L_E (percent) the partition of the fitted model over P ranks
  /// (balance_ranks) reaches when costed on the
  /// samples: a rank's cost is the sum of the measured dt of the intervals
  /// it covers whole, plus, for the (at most two) intervals a cut splits,
  /// the share the monotone pchip interpolant of the cumulative samples
  /// gives each side (linear below 4 points). A measurement, not the
  /// model's claim. Set when the samples tile the domain (one run).
  std::optional<double> le_on_samples;
  /// The same for the samples' own partition over P ranks: its cuts at every
  /// (n/P)-th knot of the run (linear in x between knots when P does not
  /// divide n). With P = n, exactly the L_E of the measured dt.
  std::optional<double> le_of_samples;
  /// The L_E the model predicts for its own partition (costed on the model
  /// itself): the model's own claim, not a measurement.
  std::optional<double> le_model_claim;
  /// What the samples guarantee about that partition, whatever the cost
  /// inside each timed interval (within options.noise): the range of its L_E
  /// and the intervals that limit it (guarantee.hpp), from every run. Set
  /// with le_on_samples.
  std::optional<BalanceGuarantee> guaranteed;
  /// An interpolant (pchip, makima) of several runs: how they were merged
  /// into one cumulative cost (merge_runs()). Unset for one run or a form.
  std::optional<MergedRuns> merged;
  /// An interpolant: the L_E of partitions over balance_ranks cut by the
  /// same interpolant without some knots, costed on the samples with all of
  /// them: the mean over the chain-keeping folds (select_model(): a fifth of
  /// the knots held out in each, by merging their two intervals). The
  /// interpolant costs its own cuts at 100 % by construction (le_on_samples),
  /// so this is what its verdict checks. An estimate a little below the
  /// truth (each fold knows fewer knots), not a bound (guaranteed is).
  std::optional<double> le_held_out;

  /// Parameter by name; throws Error if absent.
  double parameter(const std::string& name) const;
  bool converged() const noexcept { return termination == Termination::converged; }
  /// One line: model, parameters, R², L_E on the samples, termination.
  std::string brief_report() const;
  /// Several lines: model, parameters ± errors, RMSE, R², AICc, the solve,
  /// the L_E of the measured and the fitted partitions, the verdict.
  std::string full_report() const;
  /// Why the model's partition should not be trusted, or "" when it can be:
  /// it did not converge; or, for a parametric form, its partition costed on
  /// the samples is not better than the samples' own by at least 0.01 point (samples already
  /// balanced to 100 % need only be matched); or R^2 < 0.9 while some sample
  /// is missed by more than 10 % (R^2 alone says little when the dt barely
  /// vary, as in a balanced run, where any model's R^2 is near 0); or, for
  /// an interpolant (pchip, makima: nothing but the samples), le_held_out is
  /// more than 10 points below the L_E the model claims; or a cut falls
  /// inside an interval holding more than two parts' shares while the
  /// guaranteed L_E is below 90 %: the samples are too coarse for that many
  /// parts (time the parts the cuts make and fit on all the runs).
  std::string untrusted_reason() const;
  bool trusted() const { return untrusted_reason().empty(); }
};

/// A fitted model and its summary.
struct FitResult {
  /// The fitted model; empty when the fit failed (summary.termination).
  std::optional<CostModel> model;
  FitSummary summary;
  bool converged() const noexcept { return summary.converged(); }
};

/// Fits `spec` to the samples. Starting values: p from a log-log regression of
/// the sampled densities dt/(hi − lo) against the interval midpoints, then A by
/// linear least squares for that p; b likewise from a log-linear regression;
/// polynomial coefficients by linear least squares; expression parameters from
/// spec.guess (1 where not given). A > 0 is enforced by fitting ln A. Not
/// converging is a result (summary.termination, summary.message): Ceres'
/// iteration limit returns the last iterate's model, a failure (Ceres', or
/// parameters that give no increasing model on the domain) returns none.
/// Throws Error only for invalid input: bad options or spec, too few samples
/// (fewer than parameters + 1), samples that cannot determine a shape.
/// Samples of several runs (rows of different partitions; split_runs()
/// groups them) are fitted together: a parametric form to all of them, an
/// interpolant (pchip, makima) through their merge (merge_runs()), which
/// needs the runs to time their whole span between them.
FitResult fit(const Samples& samples, const FitSpec& spec, const FitOptions& options = {});

/// The same for runs given apart, oldest first (for an interpolant the
/// newest run's timings hold exactly; merge_runs()).
FitResult fit(std::span<const Samples> runs, const FitSpec& spec, const FitOptions& options = {});

/// How select_model() ranks candidates. Both compare the interpolants (pchip,
/// makima) with the parametric forms by chain-keeping cross-validation (see
/// select_model()).
enum class SelectBy { aicc, cross_validation };
/// "aicc", "cv".
std::string_view to_string(SelectBy criterion);

/// Settings for select_model().
struct SelectOptions {
  SelectBy criterion = SelectBy::cross_validation;
  int folds = 5;  ///< for cross-validation, >= 2
  /// Candidates; default: sieve, sieve+c, sieve+q, power, poly:2, poly:3, exp,
  /// pchip, makima.
  std::vector<FitSpec> candidates;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("criterion", self.criterion);
    v("folds", self.folds, at_least(2));
    v("candidates", self.candidates);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("select options: …") unless is_valid().
  void validate() const { validate_options(*this, "select options"); }
};

/// One row of the candidate table.
struct Candidate {
  std::string model;
  bool ok = false;
  /// The criterion's score, lower is better: AICc (NaN for an interpolant,
  /// which has no parameter count), or the cross-validation error.
  double score = 0;
  /// Chain-keeping cross-validation error (mean squared held-out error, see
  /// select_model()); set for every candidate under cross-validation, and
  /// under AICc for the AICc winner and the interpolants it is compared with.
  std::optional<double> cv_error;
  std::optional<FitSummary> summary;
  std::string error;  ///< why the candidate failed, if it did
  std::string note;   ///< why it won, or why it lost to the winner
};

/// The winner and the table that explains the choice.
struct Selection {
  FitResult best;
  std::vector<Candidate> candidates;
  std::string reason;  ///< one line: why the winner won
};

/// A parametric form beats the best interpolant only when its
/// cross-validation error is at most this fraction of the interpolant's.
inline constexpr double kParametricMargin = 0.75;

/// Fits every candidate and keeps the best; only fits that converged compete
/// (the others are listed with why). Candidates are scored by chain-keeping
/// cross-validation when the samples form one chain (they tile the domain or
/// are cumulative): fold f merges the two intervals at every interior knot
/// j with j ≡ f (mod folds) into one (never two adjacent knots, so the chain
/// stays whole), fits the merged run, and predicts how each merged cost splits
/// at its knot; the error is the misplaced cost in units of the pair's mean
/// interval cost (relative residuals) or of the run's (absolute). Leaving an
/// interval out instead would open a gap no interpolant can bridge. Under
/// AICc the parametric forms are ranked by AICc and the winner meets the
/// interpolants on that error. A parametric form wins over the best
/// interpolant only with kParametricMargin (it must predict really better);
/// samples of several runs cannot be tabulated, and then cross-validation
/// holds out whole intervals in k folds. Throws Error if no candidate fits.
Selection select_model(const Samples& samples, const SelectOptions& select,
                       const FitOptions& options = {});

/// Settings for repartition().
struct RepartitionOptions {
  FitSpec model;  ///< form to fit (pchip/makima tabulate a single tiling run)
  bool auto_select = false;
  SelectOptions select;
  FitOptions fit;
  PartitionOptions partition;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("model", self.model);
    v("auto_select", self.auto_select);
    v("select", self.select);
    v("fit", self.fit);
    v("partition", self.partition);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("repartition options: …") unless is_valid().
  void validate() const { validate_options(*this, "repartition options"); }
};

/// The next partition from measurements.
struct Repartition {
  FitResult fit;
  Partition partition;
  std::optional<Selection> selection;  ///< set when auto_select
};

/// Fits (or tabulates) the samples, then cuts for `speeds`, each cut started
/// from the matching current cut (warm start). `current_cuts` may be empty.
/// A fit that stops at its iteration limit is cut as it is (see
/// fit.summary.termination); a fit that failed leaves nothing to cut: Error.
Repartition repartition(const Samples& samples, const std::vector<double>& current_cuts,
                        const Speeds& speeds, const RepartitionOptions& options);

}  // namespace isocost
