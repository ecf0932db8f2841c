// c/fit.cpp — fitting a model to interval timings through the C interface
// (isocost::fit, built only with the fitters).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "c/model.hpp"
#include "c/status.hpp"
#include "isocost/fitters/fit.hpp"
#include "isocost/samples.hpp"

namespace {

using isocost::c::Failure;
using isocost::c::guard;
using isocost::c::require;
using isocost::c::require_at_least;

isocost::FitOptions to_cpp(const isocost_fit_options& o) {
  isocost::FitOptions f;
  f.relative = o.relative != 0;
  switch (o.loss) {
    case ISOCOST_FIT_LOSS_NONE:
      f.loss = isocost::FitLoss::none;
      break;
    case ISOCOST_FIT_LOSS_HUBER:
      f.loss = isocost::FitLoss::huber;
      break;
    case ISOCOST_FIT_LOSS_CAUCHY:
      f.loss = isocost::FitLoss::cauchy;
      break;
    default:
      throw Failure{ISOCOST_ERROR_INVALID_ARGUMENT,
                    "options->loss: expected ISOCOST_FIT_LOSS_NONE (0), _HUBER (1) or _CAUCHY "
                    "(2), got " +
                        std::to_string(o.loss)};
  }
  f.loss_scale = o.loss_scale;
  f.max_iterations = o.max_iterations;
  f.function_tolerance = o.function_tolerance;
  if (!std::isnan(o.lo)) f.lo = o.lo;
  if (!std::isnan(o.hi)) f.hi = o.hi;
  f.validate();  // Error("fit options: …") names the bad field
  return f;
}

void write_summary(const isocost::FitSummary& s, isocost_fit_summary& out) {
  isocost_fit_summary c{};
  c.rmse = s.rmse;
  c.max_rel_error = s.max_rel_error;
  c.r_squared = s.r_squared;
  c.iterations = s.iterations;
  c.converged = s.converged() ? 1 : 0;
  c.n_parameters = static_cast<int>(s.parameters.size());
  for (std::size_t i = 0; i < s.parameters.size(); ++i) c.parameters[i] = s.parameters[i].value;
  out = c;
}

int fit_c(const char* function, const double* lo, const double* hi, const double* seconds,
          std::int64_t count, const char* spec, const isocost_fit_options* options,
          isocost_model** out, isocost_fit_summary* summary) noexcept {
  if (out != nullptr) *out = nullptr;
  return guard(function, [&] {
    require(lo, "lo");
    require(hi, "hi");
    require(seconds, "seconds");
    require(spec, "spec");
    require(out, "out");
    require_at_least<std::int64_t>(count, 1, "count");
    // "auto": select_model()'s choice by cross-validation, as the CLI's
    // --model auto (every candidate has at most four parameters).
    const bool automatic = std::string(spec) == "auto";
    const isocost::FitSpec fit_spec =
        automatic ? isocost::FitSpec{} : isocost::parse_fit_spec(spec);
    const isocost::FitOptions fit_options =
        options == nullptr ? isocost::FitOptions{} : to_cpp(*options);
    if (summary != nullptr && !automatic) {
      const auto names = isocost::fit_parameter_names(fit_spec);
      if (names.size() > ISOCOST_MAX_FIT_PARAMETERS)
        throw Failure{ISOCOST_ERROR_INVALID_ARGUMENT,
                      "spec '" + std::string(spec) + "' has " + std::to_string(names.size()) +
                          " parameters; a summary holds at most ISOCOST_MAX_FIT_PARAMETERS (" +
                          std::to_string(ISOCOST_MAX_FIT_PARAMETERS) +
                          "): pass summary = NULL to fit it"};
    }
    std::vector<isocost::IntervalSample> v(static_cast<std::size_t>(count));
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = {lo[k], hi[k], seconds[k]};
    isocost::Samples samples(std::move(v));
    isocost::FitResult r =
        automatic ? isocost::select_model(samples, isocost::SelectOptions{}, fit_options).best
                  : isocost::fit(samples, fit_spec, fit_options);
    if (summary != nullptr) write_summary(r.summary, *summary);
    if (!r.model) throw Failure{ISOCOST_ERROR_FAILED, "the fit failed: " + r.summary.message};
    *out = new isocost_model{std::move(*r.model)};
    if (!r.summary.converged())
      throw Failure{ISOCOST_ERROR_NOT_CONVERGED, r.summary.brief_report()};
  });
}

}  // namespace

extern "C" {

int isocost_fit_options_init(isocost_fit_options* options) noexcept {
  return guard("isocost_fit_options_init", [&] {
    require(options, "options");
    const isocost::FitOptions d;
    *options = {.relative = d.relative ? 1 : 0,
                .loss = ISOCOST_FIT_LOSS_NONE,
                .loss_scale = d.loss_scale,
                .max_iterations = d.max_iterations,
                .function_tolerance = d.function_tolerance,
                .lo = std::nan(""),
                .hi = std::nan("")};
  });
}

int isocost_fit(const double* lo, const double* hi, const double* seconds, std::int64_t count,
                const char* spec, isocost_model** out, isocost_fit_summary* summary) noexcept {
  return fit_c("isocost_fit", lo, hi, seconds, count, spec, nullptr, out, summary);
}

int isocost_fit_ex(const double* lo, const double* hi, const double* seconds, std::int64_t count,
                   const char* spec, const isocost_fit_options* options, isocost_model** out,
                   isocost_fit_summary* summary) noexcept {
  return fit_c("isocost_fit_ex", lo, hi, seconds, count, spec, options, out, summary);
}

}  // extern "C"
