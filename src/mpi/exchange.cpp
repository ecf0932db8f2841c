// Sending elements to the rank that owns them (exchange.hpp): records of
// every array's element in one MPI_Alltoallv, kept elements first.
#include "isocost/mpi/exchange.hpp"

#include <climits>
#include <cstring>
#include <exception>
#include <new>
#include <sstream>

#include "isocost/error.hpp"
#include "mpi/agreement.hpp"
#include "mpi/transfer.hpp"

namespace isocost::mpi {

using detail::i64;
using detail::u64;

std::string ExchangeSummary::brief_report() const {
  std::ostringstream out;
  out << "exchange (rank " << rank << " of " << ranks << "): kept " << elements_kept << ", sent "
      << elements_sent << ", received " << elements_received << " records of " << record_size
      << " B; global: " << global_moved << " of " << global_elements << " elements moved"
      << (verified ? ", verified" : "") << ", " << seconds * 1e3 << " ms";
  return out.str();
}

namespace detail {

std::string key_out_of_range(std::size_t i, std::int64_t key, std::int64_t size, bool cells) {
  return isocost::detail::expected_got(
      "element " + std::to_string(i) + "'s key",
      std::string(cells ? "a cell index" : "an index") + " in [0, " + std::to_string(size) + ")",
      std::to_string(key));
}

std::string destination_out_of_range(std::size_t i, int q, int size) {
  return isocost::detail::expected_got("element " + std::to_string(i) + "'s destination",
                                       "a rank in [0, " + std::to_string(size) + ")",
                                       std::to_string(q));
}

namespace {

template <class Distribution>
std::string owners_problem(const Distribution& d, int size) {
  if (std::string e; !d.is_valid(&e)) return "distribution: " + e;
  if (d.parts() != size)
    return "the distribution has " + std::to_string(d.parts()) + " parts, expected " +
           std::to_string(size) + " (one per rank of the communicator)";
  return {};
}

}  // namespace

std::string check_owners(const BlockDistribution& d, int size) { return owners_problem(d, size); }
std::string check_owners(const BoxDistribution& d, int size) { return owners_problem(d, size); }

std::uint64_t record_hash(const std::byte* record, std::size_t bytes) {
  return element_hash(0, record, bytes);
}

void exchange_start(MPI_Comm comm, const char* what, ExchangeState& s) {
  check_comm(comm, what);
  s.t0 = MPI_Wtime();
  s.comm = comm;
  MPI_Comm_rank(comm, &s.rank);
  MPI_Comm_size(comm, &s.ranks);
}

namespace {

// What every rank tells every other in the one MPI_Alltoall: its verdict,
// the hashes that must agree, the count it sends there, and its totals.
enum Word { kBad, kOptions, kSizes, kOwners, kCount, kElements, kSent, kWords };

}  // namespace

std::string exchange_begin(ExchangeState& s, const char* what, std::size_t n,
                           std::span<const std::size_t> lengths, std::span<const std::size_t> sizes,
                           const Departures& leaving, const ExchangeOptions& options,
                           std::string problem, std::uint64_t owner_hash) {
  const auto P = static_cast<std::size_t>(s.ranks);
  s.n = n;
  std::string size_text;
  Hasher size_hash;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    s.record += sizes[k];
    size_text += (k ? " " : "") + std::to_string(sizes[k]);
    size_hash.add(static_cast<u64>(sizes[k]));
  }
  if (problem.empty()) {
    if (std::string e; !options.is_valid(&e)) problem = "options." + e;
  }
  for (std::size_t k = 0; problem.empty() && k < lengths.size(); ++k)
    if (lengths[k] != n)
      problem = "array " + std::to_string(k) + " holds " + std::to_string(lengths[k]) +
                " elements, expected " + std::to_string(n) + " (one per element)";
  // The records for each rank.
  s.send_count.assign(P, 0);
  s.recv_count.assign(P, 0);
  if (problem.empty())
    for (const int q : leaving.to) ++s.send_count[static_cast<std::size_t>(q)];
  if (problem.empty() && static_cast<i64>(leaving.index.size()) > INT_MAX)
    problem = std::to_string(leaving.index.size()) +
              " leaving records, expected at most INT_MAX (MPI counts)";
  const u64 options_hash = isocost::options_hash(options);
  const auto sent = static_cast<u64>(problem.empty() ? leaving.index.size() : 0);
  std::vector<u64> out(P * kWords), in(P * kWords);
  for (std::size_t q = 0; q < P; ++q) {
    u64* w = &out[q * kWords];
    w[kBad] = problem.empty() ? 0 : 1;
    w[kOptions] = options_hash;
    w[kSizes] = size_hash.h;
    w[kOwners] = owner_hash;
    w[kCount] = static_cast<u64>(s.send_count[q]);
    w[kElements] = n;
    w[kSent] = sent;
  }
  MPI_Alltoall(out.data(), kWords, MPI_UINT64_T, in.data(), kWords, MPI_UINT64_T, s.comm);
  bool bad = false;
  u64 received = 0, elements = 0, moved = 0;
  for (std::size_t q = 0; q < P; ++q) {
    const u64* w = &in[q * kWords];
    bad = bad || w[kBad] != 0 || w[kOptions] != in[kOptions] || w[kSizes] != in[kSizes] ||
          w[kOwners] != in[kOwners];
    s.recv_count[q] = static_cast<i64>(w[kCount]);
    received += w[kCount];
    elements += w[kElements];
    moved += w[kSent];
  }
  if (bad) {
    // Every rank saw the same words: all take this path, and agree() names it.
    const Same same[] = {same_options(options),
                         {size_hash.h, "element sizes",
                          [&size_text] { return "element_sizes\t" + size_text + "\n"; }},
                         {owner_hash, "the distribution"}};
    agree(s.comm, what, problem, same);
    throw Error(std::string(what) + ": the ranks' inputs disagree");  // not reached
  }
  s.global_elements = static_cast<i64>(elements);
  s.global_moved = static_cast<i64>(moved);
  s.kept = n - leaving.index.size();
  s.received = static_cast<std::size_t>(received);
  s.total = s.kept + s.received;
  if (received > static_cast<u64>(INT_MAX))
    return std::to_string(received) + " arriving records, expected at most INT_MAX (MPI counts)";
  s.send_start.assign(P, 0);
  for (std::size_t q = 1; q < P; ++q)
    s.send_start[q] = s.send_start[q - 1] + static_cast<std::size_t>(s.send_count[q - 1]);
  try {
    s.send.resize(leaving.index.size() * s.record);
    s.recv.resize(s.received * s.record);
  } catch (const std::bad_alloc&) {
    return "could not allocate the buffers of " + std::to_string(leaving.index.size()) +
           " leaving and " + std::to_string(s.received) + " arriving records of " +
           std::to_string(s.record) + " B";
  }
  return {};
}

void exchange_memory_post(ExchangeState& s, const std::string& memory) {
  s.memory_flag = memory.empty() ? 0 : 1;
  MPI_Iallreduce(&s.memory_flag, &s.memory_any, 1, MPI_INT, MPI_MAX, s.comm, &s.memory_request);
}

bool exchange_memory_ok(ExchangeState& s) {
  MPI_Wait(&s.memory_request, MPI_STATUS_IGNORE);
  return s.memory_any == 0;
}

void exchange_memory_fail(const ExchangeState& s, const char* what, const std::string& memory) {
  throw_agreed(s.comm, what, memory, "out of memory (nothing moved) on");
}

void exchange_transfer(ExchangeState& s) {
  // One contiguous datatype per record: counts and displacements are records.
  const std::size_t P = s.send_count.size();
  std::vector<int> sc(P), sd(P), rc(P), rd(P);
  int so = 0, ro = 0;
  for (std::size_t q = 0; q < P; ++q) {
    sc[q] = static_cast<int>(s.send_count[q]);
    rc[q] = static_cast<int>(s.recv_count[q]);
    sd[q] = so;
    rd[q] = ro;
    so += sc[q];
    ro += rc[q];
  }
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(static_cast<int>(s.record), MPI_BYTE, &type);
  MPI_Type_commit(&type);
  MPI_Alltoallv(s.send.data(), sc.data(), sd.data(), type, s.recv.data(), rc.data(), rd.data(),
                type, s.comm);
  MPI_Type_free(&type);
}

Rider exchange_rider(ExchangeState& s) {
  const std::size_t P = s.send_count.size();
  Rider r;
  r.record = s.record;
  r.send.resize(P);
  r.recv.resize(P);
  r.send_count.resize(P);
  r.recv_count.resize(P);
  std::size_t so = 0, ro = 0;
  for (std::size_t q = 0; q < P; ++q) {
    r.send[q] = s.send.data() + so * s.record;
    r.recv[q] = s.recv.data() + ro * s.record;
    r.send_count[q] = static_cast<int>(s.send_count[q]);
    r.recv_count[q] = static_cast<int>(s.recv_count[q]);
    so += static_cast<std::size_t>(s.send_count[q]);
    ro += static_cast<std::size_t>(s.recv_count[q]);
  }
  return r;
}

void exchange_end(const ExchangeState& s, bool verify, std::uint64_t before, std::uint64_t after,
                  ExchangeSummary& out) {
  out.rank = s.rank;
  out.ranks = s.ranks;
  out.record_size = s.record;
  out.elements_kept = static_cast<i64>(s.kept);
  out.elements_sent = static_cast<i64>(s.n - s.kept);
  out.elements_received = static_cast<i64>(s.received);
  out.global_elements = s.global_elements;
  out.global_moved = s.global_moved;
  if (verify) {
    u64 mine[4] = {static_cast<u64>(s.n), static_cast<u64>(s.total), before, after};
    u64 sum[4] = {};
    MPI_Allreduce(mine, sum, 4, MPI_UINT64_T, MPI_SUM, s.comm);
    if (sum[0] != sum[1] || sum[2] != sum[3])
      throw Error("exchange: verification failed: " + std::to_string(sum[0]) +
                  " elements before, " + std::to_string(sum[1]) +
                  " after, or their checksums differ; expected the same elements");
    out.verified = true;
    out.checksum = sum[2];
  }
  out.seconds = MPI_Wtime() - s.t0;
}

}  // namespace detail

}  // namespace isocost::mpi
