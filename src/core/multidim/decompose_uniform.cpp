// Equal boxes of a grid (decompose.hpp's decompose_uniform()): each level's
// slabs split their piece's cells as evenly as integers allow, with no
// weights to read — a uniform start for a GridBalancer on any grid size.
#include <algorithm>
#include <string>
#include <vector>

#include "core/shared/decompose_internal.hpp"
#include "isocost/decompose.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

Decomposition decompose_uniform(const GridShape& shape, const ProcessGrid& process_grid) {
  const int D = shape.dims;
  if (D < 1 || D > kMaxDims)
    throw Error(detail::expected_got("decompose_uniform: dims", "1, 2 or 3", std::to_string(D)));
  for (int a = 0; a < D; ++a)
    if (shape.cells[a] < 1)
      throw Error(detail::expected_got(
          std::string("decompose_uniform: cells along ") + detail::axis_name(a), "an integer >= 1",
          std::to_string(shape.cells[a])));
  process_grid.validate(D);
  struct Piece {
    std::array<std::int64_t, kMaxDims> c0{0, 0, 0}, c1{1, 1, 1};
    int first_rank = 0;
  };
  std::vector<Piece> pieces(1);
  for (int a = 0; a < D; ++a) pieces[0].c1[a] = shape.cells[a];
  for (std::size_t l = 0; l < process_grid.counts.size(); ++l) {
    const int a = process_grid.axes[l], k = process_grid.counts[l];
    const int q = detail::ranks_per_slab(process_grid, l);
    std::vector<Piece> next;
    for (const Piece& p : pieces) {
      const std::int64_t lo = p.c0[a], n = p.c1[a] - lo;
      if (n < k)
        throw Error("decompose_uniform: " + std::to_string(n) + " cells along " +
                    detail::axis_name(a) + " for " + std::to_string(k) +
                    " slabs; expected at least one cell a slab");
      for (int j = 0; j < k; ++j) {  // slab j: cells [lo + ⌊n·j/k⌋, lo + ⌊n·(j+1)/k⌋)
        Piece s = p;
        s.c0[a] = lo + n * j / k;
        s.c1[a] = lo + n * (j + 1) / k;
        s.first_rank = p.first_rank + j * q;
        next.push_back(s);
      }
    }
    pieces = std::move(next);
  }
  Decomposition out;
  out.process_grid = process_grid;
  out.on_grid_lines = true;
  Box domain;
  domain.dims = D;
  for (int a = 0; a < D; ++a) domain.hi[a] = static_cast<double>(shape.cells[a]);
  std::sort(pieces.begin(), pieces.end(),
            [](const Piece& x, const Piece& y) { return x.first_rank < y.first_rank; });
  for (const Piece& p : pieces) {
    Part part;
    part.rank = p.first_rank;
    part.box.dims = D;
    double cells = 1;
    for (int a = 0; a < D; ++a) {
      part.box.lo[a] = static_cast<double>(p.c0[a]);
      part.box.hi[a] = static_cast<double>(p.c1[a]);
      part.cell_lo[a] = p.c0[a];
      part.cell_hi[a] = p.c1[a];
      cells *= static_cast<double>(p.c1[a] - p.c0[a]);
    }
    part.cost = cells;  // a uniform density of one per cell
    detail::finish_part(part, domain, 1.0);
    out.total_cost += cells;
    out.parts.push_back(part);
  }
  detail::summarise(out);
  return out;
}

}  // namespace isocost
