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

std::string owners_of(const BlockDistribution& d, std::span<const std::int64_t> keys,
                      std::vector<int>& destination) {
  if (std::string e; !d.is_valid(&e)) return "distribution: " + e;
  try {
    destination.resize(keys.size());
  } catch (const std::bad_alloc&) {
    return "could not allocate the destinations of " + std::to_string(keys.size()) + " elements";
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] < 0 || keys[i] >= d.size())
      return "element " + std::to_string(i) + " has key " + std::to_string(keys[i]) +
             ", expected an index in [0, " + std::to_string(d.size()) + ")";
    destination[i] = d.owner(keys[i]);
  }
  return {};
}

std::string owners_of(const BoxDistribution& d, std::span<const std::int64_t> keys,
                      std::vector<int>& destination) {
  if (std::string e; !d.is_valid(&e)) return "distribution: " + e;
  const CellOwners owners(d);
  try {
    destination.resize(keys.size());
  } catch (const std::bad_alloc&) {
    return "could not allocate the destinations of " + std::to_string(keys.size()) + " elements";
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    destination[i] = owners.owner(keys[i]);
    if (destination[i] < 0)
      return "element " + std::to_string(i) + " has key " + std::to_string(keys[i]) +
             ", expected a cell index in [0, " + std::to_string(d.size()) + ")";
  }
  return {};
}

namespace {

// The records of the elements going to each rank, packed by destination in
// the elements' order; `kept` lists the elements that stay.
struct Outgoing {
  std::vector<i64> count;  // per destination rank
  std::vector<std::byte> records;
  std::vector<std::size_t> kept;
};

std::string pack(std::span<const int> destination, std::span<ExchangeArray> arrays, int rank,
                 std::size_t record, Outgoing& out) {
  const std::size_t P = out.count.size();
  std::vector<i64> start(P + 1, 0);
  for (const int q : destination)
    if (q != rank) ++out.count[static_cast<std::size_t>(q)];
  for (std::size_t q = 0; q < P; ++q) start[q + 1] = start[q] + out.count[q];
  try {
    out.records.resize(static_cast<std::size_t>(start[P]) * record);
    out.kept.reserve(destination.size() - static_cast<std::size_t>(start[P]));
  } catch (const std::bad_alloc&) {
    return "could not allocate the send buffer (" + std::to_string(start[P]) + " records of " +
           std::to_string(record) + " B)";
  }
  std::vector<i64> next(start.begin(), start.end() - 1);
  for (std::size_t i = 0; i < destination.size(); ++i) {
    const auto q = static_cast<std::size_t>(destination[i]);
    if (destination[i] == rank) {
      out.kept.push_back(i);
      continue;
    }
    std::byte* p = out.records.data() + static_cast<std::size_t>(next[q]++) * record;
    for (auto& a : arrays) {
      std::memcpy(p, a.data(a.vector) + i * a.element_size, a.element_size);
      p += a.element_size;
    }
  }
  return {};
}

// Order-independent checksum of records: Σ hash(bytes).
u64 checksum(const std::byte* records, std::size_t n, std::size_t record) {
  u64 sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += detail::element_hash(0, records + i * record, record);
  return sum;
}

}  // namespace

