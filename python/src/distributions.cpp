// python/src/distributions.cpp — isocost.mpi.BlockDistribution and
// BoxDistribution: where the elements of a balancer or an exchange live
// (isocost/mpi/distribution.hpp). Plain values; nothing here is collective.
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/mpi/distribution.hpp"
#include "mpi_support.hpp"

namespace isocost::python {

using namespace pybind11::literals;

namespace {

std::vector<std::int64_t> int64_list(py::handle values, const std::string& what) {
  std::vector<std::int64_t> v;
  for (py::handle x : py::iter(values)) v.push_back(as_int64(x, what));
  return v;
}

py::tuple cells_tuple(const std::array<std::int64_t, 3>& c) {
  return py::make_tuple(c[0], c[1], c[2]);
}

}  // namespace

void bind_distributions(py::module_& m) {
  using mpi::BlockDistribution;
  py::class_<BlockDistribution>(
      m, "BlockDistribution",
      "N elements in P blocks: rank r owns the global indices [offsets[r], offsets[r + 1])")
      .def(py::init([](py::object offsets) {
             BlockDistribution d{int64_list(offsets, "offsets")};
             d.validate();
             return d;
           }),
           "offsets"_a, "From P + 1 offsets 0 = o_0 <= … <= o_P = N")
      .def_static("uniform", &BlockDistribution::uniform, "n"_a, "ranks"_a,
                  "N elements in P near-equal blocks (the first N mod P one longer)")
      .def_static(
          "from_counts",
          [](py::object counts) {
            const auto c = int64_list(counts, "counts");
            return BlockDistribution::from_counts(c);
          },
          "counts"_a, "Blocks of the given lengths, in rank order")
      .def_property_readonly("offsets",
                             [](const BlockDistribution& d) { return to_array(d.offsets); })
      .def_property_readonly("ranks", &BlockDistribution::parts)
      .def_property_readonly("size", &BlockDistribution::size, "N")
      .def("begin", &BlockDistribution::begin, "rank"_a)
      .def("end", &BlockDistribution::end, "rank"_a)
      .def("count", &BlockDistribution::count, "rank"_a)
      .def("owner", &BlockDistribution::owner, "index"_a, "The rank owning global index i")
      .def("__eq__", [](const BlockDistribution& a,
                        const BlockDistribution& b) { return a.offsets == b.offsets; })
      .def("__repr__", [](const BlockDistribution& d) {
        std::string s = "BlockDistribution([";
        for (std::size_t i = 0; i < d.offsets.size(); ++i)
          s += (i ? ", " : "") + std::to_string(d.offsets[i]);
        return s + "])";
      });

  using mpi::BoxDistribution;
  py::class_<BoxDistribution>(m, "BoxDistribution",
                              "A grid of cells in one box per rank; rank r's local arrays hold "
                              "its box's cells x fastest")
      .def_static("from_decomposition", &BoxDistribution::from_decomposition, "decomposition"_a,
                  "The parts of a decomposition on grid lines (isocost.decompose(), in cell "
                  "units), in rank order")
      .def_property_readonly("cells", [](const BoxDistribution& d) { return cells_tuple(d.cells); })
      .def_property_readonly("ranks", &BoxDistribution::parts)
      .def_property_readonly("size", &BoxDistribution::size, "The number of cells")
      .def("count", &BoxDistribution::count, "rank"_a)
      .def(
          "box",
          [](const BoxDistribution& d, int rank) {
            const auto& b = d.boxes.at(static_cast<std::size_t>(rank));
            return py::make_tuple(cells_tuple(b.lo), cells_tuple(b.hi));
          },
          "rank"_a, "(lo, hi): the rank's cells [lo, hi) along x, y, z")
      .def(
          "owner",
          [](const BoxDistribution& d, std::int64_t cell) {
            d.validate();
            const int r = mpi::CellOwners(d).owner(cell);
            if (r < 0)
              throw Error("cell: expected a linear index in [0, " + std::to_string(d.size()) +
                          "), got " + std::to_string(cell));
            return r;
          },
          "cell"_a, "The rank owning the cell with linear index i + nx*(j + ny*k)")
      .def("__eq__", [](const BoxDistribution& a, const BoxDistribution& b) {
        return a.cells == b.cells && a.boxes == b.boxes;
      });
}

}  // namespace isocost::python
