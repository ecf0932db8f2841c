// python/src/decompose.cpp — isocost.decompose(): a 1-3-D numpy grid of
// per-cell weights cut into boxes by a process grid (decompose.hpp), the
// boxes returned as numpy arrays (one row per rank).
#include <pybind11/stl.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "isocost/decompose.hpp"
#include "isocost/error.hpp"

namespace isocost::python {

using namespace pybind11::literals;

namespace {
/// One row per part, one column per axis, from `get(part, axis)`.
template <class T, class Get>
py::array_t<T> per_part(const Decomposition& d, Get get) {
  const int dims = d.parts.empty() ? 0 : d.parts.front().box.dims;
  py::array_t<T> out({static_cast<py::ssize_t>(d.parts.size()), static_cast<py::ssize_t>(dims)});
  auto view = out.template mutable_unchecked<2>();
  for (std::size_t r = 0; r < d.parts.size(); ++r)
    for (int a = 0; a < dims; ++a)
      view(static_cast<py::ssize_t>(r), a) = get(d.parts[r], static_cast<std::size_t>(a));
  return out;
}

/// The box (lo corner, hi corner) of a grid of `dims` dimensions, if given.
std::optional<Box> box_from(py::handle box, int dims) {
  if (box.is_none()) return std::nullopt;
  if (!py::isinstance<py::sequence>(box) || py::len(box) != 2)
    throw Error("box: expected (lo, hi), two corners");
  const auto corners = py::reinterpret_borrow<py::sequence>(box);
  const std::vector<double> lo = to_vector(corners[0], "box lo"),
                            hi = to_vector(corners[1], "box hi");
  if (lo.size() != static_cast<std::size_t>(dims) || hi.size() != static_cast<std::size_t>(dims))
    throw Error("box: expected corners of " + std::to_string(dims) + " values, one per axis, got " +
                std::to_string(lo.size()) + " and " + std::to_string(hi.size()));
  Box out;
  out.dims = dims;
  std::copy(lo.begin(), lo.end(), out.lo.begin());
  std::copy(hi.begin(), hi.end(), out.hi.begin());
  return out;
}

template <class Get>
py::array_t<double> per_rank(const Decomposition& d, Get get) {
  std::vector<double> values;
  for (const Part& p : d.parts) values.push_back(get(p));
  return to_array(values);
}
}  // namespace

void bind_decompose(py::module_& m) {
  py::class_<Decomposition>(m, "Decomposition", "Boxes of a multi-dimensional decomposition")
      .def_property_readonly(
          "lo",
          [](const Decomposition& d) {
            return per_part<double>(d, [](const Part& p, std::size_t a) { return p.box.lo[a]; });
          },
          "Lower corners, one row per rank")
      .def_property_readonly(
          "hi",
          [](const Decomposition& d) {
            return per_part<double>(d, [](const Part& p, std::size_t a) { return p.box.hi[a]; });
          },
          "Upper corners, one row per rank")
      .def_property_readonly(
          "cell_lo",
          [](const Decomposition& d) {
            return per_part<std::int64_t>(
                d, [](const Part& p, std::size_t a) { return p.cell_lo[a]; });
          },
          "First cell along each axis, one row per rank: weights[cell_lo[r,0]:cell_hi[r,0], …]")
      .def_property_readonly(
          "cell_hi",
          [](const Decomposition& d) {
            return per_part<std::int64_t>(
                d, [](const Part& p, std::size_t a) { return p.cell_hi[a]; });
          },
          "One past the last cell along each axis, one row per rank")
      .def_property_readonly(
          "cost",
          [](const Decomposition& d) { return per_rank(d, [](const Part& p) { return p.cost; }); })
      .def_property_readonly(
          "time",
          [](const Decomposition& d) { return per_rank(d, [](const Part& p) { return p.time; }); })
      .def_property_readonly("volume",
                             [](const Decomposition& d) {
                               return per_rank(d, [](const Part& p) { return p.volume; });
                             })
      .def_property_readonly("surface",
                             [](const Decomposition& d) {
                               return per_rank(d, [](const Part& p) { return p.surface; });
                             })
      .def_property_readonly("counts", [](const Decomposition& d) { return d.process_grid.counts; })
      .def_property_readonly("axes", [](const Decomposition& d) { return d.process_grid.axes; })
      .def_property_readonly("grid_name",
                             [](const Decomposition& d) { return d.process_grid.name(); })
      .def_property_readonly("ranks", &Decomposition::ranks)
      .def_readonly("total_cost", &Decomposition::total_cost)
      .def_readonly("predicted_le", &Decomposition::predicted_le)
      .def_readonly("max_time", &Decomposition::max_time)
      .def_readonly("cut_surface", &Decomposition::cut_surface)
      .def_readonly("on_grid_lines", &Decomposition::on_grid_lines)
      .def_property_readonly("converged", &Decomposition::converged)
      .def_property_readonly(
          "termination",
          [](const Decomposition& d) { return std::string(to_string(d.termination)); })
      .def("brief_report", &Decomposition::brief_report)
      .def("full_report", &Decomposition::full_report)
      .def("__repr__", [](const Decomposition& d) {
        return "<isocost.Decomposition " + d.brief_report() + ">";
      });

  m.def(
      "decompose",
      [](py::object weights, py::object grid, py::object axes, py::object ranks, py::object speeds,
         py::object min_width, py::object box) {
        GridShape shape;
        std::vector<double> w = grid_weights(weights, shape);
        const ProcessGrid pg = process_grid_from(grid, axes, shape.dims);
        const Speeds s = speeds_from(ranks, speeds, pg.counts.empty() ? 0 : pg.ranks());
        DecomposeOptions options;
        options.min_width = min_width_from(min_width, shape.dims);
        const std::optional<Box> b = box_from(box, shape.dims);
        py::gil_scoped_release release;
        const Density density =
            b ? grid_density(std::move(w), shape, *b) : grid_density(std::move(w), shape);
        return pg.counts.empty() ? choose_process_grid(density, s, options)
                                 : decompose(density, pg, s, options);
      },
      "weights"_a, "grid"_a = py::none(), "axes"_a = py::none(), "ranks"_a = py::none(),
      "speeds"_a = py::none(), "min_width"_a = py::none(), "box"_a = py::none(),
      "Decomposes per-cell weights (weights[i, j(, k)] is cell (i, j(, k)), in cell units) by "
      "the process grid `grid` (counts per level, e.g. (4, 2) or '4x2'; `axes` the axis each "
      "level cuts, default 0, 1, …), or by the best grid for `ranks` when grid is None; "
      "box=(lo, hi) places the cells in a box instead of cell units");
}

}  // namespace isocost::python
