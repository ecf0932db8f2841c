// python/src/mpi_support.hpp — what isocost.mpi's bindings share: the mpi4py
// communicator, errors agreed across ranks, numpy arrays as rows of
// elements (rows.cpp), and options from nested dicts (options.hpp).
#pragma once

#include <mpi.h>
#include <pybind11/numpy.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "isocost/mpi/redistribute.hpp"

namespace isocost::python {

/// The MPI_Comm of an mpi4py communicator (through its Fortran handle, so
/// no mpi4py headers are needed). TypeError for anything else, Error when
/// MPI is not initialised or the communicator is MPI.COMM_NULL.
MPI_Comm comm_from(py::handle comm);
int comm_size(MPI_Comm comm);
int comm_rank(MPI_Comm comm);

/// Collective: throws the same isocost.Error on every rank when `problem`
/// is not empty on any ("rank R: …", the lowest such rank's).
void agree(MPI_Comm comm, const std::string& problem);

/// numpy arrays with one row per element, as C-contiguous arrays: the
/// arrays' row sizes and their rows for redistribute_rows().
struct Rows {
  std::vector<py::array> arrays;       ///< C-contiguous (copies where needed)
  std::vector<std::size_t> row_bytes;  ///< per array: itemsize × the other dimensions
  /// "" or why the arrays cannot be taken (not arrays, or not `count` rows),
  /// naming `what` and the array's position.
  std::string problem;
  /// The number of arrays and their dtypes and row shapes, for agreeing them
  /// across ranks.
  std::string layout;
  std::size_t record() const;  ///< Σ row_bytes
};
/// The arrays, each expected to hold `count` rows.
Rows take_rows(const py::args& arrays, std::int64_t count, const std::string& what);
/// Collective: agrees rows.problem and then that every rank has the same
/// layout (throws the same Error on every rank otherwise).
void agree_rows(MPI_Comm comm, const Rows& rows);
/// New arrays like `rows` with `count` rows; "" or the allocation's failure
/// (to agree before anything moves).
std::string fresh_rows(const Rows& rows, std::int64_t count, std::vector<py::array>& out);
/// The RowArray list moving rows.arrays into `to`.
std::vector<mpi::detail::RowArray> row_arrays(const Rows& rows, std::vector<py::array>& to);

void bind_distributions(py::module_& m);
void bind_exchange(py::module_& m);
void bind_balancers(py::module_& m);

}  // namespace isocost::python
