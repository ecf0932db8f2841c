// python/src/stats.cpp — isocost.load_stats(): load-balance statistics of
// per-rank times (metrics.hpp; Swartz eqs 2-3, Pearce eqs 1-4).
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "isocost/metrics.hpp"

namespace isocost::python {

using namespace pybind11::literals;

void bind_stats(py::module_& m) {
  py::class_<LoadStats>(m, "LoadStats", "Statistics of one time per rank")
      .def_readonly("ranks", &LoadStats::ranks)
      .def_readonly("min", &LoadStats::min)
      .def_readonly("max", &LoadStats::max)
      .def_readonly("mean", &LoadStats::mean)
      .def_readonly("sum", &LoadStats::sum)
      .def_readonly("argmin", &LoadStats::argmin)
      .def_readonly("argmax", &LoadStats::argmax)
      .def_readonly("li", &LoadStats::li, "L_I = (T_max - T_avg)/T_avg 100 (Swartz eq. 2)")
      .def_readonly("le", &LoadStats::le, "L_E = 100 - L_I (Swartz eq. 3)")
      .def_readonly("li_fig2", &LoadStats::li_fig2, "(T_max - T_avg)/T_max 100 (Swartz Fig. 2)")
      .def_readonly("efficiency", &LoadStats::efficiency, "T_avg/T_max")
      .def_readonly("lambda_", &LoadStats::lambda, "(T_max/T_avg - 1) 100 (Pearce eq. 1)")
      .def_readonly("drift", &LoadStats::drift, "(T_max - T_min)/T_avg")
      .def_readonly("sigma", &LoadStats::sigma, "Population standard deviation")
      .def_readonly("skewness", &LoadStats::skewness, "g1, None when sigma = 0")
      .def_readonly("kurtosis", &LoadStats::kurtosis, "Excess kurtosis g2, None when sigma = 0")
      .def("to_dict",
           [](const LoadStats& s) {
             return py::dict("ranks"_a = s.ranks, "min"_a = s.min, "max"_a = s.max,
                             "mean"_a = s.mean, "sum"_a = s.sum, "argmin"_a = s.argmin,
                             "argmax"_a = s.argmax, "li"_a = s.li, "le"_a = s.le,
                             "li_fig2"_a = s.li_fig2, "efficiency"_a = s.efficiency,
                             "lambda"_a = s.lambda, "drift"_a = s.drift, "sigma"_a = s.sigma,
                             "skewness"_a = s.skewness, "kurtosis"_a = s.kurtosis);
           })
      .def("__repr__", [](const LoadStats& s) {
        return "<isocost.LoadStats ranks=" + std::to_string(s.ranks) +
               " le=" + std::string(py::repr(py::float_(s.le))) + ">";
      });

  m.def(
      "load_stats", [](py::object times) { return isocost::load_stats(to_vector(times, "times")); },
      "times"_a, "Load statistics of one time per rank (finite, >= 0, not all zero)");
}

}  // namespace isocost::python
