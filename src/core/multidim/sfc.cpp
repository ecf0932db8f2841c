// Hilbert keys (sfc.hpp), after Skilling, "Programming the Hilbert curve"
// (AIP Conf. Proc. 707, 381, 2004): the cell's coordinates are turned into the
// curve's "transpose" — the key's bits spread over the axes — by undoing the
// rotations and reflections level by level from the top, then Gray-coding;
// the key interleaves the transposed bits, most significant first.
#include "isocost/sfc.hpp"

#include <string>

#include "isocost/error.hpp"

namespace isocost {

void HilbertGrid::validate() const {
  if (dims < 1 || dims > 3)
    throw Error("Hilbert grid: " + std::to_string(dims) + " dimensions, expected 1, 2 or 3");
  if (bits < 1 || dims * bits > 64)
    throw Error("Hilbert grid: " + std::to_string(bits) + " bits per axis in " +
                std::to_string(dims) + " dimensions, expected 1 to " + std::to_string(64 / dims));
}

std::uint64_t hilbert_key(const HilbertGrid& grid, std::array<std::uint64_t, 3> x) {
  const int n = grid.dims, b = grid.bits;
  if (n == 1) return x[0];
  const std::uint64_t top = std::uint64_t{1} << (b - 1);
  // Undo the curve's rotations and reflections, from the top level down:
  // where axis i's bit at this level is set, the lower bits of axis 0 are
  // reflected; where it is clear, those of axes 0 and i are swapped.
  for (std::uint64_t q = top; q > 1; q >>= 1) {
    const std::uint64_t low = q - 1;
    for (int i = 0; i < n; ++i) {
      if (x[i] & q) {
        x[0] ^= low;
      } else {
        const std::uint64_t t = (x[0] ^ x[i]) & low;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  // Gray code across the axes, then the correction that keeps the curve
  // continuous between sub-cubes.
  for (int i = 1; i < n; ++i) x[i] ^= x[i - 1];
  std::uint64_t t = 0;
  for (std::uint64_t q = top; q > 1; q >>= 1)
    if (x[n - 1] & q) t ^= q - 1;
  for (int i = 0; i < n; ++i) x[i] ^= t;
  // Interleave: bit j of axis i is key bit j·n + (n − 1 − i).
  std::uint64_t key = 0;
  for (int j = b - 1; j >= 0; --j)
    for (int i = 0; i < n; ++i) key = (key << 1) | ((x[i] >> j) & 1);
  return key;
}

}  // namespace isocost
