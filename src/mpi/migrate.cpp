// Migration: a copy between two distributions (Eijkhout §1.1) and task
// migration with pack/unpack/free callbacks (Watts ch. 3, §3.2.6).
//
// Error agreement is samples.cpp's scheme, extended with hashes: every rank
// checks its own input; one MPI_Allreduce (MAX) of {error flag, h, ~h} per
// hash tells every rank whether any input was bad and whether the inputs that
// must be equal everywhere (distributions, moves, options) are — max(h) ==
// ~max(~h) iff min(h) == max(h). Only on the error path are the hashes and
// messages gathered, so that every rank throws the same text. Checks on data
// every rank shares after that agreement throw on every rank alike without
// communication.
//
// Large transfers: MPI counts and displacements are int. Data travel in units
// of g elements (MPI_Type_contiguous of g·size bytes), g the smallest power of
// two with ceil(n_max/g) + P <= max_mpi_count, where n_max bounds what any rank
// sends or receives and is known to every rank without communication (the
// largest part of either distribution; for tasks, the global send total from
// the size exchange). With g > 1 every peer's segment is padded to whole
// units in staging buffers.
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

#include "agreement.hpp"
#include "isocost/error.hpp"

namespace isocost::mpi {

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

// ---------------------------------------------------------------------------
// Hashing

// splitmix64's finaliser: a bijection of 64-bit words with good avalanche.
u64 mix(u64 x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// An order-dependent hash of a sequence of words.
struct Hasher {
  u64 h = 0x6a09e667f3bcc908ULL;
  void add(u64 v) { h = mix(h ^ v); }
  void add(i64 v) { add(static_cast<u64>(v)); }
};

// Hash of one element: its global index (or id) and its bytes. Summed mod 2^64
// over elements it gives an order-independent checksum.
u64 element_hash(i64 index, const std::byte* p, std::size_t n) {
  u64 h = mix(static_cast<u64>(index) ^ (static_cast<u64>(n) << 48));
  while (n >= 8) {
    u64 w;
    std::memcpy(&w, p, 8);
    h = mix(h ^ w);
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    u64 w = 0;
    std::memcpy(&w, p, n);
    h = mix(h ^ w);
  }
  return h;
}

// ---------------------------------------------------------------------------
// Small helpers

i64 ceil_div(i64 a, i64 b) { return a == 0 ? 0 : (a - 1) / b + 1; }
i64 round_up(i64 a, i64 b) { return ceil_div(a, b) * b; }

std::string box_text(const CellBox& b) {
  std::string s;
  for (int a = 0; a < 3; ++a)
    s += (a ? " x [" : "[") + std::to_string(b.lo[static_cast<std::size_t>(a)]) + ", " +
         std::to_string(b.hi[static_cast<std::size_t>(a)]) + ")";
  return s;
}

using internal::agree;  // collective error agreement (agreement.hpp)
using internal::check_comm;

// The transfer unit g (a power of two) for a largest per-rank volume of
// `n_max` items: ceil(n_max/g) + P <= max_count bounds every count and
// displacement (at most one unit of padding per peer).
i64 choose_unit(i64 n_max, int P, i64 max_count) {
  i64 g = 1;
  while (ceil_div(n_max, g) + P > max_count) g *= 2;
  return g;
}

std::string check_max_count(i64 max_count, int P) {
  if (max_count <= P)
    return "options.max_mpi_count = " + std::to_string(max_count) +
           ", expected more than P = " + std::to_string(P);
  return {};
}

// A committed contiguous datatype of `bytes` bytes, freed on scope exit.
struct UnitType {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  explicit UnitType(i64 bytes) {
    if (bytes > INT_MAX)
      throw Error("migration unit of " + std::to_string(bytes) +
                  " bytes exceeds INT_MAX; expected smaller elements");
    MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &type);
    MPI_Type_commit(&type);
  }
  ~UnitType() { MPI_Type_free(&type); }
  UnitType(const UnitType&) = delete;
  UnitType& operator=(const UnitType&) = delete;
};

// One MPI_Alltoallv: counts and displacements in units (already bounded by
// max_mpi_count, hence by INT_MAX).
void alltoallv_units(MPI_Comm comm, const std::byte* send, const std::vector<i64>& scount,
                     const std::vector<i64>& sdispl, std::byte* recv,
                     const std::vector<i64>& rcount, const std::vector<i64>& rdispl,
                     i64 unit_bytes) {
  const UnitType unit(unit_bytes);
  auto to_int = [](const std::vector<i64>& v) {
    std::vector<int> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<int>(v[i]);
    return out;
  };
  const auto sc = to_int(scount), sd = to_int(sdispl), rc = to_int(rcount), rd = to_int(rdispl);
  MPI_Alltoallv(send, sc.data(), sd.data(), unit.type, recv, rc.data(), rd.data(), unit.type, comm);
}

// A 16-byte aligned byte buffer (record payloads are handed out aligned);
// allocation may throw std::bad_alloc, which callers catch.
constexpr std::align_val_t kBufferAlign{16};
struct AlignedDelete {
  void operator()(std::byte* p) const noexcept { ::operator delete[](p, kBufferAlign); }
};
using Buffer = std::unique_ptr<std::byte[], AlignedDelete>;
Buffer allocate(i64 bytes) {
  const auto n = static_cast<std::size_t>(std::max<i64>(bytes, 1));
  return Buffer(static_cast<std::byte*>(::operator new[](n, kBufferAlign)));
}

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

u64 options_hash(const RedistributeOptions& o, std::size_t esize) {
  Hasher h;
  h.add(static_cast<u64>(o.verify));
  h.add(o.max_mpi_count);
  h.add(static_cast<u64>(esize));
  return h.h;
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
             const std::byte* local, std::byte* result, std::size_t esize, RedistributeSummary& s) {
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
  if (plan.identical) return;  // every rank knows: no Alltoallv anywhere

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
                  x.recv_direct ? result : x.rbuf.get(), x.rc, x.rd, unit_bytes);
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
// BlockDistribution

BlockDistribution BlockDistribution::uniform(std::int64_t n, int parts) {
  if (n < 0) throw Error("uniform distribution: N = " + std::to_string(n) + ", expected >= 0");
  if (parts < 1)
    throw Error("uniform distribution: P = " + std::to_string(parts) + ", expected >= 1");
  BlockDistribution d;
  d.offsets.resize(static_cast<std::size_t>(parts) + 1);
  const i64 base = n / parts, extra = n % parts;
  for (int r = 0; r < parts; ++r)
    d.offsets[static_cast<std::size_t>(r) + 1] =
        d.offsets[static_cast<std::size_t>(r)] + base + (r < extra ? 1 : 0);
  return d;
}

BlockDistribution BlockDistribution::from_counts(std::span<const std::int64_t> counts) {
  if (counts.empty()) throw Error("from_counts: no counts, expected one per rank");
  BlockDistribution d;
  d.offsets.assign(1, 0);
  for (std::size_t r = 0; r < counts.size(); ++r) {
    if (counts[r] < 0)
      throw Error("from_counts: counts[" + std::to_string(r) + "] = " + std::to_string(counts[r]) +
                  ", expected >= 0");
    if (counts[r] > std::numeric_limits<i64>::max() - d.offsets.back())
      throw Error("from_counts: the counts add up to more than INT64_MAX");
    d.offsets.push_back(d.offsets.back() + counts[r]);
  }
  return d;
}

int BlockDistribution::parts() const noexcept {
  return offsets.empty() ? 0 : static_cast<int>(offsets.size()) - 1;
}

std::int64_t BlockDistribution::size() const noexcept {
  return offsets.empty() ? 0 : offsets.back();
}

int BlockDistribution::owner(std::int64_t index) const {
  if (index < 0 || index >= size())
    throw Error("owner: index " + std::to_string(index) + ", expected one in [0, " +
                std::to_string(size()) + ")");
  // The last r with o_r <= index; o_{r+1} > index, so r owns it.
  const auto it = std::upper_bound(offsets.begin(), offsets.end(), index);
  return static_cast<int>(it - offsets.begin()) - 1;
}

bool BlockDistribution::is_valid(std::string* error) const {
  auto fail = [&](const std::string& m) {
    if (error) *error = m;
    return false;
  };
  if (offsets.size() < 2)
    return fail(std::to_string(offsets.size()) + " offsets, expected P + 1 >= 2");
  if (offsets[0] != 0) return fail("offsets[0] = " + std::to_string(offsets[0]) + ", expected 0");
  for (std::size_t i = 1; i < offsets.size(); ++i)
    if (offsets[i] < offsets[i - 1])
      return fail("offsets[" + std::to_string(i) + "] = " + std::to_string(offsets[i]) +
                  " < offsets[" + std::to_string(i - 1) + "] = " + std::to_string(offsets[i - 1]) +
                  ", expected nondecreasing offsets (blocks must not overlap)");
  return true;
}

void BlockDistribution::validate() const {
  std::string e;
  if (!is_valid(&e)) throw Error("block distribution: " + e);
}

std::uint64_t BlockDistribution::hash() const noexcept {
  Hasher h;
  h.add(static_cast<u64>(offsets.size()));
  for (i64 o : offsets) h.add(o);
  return h.h;
}

// ---------------------------------------------------------------------------
// CellBox, BoxDistribution

std::int64_t CellBox::extent(int axis) const noexcept {
  const auto a = static_cast<std::size_t>(axis);
  return std::max<i64>(hi[a] - lo[a], 0);
}

std::int64_t CellBox::volume() const noexcept {
  const i64 x = extent(0), y = extent(1), z = extent(2);
  if (x == 0 || y == 0 || z == 0) return 0;
  // Saturate rather than overflow (boxes inside a validated grid never do).
  if (x > std::numeric_limits<i64>::max() / y) return std::numeric_limits<i64>::max();
  const i64 xy = x * y;
  if (xy > std::numeric_limits<i64>::max() / z) return std::numeric_limits<i64>::max();
  return xy * z;
}

CellBox intersect(const CellBox& a, const CellBox& b) noexcept {
  CellBox c;
  for (std::size_t i = 0; i < 3; ++i) {
    c.lo[i] = std::max(a.lo[i], b.lo[i]);
    c.hi[i] = std::max(c.lo[i], std::min(a.hi[i], b.hi[i]));
  }
  return c;
}

BoxDistribution BoxDistribution::from_decomposition(const Decomposition& d) {
  if (d.parts.empty()) throw Error("from_decomposition: the decomposition has no parts");
  if (!d.on_grid_lines)
    throw Error(
        "from_decomposition: expected a decomposition of a gridded density (cuts on grid "
        "lines), got one of a continuous density");
  BoxDistribution out;
  const int dims = d.parts[0].box.dims;
  out.cells = {1, 1, 1};
  for (const auto& p : d.parts) {
    CellBox b;
    for (int a = 0; a < 3; ++a) {
      const auto u = static_cast<std::size_t>(a);
      b.lo[u] = a < dims ? p.cell_lo[u] : 0;
      b.hi[u] = a < dims ? p.cell_hi[u] : 1;
      out.cells[u] = std::max(out.cells[u], b.hi[u]);
    }
    out.boxes.push_back(b);
  }
  return out;
}

std::int64_t BoxDistribution::size() const noexcept { return CellBox{{0, 0, 0}, cells}.volume(); }

bool BoxDistribution::is_valid(std::string* error) const {
  auto fail = [&](const std::string& m) {
    if (error) *error = m;
    return false;
  };
  static const char* axis[] = {"x", "y", "z"};
  if (boxes.empty()) return fail("no boxes, expected one per rank");
  for (std::size_t a = 0; a < 3; ++a)
    if (cells[a] < 1)
      return fail("cells along " + std::string(axis[a]) + " = " + std::to_string(cells[a]) +
                  ", expected >= 1");
  const i64 total = size();
  if (total == std::numeric_limits<i64>::max())
    return fail("a grid of " + std::to_string(cells[0]) + " x " + std::to_string(cells[1]) + " x " +
                std::to_string(cells[2]) + " cells, expected fewer than INT64_MAX cells");
  for (std::size_t r = 0; r < boxes.size(); ++r)
    for (std::size_t a = 0; a < 3; ++a) {
      const auto& b = boxes[r];
      if (b.lo[a] < 0 || b.lo[a] > b.hi[a] || b.hi[a] > cells[a])
        return fail("boxes[" + std::to_string(r) + "] = " + box_text(b) + ": along " + axis[a] +
                    " expected 0 <= lo <= hi <= " + std::to_string(cells[a]));
    }

  // Exact tiling test: 1_[lo,hi) = Π_a (H(x_a − lo_a) − H(x_a − hi_a)) with
  // H(t) = [t >= 0], so Σ_r 1_box_r = Σ_corners sign·Π_a H(x_a − c_a); the
  // orthant indicators of distinct corners are linearly independent, hence
  // Σ_r 1_box_r == 1_grid iff the signed corner counts equal the grid's.
  struct KeyHash {
    std::size_t operator()(const std::array<i64, 3>& c) const noexcept {
      return static_cast<std::size_t>(
          mix(mix(mix(static_cast<u64>(c[0])) ^ static_cast<u64>(c[1])) ^ static_cast<u64>(c[2])));
    }
  };
  std::unordered_map<std::array<i64, 3>, i64, KeyHash> corners;
  corners.reserve(8 * boxes.size() + 8);
  auto add_corners = [&](const CellBox& b, i64 weight) {
    for (int m = 0; m < 8; ++m) {
      std::array<i64, 3> c;
      int his = 0;
      for (std::size_t a = 0; a < 3; ++a) {
        const bool h = (m >> a) & 1;
        c[a] = h ? b.hi[a] : b.lo[a];
        his += h;
      }
      corners[c] += (his % 2 ? -weight : weight);
    }
  };
  for (const auto& b : boxes)
    if (!b.empty()) add_corners(b, 1);
  add_corners(CellBox{{0, 0, 0}, cells}, -1);
  bool tiles = true;
  for (const auto& [c, n] : corners) tiles = tiles && n == 0;
  if (tiles) return true;

  // Diagnosis (error path only): an overlapping pair by a sweep along x, else
  // the uncovered volume.
  std::vector<std::size_t> order;
  for (std::size_t r = 0; r < boxes.size(); ++r)
    if (!boxes[r].empty()) order.push_back(r);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return boxes[a].lo[0] < boxes[b].lo[0]; });
  std::vector<std::size_t> active;
  for (std::size_t r : order) {
    const auto& b = boxes[r];
    std::erase_if(active, [&](std::size_t o) { return boxes[o].hi[0] <= b.lo[0]; });
    for (std::size_t o : active) {
      const CellBox c = intersect(b, boxes[o]);
      if (!c.empty())
        return fail("boxes[" + std::to_string(std::min(o, r)) +
                    "] = " + box_text(boxes[std::min(o, r)]) + " and boxes[" +
                    std::to_string(std::max(o, r)) + "] = " + box_text(boxes[std::max(o, r)]) +
                    " overlap in " + box_text(c) + "; expected disjoint boxes");
    }
    active.push_back(r);
  }
  i64 covered = 0;
  for (const auto& b : boxes) covered += b.volume();  // disjoint, inside: <= total
  return fail("the boxes cover " + std::to_string(covered) + " of the grid's " +
              std::to_string(total) + " cells (" + std::to_string(cells[0]) + " x " +
              std::to_string(cells[1]) + " x " + std::to_string(cells[2]) +
              "); expected every cell in exactly one box");
}

