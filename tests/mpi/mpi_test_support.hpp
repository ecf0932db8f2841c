// Shared by the MPI tests: rank and size, error capture, and collective checks
// that every rank agrees and is still in step after an agreed error.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <new>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/mpi/migrate.hpp"
#include "isocost/mpi/redistribute.hpp"

namespace isocost::testing {

/// A 64-bit mixer (MurmurHash3's finaliser) for order-independent checksums
/// of elements: Σ mix64(hash of each) is the same however they are spread.
inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

inline int rank_of(MPI_Comm comm = MPI_COMM_WORLD) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

inline int size_of(MPI_Comm comm = MPI_COMM_WORLD) {
  int s = 0;
  MPI_Comm_size(comm, &s);
  return s;
}

/// Runs `call` and returns the isocost::Error message, or "" if nothing was thrown.
template <class F>
std::string error_of(F&& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

/// Expects the error message to contain `part`.
inline void expect_has(const std::string& msg, const std::string& part) {
  EXPECT_NE(msg.find(part), std::string::npos) << "message '" << msg << "' lacks '" << part << "'";
}

/// After an agreed error every rank must still be in step: one more collective.
inline void expect_in_step(MPI_Comm comm = MPI_COMM_WORLD) {
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
  EXPECT_EQ(sum, size_of(comm));
}

/// Collective: true if `text` is the same on every rank.
inline bool same_everywhere(const std::string& text) {
  const unsigned long long h = std::hash<std::string>{}(text), nh = ~h;
  unsigned long long hmax = 0, nhmax = 0;
  MPI_Allreduce(&h, &hmax, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&nh, &nhmax, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  return hmax == ~nhmax;
}

/// Collective: every rank's error message is non-empty, identical, and has `part`.
inline void expect_agreed_error(const std::string& msg, const std::string& part) {
  const bool same = same_everywhere(msg);
  EXPECT_TRUE(same) << "rank " << rank_of() << " got '" << msg << "'";
  EXPECT_FALSE(msg.empty()) << "no error on rank " << rank_of();
  expect_has(msg, part);
  expect_in_step();
}

/// Collective: the ranks' ids together are 0 … n − 1, each once by count
/// and sum (after an exchange: nothing lost, nothing doubled).
inline void expect_ids_conserved(const std::vector<std::int64_t>& ids, std::int64_t n) {
  std::int64_t sum = 0, count = static_cast<std::int64_t>(ids.size()), total = 0;
  for (const std::int64_t id : ids) sum += id;
  MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&count, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, n);
  EXPECT_EQ(sum, n * (n - 1) / 2);
}

/// The ids (keys) of a rank's task store, in order.
inline std::vector<std::int64_t> ids_of(const std::map<std::int64_t, std::string>& items) {
  std::vector<std::int64_t> ids;
  for (const auto& [id, payload] : items) ids.push_back(id);
  return ids;
}

/// One rank's tasks (id -> payload) and the migration callbacks over them,
/// with injected failures: size() throws std::runtime_error and pack() throws
/// std::bad_alloc for chosen ids; unpack() returns false (for chosen ids, or
/// for every id when `reject_all`) or throws std::bad_alloc for chosen ids.
/// Checks that pack() gets a buffer of the payload's size and unpack() a
/// 16-byte aligned payload, and counts the calls.
struct TaskStore {
  std::map<std::int64_t, std::string> items;
  std::set<std::int64_t> size_throws, pack_throws, unpack_false, unpack_throws;
  bool reject_all = false;
  int size_calls = 0, pack_calls = 0, unpack_calls = 0, free_calls = 0;
  bool duplicate_unpack = false;  ///< an id was unpacked while already held

  int calls() const { return size_calls + pack_calls + unpack_calls + free_calls; }
  std::vector<std::int64_t> ids() const { return ids_of(items); }

  mpi::MigrationCallbacks callbacks() {
    mpi::MigrationCallbacks cb;
    cb.size = [this](std::int64_t id) -> std::size_t {
      ++size_calls;
      if (size_throws.count(id)) throw std::runtime_error("size failed");
      return items.at(id).size();
    };
    cb.pack = [this](std::int64_t id, std::span<std::byte> buf) {
      ++pack_calls;
      if (pack_throws.count(id)) throw std::bad_alloc();
      const auto& s = items.at(id);
      if (buf.size() != s.size()) throw std::logic_error("pack buffer of the wrong size");
      std::memcpy(buf.data(), s.data(), s.size());
    };
    cb.unpack = [this](std::int64_t id, std::span<const std::byte> bytes) {
      ++unpack_calls;
      if (reject_all || unpack_false.count(id)) return false;
      if (unpack_throws.count(id)) throw std::bad_alloc();
      if (reinterpret_cast<std::uintptr_t>(bytes.data()) % 16 != 0)
        throw std::logic_error("unaligned payload");
      if (items.count(id)) duplicate_unpack = true;
      items[id] = std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      return true;
    };
    cb.free = [this](std::int64_t id) {
      ++free_calls;
      items.erase(id);
    };
    return cb;
  }
};

/// Collective: every rank's held ids, on every rank: id -> ranks holding it
/// (duplicates counted).
inline std::map<std::int64_t, std::vector<int>> gather_holdings(
    const std::vector<std::int64_t>& mine) {
  const int P = size_of();
  const int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(P)), displs(static_cast<std::size_t>(P), 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (std::size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<std::int64_t> all(static_cast<std::size_t>(displs.back() + counts.back()));
  MPI_Allgatherv(mine.data(), n, MPI_INT64_T, all.data(), counts.data(), displs.data(), MPI_INT64_T,
                 MPI_COMM_WORLD);
  std::map<std::int64_t, std::vector<int>> where;
  for (int r = 0; r < P; ++r)
    for (int k = 0; k < counts[static_cast<std::size_t>(r)]; ++k)
      where[all[static_cast<std::size_t>(displs[static_cast<std::size_t>(r)] + k)]].push_back(r);
  return where;
}

}  // namespace isocost::testing
