// Copying trivially copyable data between two distributions
// (redistribute.hpp): the plan of what changes owner, the exchange, and the
// verification checksums.
//
// Error agreement: every rank checks its own input; one MPI_Allreduce (MAX)
// of {error flag, h, ~h} per hash tells every rank whether any input was bad
// and whether the inputs that must be equal everywhere (distributions,
// options) are — max(h) == ~max(~h) iff min(h) == max(h). Only on the error
// path are the hashes and messages gathered, so that every rank throws the
// same text (agreement.hpp).
#include "isocost/mpi/redistribute.hpp"

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
#include "mpi/agreement.hpp"
#include "mpi/transfer.hpp"

namespace isocost::mpi {

namespace {

using namespace detail;  // i64, u64, hashing, units, buffers (transfer.hpp)
using detail::agree;     // collective error agreement (agreement.hpp)
using detail::check_comm;

// ---------------------------------------------------------------------------
// Copying boxes of cells

// Copies the cells of `piece` from an array laid out on box `sb` (x fastest)
// to one laid out on box `db`; `piece` lies inside both. Rows along x are
// contiguous in both; whole planes or the whole piece when it spans them.
void copy_cells(const CellBox& piece, const CellBox& sb, const std::byte* src, const CellBox& db,
                std::byte* dst, std::size_t esize) {
  if (piece.empty()) return;
  const i64 ex = piece.extent(0), ey = piece.extent(1), ez = piece.extent(2);
  const i64 sx = sb.extent(0), sy = sb.extent(1), dx = db.extent(0), dy = db.extent(1);
  auto at = [esize](const CellBox& b, i64 bx, i64 by, i64 i, i64 j, i64 k) {
    return static_cast<std::size_t>((i - b.lo[0]) + bx * ((j - b.lo[1]) + by * (k - b.lo[2]))) *
           esize;
  };
  const i64 i0 = piece.lo[0], j0 = piece.lo[1], k0 = piece.lo[2];
  const bool full_x = ex == sx && ex == dx;
  const bool full_xy = full_x && ey == sy && ey == dy;
  if (full_xy) {
    std::memcpy(dst + at(db, dx, dy, i0, j0, k0), src + at(sb, sx, sy, i0, j0, k0),
                static_cast<std::size_t>(ex * ey * ez) * esize);
    return;
  }
  for (i64 k = k0; k < k0 + ez; ++k) {
    if (full_x) {
      std::memcpy(dst + at(db, dx, dy, i0, j0, k), src + at(sb, sx, sy, i0, j0, k),
                  static_cast<std::size_t>(ex * ey) * esize);
      continue;
    }
    for (i64 j = j0; j < j0 + ey; ++j)
      std::memcpy(dst + at(db, dx, dy, i0, j, k), src + at(sb, sx, sy, i0, j, k),
                  static_cast<std::size_t>(ex) * esize);
  }
}

// Σ element_hash(global index, bytes) over an array laid out on box `b`.
u64 box_checksum(const BoxDistribution& d, const CellBox& b, const std::byte* data,
                 std::size_t esize) {
  u64 sum = 0;
  std::size_t pos = 0;
  for (i64 k = b.lo[2]; k < b.hi[2]; ++k)
    for (i64 j = b.lo[1]; j < b.hi[1]; ++j)
      for (i64 i = b.lo[0]; i < b.hi[0]; ++i, pos += esize)
        sum += element_hash(i + d.cells[0] * (j + d.cells[1] * k), data + pos, esize);
  return sum;
}

// ---------------------------------------------------------------------------
// The redistribution engine shared by blocks and boxes

// Per peer: elements sent (from `local`) and received (into the result),
// with the piece's element offset in `local` / the result when it is
// contiguous there (always for blocks; for boxes when it spans whole rows,
// planes), or -1 when it must be packed.
struct Plan {
  std::vector<i64> send, recv;      // elements per peer (self: 0)
  std::vector<i64> sdispl, rdispl;  // element offsets of contiguous pieces, or -1
  i64 kept = 0;
  i64 n_max = 0;           // bound on any rank's send and receive volume (same everywhere)
  bool identical = false;  // from == to: nothing moves anywhere (same everywhere)
};

struct Copier {
  // Copies peer q's outgoing piece into `dst` (packed, x fastest).
  std::function<void(int q, std::byte* dst)> pack;
  // Copies peer s's arrived piece from `src` into the result.
  std::function<void(int s, const std::byte* src)> unpack;
  // Copies the kept piece from `local` into the result.
  std::function<void()> keep;
};

// The MPI side of a plan, with every allocation made before the agreement
// (so that an allocation failure is agreed, not thrown on one rank). Each side
// goes straight from `local` / into the result when the unit is one element
// and all its pieces are contiguous there, else through a staging buffer with
// each peer's segment padded to whole units. The choice is per rank and per
// side: the type signatures (units of g elements) are the same either way.
struct Exchange {
  i64 g = 1;
  bool send_direct = false, recv_direct = false;
  std::vector<i64> sc, sd, rc, rd;  // counts and displacements in units
  Buffer sbuf, rbuf;
};

// May throw std::bad_alloc.
Exchange prepare(const Plan& plan, int P, std::size_t esize, i64 max_count) {
  Exchange x;
  const auto uP = static_cast<std::size_t>(P);
  x.g = choose_unit(plan.n_max, P, max_count);
  if (plan.identical) return x;
  x.send_direct = x.recv_direct = x.g == 1;
  for (std::size_t q = 0; q < uP; ++q) {
    x.send_direct = x.send_direct && (plan.send[q] == 0 || plan.sdispl[q] >= 0);
    x.recv_direct = x.recv_direct && (plan.recv[q] == 0 || plan.rdispl[q] >= 0);
  }
  x.sc.assign(uP, 0);
  x.sd.assign(uP, 0);
  x.rc.assign(uP, 0);
  x.rd.assign(uP, 0);
  i64 stotal = 0, rtotal = 0;
  for (std::size_t q = 0; q < uP; ++q) {
    x.sc[q] = ceil_div(plan.send[q], x.g);
    x.sd[q] = x.send_direct ? std::max<i64>(plan.sdispl[q], 0) : stotal;
    stotal += x.sc[q];
    x.rc[q] = ceil_div(plan.recv[q], x.g);
    x.rd[q] = x.recv_direct ? std::max<i64>(plan.rdispl[q], 0) : rtotal;
    rtotal += x.rc[q];
  }
  const i64 unit_bytes = x.g * static_cast<i64>(esize);
  if (!x.send_direct) x.sbuf = allocate(stotal * unit_bytes);
  if (!x.recv_direct) x.rbuf = allocate(rtotal * unit_bytes);
  return x;
}

// Runs the exchange of a validated, agreed, prepared plan.
void execute(MPI_Comm comm, const Plan& plan, const Copier& copy, Exchange& x,
             const std::byte* local, std::byte* result, std::size_t esize, RedistributeSummary& s,
             Rider* rider) {
  const int P = s.ranks;
  const auto uP = static_cast<std::size_t>(P);
  s.unit_elements = x.g;
  s.elements_kept = plan.kept;
  for (std::size_t q = 0; q < uP; ++q) {
    s.elements_sent += plan.send[q];
    s.elements_received += plan.recv[q];
    s.peers_sent_to += plan.send[q] > 0;
    s.peers_received_from += plan.recv[q] > 0;
  }
  s.bytes_sent = s.elements_sent * static_cast<i64>(esize);
  s.bytes_received = s.elements_received * static_cast<i64>(esize);
  copy.keep();
  if (plan.identical) return;  // every rank knows: no Alltoallv anywhere (nor a rider)

  s.staged = !x.send_direct || !x.recv_direct;
  const i64 unit_bytes = x.g * static_cast<i64>(esize);
  if (!x.send_direct)
    for (std::size_t q = 0; q < uP; ++q)
      if (plan.send[q] > 0) {
        std::byte* dst = x.sbuf.get() + x.sd[q] * unit_bytes;
        copy.pack(static_cast<int>(q), dst);
        const i64 used = plan.send[q] * static_cast<i64>(esize);  // zero the padding sent
        std::memset(dst + used, 0, static_cast<std::size_t>(x.sc[q] * unit_bytes - used));
      }
  alltoallv_units(comm, x.send_direct ? local : x.sbuf.get(), x.sc, x.sd,
                  x.recv_direct ? result : x.rbuf.get(), x.rc, x.rd, unit_bytes, rider);
  if (!x.recv_direct)
    for (std::size_t q = 0; q < uP; ++q)
      if (plan.recv[q] > 0) copy.unpack(static_cast<int>(q), x.rbuf.get() + x.rd[q] * unit_bytes);
}

// Prepares the exchange into `x`; a problem text if memory runs out.
std::string prepare_exchange(const Plan& plan, int P, std::size_t esize, i64 max_count,
                             Exchange& x) {
  try {
    x = prepare(plan, P, esize, max_count);
  } catch (const std::bad_alloc&) {
    return "could not allocate the staging buffers for " + std::to_string(plan.n_max) +
           " elements of " + std::to_string(esize) + " bytes";
  }
  return {};
}

// Offset (in elements) of sub-box `piece` in an array laid out on `box`, x
// fastest, if the piece is contiguous there, else -1: contiguous iff every
// axis above the first one where the piece is narrower than the box has
// extent 1.
i64 contiguous_offset(const CellBox& piece, const CellBox& box) {
  bool narrower = false;
  for (int a = 0; a < 3; ++a) {
    if (narrower && piece.extent(a) != 1) return -1;
    narrower = narrower || piece.extent(a) != box.extent(a);
  }
  return (piece.lo[0] - box.lo[0]) +
         box.extent(0) * ((piece.lo[1] - box.lo[1]) + box.extent(1) * (piece.lo[2] - box.lo[2]));
}

// The totals' MPI_Allreduce, with the verification checksums.
void finish_summary(MPI_Comm comm, RedistributeSummary& s, bool verify, u64 before_count,
                    u64 before_sum, u64 after_count, u64 after_sum, const char* what) {
  u64 mine[6] = {static_cast<u64>(s.elements_sent),
                 static_cast<u64>(s.elements_received),
                 before_count,
                 before_sum,
                 after_count,
                 after_sum};
  u64 total[6] = {};
  MPI_Allreduce(mine, total, 6, MPI_UINT64_T, MPI_SUM, comm);
  s.global_elements_moved = static_cast<i64>(total[0]);
  s.global_bytes_moved = s.global_elements_moved * static_cast<i64>(s.element_size);
  if (!verify) return;
  // Identical reduced values on every rank: all throw alike or none does.
  if (total[0] != total[1] || total[2] != total[4] || total[3] != total[5] ||
      static_cast<i64>(total[2]) != s.global_elements) {
    std::ostringstream m;
    m << what << ": verification failed: " << total[0] << " elements sent, " << total[1]
      << " received; " << total[2] << " elements before (checksum 0x" << std::hex << total[3]
      << std::dec << "), " << total[4] << " after (checksum 0x" << std::hex << total[5] << std::dec
      << "); expected " << s.global_elements << " with equal checksums";
    throw Error(m.str());
  }
  s.verified = true;
  s.checksum = total[3];
}

std::string allocate_result(void* out, detail::ResizeFn resize, i64 count, std::size_t esize,
                            std::byte*& result) {
  try {
    result = resize(out, static_cast<std::size_t>(count));
  } catch (const std::bad_alloc&) {
    return "could not allocate the result (" + std::to_string(count) + " elements of " +
           std::to_string(esize) + " bytes)";
  } catch (const std::exception& e) {
    return std::string("could not allocate the result: ") + e.what();
  }
  return {};
}

}  // namespace

// ---------------------------------------------------------------------------
// Options and summaries

std::string RedistributeSummary::brief_report() const {
  std::ostringstream out;
  out << "redistribute (rank " << rank << " of " << ranks << "): sent " << elements_sent
      << " elements (" << bytes_sent << " B) to " << peers_sent_to << " ranks, received "
      << elements_received << " (" << bytes_received << " B) from " << peers_received_from
      << ", kept " << elements_kept << "; global: moved " << global_elements_moved << " of "
      << global_elements << " elements (" << global_bytes_moved << " B), unit " << unit_elements
      << (staged ? " (staged)" : "") << ", ";
  if (verified)
    out << "verified (checksum 0x" << std::hex << checksum << std::dec << ")";
  else
    out << "not verified";
  out << ", " << seconds * 1e3 << " ms";
  return out.str();
}

// ---------------------------------------------------------------------------
// redistribute

namespace detail {

std::byte* resize_records(void* records, std::size_t count) {
  auto& r = *static_cast<Records*>(records);
  r.bytes.resize(count * r.record_size);
  return r.bytes.data();
}

namespace {

// A redistribution's summary with this rank, the communicator size and the
// element size filled in.
RedistributeSummary start_summary(MPI_Comm comm, std::size_t element_size) {
  RedistributeSummary s;
  MPI_Comm_rank(comm, &s.rank);
  MPI_Comm_size(comm, &s.ranks);
  s.element_size = element_size;
  return s;
}

// The checks both redistributions start with, first problem wins: the
// options, each distribution, and one part per rank (`parts`: what the
// distribution's parts are called).
template <class Distribution>
std::string check_distributions(const RedistributeOptions& options, const Distribution& from,
                                const Distribution& to, int P, const char* parts) {
  std::string e;
  if (!options.is_valid(&e)) return "options." + e;
  if (auto m = check_max_count(options.max_mpi_count, P); !m.empty()) return m;
  if (!from.is_valid(&e)) return "from: " + e;
  if (!to.is_valid(&e)) return "to: " + e;
  if (from.parts() != P)
    return "from has " + std::to_string(from.parts()) + " " + parts + ", expected " +
           std::to_string(P) + " (one per rank of the communicator)";
  if (to.parts() != P)
    return "to has " + std::to_string(to.parts()) + " " + parts + ", expected " +
           std::to_string(P) + " (one per rank of the communicator)";
  return {};
}

// The rest of both redistributions' checks, after their own: separate output
// storage, then (with `plan` made) the result and the staging buffers
// allocated; then the agreement over `comm` on every rank's problem and on the
// distributions and options being the same everywhere. Returns the result's
// storage.
template <class Distribution>
std::byte* allocate_and_agree(MPI_Comm comm, const char* what, std::string problem,
                              const Distribution& from, const Distribution& to, int rank,
                              const Plan& plan, void* out, ResizeFn resize, bool aliased,
                              std::size_t element_size, const RedistributeOptions& options,
                              Exchange& x) {
  if (problem.empty() && aliased)
    problem = "the output vector shares storage with the local data, expected separate storage";
  std::byte* result = nullptr;
  if (problem.empty()) problem = allocate_result(out, resize, to.count(rank), element_size, result);
  if (problem.empty())
    problem = prepare_exchange(plan, from.parts(), element_size, options.max_mpi_count, x);
  const Same same[] = {{from.hash(), "from distribution"},
                       {to.hash(), "to distribution"},
                       same_options(options),
                       {element_size, "element size", [element_size] {
                          return "element_size\t" + std::to_string(element_size) + "\n";
                        }}};
  agree(comm, what, problem, same);
  return result;
}

// The plan of a 1-D redistribution (distributions valid, one part per rank).
Plan plan_blocks(const BlockDistribution& from, const BlockDistribution& to, int rank) {
  const auto& o = from.offsets;
  const auto& n = to.offsets;
  const auto uP = o.size() - 1, ur = static_cast<std::size_t>(rank);
  Plan plan;
  plan.send.assign(uP, 0);
  plan.recv.assign(uP, 0);
  plan.sdispl.assign(uP, 0);
  plan.rdispl.assign(uP, 0);
  plan.identical = o == n;
  for (std::size_t q = 0; q < uP; ++q) {
    plan.n_max = std::max({plan.n_max, o[q + 1] - o[q], n[q + 1] - n[q]});
    // Mine that q owns afterwards; q's that I own afterwards.
    const i64 slo = std::max(o[ur], n[q]), shi = std::min(o[ur + 1], n[q + 1]);
    const i64 rlo = std::max(o[q], n[ur]), rhi = std::min(o[q + 1], n[ur + 1]);
    if (q == ur) {
      plan.kept = std::max<i64>(shi - slo, 0);
      continue;
    }
    if (shi > slo) {
      plan.send[q] = shi - slo;
      plan.sdispl[q] = slo - o[ur];
    }
    if (rhi > rlo) {
      plan.recv[q] = rhi - rlo;
      plan.rdispl[q] = rlo - n[ur];
    }
  }
  return plan;
}

// The plan of a box redistribution (distributions valid, one box per rank).
Plan plan_boxes(const BoxDistribution& from, const BoxDistribution& to, int rank,
                std::vector<CellBox>& sbox, std::vector<CellBox>& rbox) {
  const auto uP = from.boxes.size(), ur = static_cast<std::size_t>(rank);
  const CellBox& mine_old = from.boxes[ur];
  const CellBox& mine_new = to.boxes[ur];
  Plan plan;
  plan.send.assign(uP, 0);
  plan.recv.assign(uP, 0);
  plan.sdispl.assign(uP, -1);
  plan.rdispl.assign(uP, -1);
  plan.identical = from.boxes == to.boxes;
  sbox.assign(uP, CellBox{});
  rbox.assign(uP, CellBox{});
  for (std::size_t q = 0; q < uP; ++q) {
    plan.n_max = std::max({plan.n_max, from.boxes[q].volume(), to.boxes[q].volume()});
    if (q == ur) continue;
    sbox[q] = intersect(mine_old, to.boxes[q]);
    rbox[q] = intersect(from.boxes[q], mine_new);
    plan.send[q] = sbox[q].volume();
    plan.recv[q] = rbox[q].volume();
    if (plan.send[q] > 0) plan.sdispl[q] = contiguous_offset(sbox[q], mine_old);
    if (plan.recv[q] > 0) plan.rdispl[q] = contiguous_offset(rbox[q], mine_new);
  }
  plan.kept = intersect(mine_old, mine_new).volume();
  return plan;
}

// What redistribute_layout() needs of each kind of distribution: its own
// checks (that both cover the same elements), its plan, how its pieces are
// copied and its checksum.
class Blocks {
 public:
  static constexpr const char* kParts = "parts";
  Blocks(const BlockDistribution& from, const BlockDistribution& to, int rank)
      : from_(from), to_(to), r_(static_cast<std::size_t>(rank)) {}

