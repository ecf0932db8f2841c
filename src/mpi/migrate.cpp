// Task migration with pack/unpack/free callbacks (migrate.hpp; Watts ch. 3,
// §3.2.6): records of (id, size, bytes) in one MPI_Alltoallv, unpacked by the
// receiver and freed by the sender only once the receiver confirmed.
#include "isocost/mpi/migrate.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <numeric>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/mpi/redistribute.hpp"
#include "mpi/agreement.hpp"
#include "mpi/migrate_internal.hpp"
#include "mpi/transfer.hpp"

namespace isocost::mpi {

using namespace detail;  // i64, u64, hashing, units, buffers (transfer.hpp)

std::string to_string(MigrationStage stage) {
  switch (stage) {
    case MigrationStage::size:
      return "size";
    case MigrationStage::pack:
      return "pack";
    case MigrationStage::receive:
      return "receive";
    case MigrationStage::unpack:
      return "unpack";
  }
  return "?";
}

std::string MigrateSummary::brief_report() const {
  std::ostringstream out;
  out << "migrate (rank " << rank << " of " << ranks << "): sent " << elements_sent << " elements ("
      << bytes_sent << " B payload, " << wire_bytes_sent << " B on the wire), "
      << "received " << elements_received << " (" << bytes_received
      << " B); global: " << global_moved << " of " << global_moves << " moves done ("
      << global_bytes_moved << " B), " << failed.size() << " failed";
  for (std::size_t i = 0; i < failed.size() && i < 5; ++i)
    out << (i ? ", " : " (") << "id " << failed[i].id << " " << failed[i].from << "->"
        << failed[i].to << " at " << to_string(failed[i].stage);
  if (!failed.empty()) out << (failed.size() > 5 ? ", …)" : ")");
  out << (verified ? ", verified" : "") << ", " << seconds * 1e3 << " ms";
  return out.str();
}

// ---------------------------------------------------------------------------
// migrate

namespace {

constexpr i64 kHeader = 16;  // record: int64 id, int64 size, payload padded to 16 bytes
constexpr i64 kAlign = 16;
// Sizes beyond this are refused as a size() failure (they could not be
// allocated anyway, and sums of them stay far from overflow).
constexpr i64 kMaxElementBytes = i64{1} << 50;

enum Status : unsigned char { kOk = 0, kRejected = 1, kUnpackFailed = 2 };

u64 moves_hash(std::span<const TaskMove> moves) {
  Hasher h;
  h.add(static_cast<u64>(moves.size()));
  for (const auto& m : moves) {
    h.add(m.id);
    h.add(static_cast<i64>(m.from));
    h.add(static_cast<i64>(m.to));
  }
  return h.h;
}

std::string check_migrate_input(int rank, int P, std::span<const std::int64_t> held,
                                std::span<const TaskMove> moves, const MigrationCallbacks& cb,
                                const MigrateOptions& options) {
  std::string e;
  if (!options.is_valid(&e)) return "options." + e;
  if (auto m = check_max_count(options.max_mpi_count, P); !m.empty()) return m;
  if (auto m = detail::empty_callbacks(cb); !m.empty()) return m;
  std::vector<i64> h(held.begin(), held.end());
  std::sort(h.begin(), h.end());
  if (auto it = std::adjacent_find(h.begin(), h.end()); it != h.end())
    return "held lists id " + std::to_string(*it) + " twice, expected unique ids";
  std::vector<std::pair<i64, std::size_t>> ids;
  ids.reserve(moves.size());
  for (std::size_t i = 0; i < moves.size(); ++i) {
    const auto& m = moves[i];
    for (int rr : {m.from, m.to})
      if (rr < 0 || rr >= P)
        return "moves[" + std::to_string(i) + "] (id " + std::to_string(m.id) + ") names rank " +
               std::to_string(rr) + ", expected a rank in [0, " + std::to_string(P) + ")";
    if (m.from == rank && !std::binary_search(h.begin(), h.end(), m.id))
      return "moves[" + std::to_string(i) + "] moves id " + std::to_string(m.id) + " from rank " +
             std::to_string(rank) + ", which does not hold it";
    ids.emplace_back(m.id, i);
  }
  std::sort(ids.begin(), ids.end());
  for (std::size_t i = 1; i < ids.size(); ++i)
    if (ids[i].first == ids[i - 1].first)
      return "moves[" + std::to_string(ids[i - 1].second) + "] and moves[" +
             std::to_string(ids[i].second) + "] both move id " + std::to_string(ids[i].first) +
             ", expected each id at most once";
  return {};
}

}  // namespace

MigrateSummary migrate(MPI_Comm comm, std::span<const std::int64_t> held,
                       std::span<const TaskMove> moves, const MigrationCallbacks& callbacks,
                       const MigrateOptions& options) {
  return migrate_elements(comm, held, moves, callbacks, options, "migrate", nullptr);
}

MigrateSummary detail::migrate_elements(MPI_Comm comm, std::span<const std::int64_t> held,
                                        std::span<const TaskMove> moves,
                                        const MigrationCallbacks& callbacks,
                                        const MigrateOptions& options, const char* what,
                                        RollBack* all_or_nothing) {
  check_comm(comm, what);
  const double t0 = MPI_Wtime();
  MigrateSummary s;
  MPI_Comm_rank(comm, &s.rank);
  MPI_Comm_size(comm, &s.ranks);
  const int rank = s.rank, P = s.ranks;
  const auto uP = static_cast<std::size_t>(P);
  {
    const std::string problem = check_migrate_input(rank, P, held, moves, callbacks, options);
    const Same same[] = {{moves_hash(moves), "moves"}, same_options(options)};
    agree(comm, what, problem, same);
  }
  for (const auto& m : moves) s.global_moves += m.from != m.to;

  std::vector<MigrationFailure> failures;  // this rank's elements that stay
  auto fail = [&](const TaskMove& m, MigrationStage st) {
    failures.push_back({m.id, m.from, m.to, st});
  };

  // 1. Size, in the moves' order.
  struct Out {
    std::size_t move;  // index into moves
    i64 size = 0;
  };
  std::vector<Out> outgoing;
  for (std::size_t i = 0; i < moves.size(); ++i) {
    const auto& m = moves[i];
    if (m.from != rank || m.to == rank) continue;
    try {
      const std::size_t n = callbacks.size(m.id);
      if (n > static_cast<std::size_t>(kMaxElementBytes)) {
        fail(m, MigrationStage::size);
        continue;
      }
      outgoing.push_back({i, static_cast<i64>(n)});
    } catch (...) {
      fail(m, MigrationStage::size);
    }
  }
  // 2. Pack, grouped by destination (stable: moves' order within one).
  std::stable_sort(outgoing.begin(), outgoing.end(),
                   [&](const Out& a, const Out& b) { return moves[a.move].to < moves[b.move].to; });
  i64 packed_capacity = 0;
  for (const auto& o : outgoing) packed_capacity += kHeader + round_up(o.size, kAlign);
  Buffer packed;
  try {
    packed = allocate(packed_capacity);
  } catch (...) {  // std::bad_alloc: none of this rank's elements can leave
    for (const auto& o : outgoing) fail(moves[o.move], MigrationStage::pack);
    outgoing.clear();
  }
  std::vector<i64> sbytes(uP, 0), srecords(uP, 0);
  std::vector<std::vector<const Out*>> sent(uP);  // records per destination, in order
  u64 sent_sum = 0;
  i64 pos = 0;
  for (const auto& o : outgoing) {
    const auto& m = moves[o.move];
    std::byte* rec = packed.get() + pos;
    const i64 padded = round_up(o.size, kAlign);
    try {
      callbacks.pack(m.id, std::span<std::byte>(rec + kHeader, static_cast<std::size_t>(o.size)));
    } catch (...) {
      fail(m, MigrationStage::pack);
      continue;  // the next record overwrites whatever was written
    }
    std::memcpy(rec, &m.id, 8);
    std::memcpy(rec + 8, &o.size, 8);
    std::memset(rec + kHeader + o.size, 0, static_cast<std::size_t>(padded - o.size));
    if (options.verify)
      sent_sum += element_hash(m.id, rec + kHeader, static_cast<std::size_t>(o.size));
    const auto q = static_cast<std::size_t>(m.to);
    sbytes[q] += kHeader + padded;
    ++srecords[q];
    sent[q].push_back(&o);
    pos += kHeader + padded;
  }
  const i64 send_total = pos;

  // 3. Sizes: per peer {bytes, records, my total}; the totals of all ranks
  // bound every rank's send and receive volume and fix the unit.
  std::vector<i64> sinfo(3 * uP), rinfo(3 * uP);
  for (std::size_t q = 0; q < uP; ++q) {
    sinfo[3 * q] = sbytes[q];
    sinfo[3 * q + 1] = srecords[q];
    sinfo[3 * q + 2] = send_total;
  }
  MPI_Alltoall(sinfo.data(), 3, MPI_INT64_T, rinfo.data(), 3, MPI_INT64_T, comm);
  i64 global_send = 0;
  std::vector<i64> rbytes(uP), rrecords(uP);
  for (std::size_t q = 0; q < uP; ++q) {
    rbytes[q] = rinfo[3 * q];
    rrecords[q] = rinfo[3 * q + 1];
    global_send += rinfo[3 * q + 2];
  }
  const i64 g = choose_unit(ceil_div(global_send, kAlign), P, options.max_mpi_count);
  const i64 unit = kAlign * g;
  s.unit_bytes = unit;

  // 4. Buffers in units (segments padded to whole units), then agree that
  // every rank has them: nothing is unpacked or freed if one cannot.
  std::vector<i64> sc(uP), sd(uP), rc(uP), rd(uP);
  i64 stotal = 0, rtotal = 0;
  for (std::size_t q = 0; q < uP; ++q) {
    sc[q] = ceil_div(sbytes[q], unit);
    sd[q] = stotal;
    stotal += sc[q];
    rc[q] = ceil_div(rbytes[q], unit);
    rd[q] = rtotal;
    rtotal += rc[q];
  }
  s.wire_bytes_sent = stotal * unit;
  Buffer staged, received;
  const std::byte* sendbuf = packed.get();
  // The arrived records' bookkeeping (step 5), allocated here too.
  std::unordered_map<i64, int> expected;  // id -> its sender
  struct In {
    i64 id;
    i64 size;
    const std::byte* bytes;
  };
  std::vector<std::vector<In>> arrived(uP);
  std::vector<std::vector<unsigned char>> status(uP);
  {
    std::string problem;
    try {
      if (g > 1) {  // re-lay the packed segments at unit boundaries
        staged = allocate(stotal * unit);
        i64 from_pos = 0;
        for (std::size_t q = 0; q < uP; ++q) {
          std::byte* dst = staged.get() + sd[q] * unit;
          std::memcpy(dst, packed.get() + from_pos, static_cast<std::size_t>(sbytes[q]));
          std::memset(dst + sbytes[q], 0, static_cast<std::size_t>(sc[q] * unit - sbytes[q]));
          from_pos += sbytes[q];
        }
        sendbuf = staged.get();
      }
    } catch (const std::bad_alloc&) {
      problem = "could not allocate " + std::to_string(stotal * unit) +
                " bytes to stage the outgoing records";
    }
    if (problem.empty()) {
      try {
        received = allocate(rtotal * unit);
      } catch (const std::bad_alloc&) {
        problem = "could not allocate " + std::to_string(rtotal * unit) +
                  " bytes for the arriving records";
      }
    }
    if (problem.empty()) {
      try {
        for (const auto& m : moves)
          if (m.to == rank && m.from != rank) expected.emplace(m.id, m.from);
        for (std::size_t q = 0; q < uP; ++q) {
          status[q].assign(static_cast<std::size_t>(rrecords[q]), kRejected);
          arrived[q].reserve(static_cast<std::size_t>(rrecords[q]));
        }
      } catch (const std::bad_alloc&) {
        problem = "could not allocate the bookkeeping of " + std::to_string(expected.size()) +
                  " arriving records";
      }
    }
    agree(comm, what, problem, {}, "out of memory (nothing migrated) on");
  }
  alltoallv_units(comm, sendbuf, sc, sd, received.get(), rc, rd, unit);
  staged.reset();

  // 5. Parse the arrived records; check each id against the moves.
  std::unordered_set<i64> seen;
  u64 recv_count = 0, recv_sum = 0, rejected = 0;
  for (std::size_t q = 0; q < uP; ++q) {
    const std::byte* p = received.get() + rd[q] * unit;
    const std::byte* end = p + rbytes[q];
    for (i64 k = 0; k < rrecords[q]; ++k) {
      In in{0, -1, nullptr};
      if (end - p >= kHeader) {
        std::memcpy(&in.id, p, 8);
        std::memcpy(&in.size, p + 8, 8);
      }
      if (in.size < 0 || in.size > kMaxElementBytes ||
          end - p < kHeader + round_up(in.size, kAlign)) {
        rejected += static_cast<u64>(rrecords[q] - k);  // malformed: the rest is unreadable
        break;
      }
      in.bytes = p + kHeader;
      p += kHeader + round_up(in.size, kAlign);
      const auto it = expected.find(in.id);
      if (it == expected.end() || it->second != static_cast<int>(q) || !seen.insert(in.id).second) {
        ++rejected;
        arrived[q].push_back({in.id, -1, nullptr});  // keeps positions aligned with status
        continue;
      }
      ++recv_count;
      if (options.verify)
        recv_sum += element_hash(in.id, in.bytes, static_cast<std::size_t>(in.size));
      arrived[q].push_back(in);
    }
  }

  // 6. Optional verification, before anything is unpacked.
  if (options.verify) {
    u64 mine[5] = {0, sent_sum, recv_count, recv_sum, rejected};
    for (std::size_t q = 0; q < uP; ++q) mine[0] += static_cast<u64>(srecords[q]);
    u64 total[5] = {};
    MPI_Allreduce(mine, total, 5, MPI_UINT64_T, MPI_SUM, comm);
    if (total[0] != total[2] || total[1] != total[3] || total[4] != 0) {
      std::ostringstream m;
      m << what << ": verification failed: " << total[0] << " records sent (checksum 0x" << std::hex
        << total[1] << std::dec << "), " << total[2] << " received (checksum 0x" << std::hex
        << total[3] << std::dec << "), " << total[4]
        << " rejected (unexpected id or malformed); nothing was unpacked or freed";
      throw Error(m.str());
    }
    s.verified = true;
  }

  // 7. Unpack, by source rank, in the sender's order.
  for (std::size_t q = 0; q < uP; ++q)
    for (std::size_t k = 0; k < arrived[q].size(); ++k) {
      const In& in = arrived[q][k];
      if (in.bytes == nullptr) continue;  // rejected
      bool ok = false;
      try {
        ok = callbacks.unpack(
            in.id, std::span<const std::byte>(in.bytes, static_cast<std::size_t>(in.size)));
      } catch (...) {
        ok = false;
      }
      status[q][k] = ok ? kOk : kUnpackFailed;
      if (ok) {
        ++s.elements_received;
        s.bytes_received += in.size;
      }
    }
  received.reset();

  // 8. Statuses back to the senders: one byte per record, in units of g bytes.
  std::vector<unsigned char> moved;  // per move: its receiver unpacked it
  {
    std::vector<i64> tc(uP), td(uP), fc(uP), fd(uP);
    i64 ttotal = 0, ftotal = 0;
    for (std::size_t q = 0; q < uP; ++q) {
      tc[q] = ceil_div(rrecords[q], g);
      td[q] = ttotal;
      ttotal += tc[q];
      fc[q] = ceil_div(srecords[q], g);
      fd[q] = ftotal;
      ftotal += fc[q];
    }
    std::vector<unsigned char> tbuf(static_cast<std::size_t>(std::max<i64>(ttotal * g, 1)), kOk);
    std::vector<unsigned char> fbuf(static_cast<std::size_t>(std::max<i64>(ftotal * g, 1)),
                                    kRejected);
    moved.assign(moves.size(), 0);
    for (std::size_t q = 0; q < uP; ++q)
      std::copy(status[q].begin(), status[q].end(), tbuf.begin() + td[q] * g);
    alltoallv_units(comm, reinterpret_cast<const std::byte*>(tbuf.data()), tc, td,
                    reinterpret_cast<std::byte*>(fbuf.data()), fc, fd, g);
    // 9. What arrived, in the moves' order; the rest stays here.
    for (std::size_t q = 0; q < uP; ++q)
      for (std::size_t k = 0; k < sent[q].size(); ++k) {
        const Out& o = *sent[q][k];
        const unsigned char st = fbuf[static_cast<std::size_t>(fd[q] * g) + k];
        if (st == kOk) {
          moved[o.move] = 1;
          ++s.elements_sent;
          s.bytes_sent += o.size;
        } else {
          fail(moves[o.move],
               st == kUnpackFailed ? MigrationStage::unpack : MigrationStage::receive);
        }
      }
  }

  // 10. Totals: every rank learns whether every element arrived before any
  // sender frees one (the all-or-nothing mode's commit point).
  i64 mine[3] = {s.elements_sent, s.bytes_sent, static_cast<i64>(failures.size())};
  i64 total[3] = {};
  MPI_Allreduce(mine, total, 3, MPI_INT64_T, MPI_SUM, comm);
  const bool roll_back = all_or_nothing != nullptr && total[2] > 0;
  if (roll_back) {
    // Discard the copies unpacked here: the senders still hold every element.
    i64 free_errors = 0;
    for (std::size_t q = 0; q < uP; ++q)
      for (std::size_t k = 0; k < arrived[q].size(); ++k)
        if (status[q][k] == kOk) {
          try {
            callbacks.free(arrived[q][k].id);
          } catch (...) {
            ++free_errors;
          }
        }
    MPI_Allreduce(&free_errors, &all_or_nothing->free_errors, 1, MPI_INT64_T, MPI_SUM, comm);
    all_or_nothing->rolled_back = true;
    s.elements_sent = s.elements_received = 0;
    s.bytes_sent = s.bytes_received = 0;
  } else {
    for (std::size_t i = 0; i < moves.size(); ++i)
      if (moved[i]) {
        try {
          callbacks.free(moves[i].id);
        } catch (...) {
          s.free_errors.push_back(moves[i].id);
        }
      }
    s.global_moved = total[0];
    s.global_bytes_moved = total[1];
  }
  // Every rank's failures on every rank.
  if (total[2] > 0) {
    if (total[2] > INT_MAX / 4)
      throw Error(std::string(what) + ": " + std::to_string(total[2]) +
                  " elements failed to move, too many to report (at most " +
                  std::to_string(INT_MAX / 4) + ")");
    const int n = 4 * static_cast<int>(failures.size());
    std::vector<int> counts(uP), displs(uP);
    MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
    for (std::size_t q = 1; q < uP; ++q) displs[q] = displs[q - 1] + counts[q - 1];
    std::vector<i64> flat;
    flat.reserve(static_cast<std::size_t>(n));
    for (const auto& f : failures)
      flat.insert(flat.end(), {f.id, f.from, f.to, static_cast<i64>(f.stage)});
    std::vector<i64> all(static_cast<std::size_t>(4 * total[2]));
    MPI_Allgatherv(flat.data(), n, MPI_INT64_T, all.data(), counts.data(), displs.data(),
                   MPI_INT64_T, comm);
    for (std::size_t i = 0; i < all.size(); i += 4)
      s.failed.push_back({all[i], static_cast<int>(all[i + 1]), static_cast<int>(all[i + 2]),
                          static_cast<MigrationStage>(all[i + 3])});
    std::sort(s.failed.begin(), s.failed.end(),
              [](const MigrationFailure& a, const MigrationFailure& b) { return a.id < b.id; });
  }
  s.seconds = MPI_Wtime() - t0;
  return s;
}

std::size_t mark_immobile(std::span<Task> tasks, std::span<const MigrationFailure> failed) {
  std::unordered_set<i64> ids;
  for (const auto& f : failed) ids.insert(f.id);
  std::size_t marked = 0;
  for (auto& t : tasks)
    if (ids.count(t.id)) {
      t.immobile = true;
      ++marked;
    }
  return marked;
}

std::vector<TaskMove> completed_moves(std::span<const TaskMove> moves,
                                      std::span<const MigrationFailure> failed) {
  std::unordered_set<i64> ids;
  for (const auto& f : failed) ids.insert(f.id);
  std::vector<TaskMove> out;
  for (const auto& m : moves)
    if (m.from != m.to && !ids.count(m.id)) out.push_back(m);
  return out;
}

}  // namespace isocost::mpi
