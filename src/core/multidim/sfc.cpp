// Hilbert keys (sfc.hpp), after Skilling, "Programming the Hilbert curve"
// (AIP Conf. Proc. 707, 381, 2004): the cell's coordinates are turned into the
// curve's "transpose" — the key's bits spread over the axes — by undoing the
// rotations and reflections level by level from the top, then Gray-coding;
// the key interleaves the transposed bits, most significant first.
#include "isocost/sfc.hpp"

#include <string>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

void HilbertGrid::validate() const {
  if (dims < 1 || dims > 3)
    throw Error(detail::expected_got("Hilbert grid: dims", "1, 2 or 3", std::to_string(dims)));
  if (bits < 1 || dims * bits > 64)
    throw Error(detail::expected_got(
        "Hilbert grid: bits per axis",
        "1 to " + std::to_string(64 / dims) + " in " + std::to_string(dims) + " dimensions",
        std::to_string(bits)));
}

namespace {

// Bits 0, 1, 2, … of x moved to bits 0, 2, 4, … (x < 2^32): the standard
// shift-and-mask spreading, five steps instead of a loop over the bits.
std::uint64_t spread2(std::uint64_t x) {
  x &= 0xffffffffu;
  x = (x | x << 16) & 0x0000ffff0000ffffu;
  x = (x | x << 8) & 0x00ff00ff00ff00ffu;
  x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fu;
  x = (x | x << 2) & 0x3333333333333333u;
  return (x | x << 1) & 0x5555555555555555u;
}

// Bits 0, 1, 2, … of x moved to bits 0, 3, 6, … (x < 2^21).
std::uint64_t spread3(std::uint64_t x) {
  x &= 0x1fffffu;
  x = (x | x << 32) & 0x001f00000000ffffu;
  x = (x | x << 16) & 0x001f0000ff0000ffu;
  x = (x | x << 8) & 0x100f00f00f00f00fu;
  x = (x | x << 4) & 0x10c30c30c30c30c3u;
  return (x | x << 2) & 0x1249249249249249u;
}

// One level of the undoing for axis xi against axis 0 (see hilbert_key()).
inline void undo(std::uint64_t& x0, std::uint64_t& xi, int level, std::uint64_t low) {
  const std::uint64_t set = std::uint64_t{0} - ((xi >> level) & 1);
  const std::uint64_t t = (x0 ^ xi) & low & ~set;
  x0 ^= (low & set) | t;
  xi ^= t;
}

}  // namespace

std::uint64_t hilbert_key(const HilbertGrid& grid, std::array<std::uint64_t, 3> x) {
  const int n = grid.dims, b = grid.bits;
  if (n == 1) return x[0];
  // Undo the curve's rotations and reflections, from the top level down:
  // where axis i's bit at this level is set, the lower bits of axis 0 are
  // reflected; where it is clear, those of axes 0 and i are swapped. Without
  // branches (the bits are data) and on scalars, so the axes stay in
  // registers: 20 levels of three axes are the whole cost of a key.
  std::uint64_t x0 = x[0], x1 = x[1], x2 = x[2];
  for (int level = b - 1; level > 0; --level) {
    const std::uint64_t low = (std::uint64_t{1} << level) - 1;
    // Axis 0 against itself: reflect its low bits where its own bit is set.
    x0 ^= low & (std::uint64_t{0} - ((x0 >> level) & 1));
    undo(x0, x1, level, low);
    if (n == 3) undo(x0, x2, level, low);
  }
  // Gray code across the axes, then the correction that keeps the curve
  // continuous between sub-cubes.
  x1 ^= x0;
  if (n == 3) x2 ^= x1;
  const std::uint64_t last = n == 3 ? x2 : x1;
  std::uint64_t t = 0;
  for (int level = b - 1; level > 0; --level)
    t ^= (std::uint64_t{0} - ((last >> level) & 1)) & ((std::uint64_t{1} << level) - 1);
  x0 ^= t;
  x1 ^= t;
  x2 ^= t;
  // Interleave: bit j of axis i is key bit j·n + (n − 1 − i).
  if (n == 2) return spread2(x0) << 1 | spread2(x1);
  return spread3(x0) << 2 | spread3(x1) << 1 | spread3(x2);
}

}  // namespace isocost