void BoxDistribution::validate() const {
  std::string e;
  if (!is_valid(&e)) throw Error("box distribution: " + e);
}

std::uint64_t BoxDistribution::hash() const noexcept {
  Hasher h;
  for (i64 c : cells) h.add(c);
  h.add(static_cast<u64>(boxes.size()));
  for (const auto& b : boxes)
    for (std::size_t a = 0; a < 3; ++a) {
      h.add(b.lo[a]);
      h.add(b.hi[a]);
    }
  return h.h;
}

// ---------------------------------------------------------------------------
// Options and summaries

bool RedistributeOptions::is_valid(std::string* error) const {
  if (max_mpi_count < 2 || max_mpi_count > INT_MAX) {
    if (error)
      *error = "options.max_mpi_count = " + std::to_string(max_mpi_count) +
               ", expected an integer in [2, " + std::to_string(INT_MAX) + "]";
    return false;
  }
  return true;
}

bool MigrateOptions::is_valid(std::string* error) const {
  RedistributeOptions o;
  o.max_mpi_count = max_mpi_count;
  return o.is_valid(error);
}

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
  out << ", " << seconds * 1e3 << " ms\n";
  return out.str();
}

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
  out << (verified ? ", verified" : "") << ", " << seconds * 1e3 << " ms\n";
  return out.str();
}

