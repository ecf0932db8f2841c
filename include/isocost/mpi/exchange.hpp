// isocost/mpi/exchange.hpp — sending elements to the rank that owns them (mpi
// layer): particles that moved out of their owner's range or box, cells a
// code re-sorts, any element whose owner changed on its own.
//
// Several arrays of the same elements (a struct of arrays) travel together,
// element i of every array as one record, in one MPI_Alltoallv. The elements a
// rank keeps stay in their order at the front of its arrays; the ones it
// receives follow, by source rank and, within a source, in the sender's order.
//
//   // Particles on a 1-D distribution of N cells: key = the cell a particle is in.
//   std::vector<std::int64_t> cell;      // per particle
//   std::vector<double> x, v;            // per particle
//   auto s = isocost::mpi::exchange(comm, cells, cell, x, v);   // collective
//   // now every particle is on the rank whose range holds its cell
//
// Every function here is collective over its communicator and validates
// before it moves anything: each rank checks its own input (equal array
// lengths, destinations or keys in range), one MPI_Allreduce agrees on it and
// on the element sizes, which must be the same on every rank; then all ranks
// throw the same isocost::Error, nothing moved. Allocation failures are agreed
// the same way. Communication: that MPI_Allreduce, one MPI_Alltoall of the
// counts, one MPI_Allreduce (buffers allocated), one MPI_Alltoallv of the
// records, one MPI_Allreduce of the totals.
#pragma once

#include <mpi.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "isocost/mpi/distribution.hpp"
#include "isocost/mpi/redistribute.hpp"
#include "isocost/options.hpp"

namespace isocost::mpi {

/// Settings for exchange(). Must be the same on every rank (compared).
struct ExchangeOptions {
  /// Count the elements and sum a 64-bit hash of their bytes over all ranks
  /// before and after (one more pass over the data, no extra collective); a
  /// mismatch throws the same Error on every rank.
  bool verify = false;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("verify", self.verify);
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("exchange options: …") unless is_valid().
  void validate() const { validate_options(*this, "exchange options"); }
};

/// What exchange() did, seen from one rank; fields marked global are the same
/// on every rank.
struct ExchangeSummary {
  int rank = 0;
  int ranks = 0;
  std::size_t record_size = 0;         ///< Σ sizeof of the arrays' elements, bytes
  std::int64_t elements_kept = 0;      ///< stayed on this rank
  std::int64_t elements_sent = 0;      ///< left this rank
  std::int64_t elements_received = 0;  ///< arrived here
  std::int64_t global_elements = 0;    ///< over all ranks, global
  std::int64_t global_moved = 0;       ///< elements that changed rank, global
  bool verified = false;               ///< options.verify ran and passed, global
  std::uint64_t checksum = 0;          ///< the verified checksum (0 when not verifying)
  double seconds = 0;                  ///< wall time of the call on this rank

  /// One line: kept, sent, received, global moved.
  std::string brief_report() const;
};

namespace detail {

/// One array of an exchange, type-erased.
struct ExchangeArray {
  void* vector = nullptr;  ///< std::vector<T>*
  std::size_t element_size = 0;
  std::size_t size = 0;
  std::byte* (*data)(void* vector) = nullptr;
  std::byte* (*resize)(void* vector, std::size_t count) = nullptr;
};

template <class T>
std::byte* vector_data(void* vector) {
  return reinterpret_cast<std::byte*>(static_cast<std::vector<T>*>(vector)->data());
}

template <class T>
ExchangeArray exchange_array(std::vector<T>& v) {
  static_assert(std::is_trivially_copyable_v<T>,
                "exchange() copies bytes: every element type must be trivially copyable");
  return {&v, sizeof(T), v.size(), &vector_data<T>, &resize_vector<T>};
}

/// The distribution the destinations were computed from: its hash (which
/// must be the same on every rank) and its part count (which must be P).
struct ExchangeOwners {
  std::uint64_t hash = 0;
  int parts = 0;
};

/// The type-erased exchange: element i goes to rank destination[i]; `problem`
/// is this rank's own input error ("" if none), agreed with the others, as
/// are `owners` when given.
ExchangeSummary exchange_bytes(MPI_Comm comm, std::span<const int> destination,
                               std::span<ExchangeArray> arrays, const ExchangeOptions& options,
                               std::string problem, const ExchangeOwners* owners = nullptr);

/// Destinations from keys: owner of each 1-D index, or of each cell's linear
/// index i + nx·(j + ny·k) (CellOwners); "" or the first key out of range.
std::string owners_of(const BlockDistribution& d, std::span<const std::int64_t> keys,
                      std::vector<int>& destination);
std::string owners_of(const BoxDistribution& d, std::span<const std::int64_t> keys,
                      std::vector<int>& destination);

}  // namespace detail

/// Sends element i of every array to rank destination[i] (in [0, P)); the
/// arrays must hold destination.size() elements each. See the file comment
/// for the order of the result. Collective over `comm`; throws the same Error
/// on every rank, nothing moved, for arrays of different lengths, a
/// destination outside [0, P), element sizes or options that differ between
/// ranks, or an allocation that fails.
template <class... T>
ExchangeSummary exchange(MPI_Comm comm, std::span<const int> destination,
                         const ExchangeOptions& options, std::vector<T>&... arrays) {
  static_assert(sizeof...(T) >= 1, "exchange() needs at least one array");
  detail::ExchangeArray refs[] = {detail::exchange_array(arrays)...};
  return detail::exchange_bytes(comm, destination, refs, options, {});
}

/// Sends every element to the rank of `d` that owns its key, keys[i] being
/// element i's: for a BlockDistribution a global index in [0, N), owned by
/// the rank whose range holds it; for a BoxDistribution the cell's linear
/// index i + nx·(j + ny·k), owned by the rank whose box holds the cell.
/// `keys` itself travels with the arrays. Collective; errors as above, and
/// for a key out of range or a distribution that is invalid, not one part
/// per rank, or not the same on every rank (named).
template <class Distribution, class... T>
requires std::same_as<Distribution, BlockDistribution> ||
    std::same_as<Distribution, BoxDistribution>
        ExchangeSummary exchange(MPI_Comm comm, const Distribution& d,
                                 std::vector<std::int64_t>& keys, std::vector<T>&... arrays) {
  std::vector<int> destination;
  const std::string problem = detail::owners_of(d, keys, destination);
  detail::ExchangeArray refs[] = {detail::exchange_array(keys), detail::exchange_array(arrays)...};
  const detail::ExchangeOwners owners{d.hash(), d.parts()};
  return detail::exchange_bytes(comm, destination, refs, {}, problem, &owners);
}

}  // namespace isocost::mpi
