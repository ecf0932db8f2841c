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
//   // The same with the key computed from the coordinate: no key array.
//   isocost::mpi::exchange(comm, cells, [&](std::size_t i) { return cell_of(x[i]); }, x, v);
//
// Every function here is collective over its communicator and validates
// before it moves anything: each rank checks its own input (equal array
// lengths, destinations or keys in range), the ranks agree on it and on the
// element sizes and options, which must be the same on every rank; then all
// ranks throw the same isocost::Error, nothing moved. Allocation failures are
// agreed the same way. Communication: one MPI_Alltoall (the checks, the
// counts and the totals together), one MPI_Allreduce of one word (buffers
// allocated), one MPI_Alltoallv of the records; with verify, one more
// MPI_Allreduce. Work: one owner test per element and copies of the leaving
// and arriving elements only (exchange_engine.hpp); bench_mpi_exchange
// compares it with a hand-written pack and MPI_Alltoallv.
#pragma once

#include <mpi.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "isocost/mpi/distribution.hpp"
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
  /// Sent in the same collective as a rebalance's data (a balancer's
  /// maybe_rebalance(residents(…), cells…) whose plan moved cells), global.
  bool with_rebalance = false;
  double seconds = 0;  ///< wall time of the call on this rank

  /// One line: kept, sent, received, global moved.
  std::string brief_report() const;
};

}  // namespace isocost::mpi

#include "isocost/mpi/exchange_engine.hpp"

namespace isocost::mpi {

namespace detail {

/// "element I's destination: expected a rank in [0, P), got Q".
std::string destination_out_of_range(std::size_t i, int q, int size);
/// "" or why `d` cannot route keys over `size` ranks (invalid, or not one
/// part per rank).
std::string check_owners(const BlockDistribution& d, int size);
std::string check_owners(const BoxDistribution& d, int size);

/// Every element's key through `key(i)`: the ones outside this rank's part
/// of `d` go into `leaving` with their owner; "" or this rank's problem.
template <class Distribution, class Key>
std::string keyed_departures(const Distribution& d, const ExchangeState& s, std::size_t n,
                             Key&& key, Departures& leaving) {
  std::string problem = check_owners(d, s.ranks);
  if (!problem.empty()) return problem;
  if constexpr (std::same_as<Distribution, BlockDistribution>)
    return depart_block(d, s.rank, n, key, leaving);
  else
    return depart_boxes(d, s.rank, n, key, leaving);
}

template <class Distribution, class Key, class... T>
ExchangeSummary exchange_keyed(MPI_Comm comm, const Distribution& d, const ExchangeOptions& options,
                               std::size_t n, Key&& key, std::vector<T>&... arrays) {
  const char* what = "exchange";
  ExchangeState s;
  exchange_start(comm, what, s);
  Departures leaving;
  std::string problem = keyed_departures(d, s, n, key, leaving);
  ExchangeSummary out;
  exchange_typed(s, what, n, leaving, options, options.verify, std::move(problem), d.hash(), out,
                 arrays...);
  return out;
}

/// exchange_keyed() whose records ride on another transfer: `carry(Rider*)`
/// moves other data in one collective with them (a rebalance's
/// redistribute_arrays_with()); if it does not send them, exchange_transfer()
/// does. Collective; `carry` must be collective and agree its errors (every
/// rank's arrays are then as they were, and the Error propagates).
template <class Distribution, class Key, class Carry, class... T>
ExchangeSummary exchange_keyed_riding(MPI_Comm comm, const Distribution& d,
                                      const ExchangeOptions& options, std::size_t n, Key&& key,
                                      Carry&& carry, std::vector<T>&... arrays) {
  const char* what = "exchange";
  ExchangeState s;
  exchange_start(comm, what, s);
  Departures leaving;
  std::string problem = keyed_departures(d, s, n, key, leaving);
  const std::uint64_t before = exchange_prepare(s, what, n, leaving, options, options.verify,
                                                std::move(problem), d.hash(), arrays...);
  Rider rider = exchange_rider(s);
  try {
    carry(&rider);
  } catch (...) {
    (arrays.resize(n), ...);  // grown by exchange_prepare(); the first n untouched
    throw;
  }
  if (!rider.carried) exchange_transfer(s);
  ExchangeSummary out;
  exchange_finish(s, leaving, options.verify, before, out, arrays...);
  out.with_rebalance = rider.carried;
  return out;
}

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
  const char* what = "exchange";
  detail::ExchangeState s;
  detail::exchange_start(comm, what, s);
  const int rank = s.rank, size = s.ranks;
  detail::Departures leaving;
  std::string problem;
  try {
    for (std::size_t i = 0; i < destination.size(); ++i) {
      const int q = destination[i];
      if (q == rank) continue;
      if (q < 0 || q >= size) {
        problem = detail::destination_out_of_range(i, q, size);
        break;
      }
      leaving.index.push_back(i);
      leaving.to.push_back(q);
    }
  } catch (const std::bad_alloc&) {
    problem = "could not allocate the list of leaving elements";
  }
  ExchangeSummary out;
  detail::exchange_typed(s, what, destination.size(), leaving, options, options.verify,
                         std::move(problem), 0, out, arrays...);
  return out;
}

/// Sends every element to the rank of `d` that owns its key, keys[i] being
/// element i's: for a BlockDistribution a global index in [0, N), owned by
/// the rank whose range holds it; for a BoxDistribution the cell's linear
/// index i + nx·(j + ny·k), owned by the rank whose box holds the cell.
/// `keys` itself travels with the arrays. Collective; errors as above, and
/// for a key out of range or a distribution that is invalid, not one part
/// per rank, or not the same on every rank (named). Work beyond the
/// transfer: one owner test per element (a compare against this rank's
/// range or box), a look-up per leaving element, block moves of the rest.
template <class Distribution, class... T>
requires std::same_as<Distribution, BlockDistribution> ||
    std::same_as<Distribution, BoxDistribution>
        ExchangeSummary exchange(MPI_Comm comm, const Distribution& d,
                                 const ExchangeOptions& options, std::vector<std::int64_t>& keys,
                                 std::vector<T>&... arrays) {
  const std::int64_t* k = keys.data();
  return detail::exchange_keyed(
      comm, d, options, keys.size(), [k](std::size_t i) { return k[i]; }, keys, arrays...);
}

template <class Distribution, class... T>
requires std::same_as<Distribution, BlockDistribution> ||
    std::same_as<Distribution, BoxDistribution>
        ExchangeSummary exchange(MPI_Comm comm, const Distribution& d,
                                 std::vector<std::int64_t>& keys, std::vector<T>&... arrays) {
  return exchange(comm, d, ExchangeOptions{}, keys, arrays...);
}

/// As above, with element i's key computed by `key(i)` (std::size_t ->
/// std::int64_t, e.g. the cell a particle's coordinate lies in) instead of
/// read from an array: no key array is kept or sent. `key` is called once
/// per element, before anything moves; an exception from it is this rank's
/// input error (agreed, nothing moved). The arrays must have equal lengths.
template <class Distribution, class Key, class... T>
requires(std::same_as<Distribution, BlockDistribution> ||
         std::same_as<Distribution, BoxDistribution>) &&
    std::is_invocable_r_v<std::int64_t, Key&, std::size_t> ExchangeSummary
    exchange(MPI_Comm comm, const Distribution& d, const ExchangeOptions& options, Key&& key,
             std::vector<T>&... arrays) {
  static_assert(sizeof...(T) >= 1, "exchange() needs at least one array");
  const std::size_t lengths[] = {arrays.size()...};
  return detail::exchange_keyed(comm, d, options, lengths[0], key, arrays...);
}

template <class Distribution, class Key, class... T>
requires(std::same_as<Distribution, BlockDistribution> ||
         std::same_as<Distribution, BoxDistribution>) &&
    std::is_invocable_r_v<std::int64_t, Key&, std::size_t> ExchangeSummary
    exchange(MPI_Comm comm, const Distribution& d, Key&& key, std::vector<T>&... arrays) {
  return exchange(comm, d, ExchangeOptions{}, key, arrays...);
}

/// Elements that live in the elements of a distribution — particles in the
/// cells a balancer distributes — as one argument: the key of each (the cell
/// it is in: a key array, which travels with them, or a function of its
/// index, e.g. of its coordinate), and its arrays. A balancer's
/// maybe_rebalance(residents(…), cells…) moves the cells when it pays and
/// then sends every resident to the owner of its cell, so the two never
/// disagree. Make it with residents().
template <class Key, class... T>
struct Residents {
  Key key;  ///< std::vector<std::int64_t>& or a callable std::size_t -> std::int64_t
  std::tuple<std::vector<T>&...> arrays;