// ---------------------------------------------------------------------------
// redistribute

namespace detail {

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
  if (!options.is_valid(&e)) return e;
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
  const u64 hashes[] = {from.hash(), to.hash(), options_hash(options, element_size)};
  const char* const names[] = {"from distribution", "to distribution",
                               "RedistributeOptions/element size"};
  agree(comm, what, problem, hashes, names);
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

}  // namespace

RedistributeSummary redistribute_bytes(MPI_Comm comm, const BlockDistribution& from,
                                       const BlockDistribution& to, const std::byte* local,
                                       std::size_t count, std::size_t element_size, void* out,
                                       ResizeFn resize, bool aliased,
                                       const RedistributeOptions& options) {
  const char* what = "redistribute";
  check_comm(comm, what);
  const double t0 = MPI_Wtime();
  RedistributeSummary s = start_summary(comm, element_size);
  const int rank = s.rank, P = s.ranks;

  // Local checks (first problem wins), then every allocation, then agreement.
  std::string problem = check_distributions(options, from, to, P, "parts");
  if (problem.empty() && from.size() != to.size())
    problem = "from covers " + std::to_string(from.size()) + " elements and to covers " +
              std::to_string(to.size()) + ", expected the same N";
  if (problem.empty() && static_cast<i64>(count) != from.count(rank))
    problem = "local data has " + std::to_string(count) + " elements, expected " +
              std::to_string(from.count(rank)) + " (from gives this rank [" +
              std::to_string(from.begin(rank)) + ", " + std::to_string(from.end(rank)) + "))";
  Plan plan;
  if (problem.empty() && !aliased) plan = plan_blocks(from, to, rank);
  Exchange x;
  std::byte* const result = allocate_and_agree(comm, what, std::move(problem), from, to, rank, plan,
                                               out, resize, aliased, element_size, options, x);

  // Every rank now holds the same valid distributions.
  s.global_elements = from.size();
  const auto ur = static_cast<std::size_t>(rank);
  const auto& o = from.offsets;
  const auto& n = to.offsets;
  const i64 es = static_cast<i64>(element_size);
  Copier copy;
  copy.keep = [&] {
    const i64 lo = std::max(o[ur], n[ur]), hi = std::min(o[ur + 1], n[ur + 1]);
    if (hi > lo)
      std::memcpy(result + (lo - n[ur]) * es, local + (lo - o[ur]) * es,
                  static_cast<std::size_t>((hi - lo) * es));
  };
  copy.pack = [&](int q, std::byte* dst) {
    const auto uq = static_cast<std::size_t>(q);
    std::memcpy(dst, local + plan.sdispl[uq] * es, static_cast<std::size_t>(plan.send[uq] * es));
  };
  copy.unpack = [&](int q, const std::byte* src) {
    const auto uq = static_cast<std::size_t>(q);
    std::memcpy(result + plan.rdispl[uq] * es, src, static_cast<std::size_t>(plan.recv[uq] * es));
  };

  u64 before = 0, after = 0;
  if (options.verify)
    for (std::size_t i = 0; i < count; ++i)
      before += element_hash(o[ur] + static_cast<i64>(i), local + i * element_size, element_size);
  execute(comm, plan, copy, x, local, result, element_size, s);
  if (options.verify)
    for (i64 i = 0; i < n[ur + 1] - n[ur]; ++i)
      after += element_hash(n[ur] + i, result + i * es, element_size);
  finish_summary(comm, s, options.verify, static_cast<u64>(count), before,
                 static_cast<u64>(n[ur + 1] - n[ur]), after, what);
  s.seconds = MPI_Wtime() - t0;
  return s;
}

