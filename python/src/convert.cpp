// python/src/convert.cpp — numpy arrays and Python values to the C++ API's
// vectors, speeds and process grids, with errors that name the argument.
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "isocost/error.hpp"

namespace isocost::python {

namespace {
using Doubles = py::array_t<double, py::array::forcecast>;

/// `values` as a float64 array; a TypeError when numpy cannot convert it.
Doubles as_doubles(py::handle values, const std::string& what) {
  auto array = Doubles::ensure(values);  // clears the Python error on failure
  if (!array)
    throw py::type_error(what + ": expected an array of numbers, got " +
                         std::string(py::str(py::type::of(values))));
  return array;
}

}  // namespace

int as_int(py::handle value, const std::string& what) {
  try {
    return value.cast<int>();
  } catch (const py::cast_error&) {
    if (py::isinstance<py::int_>(value))
      throw Error(what + ": expected an integer below 2^31, got " + std::string(py::str(value)));
    throw py::type_error(what + ": expected an integer, got " +
                         std::string(py::str(py::type::of(value))));
  }
}

std::int64_t as_int64(py::handle value, const std::string& what) {
  try {
    return value.cast<std::int64_t>();
  } catch (const py::cast_error&) {
    if (py::isinstance<py::int_>(value))
      throw Error(what + ": expected an integer below 2^63, got " + std::string(py::str(value)));
    throw py::type_error(what + ": expected an integer, got " +
                         std::string(py::str(py::type::of(value))));
  }
}

std::vector<double> to_vector(py::handle values, const std::string& what) {
  const Doubles array = as_doubles(values, what);
  if (array.ndim() != 1)
    throw Error(what + ": expected a 1-D array, got " + std::to_string(array.ndim()) +
                " dimensions");
  std::vector<double> out(static_cast<std::size_t>(array.shape(0)));
  const auto view = array.unchecked<1>();
  for (py::ssize_t i = 0; i < array.shape(0); ++i) out[static_cast<std::size_t>(i)] = view(i);
  return out;
}

py::array_t<double> to_array(std::span<const double> values) {
  py::array_t<double> out(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

py::array_t<std::int64_t> to_array(std::span<const std::int64_t> values) {
  py::array_t<std::int64_t> out(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

Speeds speeds_from(py::handle ranks, py::handle speeds, int default_ranks) {
  if (speeds.is_none()) {
    if (!ranks.is_none()) return Speeds::uniform(as_int(ranks, "ranks"));
    if (default_ranks > 0) return Speeds::uniform(default_ranks);
    throw Error("ranks: expected an integer >= 1 or a list of speeds, got neither");
  }
  std::vector<double> values = to_vector(speeds, "speeds");
  if (!ranks.is_none()) {
    const int P = as_int(ranks, "ranks");
    if (P < 1) throw Error("ranks: expected an integer >= 1, got " + std::to_string(P));
    if (values.size() != static_cast<std::size_t>(P))
      throw Error("speeds: " + std::to_string(values.size()) + " values for " + std::to_string(P) +
                  " ranks; expected one per rank");
  }
  return Speeds::from_values(std::move(values));
}

std::vector<double> grid_weights(py::handle weights, GridShape& shape) {
  // Fortran order: axis 0 (x) varies fastest, as grid_density() expects.
  using FDoubles = py::array_t<double, py::array::f_style | py::array::forcecast>;
  auto array = FDoubles::ensure(weights);
  if (!array)
    throw py::type_error("weights: expected an array of numbers, got " +
                         std::string(py::str(py::type::of(weights))));
  if (array.ndim() < 1 || array.ndim() > kMaxDims)
    throw Error("weights: expected a 1-D, 2-D or 3-D array, got " + std::to_string(array.ndim()) +
                " dimensions");
  shape.dims = static_cast<int>(array.ndim());
  shape.cells = {1, 1, 1};
  for (int a = 0; a < shape.dims; ++a) shape.cells[static_cast<std::size_t>(a)] = array.shape(a);
  return std::vector<double>(array.data(), array.data() + array.size());
}

ProcessGrid process_grid_from(py::handle grid, py::handle axes, int dims) {
  if (grid.is_none()) return {};
  if (py::isinstance<py::str>(grid)) {
    if (!axes.is_none())
      throw Error("axes: give them with a list of counts, not with '" + grid.cast<std::string>() +
                  "'");
    return parse_process_grid(grid.cast<std::string>(), dims);
  }
  ProcessGrid out;
  if (py::isinstance<py::int_>(grid)) {  // grid=4: one level of 4 slabs
    out.counts.push_back(as_int(grid, "grid"));
  } else if (!py::isinstance<py::iterable>(grid)) {
    throw py::type_error("grid: expected counts such as (4, 2), '4x2' or None, got " +
                         std::string(py::str(py::type::of(grid))));
  } else {
    for (py::handle count : py::iter(grid)) out.counts.push_back(as_int(count, "grid"));
  }
  if (axes.is_none()) {
    for (std::size_t l = 0; l < out.counts.size(); ++l) out.axes.push_back(static_cast<int>(l));
  } else {
    for (py::handle axis : py::iter(axes)) out.axes.push_back(as_int(axis, "axes"));
  }
  if (out.counts.empty()) throw Error("grid: expected at least one count, got none");
  out.validate(dims);
  return out;
}

std::array<double, kMaxDims> min_width_from(py::handle min_width, int dims) {
  std::array<double, kMaxDims> out{0, 0, 0};
  if (min_width.is_none()) return out;
  if (py::isinstance<py::float_>(min_width) || py::isinstance<py::int_>(min_width)) {
    out.fill(min_width.cast<double>());
    return out;
  }
  const std::vector<double> values = to_vector(min_width, "min_width");
  if (values.size() != static_cast<std::size_t>(dims))
    throw Error("min_width: " + std::to_string(values.size()) + " values for " +
                std::to_string(dims) + " dimensions; expected one per axis");
  std::copy(values.begin(), values.end(), out.begin());
  return out;
}

}  // namespace isocost::python
