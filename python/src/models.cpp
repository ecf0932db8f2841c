// python/src/models.cpp — isocost.Model (CostModel) and its factories: cost,
// density and the domain, vectorised over numpy arrays (cost_model.hpp).
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.hpp"
#include "isocost/cost_model.hpp"

namespace isocost::python {

using namespace pybind11::literals;

// vectorize() takes the model by non-const reference: pybind11 2.10 cannot
// pass a const one through (numpy.h, vectorize_helper::run).
void bind_models(py::module_& m) {
  py::class_<CostModel>(m, "Model",
                        "A one-dimensional cost model t(x) on [lo, hi]: t(lo) = 0, t(hi) = total")
      .def_property_readonly("lo", &CostModel::lo, "Left end of the domain")
      .def_property_readonly("hi", &CostModel::hi, "Right end of the domain")
      .def_property_readonly(
          "domain", [](const CostModel& t) { return py::make_tuple(t.lo(), t.hi()); }, "(lo, hi)")
      .def_property_readonly("total", &CostModel::total, "Total cost t(hi)")
      .def_property_readonly("kind", &CostModel::kind, "'sieve', 'power', 'discrete', …")
      .def_property_readonly("is_discrete", &CostModel::is_discrete)
      .def_property_readonly(
          "prefix_sums", [](const CostModel& t) { return to_array(t.prefix_sums()); },
          "Discrete models: the prefix sums P[0..n] of the weights (else empty)")
      .def("describe", &CostModel::describe, "One line: the formula and its parameters")
      .def("cost", py::vectorize([](CostModel& t, double x) { return t.cost(x); }), "x"_a,
           "Cumulative cost t(x); x a number or an array (Error outside [lo, hi])")
      .def("cost", py::vectorize([](CostModel& t, double a, double b) { return t.cost(a, b); }),
           "a"_a, "b"_a, "Cost of [a, b] = t(b) - t(a), lo <= a <= b <= hi")
      .def("density", py::vectorize([](CostModel& t, double x) { return t.density(x); }), "x"_a,
           "Cost density t'(x); x a number or an array")
      .def("__repr__", [](const CostModel& t) {
        return "<isocost.Model " + t.kind() + ": " + t.describe() + ">";
      });

  m.def(
      "sieve_model",
      [](double lo, double hi, double A, double p, double c, double q) {
        return sieve_model({.A = A, .p = p, .c = c, .q = q}, lo, hi);
      },
      "lo"_a, "hi"_a, "A"_a = SieveParams{}.A, "p"_a = SieveParams{}.p, "c"_a = SieveParams{}.c,
      "q"_a = SieveParams{}.q,
      "Sieve model t(x) = A x^p / (ln x - c)^q on [lo, hi] (Swartz eq. 4; defaults: his T3D fit)");
  m.def(
      "power_model",
      [](double A, double p, double lo, double hi, double B) {
        return power_model(A, p, B, lo, hi);
      },
      "A"_a, "p"_a, "lo"_a, "hi"_a, "B"_a = 0.0, "Power law t(x) = A x^p + B on [lo, hi]");
  m.def(
      "polynomial_model",
      [](py::object coefficients, double lo, double hi, double x0, double scale) {
        return polynomial_model(to_vector(coefficients, "coefficients"), lo, hi, x0, scale);
      },
      "coefficients"_a, "lo"_a, "hi"_a, "x0"_a = 0.0, "scale"_a = 1.0,
      "Polynomial t = c[0] + c[1] u + … + c[n] u^n, u = (x - x0)/scale, nondecreasing on [lo, hi]");
  m.def("exponential_model", &exponential_model, "A"_a, "b"_a, "lo"_a, "hi"_a,
        "Exponential t(x) = A e^(b (x - lo)) on [lo, hi]");
  m.def(
      "tabulated_model",
      [](py::object x, py::object t, const std::string& interpolation) {
        return tabulated_model(to_vector(x, "x"), to_vector(t, "t"),
                               parse_interpolation(interpolation));
      },
      "x"_a, "t"_a, "interpolation"_a = "pchip",
      "Monotone interpolation ('pchip', 'makima' or 'linear') through cumulative samples (x, t)");
  m.def(
      "discrete_model",
      [](py::object weights, std::int64_t first) {
        return discrete_model(to_vector(weights, "weights"), first);
      },
      "weights"_a, "first"_a = 0,
      "Per-cell weights: cell k covers [first + k, first + k + 1); cuts are integers");
}

}  // namespace isocost::python