namespace {

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

}  // namespace

RedistributeSummary redistribute_bytes(MPI_Comm comm, const BoxDistribution& from,
                                       const BoxDistribution& to, const std::byte* local,
                                       std::size_t count, std::size_t element_size, void* out,
                                       ResizeFn resize, bool aliased,
                                       const RedistributeOptions& options) {
  const char* what = "redistribute";
  check_comm(comm, what);
  const double t0 = MPI_Wtime();
  RedistributeSummary s = start_summary(comm, element_size);
  const int rank = s.rank, P = s.ranks;

  std::string problem = check_distributions(options, from, to, P, "boxes");
  if (problem.empty() && from.cells != to.cells)
    problem = "from covers a grid of " + std::to_string(from.cells[0]) + " x " +
              std::to_string(from.cells[1]) + " x " + std::to_string(from.cells[2]) +
              " cells and to one of " + std::to_string(to.cells[0]) + " x " +
              std::to_string(to.cells[1]) + " x " + std::to_string(to.cells[2]) +
              ", expected the same grid";
  if (problem.empty() && static_cast<i64>(count) != from.count(rank))
    problem = "local data has " + std::to_string(count) + " elements, expected " +
              std::to_string(from.count(rank)) + " (the volume of this rank's from box " +
              box_text(from.boxes[static_cast<std::size_t>(rank)]) + ")";
  Plan plan;
  std::vector<CellBox> sbox, rbox;
  if (problem.empty() && !aliased) plan = plan_boxes(from, to, rank, sbox, rbox);
  Exchange x;
  std::byte* const result = allocate_and_agree(comm, what, std::move(problem), from, to, rank, plan,
                                               out, resize, aliased, element_size, options, x);

  s.global_elements = from.size();
  const auto ur = static_cast<std::size_t>(rank);
  const CellBox& mine_old = from.boxes[ur];
  const CellBox& mine_new = to.boxes[ur];
  const CellBox keep = intersect(mine_old, mine_new);
  Copier copy;
  copy.keep = [&] { copy_cells(keep, mine_old, local, mine_new, result, element_size); };
  copy.pack = [&](int q, std::byte* dst) {
    const auto& b = sbox[static_cast<std::size_t>(q)];
    copy_cells(b, mine_old, local, b, dst, element_size);
  };
  copy.unpack = [&](int q, const std::byte* src) {
    const auto& b = rbox[static_cast<std::size_t>(q)];
    copy_cells(b, b, src, mine_new, result, element_size);
  };

  u64 before = 0, after = 0;
  if (options.verify) before = box_checksum(from, mine_old, local, element_size);
  execute(comm, plan, copy, x, local, result, element_size, s);
  if (options.verify) after = box_checksum(to, mine_new, result, element_size);
  finish_summary(comm, s, options.verify, static_cast<u64>(count), before,
                 static_cast<u64>(mine_new.volume()), after, what);
  s.seconds = MPI_Wtime() - t0;
  return s;
}

}  // namespace detail

