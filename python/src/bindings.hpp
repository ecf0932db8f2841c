// python/src/bindings.hpp — what the binding families share: one bind_*()
// per family (module.cpp calls them) and the numpy conversions (convert.cpp).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/partition.hpp"

namespace isocost::python {

namespace py = pybind11;

void bind_models(py::module_& m);
void bind_partition(py::module_& m);
void bind_decompose(py::module_& m);
void bind_stats(py::module_& m);
void bind_fit(py::module_& m);  // fit.cpp, when the fitters are built
void bind_mpi(py::module_& m);  // mpi.cpp, when isocost::mpi is built

/// A 1-D array of numbers (any numeric dtype, list, tuple) as doubles. A
/// non-numeric dtype is a TypeError, another dimension an Error, both naming
/// `what`.
std::vector<double> to_vector(py::handle values, const std::string& what);
/// An int (or anything with __index__, e.g. numpy.int64) as an int / int64:
/// too large is an Error, not an integer (a float, a string) a TypeError, both
/// naming `what`.
int as_int(py::handle value, const std::string& what);
std::int64_t as_int64(py::handle value, const std::string& what);
/// A float64 numpy array holding `values`.
py::array_t<double> to_array(std::span<const double> values);
/// An int64 numpy array holding `values`.
py::array_t<std::int64_t> to_array(std::span<const std::int64_t> values);

/// Speeds for `ranks` ranks (None: len(speeds), or `default_ranks` when > 0)
/// and `speeds` (None: uniform). Errors name ranks or speeds.
Speeds speeds_from(py::handle ranks, py::handle speeds, int default_ranks = 0);

/// Per-cell weights of a 1-3-D array, weights[i, j, k] the cell (i, j, k):
/// returned x fastest, as grid_density() takes them, with their shape.
std::vector<double> grid_weights(py::handle weights, GridShape& shape);

/// The process grid of decompose(): "auto"/None (empty counts), "4x2", or a
/// sequence of counts with optional axes (default 0, 1, …).
ProcessGrid process_grid_from(py::handle grid, py::handle axes, int dims);
/// The minimum widths of DecomposeOptions from None, a number or a sequence.
std::array<double, kMaxDims> min_width_from(py::handle min_width, int dims);

}  // namespace isocost::python
