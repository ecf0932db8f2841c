// python/src/partition.cpp — isocost.partition(): the P + 1 cuts of a model
// for P ranks, with optional speeds and integer cuts (partition.hpp).
#include <string>

#include "bindings.hpp"
#include "isocost/partition.hpp"

namespace isocost::python {

using namespace pybind11::literals;

void bind_partition(py::module_& m) {
  py::class_<Partition>(m, "Partition", "The cuts of a 1-D partition and what they predict")
      .def_property_readonly(
          "cuts", [](const Partition& p) { return to_array(p.cuts); },
          "P + 1 cuts: rank i owns [cuts[i], cuts[i+1])")
      .def_property_readonly(
          "cost", [](const Partition& p) { return to_array(p.cost); }, "Per rank: its cost")
      .def_property_readonly(
          "time", [](const Partition& p) { return to_array(p.time); }, "Per rank: cost / speed")
      .def_property_readonly("ranks", &Partition::ranks)
      .def_readonly("total_cost", &Partition::total_cost)
      .def_readonly("speed_total", &Partition::speed_total)
      .def_readonly("predicted_le", &Partition::predicted_le,
                    "L_E of the times, percent (Swartz eq. 3)")
      .def_readonly("max_abs_residual", &Partition::max_abs_residual)
      .def_readonly("max_iterations", &Partition::max_iterations)
      .def_readonly("integer", &Partition::integer)
      .def_property_readonly("converged", &Partition::converged)
      .def_property_readonly(
          "termination", [](const Partition& p) { return std::string(to_string(p.termination)); })
      .def("brief_report", &Partition::brief_report)
      .def("full_report", &Partition::full_report)
      .def("__repr__",
           [](const Partition& p) { return "<isocost.Partition " + p.brief_report() + ">"; });

  m.def(
      "partition",
      [](const CostModel& model, py::object ranks, py::object speeds, bool integer) {
        const Speeds s = speeds_from(ranks, speeds);
        PartitionOptions options;
        options.integer = integer;
        py::gil_scoped_release release;
        return isocost::partition(model, s, options);
      },
      "model"_a, "ranks"_a = py::none(), "speeds"_a = py::none(), "integer"_a = false,
      "Cuts the model into `ranks` parts of equal cost, or of cost shares proportional to "
      "`speeds` (one per rank); integer=True puts the cuts on integers");
}

}  // namespace isocost::python
