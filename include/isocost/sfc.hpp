// isocost/sfc.hpp — Hilbert space-filling-curve keys: points in 1–3-D mapped
// to one integer order in which consecutive cells are neighbours, so that a
// range of the order is a compact piece of space (the order weighted points
// are cut in; Zoltan's HSFC does the same).
//
//   isocost::HilbertGrid g{2, 16};               // 2-D, 2^16 cells per axis
//   std::uint64_t k = isocost::hilbert_key(g, {3, 5});
#pragma once

#include <array>
#include <cstdint>

namespace isocost {

/// A grid of 2^bits cells per axis in `dims` dimensions; keys have
/// dims·bits bits, at most 64 (bits <= 64 / dims).
struct HilbertGrid {
  int dims = 2;   ///< 1, 2 or 3
  int bits = 21;  ///< cells per axis = 2^bits, 1 <= bits, dims·bits <= 64

  /// Throws Error unless 1 <= dims <= 3, bits >= 1 and dims·bits <= 64.
  void validate() const;
};

/// The position of cell `cell` (each coordinate in [0, 2^bits)) along the
/// Hilbert curve through the grid, in [0, 2^(dims·bits)). A bijection;
/// consecutive keys are cells that share a face. Skilling's transpose
/// algorithm (AIP Conf. Proc. 707, 381, 2004). In 1-D the key is the cell.
/// Coordinates beyond dims are ignored. Unchecked: call validate() once.
std::uint64_t hilbert_key(const HilbertGrid& grid, std::array<std::uint64_t, 3> cell);

}  // namespace isocost
