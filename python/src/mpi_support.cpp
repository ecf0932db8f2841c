// python/src/mpi_support.cpp — the communicator, agreed errors and numpy
// arrays as rows of elements (mpi_support.hpp).
#include "mpi_support.hpp"

#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "isocost/error.hpp"

namespace isocost::python {

MPI_Comm comm_from(py::handle comm) {
  if (!py::hasattr(comm, "py2f"))
    throw py::type_error("comm: expected an mpi4py communicator (with py2f()), got " +
                         std::string(py::str(py::type::of(comm))));
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw Error("comm: MPI is not initialised (import mpi4py.MPI first) or already finalised");
  const MPI_Comm c = MPI_Comm_f2c(comm.attr("py2f")().cast<MPI_Fint>());
  if (c == MPI_COMM_NULL) throw Error("comm: expected a communicator, got MPI.COMM_NULL");
  return c;
}

int comm_size(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}

int comm_rank(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

void agree(MPI_Comm comm, const std::string& problem) {
  const int ranks = comm_size(comm), rank = comm_rank(comm);
  int bad = problem.empty() ? ranks : rank;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MIN, comm);
  if (bad == ranks) return;
  std::vector<char> text(512, '\0');
  if (bad == rank) problem.copy(text.data(), text.size() - 1);
  MPI_Bcast(text.data(), static_cast<int>(text.size()), MPI_CHAR, bad, comm);
  throw Error("rank " + std::to_string(bad) + ": " + text.data());
}

std::size_t Rows::record() const {
  std::size_t r = 0;
  for (std::size_t b : row_bytes) r += b;
  return r;
}

Rows take_rows(const py::args& arrays, std::int64_t count, const std::string& what) {
  Rows rows;
  rows.layout = std::to_string(arrays.size());
  for (std::size_t k = 0; k < arrays.size() && rows.problem.empty(); ++k) {
    const std::string name = what + ": array " + std::to_string(k);
    auto a = py::array::ensure(arrays[k], py::array::c_style);
    if (!a || a.ndim() < 1) {
      rows.problem = name + ": expected a numpy array with one row per element";
      continue;
    }
    if (a.shape(0) != count) {
      rows.problem = name + " has " + std::to_string(a.shape(0)) + " rows; expected this rank's " +
                     std::to_string(count) + " elements";
      continue;
    }
    if (a.dtype().kind() == 'O') {
      rows.problem = name + ": Python objects cannot be sent; expected numbers";
      continue;
    }
    std::size_t row = static_cast<std::size_t>(a.itemsize());
    rows.layout += " " + std::string(py::str(a.dtype())) + "(";
    for (py::ssize_t i = 1; i < a.ndim(); ++i) {
      row *= static_cast<std::size_t>(a.shape(i));
      rows.layout += std::to_string(a.shape(i)) + ",";
    }
    rows.layout += ")";
    rows.row_bytes.push_back(row);
    rows.arrays.push_back(std::move(a));
  }
  return rows;
}

void agree_rows(MPI_Comm comm, const Rows& rows) {
  agree(comm, rows.problem);
  // The layouts must match: compare rank 0's text with every rank's.
  std::vector<char> text(512, '\0');
  rows.layout.copy(text.data(), text.size() - 1);
  std::vector<char> root = text;
  MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_CHAR, 0, comm);
  agree(comm, root == text ? std::string()
                           : "the arrays (" + rows.layout + ") differ from rank 0's (" +
                                 std::string(root.data()) +
                                 "): pass the same arrays, dtypes and row shapes on every rank");
}

std::string fresh_rows(const Rows& rows, std::int64_t count, std::vector<py::array>& out) {
  out.clear();
  try {
    for (const py::array& a : rows.arrays) {
      std::vector<py::ssize_t> shape(a.shape(), a.shape() + a.ndim());
      shape[0] = static_cast<py::ssize_t>(count);
      out.emplace_back(a.dtype(), shape);
    }
  } catch (const py::error_already_set& e) {  // MemoryError
    out.clear();
    return "could not allocate " + std::to_string(count) + " rows: " + e.what();
  }
  return {};
}

std::vector<mpi::detail::RowArray> row_arrays(const Rows& rows, std::vector<py::array>& to) {
  std::vector<mpi::detail::RowArray> r;
  for (std::size_t k = 0; k < rows.arrays.size(); ++k)
    r.push_back({rows.arrays[k].data(), to[k].mutable_data(), rows.row_bytes[k]});
  return r;
}

}  // namespace isocost::python