  std::string check() const {
    if (from_.size() != to_.size())
      return "from covers " + std::to_string(from_.size()) + " elements and to covers " +
             std::to_string(to_.size()) + ", expected the same N";
    return {};
  }
  // Where this rank's local data come from, for the count check's message.
  std::string local_part() const {
    const int rank = static_cast<int>(r_);
    return "from gives this rank [" + std::to_string(from_.begin(rank)) + ", " +
           std::to_string(from_.end(rank)) + ")";
  }
  Plan plan() { return plan_blocks(from_, to_, static_cast<int>(r_)); }
  Copier copier(const Plan& plan, const std::byte* local, std::byte* result,
                std::size_t esize) const {
    const auto& o = from_.offsets;
    const auto& n = to_.offsets;
    const i64 es = static_cast<i64>(esize);
    const std::size_t ur = r_;
    Copier copy;
    copy.keep = [&o, &n, ur, es, local, result] {
      const i64 lo = std::max(o[ur], n[ur]), hi = std::min(o[ur + 1], n[ur + 1]);
      if (hi > lo)
        std::memcpy(result + (lo - n[ur]) * es, local + (lo - o[ur]) * es,
                    static_cast<std::size_t>((hi - lo) * es));
    };
    copy.pack = [&plan, es, local](int q, std::byte* dst) {
      const auto uq = static_cast<std::size_t>(q);
      std::memcpy(dst, local + plan.sdispl[uq] * es, static_cast<std::size_t>(plan.send[uq] * es));
    };
    copy.unpack = [&plan, es, result](int q, const std::byte* src) {
      const auto uq = static_cast<std::size_t>(q);
      std::memcpy(result + plan.rdispl[uq] * es, src, static_cast<std::size_t>(plan.recv[uq] * es));
    };
    return copy;
  }
  // Σ element_hash(global index, bytes) over this rank's part of `d`.
  u64 checksum(const BlockDistribution& d, const std::byte* data, std::size_t esize) const {
    u64 sum = 0;
    const i64 begin = d.offsets[r_], n = d.offsets[r_ + 1] - begin;
    for (i64 i = 0; i < n; ++i)
      sum += element_hash(begin + i, data + static_cast<std::size_t>(i) * esize, esize);
    return sum;
  }