  /// The bytes one resident carries: its arrays' elements, and its key when
  /// a key array travels.
  static constexpr std::size_t bytes =
      (sizeof(T) + ... + 0) +
      (std::is_same_v<Key, std::vector<std::int64_t>&> ? sizeof(std::int64_t) : 0);

  /// exchange() of the residents to the owners of their keys in `d`.
  template <class Distribution>
  ExchangeSummary exchange_to(MPI_Comm comm, const Distribution& d) {
    return exchange_riding(comm, d, [](detail::Rider*) {});  // nothing to ride on
  }
  /// As exchange_to(), the records riding on `carry`'s collective
  /// (detail::exchange_keyed_riding(); a carry that sends nothing leaves
  /// them to their own MPI_Alltoallv).
  template <class Distribution, class Carry>
  ExchangeSummary exchange_riding(MPI_Comm comm, const Distribution& d, Carry&& carry) {
    return std::apply(
        [&](auto&... a) {
          if constexpr (std::is_same_v<Key, std::vector<std::int64_t>&>) {
            const std::int64_t* k = key.data();
            return detail::exchange_keyed_riding(
                comm, d, ExchangeOptions{}, key.size(), [k](std::size_t i) { return k[i]; }, carry,
                key, a...);
          } else {
            const std::size_t lengths[] = {a.size()...};
            return detail::exchange_keyed_riding(comm, d, ExchangeOptions{}, lengths[0], key, carry,
                                                 a...);
          }
        },
        arrays);
  }
};

/// Residents whose keys travel in `keys`.
template <class... T>
Residents<std::vector<std::int64_t>&, T...> residents(std::vector<std::int64_t>& keys,
                                                      std::vector<T>&... arrays) {
  static_assert(sizeof...(T) >= 1, "residents() needs at least one array");
  return {keys, {arrays...}};
}

/// Residents whose keys `key(i)` computes (nothing but the arrays travels).
template <class Key, class... T>
requires std::is_invocable_r_v<std::int64_t, Key&, std::size_t> Residents<Key, T...> residents(
    Key key, std::vector<T>&... arrays) {
  static_assert(sizeof...(T) >= 1, "residents() needs at least one array");
  return {std::move(key), {arrays...}};
}

}  // namespace isocost::mpi
