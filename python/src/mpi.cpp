// python/src/mpi.cpp — isocost.mpi: the distributed partitioners over an
// mpi4py communicator (mpi_support.hpp), and the families of the balancers
// (distributions.cpp, exchange.cpp, balancers.cpp).
#include <mpi.h>
#include <pybind11/stl.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "isocost/error.hpp"
#include "isocost/mpi/decompose_grid.hpp"
#include "isocost/mpi/partition_points.hpp"
#include "isocost/mpi/partition_weights.hpp"
#include "mpi_support.hpp"

namespace isocost::python {

using namespace pybind11::literals;

namespace {
std::array<std::int64_t, kMaxDims> corner(py::object values, const std::string& what, int dims) {
  std::array<std::int64_t, kMaxDims> out{0, 0, 0};
  std::size_t a = 0;
  for (py::handle v : py::iter(values)) {
    if (a == static_cast<std::size_t>(dims))
      throw Error(what + ": expected " + std::to_string(dims) + " values, one per axis");
    out[a++] = as_int64(v, what);
  }
  if (a != static_cast<std::size_t>(dims))
    throw Error(what + ": expected " + std::to_string(dims) + " values, one per axis, got " +
                std::to_string(a));
  // Axes beyond dims hold one cell: [0, 1).
  for (std::size_t b = a; b < kMaxDims; ++b) out[b] = what == "hi" ? 1 : 0;
  return out;
}
}  // namespace

void bind_mpi(py::module_& m) {
  bind_distributions(m);
  bind_exchange(m);
  bind_balancers(m);
  py::class_<mpi::WeightsPartition>(m, "WeightsPartition",
                                    "Integer cuts of weights held in slices by the ranks")
      .def_readonly("cells", &mpi::WeightsPartition::cells)
      .def_readonly("total", &mpi::WeightsPartition::total)
      .def_property_readonly("cuts",
                             [](const mpi::WeightsPartition& p) { return to_array(p.cuts); })
      .def_property_readonly("time",
                             [](const mpi::WeightsPartition& p) { return to_array(p.time); })
      .def_property_readonly("prefix",
                             [](const mpi::WeightsPartition& p) { return to_array(p.prefix); })
      .def_readonly("begin", &mpi::WeightsPartition::begin, "This rank's first cell")
      .def_readonly("end", &mpi::WeightsPartition::end, "One past this rank's last cell")
      .def_readonly("max_time", &mpi::WeightsPartition::max_time)
      .def_readonly("ideal_time", &mpi::WeightsPartition::ideal_time)
      .def_property_readonly("converged", &mpi::WeightsPartition::converged)
      .def("imbalance", &mpi::WeightsPartition::imbalance)
      .def("brief_report", &mpi::WeightsPartition::brief_report);

  py::class_<mpi::PointsPartition>(m, "PointsPartition", "Parts of points along a Hilbert curve")
      .def_property_readonly(
          "part",
          [](const mpi::PointsPartition& p) {
            return py::array_t<int>(static_cast<py::ssize_t>(p.part.size()), p.part.data());
          },
          "Per local point: its part")
      .def_property_readonly(
          "key",
          [](const mpi::PointsPartition& p) {
            return py::array_t<std::uint64_t>(static_cast<py::ssize_t>(p.key.size()), p.key.data());
          },
          "Per local point: its Hilbert key")
      .def_readonly("bits", &mpi::PointsPartition::bits)
      .def_property_readonly("lo", [](const mpi::PointsPartition& p) { return to_array(p.lo); })
      .def_property_readonly("hi", [](const mpi::PointsPartition& p) { return to_array(p.hi); })
      .def_property_readonly("part_weight",
                             [](const mpi::PointsPartition& p) { return to_array(p.part_weight); })
      .def_readonly("points", &mpi::PointsPartition::points)
      .def_readonly("total", &mpi::PointsPartition::total)
      .def_readonly("max_time", &mpi::PointsPartition::max_time)
      .def_readonly("ideal_time", &mpi::PointsPartition::ideal_time)
      .def_readonly("max_point", &mpi::PointsPartition::max_point)
      .def_readonly("rounds", &mpi::PointsPartition::rounds)
      .def_property_readonly("converged", &mpi::PointsPartition::converged)
      .def("imbalance", &mpi::PointsPartition::imbalance)
      .def("brief_report", &mpi::PointsPartition::brief_report);

  m.def(
      "partition_weights",
      [](py::object comm, py::object weights, py::object ranks, py::object speeds, bool optimal,
         bool all_cuts) {
        const MPI_Comm c = comm_from(comm);
        const std::vector<double> w = to_vector(weights, "weights");
        const Speeds s = speeds_from(ranks, speeds, comm_size(c));
        mpi::WeightsPartitionOptions options;
        options.optimal = optimal;
        options.all_cuts = all_cuts;
        py::gil_scoped_release release;
        return mpi::partition_weights(c, w, s, options);
      },
      "comm"_a, "weights"_a, "ranks"_a = py::none(), "speeds"_a = py::none(), "optimal"_a = false,
      "all_cuts"_a = true,
      "Collective: integer cuts of the weights every rank holds (its slice, in global order), "
      "as isocost.partition(isocost.discrete_model(all weights), …) gives them; "
      "optimal=True: the chains-on-chains optimum. ranks defaults to the communicator's size");

  m.def(
      "partition_points",
      [](py::object comm, py::object coords, py::object weights, py::object ranks,
         py::object speeds, int buckets) {
        const MPI_Comm c = comm_from(comm);
        using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;
        auto xyz = Doubles::ensure(coords);
        if (!xyz) throw py::type_error("coords: expected an array of numbers");
        if (xyz.ndim() != 2)
          throw Error("coords: expected a 2-D array (one row per point), got " +
                      std::to_string(xyz.ndim()) + " dimensions");
        const int dims = static_cast<int>(xyz.shape(1));
        const std::vector<double> flat(xyz.data(), xyz.data() + xyz.size());
        const std::vector<double> w = to_vector(weights, "weights");
        const Speeds s = speeds_from(ranks, speeds, comm_size(c));
        mpi::PointsPartitionOptions options;
        options.buckets = buckets;
        py::gil_scoped_release release;
        return mpi::partition_points(c, dims, flat, w, s, options);
      },
      "comm"_a, "coords"_a, "weights"_a, "ranks"_a = py::none(), "speeds"_a = py::none(),
      "buckets"_a = 256,
      "Collective: parts of this rank's points (coords: one row of 1-3 coordinates per point) "
      "along a Hilbert curve through all ranks' points");

  m.def(
      "decompose_grid",
      [](py::object comm, py::object shape, py::object lo, py::object hi, py::object weights,
         py::object grid, py::object axes, py::object ranks, py::object speeds,
         py::object min_width) {
        const MPI_Comm c = comm_from(comm);
        GridShape g;
        std::vector<int> cells;
        for (py::handle n : py::iter(shape)) cells.push_back(as_int(n, "shape"));
        if (cells.empty() || cells.size() > kMaxDims)
          throw Error("shape: expected 1 to 3 cell counts, got " + std::to_string(cells.size()));
        g.dims = static_cast<int>(cells.size());
        for (std::size_t a = 0; a < cells.size(); ++a) g.cells[a] = cells[a];
        const auto l = corner(lo, "lo", g.dims), h = corner(hi, "hi", g.dims);
        GridShape local;
        const std::vector<double> w = grid_weights(weights, local);
        for (int a = 0; a < local.dims && !w.empty(); ++a) {
          const auto i = static_cast<std::size_t>(a);
          if (local.dims != g.dims || local.cells[i] != h[i] - l[i])
            throw Error(
                "weights: expected an array of shape hi - lo, one value per cell of "
                "this rank's box");
        }
        const ProcessGrid pg = process_grid_from(grid, axes, g.dims);
        const Speeds s = speeds_from(ranks, speeds, pg.counts.empty() ? comm_size(c) : pg.ranks());
        DecomposeOptions options;
        options.min_width = min_width_from(min_width, g.dims);
        py::gil_scoped_release release;
        return pg.counts.empty() ? mpi::choose_process_grid(c, g, l, h, w, s, options)
                                 : mpi::decompose_grid(c, g, l, h, w, pg, s, options);
      },
      "comm"_a, "shape"_a, "lo"_a, "hi"_a, "weights"_a, "grid"_a = py::none(),
      "axes"_a = py::none(), "ranks"_a = py::none(), "speeds"_a = py::none(),
      "min_width"_a = py::none(),
      "Collective: isocost.decompose() of a grid of `shape` cells of which this rank holds "
      "cells [lo, hi) (weights: an array of shape hi - lo, axis 0 = x)");
}

}  // namespace isocost::python