 private:
  const BlockDistribution& from_;
  const BlockDistribution& to_;
  std::size_t r_;
};

class Boxes {
 public:
  static constexpr const char* kParts = "boxes";
  Boxes(const BoxDistribution& from, const BoxDistribution& to, int rank)
      : from_(from), to_(to), r_(static_cast<std::size_t>(rank)) {}

  std::string check() const {
    if (from_.cells != to_.cells)
      return "from covers a grid of " + std::to_string(from_.cells[0]) + " x " +
             std::to_string(from_.cells[1]) + " x " + std::to_string(from_.cells[2]) +
             " cells and to one of " + std::to_string(to_.cells[0]) + " x " +
             std::to_string(to_.cells[1]) + " x " + std::to_string(to_.cells[2]) +
             ", expected the same grid";
    return {};
  }
  std::string local_part() const {
    return "the volume of this rank's from box " + box_text(from_.boxes[r_]);
  }
  Plan plan() { return plan_boxes(from_, to_, static_cast<int>(r_), sbox_, rbox_); }
  Copier copier(const Plan&, const std::byte* local, std::byte* result, std::size_t esize) const {
    const CellBox& mine_old = from_.boxes[r_];
    const CellBox& mine_new = to_.boxes[r_];
    Copier copy;
    copy.keep = [&mine_old, &mine_new, local, result, esize] {
      copy_cells(intersect(mine_old, mine_new), mine_old, local, mine_new, result, esize);
    };
    copy.pack = [this, &mine_old, local, esize](int q, std::byte* dst) {
      const auto& b = sbox_[static_cast<std::size_t>(q)];
      copy_cells(b, mine_old, local, b, dst, esize);
    };
    copy.unpack = [this, &mine_new, result, esize](int q, const std::byte* src) {
      const auto& b = rbox_[static_cast<std::size_t>(q)];
      copy_cells(b, b, src, mine_new, result, esize);
    };
    return copy;
  }
  u64 checksum(const BoxDistribution& d, const std::byte* data, std::size_t esize) const {
    return box_checksum(d, d.boxes[r_], data, esize);
  }

