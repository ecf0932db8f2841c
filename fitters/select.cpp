// Model selection (chain-keeping cross-validation or AICc, the interpolants
// competing with the parametric forms) and repartitioning from measurements.
#include <algorithm>
#include <cmath>
#include <limits>

#include "cross_validation.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/fitters/fit.hpp"

namespace isocost {

namespace {

using detail::fixed_digits;

std::vector<FitSpec> default_candidates() {
  std::vector<FitSpec> c;
  for (const char* name :
       {"sieve", "sieve+c", "sieve+q", "power", "poly:2", "poly:3", "exp", "pchip", "makima"})
    c.push_back(parse_fit_spec(name));
  return c;
}

bool interpolant(const FitSpec& spec) {
  return spec.form == FitForm::pchip || spec.form == FitForm::makima;
}

std::string cv_text(double e) { return fixed_digits(e, 4); }

}  // namespace

Selection select_model(const Samples& samples, const SelectOptions& select,
                       const FitOptions& options) {
  if (select.criterion == SelectBy::cross_validation && select.folds < 2)
    throw Error("cross-validation needs at least 2 folds, got " + std::to_string(select.folds));
  const auto candidates = select.candidates.empty() ? default_candidates() : select.candidates;
  const bool by_cv = select.criterion == SelectBy::cross_validation;
  const auto chain = detail::sample_chain(samples);
  auto cv = [&](const FitSpec& spec) {
    return chain ? detail::chain_cross_validate(*chain, spec, options, select.folds)
                 : detail::interval_cross_validate(samples, spec, options, select.folds);
  };

  std::vector<Candidate> table;
  std::vector<FitResult> fits;  // parallel to table
  for (const auto& spec : candidates) {
    Candidate c;
    c.model = spec.name();
    FitResult fitted;
    try {
      if (interpolant(spec)) {
        if (!chain)
          throw Error(
              "interpolates one run of samples (tiling or cumulative) or the merge of several, "
              "and these runs leave part of their span untimed");
        if ((options.lo && *options.lo != samples.lo()) ||
            (options.hi && *options.hi != samples.hi()))
          throw Error("interpolates the samples and lives on their span, not the fit's domain");
      }
      fitted = fit(samples, spec, options);
      c.summary = fitted.summary;
      if (!fitted.converged())  // only converged fits compete
        throw Error("did not converge: " + fitted.summary.message);
      if (by_cv) {
        c.cv_error = cv(spec);
        c.score = *c.cv_error;
      } else {
        c.score =
            interpolant(spec) ? std::numeric_limits<double>::quiet_NaN() : fitted.summary.aicc;
        if (interpolant(spec)) c.cv_error = cv(spec);
      }
      if (!interpolant(spec) && !std::isfinite(c.score))
        throw Error(by_cv ? "held-out error is not finite"
                          : "AICc undefined (too few samples for its parameter count)");
      if (c.cv_error && !std::isfinite(*c.cv_error)) throw Error("held-out error is not finite");
      c.ok = true;
    } catch (const Error& e) {
      c.error = e.what();
    }
    table.push_back(std::move(c));
    fits.push_back(std::move(fitted));
  }

  // The best parametric form by the criterion, and the best interpolant.
  std::optional<std::size_t> form, interp;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (!table[i].ok) continue;
    auto& best = interpolant(candidates[i]) ? interp : form;
    const double key = interpolant(candidates[i]) ? *table[i].cv_error : table[i].score;
    const double best_key = !best                            ? 0
                            : interpolant(candidates[*best]) ? *table[*best].cv_error
                                                             : table[*best].score;
    if (!best || key < best_key) best = i;
  }
  if (!form && !interp) {
    std::string why;
    for (const auto& c : table) why += "; " + c.model + ": " + c.error;
    throw Error("no candidate model could be fitted" + why);
  }
  // Under AICc the winner meets the interpolants on held-out error too.
  if (form && interp && !table[*form].cv_error) {
    try {
      table[*form].cv_error = cv(candidates[*form]);
    } catch (const Error& e) {
      table[*form].note = std::string("no held-out error (") + e.what() + ")";
    }
  }

  std::size_t winner;
  std::string reason;
  const std::string rule = by_cv ? "lowest held-out error" : "lowest AICc";
  if (form && interp) {
    const Candidate& q = table[*form];
    const Candidate& p = table[*interp];
    const double limit = kParametricMargin * *p.cv_error;
    if (q.cv_error && *q.cv_error <= limit) {
      winner = *form;
      reason = q.model + " (" + rule + " of the parametric forms) predicts held-out splits with " +
               "error " + cv_text(*q.cv_error) + " <= " + fixed_digits(kParametricMargin, 2) +
               " x " + p.model + "'s " + cv_text(*p.cv_error);
    } else {
      winner = *interp;
      reason = p.model + ": no parametric form predicts held-out splits really better (best " +
               q.model + (q.cv_error ? " " + cv_text(*q.cv_error) : std::string(" (none)")) +
               " vs " + cv_text(*p.cv_error) + "; a form must reach " +
               fixed_digits(kParametricMargin, 2) + " x)";
    }
  } else {
    winner = form ? *form : *interp;
    reason = table[winner].model + " (" + (form ? rule : "lowest held-out error") +
             (form ? "; no interpolant could compete" : "; no parametric form fitted") + ")";
  }
  for (std::size_t i = 0; i < table.size(); ++i) {
    Candidate& c = table[i];
    if (!c.ok || !c.note.empty()) continue;
    if (i == winner)
      c.note = "chosen";
    else if (form && i == *form)
      c.note = "best form, but not " + fixed_digits(kParametricMargin, 2) + " x " +
               table[winner].model + "'s held-out error";
    else if (interp && i == *interp)
      c.note = "best interpolant, but " + table[winner].model + " predicts better";
    else
      c.note =
          "worse " + std::string(by_cv || interpolant(candidates[i]) ? "held-out error" : "AICc");
  }
  return Selection{std::move(fits[winner]), std::move(table), std::move(reason)};
}

Repartition repartition(const Samples& samples, const std::vector<double>& current_cuts,
                        const Speeds& speeds, const RepartitionOptions& options) {
  std::optional<Selection> selection;
  if (options.auto_select) selection = select_model(samples, options.select, options.fit);
  FitResult fitted = selection ? selection->best : fit(samples, options.model, options.fit);
  if (!fitted.model)
    throw Error("repartition: the fit of " + fitted.summary.model +
                " failed: " + fitted.summary.message);
  PartitionOptions partition_options = options.partition;
  if (!current_cuts.empty()) {
    if (current_cuts.size() != static_cast<std::size_t>(speeds.ranks()) + 1)
      throw Error("repartition: " + std::to_string(current_cuts.size()) + " current cuts for " +
                  std::to_string(speeds.ranks()) + " ranks; expected ranks + 1");
    partition_options.initial_cuts = current_cuts;
  }
  Partition cuts = partition(*fitted.model, speeds, partition_options);
  return Repartition{std::move(fitted), std::move(cuts), std::move(selection)};
}

}  // namespace isocost
