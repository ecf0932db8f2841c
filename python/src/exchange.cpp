// python/src/exchange.cpp — isocost.mpi.exchange(): every element to the rank
// owning its key (isocost::mpi::exchange over a distribution), on numpy
// arrays. An element's key and rows travel as one record of 8-byte words,
// one exchange element up to kMaxWords words; beyond, the words of a record
// share their element's key, so the C++ exchange (which keeps each
// sender's order) delivers them together.
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/mpi/distribution.hpp"
#include "isocost/mpi/exchange.hpp"
#include "mpi_support.hpp"

namespace isocost::python {

using namespace pybind11::literals;

namespace {

using Keys = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

// An element's record of W 8-byte words (its key, then its rows), one
// exchange element each; beyond kMaxWords, records of `per` single words.
template <std::size_t W>
struct Words {
  std::uint64_t w[W];
};
constexpr std::size_t kMaxWords = 8;

// Packs, exchanges and unpacks the records: the rest of exchange_on(), once
// the input is checked (rows.problem is agreed here, with the allocation's).
template <std::size_t W, class Distribution>
py::tuple exchange_words(MPI_Comm comm, const Distribution& d, const Keys& k, Rows& rows,
                         std::size_t words) {
  const std::size_t per = words / W;  // exchange elements per record
  const auto n = static_cast<std::size_t>(k ? k.shape(0) : 0);
  std::vector<Words<W>> packed;
  try {
    if (rows.problem.empty()) packed.resize(n * per);
  } catch (const std::bad_alloc&) {
    rows.problem = "exchange: out of memory packing " + std::to_string(n) + " records";
  }
  agree_rows(comm, rows);
  const auto record = [&](std::size_t i) {
    return reinterpret_cast<std::byte*>(packed.data()) + i * words * sizeof(std::uint64_t);
  };
  for (std::size_t i = 0; i < n; ++i) {
    std::byte* p = record(i);
    std::memcpy(p, k.data() + i, sizeof(std::int64_t));
    p += sizeof(std::int64_t);
    for (std::size_t a = 0; a < rows.arrays.size(); ++a) {
      const std::size_t b = rows.row_bytes[a];
      std::memcpy(p, static_cast<const std::byte*>(rows.arrays[a].data()) + i * b, b);
      p += b;
    }
  }
  {
    const std::int64_t* key = k.data();
    py::gil_scoped_release release;
    if (per == 1)
      mpi::exchange(
          comm, d, [key](std::size_t e) { return key[e]; }, packed);
    else
      mpi::exchange(
          comm, d, [key, per](std::size_t e) { return key[e / per]; }, packed);
  }
  const std::size_t m = packed.size() / per;
  std::vector<py::array> fresh;
  agree(comm, fresh_rows(rows, static_cast<std::int64_t>(m), fresh));
  Keys out_keys(static_cast<py::ssize_t>(m));
  for (std::size_t i = 0; i < m; ++i) {
    const std::byte* p = record(i);
    std::memcpy(out_keys.mutable_data() + i, p, sizeof(std::int64_t));
    p += sizeof(std::int64_t);
    for (std::size_t a = 0; a < fresh.size(); ++a) {
      const std::size_t b = rows.row_bytes[a];
      std::memcpy(static_cast<std::byte*>(fresh[a].mutable_data()) + i * b, p, b);
      p += b;
    }
  }
  py::tuple out(fresh.size() + 1);
  out[0] = out_keys;
  for (std::size_t a = 0; a < fresh.size(); ++a) out[a + 1] = fresh[a];
  return out;
}

template <class Distribution, std::size_t... W>
py::tuple dispatch_words(MPI_Comm comm, const Distribution& d, const Keys& k, Rows& rows,
                         std::size_t words, std::index_sequence<W...>) {
  py::tuple out;
  const bool exact =
      ((words == W + 1 && (out = exchange_words<W + 1>(comm, d, k, rows, words), true)) || ...);
  return exact ? out : exchange_words<1>(comm, d, k, rows, words);
}

template <class Distribution>
py::tuple exchange_on(MPI_Comm comm, const Distribution& d, py::handle keys, const py::args& arrays,
                      bool cells) {
  Keys k = Keys::ensure(keys);
  std::string problem;
  if (!k || k.ndim() != 1) problem = "keys: expected a 1-D array of integer keys";
  const std::int64_t n = k ? k.shape(0) : 0;
  Rows rows = take_rows(arrays, n, "exchange");
  if (problem.empty()) problem = rows.problem;
  // Keys out of range are named by their element here.
  const std::int64_t size = d.size();
  for (std::int64_t i = 0; i < n && problem.empty(); ++i)
    if (k.data()[i] < 0 || k.data()[i] >= size)
      problem = "keys[" + std::to_string(i) + "]: expected " +
                (cells ? "a cell's linear index" : "a global index") + " in [0, " +
                std::to_string(size) + "), got " + std::to_string(k.data()[i]);
  rows.problem = problem;
  // Every rank the same word count (the layout is agreed with the rows).
  const std::size_t words = (sizeof(std::int64_t) + rows.record() + 7) / 8;
  return dispatch_words(comm, d, k, rows, words, std::make_index_sequence<kMaxWords>{});
}

}  // namespace

py::tuple exchange_arrays(MPI_Comm comm, py::handle distribution, py::handle keys,
                          const py::args& arrays) {
  if (py::isinstance<mpi::BlockDistribution>(distribution))
    return exchange_on(comm, distribution.cast<const mpi::BlockDistribution&>(), keys, arrays,
                       false);
  if (py::isinstance<mpi::BoxDistribution>(distribution))
    return exchange_on(comm, distribution.cast<const mpi::BoxDistribution&>(), keys, arrays, true);
  throw py::type_error(
      "distribution: expected an isocost.mpi.BlockDistribution or "
      "BoxDistribution, got " +
      std::string(py::str(py::type::of(distribution))));
}

void bind_exchange(py::module_& m) {
  m.def(
      "exchange",
      [](py::object comm, py::object distribution, py::object keys, const py::args& arrays) {
        return exchange_arrays(comm_from(comm), distribution, keys, arrays);
      },
      "comm"_a, "distribution"_a, "keys"_a,
      "Collective: sends element i of every array to the rank of `distribution` owning "
      "keys[i] (a global index for a BlockDistribution, a cell's linear index i + nx*(j + "
      "ny*k) for a BoxDistribution); returns (keys, *arrays) as they arrive: the elements "
      "kept, in order, then the arrivals by source rank. Bad input raises isocost.Error on "
      "every rank, nothing moved");
}

}  // namespace isocost::python
