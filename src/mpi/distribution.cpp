// Block and box distributions (distribution.hpp): construction, owners,
// validation (the exact tiling test) and hashes.
#include "isocost/mpi/distribution.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "mpi/transfer.hpp"

namespace isocost::mpi {

using detail::box_text;
using detail::Hasher;
using detail::i64;
using detail::mix;
using detail::u64;
using isocost::detail::expected_got;

// ---------------------------------------------------------------------------
// BlockDistribution

BlockDistribution BlockDistribution::uniform(std::int64_t n, int parts) {
  if (n < 0) throw Error(expected_got("uniform distribution: N", ">= 0", std::to_string(n)));
  if (parts < 1)
    throw Error(expected_got("uniform distribution: P", ">= 1", std::to_string(parts)));
  BlockDistribution d;
  d.offsets.resize(static_cast<std::size_t>(parts) + 1);
  const i64 base = n / parts, extra = n % parts;
  for (int r = 0; r < parts; ++r)
    d.offsets[static_cast<std::size_t>(r) + 1] =
        d.offsets[static_cast<std::size_t>(r)] + base + (r < extra ? 1 : 0);
  return d;
}

BlockDistribution BlockDistribution::from_counts(std::span<const std::int64_t> counts) {
  if (counts.empty()) throw Error(expected_got("from_counts: counts", "one per rank", "none"));
  BlockDistribution d;
  d.offsets.assign(1, 0);
  for (std::size_t r = 0; r < counts.size(); ++r) {
    if (counts[r] < 0)
      throw Error(expected_got("from_counts: counts[" + std::to_string(r) + "]", ">= 0",
                               std::to_string(counts[r])));
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
    throw Error(expected_got("owner: index", "one in [0, " + std::to_string(size()) + ")",
                             std::to_string(index)));
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
    return fail(expected_got("offsets", "P + 1 >= 2 of them", std::to_string(offsets.size())));
  if (offsets[0] != 0) return fail(expected_got("offsets[0]", "0", std::to_string(offsets[0])));
  for (std::size_t i = 1; i < offsets.size(); ++i)
    if (offsets[i] < offsets[i - 1])
      return fail(expected_got("offsets[" + std::to_string(i) + "]",
                               "a value >= " + std::to_string(offsets[i - 1]) + " (offsets[" +
                                   std::to_string(i - 1) +
                                   "]; nondecreasing offsets: blocks must not overlap)",
                               std::to_string(offsets[i])));
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
  if (boxes.empty()) return fail(expected_got("boxes", "one per rank", "none"));
  for (std::size_t a = 0; a < 3; ++a)
    if (cells[a] < 1)
      return fail(expected_got(
          "cells along " + std::string(isocost::detail::axis_name(static_cast<int>(a))), ">= 1",
          std::to_string(cells[a])));
  const i64 total = size();
  if (total == std::numeric_limits<i64>::max())
    return fail(expected_got("grid", "fewer than INT64_MAX cells",
                             std::to_string(cells[0]) + " x " + std::to_string(cells[1]) + " x " +
                                 std::to_string(cells[2]) + " cells"));
  for (std::size_t r = 0; r < boxes.size(); ++r)
    for (std::size_t a = 0; a < 3; ++a) {
      const auto& b = boxes[r];
      if (b.lo[a] < 0 || b.lo[a] > b.hi[a] || b.hi[a] > cells[a])
        return fail(expected_got("boxes[" + std::to_string(r) + "]",
                                 "0 <= lo <= hi <= " + std::to_string(cells[a]) + " along " +
                                     isocost::detail::axis_name(static_cast<int>(a)),
                                 box_text(b)));
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

CellOwners::CellOwners(const BoxDistribution& d) : cells_(d.cells), boxes_(d.boxes) {
  for (const CellBox& b : boxes_)
    if (!b.empty()) {
      xs_.push_back(b.lo[0]);
      xs_.push_back(b.hi[0]);
    }
  std::sort(xs_.begin(), xs_.end());
  xs_.erase(std::unique(xs_.begin(), xs_.end()), xs_.end());
  slabs_.assign(xs_.empty() ? 0 : xs_.size() - 1, {});
  for (std::size_t r = 0; r < boxes_.size(); ++r) {
    const CellBox& b = boxes_[r];
    if (b.empty()) continue;
    const auto first = std::lower_bound(xs_.begin(), xs_.end(), b.lo[0]) - xs_.begin();
    const auto last = std::lower_bound(xs_.begin(), xs_.end(), b.hi[0]) - xs_.begin();
    for (auto s = first; s < last; ++s) slabs_[static_cast<std::size_t>(s)].push_back(int(r));
  }
}

int CellOwners::owner(std::int64_t i, std::int64_t j, std::int64_t k) const {
  if (i < 0 || j < 0 || k < 0 || i >= cells_[0] || j >= cells_[1] || k >= cells_[2]) return -1;
  const auto it = std::upper_bound(xs_.begin(), xs_.end(), i);
  if (it == xs_.begin() || it == xs_.end()) return -1;
  for (int r : slabs_[static_cast<std::size_t>(it - xs_.begin() - 1)]) {
    const CellBox& b = boxes_[static_cast<std::size_t>(r)];
    if (j >= b.lo[1] && j < b.hi[1] && k >= b.lo[2] && k < b.hi[2]) return r;
  }
  return -1;
}

int CellOwners::owner(std::int64_t cell) const {
  if (cell < 0) return -1;
  const std::int64_t nx = cells_[0], ny = cells_[1];
  return owner(cell % nx, (cell / nx) % ny, cell / (nx * ny));
}

}  // namespace isocost::mpi
