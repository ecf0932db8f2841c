// python/src/module.cpp — the isocost Python module: isocost::Error becomes
// isocost.Error (a ValueError) with the same message; each family binds itself.
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "isocost/error.hpp"
#include "isocost/version.hpp"

PYBIND11_MODULE(isocost, m) {
  namespace py = pybind11;
  m.doc() = "isocost: cost models, fits, cost-balanced partitions and decompositions";
  // Before any binding: every family's errors translate through it.
  py::register_exception<isocost::Error>(m, "Error", PyExc_ValueError);
  m.attr("__version__") = ISOCOST_VERSION_STRING;
  isocost::python::bind_models(m);
  isocost::python::bind_partition(m);
  isocost::python::bind_decompose(m);
  isocost::python::bind_stats(m);
#ifdef ISOCOST_PYTHON_FITTERS
  isocost::python::bind_fit(m);
#endif
  m.attr("has_fitters") = py::bool_(
#ifdef ISOCOST_PYTHON_FITTERS
      true
#else
      false
#endif
  );
#ifdef ISOCOST_PYTHON_MPI
  auto mpi = m.def_submodule("mpi", "Distributed partitioners over an mpi4py communicator");
  isocost::python::bind_mpi(mpi);
  // So that `import isocost.mpi` works as well as `isocost.mpi`.
  py::module_::import("sys").attr("modules")["isocost.mpi"] = mpi;
  m.attr("has_mpi") = true;
#else
  m.attr("has_mpi") = false;
#endif
}
