// detail::redistribute_rows(): arrays whose row size is known only at run
// time (the C and Python interfaces') packed into one record per element
// and moved by redistribute_bytes(), as redistribute_arrays() moves
// std::vectors.
#include <cstddef>
#include <cstring>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "isocost/mpi/redistribute.hpp"

namespace isocost::mpi::detail {

namespace {

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

template <class Distribution>
RedistributeSummary move_rows(MPI_Comm comm, const Distribution& from, const Distribution& to,
                              std::span<const RowArray> arrays, const RedistributeOptions& options,
                              std::string problem) {
  std::size_t record = 0;
  for (const RowArray& a : arrays) record += a.row_bytes;
  const int rank = rank_of(comm);
  // A rank outside the distributions has nothing here; redistribute_bytes()
  // names that (agreed), so the counts are only read when they exist.
  const bool mine = rank < from.parts() && rank < to.parts();
  const auto old_count = static_cast<std::size_t>(mine ? from.count(rank) : 0);
  const auto new_count = static_cast<std::size_t>(mine ? to.count(rank) : 0);
  Records packed, arrived;
  packed.record_size = arrived.record_size = record;
  if (problem.empty()) {
    try {
      packed.bytes.resize(old_count * record);
      std::size_t at = 0;
      for (const RowArray& a : arrays) {
        const auto* src = static_cast<const std::byte*>(a.from);
        for (std::size_t i = 0; i < old_count; ++i)
          std::memcpy(packed.bytes.data() + i * record + at, src + i * a.row_bytes, a.row_bytes);
        at += a.row_bytes;
      }
    } catch (const std::bad_alloc&) {
      problem = "out of memory packing " + std::to_string(old_count) + " records of " +
                std::to_string(record) + " bytes";
    }
  }
  const RedistributeSummary s =
      redistribute_bytes(comm, from, to, packed.bytes.data(), problem.empty() ? old_count : 0,
                         record, &arrived, &resize_records, false, options, std::move(problem));
  std::size_t at = 0;
  for (const RowArray& a : arrays) {
    auto* dst = static_cast<std::byte*>(a.to);
    for (std::size_t i = 0; i < new_count; ++i)
      std::memcpy(dst + i * a.row_bytes, arrived.bytes.data() + i * record + at, a.row_bytes);
    at += a.row_bytes;
  }
  return s;
}

}  // namespace

RedistributeSummary redistribute_rows(MPI_Comm comm, const BlockDistribution& from,
                                      const BlockDistribution& to, std::span<const RowArray> arrays,
                                      const RedistributeOptions& options, std::string problem) {
  return move_rows(comm, from, to, arrays, options, std::move(problem));
}

RedistributeSummary redistribute_rows(MPI_Comm comm, const BoxDistribution& from,
                                      const BoxDistribution& to, std::span<const RowArray> arrays,
                                      const RedistributeOptions& options, std::string problem) {
  return move_rows(comm, from, to, arrays, options, std::move(problem));
}

}  // namespace isocost::mpi::detail