 private:
  const BoxDistribution& from_;
  const BoxDistribution& to_;
  std::size_t r_;
  std::vector<CellBox> sbox_, rbox_;  // per peer: the cells sent, received
};

// Both redistributions: local checks (first problem wins), the plan, every
// allocation, the agreement, the exchange, the verification.
template <class Layout, class Distribution>
RedistributeSummary redistribute_layout(MPI_Comm comm, const Distribution& from,
                                        const Distribution& to, const std::byte* local,
                                        std::size_t count, std::size_t element_size, void* out,
                                        ResizeFn resize, bool aliased,
                                        const RedistributeOptions& options, std::string problem,
                                        Rider* rider) {
  const char* what = "redistribute";
  check_comm(comm, what);
  const double t0 = MPI_Wtime();
  RedistributeSummary s = start_summary(comm, element_size);
  const int rank = s.rank, P = s.ranks;

  if (problem.empty()) problem = check_distributions(options, from, to, P, Layout::kParts);
  Layout layout(from, to, rank);
  if (problem.empty()) problem = layout.check();
  if (problem.empty() && static_cast<i64>(count) != from.count(rank))
    problem = "local data has " + std::to_string(count) + " elements, expected " +
              std::to_string(from.count(rank)) + " (" + layout.local_part() + ")";
  Plan plan;
  if (problem.empty() && !aliased) plan = layout.plan();
  Exchange x;
  std::byte* const result = allocate_and_agree(comm, what, std::move(problem), from, to, rank, plan,
                                               out, resize, aliased, element_size, options, x);

  // Every rank now holds the same valid distributions.
  s.global_elements = from.size();
  const Copier copy = layout.copier(plan, local, result, element_size);
  u64 before = 0, after = 0;
  if (options.verify) before = layout.checksum(from, local, element_size);
  execute(comm, plan, copy, x, local, result, element_size, s, rider);
  if (options.verify) after = layout.checksum(to, result, element_size);
  finish_summary(comm, s, options.verify, static_cast<u64>(count), before,
                 static_cast<u64>(to.count(rank)), after, what);
  s.seconds = MPI_Wtime() - t0;
  return s;
}

}  // namespace

RedistributeSummary redistribute_bytes(MPI_Comm comm, const BlockDistribution& from,
                                       const BlockDistribution& to, const std::byte* local,
                                       std::size_t count, std::size_t element_size, void* out,
                                       ResizeFn resize, bool aliased,
                                       const RedistributeOptions& options, std::string problem,
                                       Rider* rider) {
  return redistribute_layout<Blocks>(comm, from, to, local, count, element_size, out, resize,
                                     aliased, options, std::move(problem), rider);
}

RedistributeSummary redistribute_bytes(MPI_Comm comm, const BoxDistribution& from,
                                       const BoxDistribution& to, const std::byte* local,
                                       std::size_t count, std::size_t element_size, void* out,
                                       ResizeFn resize, bool aliased,
                                       const RedistributeOptions& options, std::string problem,
                                       Rider* rider) {
  return redistribute_layout<Boxes>(comm, from, to, local, count, element_size, out, resize,
                                    aliased, options, std::move(problem), rider);
}

}  // namespace detail

}  // namespace isocost::mpi
