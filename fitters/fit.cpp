// fit(): parametric fits of t(x) to interval samples with Ceres Solver (the
// families are fit_families.cpp), tabulated models, and the summary a user
// needs to trust them.
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
#include "cross_validation.hpp"
#include "fit_families.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/fitters/expression.hpp"
#include "isocost/merge.hpp"
#include "isocost/metrics.hpp"

namespace isocost {

using detail::exact;
using detail::Family;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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

// Per-rank costs of `cuts` costed on the samples: the measured dt of the
// intervals a rank covers whole, and for an interval a cut splits, the share
// the monotone interpolant `truth` of the cumulative samples gives each side
// (cumulative differences at the knots are the measured dt exactly). A range
// beyond the samples' span is added to the first or last rank.
std::vector<double> costs_on_samples(const CostModel& truth, const std::vector<double>& cuts) {
  const std::size_t P = cuts.size() - 1;
  std::vector<double> cost(P);
  for (std::size_t i = 0; i < P; ++i) {
    const double a = std::clamp(cuts[i], truth.lo(), truth.hi());
    const double b = std::clamp(cuts[i + 1], truth.lo(), truth.hi());
    cost[i] = truth.cost(a, b);
  }
  if (cuts.front() > truth.lo()) cost.front() += truth.cost(truth.lo(), cuts.front());
  if (cuts.back() < truth.hi()) cost.back() += truth.cost(cuts.back(), truth.hi());
  return cost;
}

// L_E over P ranks of the fitted model's partition and of the samples' own
// partition, both costed on the samples, and the L_E the model claims for its
// partition. The samples are one run that tiles, or several runs whose merge
// (merge_runs()) tiles; their "own" partition is the newest run's. For P
// ranks it puts cut i at knot i·n/P of that run (linear in x between knots),
// so with P = n it is the measured run itself and its L_E that of the
// measured dt.
void balance_on_samples(const CostModel& model, std::span<const Samples> runs,
                        const FitOptions& options, FitSummary& out) {
  std::optional<Samples> chain;  // the samples as one tiling run
  if (runs.size() == 1) {
    if (!runs[0].tiles()) return;
    chain = runs[0];
  } else {
    try {
      chain = out.merged ? out.merged->samples() : merge_runs(runs).samples();
    } catch (const Error&) {  // they leave a gap: nothing to cost cuts on
      return;
    }
  }
  const Samples& own_run = runs.back();
  if (!own_run.tiles() && !own_run.cumulative()) return;
  std::vector<double> x, t;
  own_run.cumulative_points(x, t);
  const std::size_t n = x.size() - 1;
  const std::size_t atoms = chain->size();
  // Costed on n samples, a partition finer than them measures the
  // interpolant, not the samples: the check is over at most n parts.
  const int asked = options.ranks > 0 ? options.ranks : static_cast<int>(n);
  const int P = std::min(asked, static_cast<int>(atoms));
  out.balance_ranks = P;
  const auto truth =
      tabulate(*chain, atoms + 1 >= 4 ? Interpolation::pchip : Interpolation::linear);
  std::vector<double> own(static_cast<std::size_t>(P) + 1);
  for (int i = 0; i <= P; ++i) {
    const double at = static_cast<double>(i) * static_cast<double>(n) / P;
    const auto k = std::min(static_cast<std::size_t>(at), n - 1);
    const double frac = at - static_cast<double>(k);
    own[static_cast<std::size_t>(i)] = frac == 0 ? x[k] : x[k] + frac * (x[k + 1] - x[k]);
  }
  own.back() = x.back();
  if (P == static_cast<int>(n) && runs.size() == 1) {  // exact: the measured dt
    std::vector<double> dt(n);
    for (std::size_t k = 0; k < n; ++k) dt[k] = t[k + 1] - t[k];
    out.le_of_samples = load_stats(dt).le;
  } else {
    out.le_of_samples = load_stats(costs_on_samples(truth, own)).le;
  }
  const auto part = partition(model, Speeds::uniform(P));
  out.le_on_samples = load_stats(costs_on_samples(truth, part.cuts)).le;
  out.le_model_claim = part.predicted_le;
  // The guarantee is for the partition the user asked for, from every run;
  // none when no run times the whole span (the total is then unknown).
  try {
    out.guaranteed = asked == P
                         ? guaranteed_balance(runs, part.cuts, Speeds::uniform(P), options.noise)
                         : guaranteed_balance(runs, partition(model, Speeds::uniform(asked)).cuts,
                                              Speeds::uniform(asked), options.noise);
  } catch (const Error&) {
    out.guaranteed.reset();
  }
}

// Folds of the held-out check of an interpolant (as select_model()'s default).
constexpr int kHeldOutFolds = 5;

// An interpolant knows nothing inside an interval but its timing, so its own
// cuts, costed on itself, always look balanced. Held out instead: in each
// chain-keeping fold (chain_folds(): some knots removed by merging their two
// intervals) the interpolant of the rest cuts P parts, and those cuts are
// costed on the samples with every knot. A cut placed without a knot that
// matters shows there; the mean L_E over the folds is the estimate (on the
// peak of docs/cli.md's refinement example 69.9, 94.1 and 97.3 % for runs
// whose cuts truly reach 73.3, 97.9 and 98.4 %: a little below, since each
// fold knows a fifth fewer knots).
std::optional<double> held_out_le(const Samples& chain_samples, const FitSpec& spec,
                                  const FitOptions& options, int P) {
  const auto chain = detail::sample_chain(chain_samples);
  if (!chain || chain->size() < 2 || P < 1) return std::nullopt;
  const auto truth = tabulate(
      chain_samples, chain->size() + 1 >= 4 ? Interpolation::pchip : Interpolation::linear);
  double sum = 0;
  std::size_t count = 0;
  try {
    const auto folds = detail::chain_folds(*chain, kHeldOutFolds);
    for (std::size_t f = 0; f < folds.size(); ++f) {
      const CostModel model = *detail::fit_fold(folds[f], f, *chain, spec, options).model;
      sum += load_stats(costs_on_samples(truth, partition(model, Speeds::uniform(P)).cuts)).le;
      ++count;
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  return sum / static_cast<double>(count);
}

FitResult fit_tabulated(const Samples& samples, std::span<const Samples> runs, const FitSpec& spec,
                        const FitOptions& options) {
  std::optional<MergedRuns> merged;
  if (runs.size() > 1) merged = merge_runs(runs);
  const Samples chain = merged ? merged->samples() : samples;
  FitResult r{
      tabulate(chain, spec.form == FitForm::pchip ? Interpolation::pchip : Interpolation::makima),
      FitSummary{}};
  r.summary.model = spec.name();
  r.summary.spec = spec;
  r.summary.options = options;
  r.summary.lo_used = r.model->lo();
  r.summary.hi_used = r.model->hi();
  r.summary.formula = r.model->describe();
  r.summary.message = merged ? "no solve (interpolation of " + merged->brief_report() + ")"
                             : std::string("no solve (interpolation)");
  r.summary.merged = std::move(merged);
  score(*r.model, samples, options, static_cast<int>(chain.size()), r.summary);
  balance_on_samples(*r.model, runs, options, r.summary);
  // One part is balanced whatever the cuts (and the folds' own fits, which
  // ask for one, must not hold out again).
  if (r.summary.balance_ranks > 1)
    r.summary.le_held_out = held_out_le(chain, spec, options, r.summary.balance_ranks);
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

FitResult fit_runs(const Samples& samples, std::span<const Samples> runs, const FitSpec& spec,
                   const FitOptions& options) {
  options.validate();
  validate_fit_spec(spec);
  if (spec.form == FitForm::pchip || spec.form == FitForm::makima)
    return fit_tabulated(samples, runs, spec, options);
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

  const Family family = detail::make_family(samples, spec, w);
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
    problem.AddResidualBlock(new detail::IntervalCost(family, samples, w, 0, samples.size()),
                             nullptr, theta.data());

  for (std::size_t s = 0; s < (batch ? 0 : samples.size()); ++s) {
    const auto& iv = samples.intervals()[s];
    ceres::CostFunction* cost;
    if (family.expression) {
      auto* numeric =
          new ceres::DynamicNumericDiffCostFunction<detail::ExpressionResidual, ceres::CENTRAL>(
              new detail::ExpressionResidual{&family, iv, w[s]});
      numeric->AddParameterBlock(static_cast<int>(theta.size()));
      numeric->SetNumResiduals(1);
      cost = numeric;
    } else {
      cost = new detail::IntervalCost(family, samples, w, s, 1);
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
  out.spec = spec;
  out.options = options;
  out.formula = family.formula;
  detail::record_solve(summary, out);

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
  out.lo_used = lo;
  out.hi_used = hi;
  std::optional<CostModel> model;
  if (out.termination != Termination::failed) {
    try {
      model = family.make(theta, lo, hi);
    } catch (const Error& e) {
      // The parameters describe no cost model here: a failed fit, not bad input.
      out.termination = Termination::failed;
      out.message = "the fitted parameters give no valid model on [" + exact(lo) + ", " +
                    exact(hi) + "]: " + e.what();
    }
  }
  if (model) {
    // The fit's quality is over the samples, whatever domain the model is
    // then cut on (options.lo/hi may narrow it below the samples' span).
    std::optional<CostModel> over_samples;
    if (lo != samples.lo() || hi != samples.hi()) {
      try {
        over_samples = family.make(theta, samples.lo(), samples.hi());
      } catch (const Error&) {  // not a model on the samples' span: score the one cut
      }
    }
    const CostModel& scored = over_samples ? *over_samples : *model;
    score(scored, samples, options, k, out);
    balance_on_samples(scored, runs, options, out);
  }
  return {std::move(model), std::move(out)};
}

}  // namespace

FitResult fit(const Samples& samples, const FitSpec& spec, const FitOptions& options) {
  if (samples.size() == 0) throw Error("fit: no samples");
  return fit_runs(samples, split_runs(samples), spec, options);
}

FitResult fit(std::span<const Samples> runs, const FitSpec& spec, const FitOptions& options) {
  if (runs.empty()) throw Error("fit: no runs");
  Samples all = runs[0];
  for (std::size_t k = 1; k < runs.size(); ++k) all = all.merged(runs[k]);
  return fit_runs(all, runs, spec, options);
}

}  // namespace isocost
