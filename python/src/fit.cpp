// python/src/fit.cpp — isocost.fit(): a model fitted to interval timings
// (lo, hi, seconds arrays) for a spec such as "sieve" or "poly:3", with its
// summary (fitters/fit.hpp); expression models; reading and making samples.
#include <pybind11/stl.h>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "isocost/error.hpp"
#include "isocost/fitters/expression.hpp"
#include "isocost/fitters/fit.hpp"
#include "isocost/samples.hpp"

namespace isocost::python {

using namespace pybind11::literals;

namespace {
Samples samples_from(py::object lo, py::object hi, py::object seconds) {
  const std::vector<double> l = to_vector(lo, "lo"), h = to_vector(hi, "hi"),
                            dt = to_vector(seconds, "seconds");
  if (h.size() != l.size() || dt.size() != l.size())
    throw Error("samples: lo, hi and seconds must have one value per sample, got " +
                std::to_string(l.size()) + ", " + std::to_string(h.size()) + " and " +
                std::to_string(dt.size()));
  std::vector<IntervalSample> intervals;
  for (std::size_t k = 0; k < l.size(); ++k) intervals.push_back({l[k], h[k], dt[k]});
  return Samples(std::move(intervals));
}

/// (lo, hi, dt) arrays of samples.
py::tuple intervals_of(const Samples& samples) {
  std::vector<double> lo, hi, dt;
  for (const IntervalSample& s : samples.intervals()) {
    lo.push_back(s.lo);
    hi.push_back(s.hi);
    dt.push_back(s.dt);
  }
  return py::make_tuple(to_array(lo), to_array(hi), to_array(dt));
}

py::dict parameters_of(const FitSummary& s) {
  py::dict out;
  for (const FitParameter& p : s.parameters) out[py::str(p.name)] = p.value;
  return out;
}

py::object guaranteed_of(const FitSummary& s) {
  if (!s.guaranteed) return py::none();
  const BalanceGuarantee& g = *s.guaranteed;
  return py::dict("le_lo"_a = g.le_lo, "le_hi"_a = g.le_hi, "t_max_lo"_a = g.t_max_lo,
                  "t_max_hi"_a = g.t_max_hi, "coarse_cuts"_a = g.coarse_cuts);
}

py::dict std_errors_of(const FitSummary& s) {
  py::dict out;
  for (const FitParameter& p : s.parameters) out[py::str(p.name)] = py::cast(p.std_error);
  return out;
}
}  // namespace

void bind_fit(py::module_& m) {
  py::class_<FitSummary>(m, "FitSummary", "What a fit found and how far to trust it")
      .def_readonly("model", &FitSummary::model, "The spec's name, e.g. 'sieve' or 'poly:3'")
      .def_readonly("formula", &FitSummary::formula)
      .def_property_readonly("parameters", &parameters_of, "{name: value}, in fit order")
      .def_property_readonly("std_errors", &std_errors_of, "{name: standard error or None}")
      .def("parameter", &FitSummary::parameter, "name"_a)
      .def_readonly("samples", &FitSummary::samples)
      .def_readonly("rmse", &FitSummary::rmse)
      .def_readonly("max_rel_error", &FitSummary::max_rel_error)
      .def_readonly("r_squared", &FitSummary::r_squared)
      .def_readonly("aicc", &FitSummary::aicc)
      .def_readonly("iterations", &FitSummary::iterations)
      .def_readonly("lo_used", &FitSummary::lo_used)
      .def_readonly("hi_used", &FitSummary::hi_used)
      .def_readonly("message", &FitSummary::message)
      .def_readonly("le_on_samples", &FitSummary::le_on_samples)
      .def_readonly("le_of_samples", &FitSummary::le_of_samples)
      .def_readonly("le_model_claim", &FitSummary::le_model_claim)
      .def_readonly("le_held_out", &FitSummary::le_held_out,
                    "An interpolant's L_E cut without a fifth of the knots (held out), or None")
      .def_property_readonly("guaranteed", &guaranteed_of,
                             "{le_lo, le_hi, t_max_lo, t_max_hi, coarse_cuts} the samples "
                             "guarantee for the partition, or None")
      .def_property_readonly(
          "runs_merged", [](const FitSummary& s) { return s.merged ? s.merged->runs_used : 1; },
          "How many runs an interpolant merged (1: one run)")
      .def_property_readonly("converged", &FitSummary::converged)
      .def_property_readonly(
          "termination", [](const FitSummary& s) { return std::string(to_string(s.termination)); })
      .def_property_readonly("trusted", &FitSummary::trusted)
      .def("untrusted_reason", &FitSummary::untrusted_reason)
      .def("brief_report", &FitSummary::brief_report)
      .def("full_report", &FitSummary::full_report)
      .def("to_dict",
           [](const FitSummary& s) {
             return py::dict(
                 "model"_a = s.model, "formula"_a = s.formula, "parameters"_a = parameters_of(s),
                 "std_errors"_a = std_errors_of(s), "samples"_a = s.samples, "rmse"_a = s.rmse,
                 "max_rel_error"_a = s.max_rel_error, "r_squared"_a = s.r_squared,
                 "aicc"_a = s.aicc, "iterations"_a = s.iterations, "converged"_a = s.converged(),
                 "termination"_a = std::string(to_string(s.termination)), "message"_a = s.message,
                 "le_on_samples"_a = s.le_on_samples, "le_of_samples"_a = s.le_of_samples,
                 "le_model_claim"_a = s.le_model_claim, "le_held_out"_a = s.le_held_out,
                 "guaranteed"_a = guaranteed_of(s));
           })
      .def("__repr__",
           [](const FitSummary& s) { return "<isocost.FitSummary " + s.brief_report() + ">"; });

  py::class_<FitResult>(m, "FitResult", "A fitted model (None when the fit failed) and its summary")
      .def_readonly("model", &FitResult::model)
      .def_readonly("summary", &FitResult::summary)
      .def_property_readonly("converged", &FitResult::converged)
      .def("__iter__", [](const FitResult& r) {  // model, summary = isocost.fit(…)
        return py::iter(py::make_tuple(py::cast(r.model), py::cast(r.summary)));
      });

  m.def(
      "fit",
      [](py::object lo, py::object hi, py::object seconds, const std::string& spec, bool relative,
         const std::string& loss, int max_iterations, int ranks, std::optional<double> domain_lo,
         std::optional<double> domain_hi, double noise) {
        const Samples samples = samples_from(lo, hi, seconds);
        const bool automatic = spec == "auto";  // select_model(), as the CLI's --model auto
        const FitSpec fit_spec = automatic ? FitSpec{} : parse_fit_spec(spec);
        FitOptions options;
        options.noise = noise;
        options.relative = relative;
        options.loss = parse_fit_loss(loss);
        options.max_iterations = max_iterations;
        options.ranks = ranks;
        options.lo = domain_lo;
        options.hi = domain_hi;
        py::gil_scoped_release release;
        if (automatic) return select_model(samples, SelectOptions{}, options).best;
        return isocost::fit(samples, fit_spec, options);
      },
      "lo"_a, "hi"_a, "seconds"_a, "spec"_a = "sieve", py::kw_only(), "relative"_a = true,
      "loss"_a = "none", "max_iterations"_a = 200, "ranks"_a = 0, "domain_lo"_a = py::none(),
      "domain_hi"_a = py::none(), "noise"_a = 0.0,
      "Fits `spec` ('sieve', 'sieve+c', 'power', 'poly:N', 'exp', 'expr:FORMULA', 'pchip', "
      "'makima', or 'auto' to choose by cross-validation) to interval timings: the work in "
      "[lo[k], hi[k]) took seconds[k]. Timings of several runs (rows of different partitions) "
      "are fitted together; pchip/makima merge them");

  m.def(
      "expression_model",
      [](const std::string& formula, const std::map<std::string, double>& values, double lo,
         double hi) { return expression_model(formula, values, lo, hi); },
      "formula"_a, "values"_a, "lo"_a, "hi"_a,
      "A model from a formula in x with values for its parameters, e.g. "
      "expression_model('A*x^p', {'A': 1, 'p': 2}, 0, 1)");
  m.def(
      "read_intervals", [](const std::string& path) { return intervals_of(read_samples(path)); },
      "path"_a, "(lo, hi, seconds) arrays of a samples file (CSV 'x,t' or 'lo,hi,dt', or JSON)");
  m.def(
      "intervals_from_partition",
      [](py::object cuts, py::object times) {
        const std::vector<double> c = to_vector(cuts, "cuts"), t = to_vector(times, "times");
        return intervals_of(samples_from_partition(c, t));
      },
      "cuts"_a, "times"_a,
      "(lo, hi, seconds) arrays of one run: rank i took times[i] for [cuts[i], cuts[i+1])");
}

}  // namespace isocost::python