ExchangeSummary exchange_bytes(MPI_Comm comm, std::span<const int> destination,
                               std::span<ExchangeArray> arrays, const ExchangeOptions& options,
                               std::string problem, const ExchangeOwners* owners) {
  const char* what = "exchange";
  detail::check_comm(comm, what);
  const double t0 = MPI_Wtime();
  ExchangeSummary s;
  MPI_Comm_rank(comm, &s.rank);
  MPI_Comm_size(comm, &s.ranks);
  const int P = s.ranks;
  std::size_t record = 0;
  std::string sizes;
  detail::Hasher size_hash;
  for (const auto& a : arrays) {
    record += a.element_size;
    sizes += (sizes.empty() ? "" : " ") + std::to_string(a.element_size);
    size_hash.add(static_cast<u64>(a.element_size));
  }
  s.record_size = record;
  const std::size_t n = destination.size();
  if (problem.empty()) {
    if (std::string e; !options.is_valid(&e)) problem = "options." + e;
  }
  for (std::size_t k = 0; problem.empty() && k < arrays.size(); ++k)
    if (arrays[k].size != n)
      problem = "array " + std::to_string(k) + " holds " + std::to_string(arrays[k].size) +
                " elements, expected " + std::to_string(n) + " (one per element)";
  for (std::size_t i = 0; problem.empty() && i < n; ++i)
    if (destination[i] < 0 || destination[i] >= P)
      problem = "element " + std::to_string(i) + " goes to rank " + std::to_string(destination[i]) +
                ", expected a rank in [0, " + std::to_string(P) + ")";
  if (problem.empty() && owners && owners->parts != P)
    problem = "the distribution has " + std::to_string(owners->parts) + " parts, expected " +
              std::to_string(P) + " (one per rank of the communicator)";
  Outgoing out;
  out.count.assign(static_cast<std::size_t>(P), 0);
  if (problem.empty()) problem = pack(destination, arrays, s.rank, record, out);
  for (std::size_t q = 0; problem.empty() && q < out.count.size(); ++q)
    if (out.count[q] > INT_MAX)
      problem = std::to_string(out.count[q]) + " records for rank " + std::to_string(q) +
                ", expected at most INT_MAX";
  // Without a distribution its slot compares a constant: equal everywhere.
  const detail::Same same[] = {
      detail::same_options(options),
      {size_hash.h, "element sizes", [&sizes] { return "element_sizes\t" + sizes + "\n"; }},
      {owners ? owners->hash : 0, "the distribution"}};
  detail::agree(comm, what, problem, same);

  // Counts, then every allocation, agreed before the records move.
  std::vector<i64> in_count(static_cast<std::size_t>(P));
  MPI_Alltoall(out.count.data(), 1, MPI_INT64_T, in_count.data(), 1, MPI_INT64_T, comm);
  i64 received = 0;
  for (const i64 c : in_count) received += c;
  std::vector<std::byte> in_records;
  const std::size_t total = out.kept.size() + static_cast<std::size_t>(received);
  std::string memory;
  std::size_t grown = 0;  // arrays already resized
  try {
    in_records.resize(static_cast<std::size_t>(received) * record);
    for (auto& a : arrays) {
      a.resize(a.vector, std::max(total, n));
      ++grown;
    }
  } catch (const std::exception& e) {  // std::bad_alloc, or an element's constructor
    memory = "could not allocate room for " + std::to_string(total) + " elements of " +
             std::to_string(record) + " B (" + e.what() + ")";
  }
  // Roll back: the arrays grown so far shrink to their old length (which
  // does not allocate; their first n elements are untouched), the one that
  // failed is unchanged (std::vector::resize's strong guarantee).
  if (!memory.empty())
    for (std::size_t k = 0; k < grown; ++k) arrays[k].resize(arrays[k].vector, n);
  detail::agree(comm, what, memory, {}, "out of memory (nothing moved) on");

  u64 before = 0;
  if (options.verify) {
    before =
        checksum(out.records.data(), out.records.size() / std::max<std::size_t>(record, 1), record);
    std::vector<std::byte> one(record);
    for (const std::size_t i : out.kept) {
      std::byte* p = one.data();
      for (auto& a : arrays) {
        std::memcpy(p, a.data(a.vector) + i * a.element_size, a.element_size);
        p += a.element_size;
      }
      before += detail::element_hash(0, one.data(), record);
    }
  }
  {
    // One contiguous datatype per record: counts are record counts.
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(static_cast<int>(record), MPI_BYTE, &type);
    MPI_Type_commit(&type);
    std::vector<int> sc(static_cast<std::size_t>(P)), sd(sc.size()), rc(sc.size()), rd(sc.size());
    int so = 0, ro = 0;
    for (std::size_t q = 0; q < sc.size(); ++q) {
      sc[q] = static_cast<int>(out.count[q]);
      rc[q] = static_cast<int>(in_count[q]);
      sd[q] = so;
      rd[q] = ro;
      so += sc[q];
      ro += rc[q];
    }
    MPI_Alltoallv(out.records.data(), sc.data(), sd.data(), type, in_records.data(), rc.data(),
                  rd.data(), type, comm);
    MPI_Type_free(&type);
  }
  // Kept elements move to the front in order (k <= i, so nothing is
  // overwritten before it is read), then the received ones follow.
  for (std::size_t k = 0; k < out.kept.size(); ++k)
    for (auto& a : arrays)
      if (out.kept[k] != k)
        std::memmove(a.data(a.vector) + k * a.element_size,
                     a.data(a.vector) + out.kept[k] * a.element_size, a.element_size);
  for (std::size_t k = 0; k < static_cast<std::size_t>(received); ++k) {
    const std::byte* p = in_records.data() + k * record;
    for (auto& a : arrays) {
      std::memcpy(a.data(a.vector) + (out.kept.size() + k) * a.element_size, p, a.element_size);
      p += a.element_size;
    }
  }
  for (auto& a : arrays) a.resize(a.vector, total);

  u64 after = 0;
  if (options.verify) {
    after = checksum(in_records.data(), static_cast<std::size_t>(received), record);
    std::vector<std::byte> one(record);
    for (std::size_t k = 0; k < out.kept.size(); ++k) {
      std::byte* p = one.data();
      for (auto& a : arrays) {
        std::memcpy(p, a.data(a.vector) + k * a.element_size, a.element_size);
        p += a.element_size;
      }
      after += detail::element_hash(0, one.data(), record);
    }
  }
  s.elements_kept = static_cast<i64>(out.kept.size());
  s.elements_sent = static_cast<i64>(n) - s.elements_kept;
  s.elements_received = received;
  u64 mine[5] = {static_cast<u64>(n), static_cast<u64>(s.elements_sent), before, total, after};
  u64 sum[5] = {};
  MPI_Allreduce(mine, sum, 5, MPI_UINT64_T, MPI_SUM, comm);
  s.global_elements = static_cast<i64>(sum[0]);
  s.global_moved = static_cast<i64>(sum[1]);
  if (options.verify) {
    if (sum[0] != sum[3] || sum[2] != sum[4])
      throw Error("exchange: verification failed: " + std::to_string(sum[0]) +
                  " elements before, " + std::to_string(sum[3]) +
                  " after, or their checksums differ; expected the same elements");
    s.verified = true;
    s.checksum = sum[2];
  }
  s.seconds = MPI_Wtime() - t0;
  return s;
}

}  // namespace detail

}  // namespace isocost::mpi