// ---------------------------------------------------------------------------
// migrate

namespace {

constexpr i64 kHeader = 16;  // record: int64 id, int64 size, payload padded to 16 bytes
constexpr i64 kAlign = 16;
// Sizes beyond this are refused as a size() failure (they could not be
// allocated anyway, and sums of them stay far from overflow).
constexpr i64 kMaxElementBytes = i64{1} << 50;

enum Status : unsigned char { kOk = 0, kRejected = 1, kUnpackFailed = 2 };

u64 moves_hash(std::span<const TaskMove> moves, const MigrateOptions& o) {
  Hasher h;
  h.add(static_cast<u64>(moves.size()));
  for (const auto& m : moves) {
    h.add(m.id);
    h.add(static_cast<i64>(m.from));
    h.add(static_cast<i64>(m.to));
  }
  h.add(static_cast<u64>(o.verify));
  h.add(o.max_mpi_count);
  return h.h;
}

std::string check_migrate_input(int rank, int P, std::span<const std::int64_t> held,
                                std::span<const TaskMove> moves, const MigrationCallbacks& cb,
                                const MigrateOptions& options) {
  std::string e;
  if (!options.is_valid(&e)) return e;
  if (auto m = check_max_count(options.max_mpi_count, P); !m.empty()) return m;
  if (auto m = internal::empty_callbacks(cb); !m.empty()) return m;
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
  const char* what = "migrate";
  check_comm(comm, what);
  const double t0 = MPI_Wtime();
  MigrateSummary s;
  MPI_Comm_rank(comm, &s.rank);
  MPI_Comm_size(comm, &s.ranks);
  const int rank = s.rank, P = s.ranks;
  const auto uP = static_cast<std::size_t>(P);
  {
    const std::string problem = check_migrate_input(rank, P, held, moves, callbacks, options);
    const u64 hashes[] = {moves_hash(moves, options)};
    const char* const names[] = {"moves/MigrateOptions"};
    agree(comm, what, problem, hashes, names);
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
    agree(comm, what, problem, {}, {}, "out of memory (nothing migrated) on");
  }
  alltoallv_units(comm, sendbuf, sc, sd, received.get(), rc, rd, unit);
  staged.reset();

  // 5. Parse the arrived records; check each id against the moves.
  std::unordered_map<i64, int> expected;  // id -> its sender
  for (const auto& m : moves)
    if (m.to == rank && m.from != rank) expected.emplace(m.id, m.from);
  struct In {
    i64 id;
    i64 size;
    const std::byte* bytes;
  };
  std::vector<std::vector<In>> arrived(uP);
  std::vector<std::vector<unsigned char>> status(uP);
  std::unordered_set<i64> seen;
  u64 recv_count = 0, recv_sum = 0, rejected = 0;
  for (std::size_t q = 0; q < uP; ++q) {
    status[q].assign(static_cast<std::size_t>(rrecords[q]), kRejected);
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
    for (std::size_t q = 0; q < uP; ++q)
      std::copy(status[q].begin(), status[q].end(), tbuf.begin() + td[q] * g);
    alltoallv_units(comm, reinterpret_cast<const std::byte*>(tbuf.data()), tc, td,
                    reinterpret_cast<std::byte*>(fbuf.data()), fc, fd, g);
    // 9. Free what arrived, in the moves' order; the rest stays here.
    std::vector<unsigned char> moved(moves.size(), 0);
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
    for (std::size_t i = 0; i < moves.size(); ++i)
      if (moved[i]) {
        try {
          callbacks.free(moves[i].id);
        } catch (...) {
          s.free_errors.push_back(moves[i].id);
        }
      }
  }

  // 10. Totals, and every rank's failures on every rank.
  i64 mine[3] = {s.elements_sent, s.bytes_sent, static_cast<i64>(failures.size())};
  i64 total[3] = {};
  MPI_Allreduce(mine, total, 3, MPI_INT64_T, MPI_SUM, comm);
  s.global_moved = total[0];
  s.global_bytes_moved = total[1];
  if (total[2] > 0) {
    if (total[2] > INT_MAX / 4)
      throw Error("migrate: " + std::to_string(total[2]) +
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
