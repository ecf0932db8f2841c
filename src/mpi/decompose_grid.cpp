// Decompositions of a distributed grid of weights (mpi/decompose_grid.hpp):
// the serial rule of decompose() on grids, each level's marginals reduced
// across the ranks instead of read from one rank's summed-area table.
#include "isocost/mpi/decompose_grid.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/shared/decompose_internal.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/limits.hpp"
#include "mpi/agreement.hpp"
#include "mpi/decompose_grid_trusted.hpp"
#include "mpi/tiling.hpp"

namespace isocost::mpi {

namespace {

using Cells = std::array<std::int64_t, kMaxDims>;

// out[i] += src[i]. They never overlap, and the 4-wide body lets -O2's
// basic-block vectoriser use packed adds.
void add_row(double* __restrict out, const double* __restrict src, std::size_t len) {
  std::size_t i = 0;
  for (; i + 4 <= len; i += 4) {
    out[i] += src[i], out[i + 1] += src[i + 1];
    out[i + 2] += src[i + 2], out[i + 3] += src[i + 3];
  }
  for (; i < len; ++i) out[i] += src[i];
}

// Adds each of `rows` x-rows (`len` cells, `stride` apart from `src`) to
// out[r * out_stride]. Each row is summed left to right as before, so the
// marginals are bit-identical; the rows are interleaved only so that their
// independent dependency chains overlap (one chain is latency-bound).
void add_row_sums(const double* src, std::size_t len, std::int64_t stride, std::int64_t rows,
                  double* out, std::int64_t out_stride) {
  constexpr std::int64_t kWays = 8;
  std::int64_t r = 0;
  for (; r + kWays <= rows; r += kWays) {
    const double* s = src + r * stride;
    double acc[kWays] = {};
    for (std::size_t i = 0; i < len; ++i)
      for (std::int64_t v = 0; v < kWays; ++v)
        acc[v] += s[v * stride + static_cast<std::int64_t>(i)];
    for (std::int64_t v = 0; v < kWays; ++v) out[(r + v) * out_stride] += acc[v];
  }
  for (; r < rows; ++r) {
    const double* s = src + r * stride;
    double acc = 0;
    for (std::size_t i = 0; i < len; ++i) acc += s[i];
    out[r * out_stride] += acc;
  }
}

// The grid's shape and the process grid, which every rank must share.
std::string layout_text(const GridShape& s, const ProcessGrid& g) {
  std::string t = std::to_string(s.dims) + "-D";
  for (int a = 0; a < s.dims; ++a) t += (a ? "x" : " ") + std::to_string(s.cells[a]);
  return t + ", process grid " + g.name();
}

std::string check_input(const GridShape& shape, const Cells& lo, const Cells& hi,
                        std::span<const double> w, const ProcessGrid& g, const Speeds& speeds,
                        const DecomposeOptions& options) {
  std::string why;
  if (!options.is_valid(&why)) return "options: " + why;
  if (shape.dims < 1 || shape.dims > kMaxDims)
    return isocost::detail::expected_got("dims", "1, 2 or 3", std::to_string(shape.dims));
  try {
    g.validate(shape.dims);
  } catch (const Error& e) {
    return e.what();
  }
  if (g.ranks() > kMaxParts)
    return isocost::detail::expected_got(
        "process grid ranks", "at most " + std::to_string(kMaxParts), std::to_string(g.ranks()));
  if (speeds.ranks() != g.ranks())
    return std::to_string(speeds.ranks()) + " speeds for the " + std::to_string(g.ranks()) +
           " ranks of the process grid";
  std::int64_t cells = 1;
  for (int a = 0; a < shape.dims; ++a) {
    if (shape.cells[a] < 1)
      return isocost::detail::expected_got(
          std::string("cells along ") + isocost::detail::axis_name(a), "an integer >= 1",
          std::to_string(shape.cells[a]));
    if (lo[a] < 0 || hi[a] < lo[a] || hi[a] > shape.cells[a])
      return isocost::detail::expected_got(
          std::string("box along ") + isocost::detail::axis_name(a),
          "a range inside [0, " + std::to_string(shape.cells[a]) + ")",
          "[" + std::to_string(lo[a]) + ", " + std::to_string(hi[a]) + ")");
    cells *= hi[a] - lo[a];
  }
  if (static_cast<std::int64_t>(w.size()) != cells)
    return std::to_string(w.size()) + " weights for a box of " + std::to_string(cells) + " cells";
  // Blocks checked branch-free, the first bad weight looked for only in a
  // failing block: w·0 is 0 for finite w and NaN for ±inf and NaN, and the
  // block's minimum (NaN ignored) is < 0 iff a weight is negative.
  constexpr std::size_t kBlock = 4096;
  for (std::size_t b = 0; b < w.size(); b += kBlock) {
    const std::size_t e = std::min(w.size(), b + kBlock);
    double z0 = 0, z1 = 0, m0 = 0, m1 = 0;
    std::size_t i = b;
    for (; i + 2 <= e; i += 2) {
      z0 += w[i] * 0.0, z1 += w[i + 1] * 0.0;
      m0 = std::min(m0, w[i]), m1 = std::min(m1, w[i + 1]);
    }
    if (i < e) z0 += w[i] * 0.0, m0 = std::min(m0, w[i]);
    if (z0 + z1 == 0 && m0 >= 0 && m1 >= 0) continue;
    for (i = b; i < e; ++i)
      if (!(w[i] >= 0) || !std::isfinite(w[i]))
        return isocost::detail::expected_got("weight of local cell " + std::to_string(i),
                                             "a finite number >= 0", isocost::detail::exact(w[i]));
  }
  return {};
}

struct Piece {
  Cells c0{0, 0, 0}, c1{1, 1, 1};
  int first_rank = 0;
  double cost = 0;  // its cells' weight, known once it is a slab
};

}  // namespace

Decomposition decompose_grid(MPI_Comm comm, const GridShape& shape, const Cells& lo,
                             const Cells& hi, std::span<const double> weights,
                             const ProcessGrid& process_grid, const Speeds& speeds,
                             const DecomposeOptions& options) {
  const char* what = "decompose_grid";
  detail::check_comm(comm, what);
  const detail::Same same[] = {
      detail::same_text("shape and process grid", layout_text(shape, process_grid)),
      detail::same_speeds(speeds), detail::same_options(options)};
  detail::agree(comm, what, check_input(shape, lo, hi, weights, process_grid, speeds, options),
                same);
  Cells blo = lo, bhi = hi;
  for (int a = shape.dims; a < kMaxDims; ++a) blo[a] = 0, bhi[a] = 1;
  std::int64_t mine = 1, all = 0;
  for (int a = 0; a < shape.dims; ++a) mine *= bhi[a] - blo[a];
  MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, comm);
  if (all != shape.count())
    throw Error(std::string(what) + ": the ranks' boxes hold " + std::to_string(all) +
                " cells, the grid " + std::to_string(shape.count()) +
                "; expected boxes that tile the grid");
  Cells n{1, 1, 1};
  for (int a = 0; a < shape.dims; ++a) n[a] = shape.cells[a];
  if (const std::string why = detail::check_tiling(comm, n, blo, bhi); !why.empty())
    throw Error(std::string(what) + ": " + why + "; expected boxes that tile the grid");
  return detail::decompose_grid_trusted(comm, shape, lo, hi, weights, process_grid, speeds,
                                        options);
}

namespace detail {

Decomposition decompose_grid_trusted(MPI_Comm comm, const GridShape& shape, const Cells& lo,
                                     const Cells& hi, std::span<const double> weights,
                                     const ProcessGrid& process_grid, const Speeds& speeds,
                                     const DecomposeOptions& options) {
  const char* what = "decompose_grid";
  const int D = shape.dims;
  // Unused axes are one cell wide, so that boxes are always 3-D.
  Cells blo = lo, bhi = hi, n{1, 1, 1};
  for (int a = 0; a < kMaxDims; ++a) {
    if (a >= D)
      blo[a] = 0, bhi[a] = 1;
    else
      n[a] = shape.cells[a];
  }
  const auto local = [&](std::int64_t i, std::int64_t j, std::int64_t k) -> const double& {
    const std::int64_t nx = bhi[0] - blo[0], ny = bhi[1] - blo[1];
    return weights[static_cast<std::size_t>((i - blo[0]) +
                                            nx * ((j - blo[1]) + ny * (k - blo[2])))];
  };

  std::vector<Piece> pieces{Piece{{0, 0, 0}, n, 0, 0}};
  std::vector<double> marginal;
  double total = -1;
  for (std::size_t level = 0; level < process_grid.counts.size(); ++level) {
    const int m = process_grid.counts[level], axis = process_grid.axes[level];
    const int q = isocost::detail::ranks_per_slab(process_grid, level);
    // Every piece's marginal along `axis`, back to back: this rank's share.
    std::vector<std::size_t> offset(pieces.size() + 1, 0);
    for (std::size_t p = 0; p < pieces.size(); ++p)
      offset[p + 1] = offset[p] + static_cast<std::size_t>(pieces[p].c1[axis] - pieces[p].c0[axis]);
    marginal.assign(offset.back(), 0.0);
    for (std::size_t p = 0; p < pieces.size(); ++p) {
      Cells s0, s1;  // the piece ∩ this rank's box
      bool empty = false;
      for (int a = 0; a < kMaxDims; ++a) {
        s0[a] = std::max(pieces[p].c0[a], blo[a]);
        s1[a] = std::min(pieces[p].c1[a], bhi[a]);
        empty = empty || s0[a] >= s1[a];
      }
      if (empty) continue;
      // Row by row along x: added cell by cell when x is the level's axis,
      // else summed and added to the row's y or z.
      double* row = marginal.data() + offset[p] - pieces[p].c0[axis];
      const auto len = static_cast<std::size_t>(s1[0] - s0[0]);
      const std::int64_t nx = bhi[0] - blo[0];
      for (std::int64_t k = s0[2]; k < s1[2]; ++k) {
        if (axis == 0) {
          // The marginal and the weights never overlap: restrict lets this vectorise.
          for (std::int64_t j = s0[1]; j < s1[1]; ++j)
            add_row(row + s0[0], &local(s0[0], j, k), len);
        } else if (axis == 1) {
          add_row_sums(&local(s0[0], s0[1], k), len, nx, s1[1] - s0[1], row + s0[1], 1);
        } else {
          add_row_sums(&local(s0[0], s0[1], k), len, nx, s1[1] - s0[1], row + k, 0);
        }
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, marginal.data(), static_cast<int>(marginal.size()), MPI_DOUBLE,
                  MPI_SUM, comm);
    if (level == 0) {
      total = 0;
      for (const double v : marginal) total += v;
      if (!(total > 0)) throw Error(std::string(what) + ": all weights are zero");
    }
    // Each piece cut as decompose() cuts a grid piece (cells are 1 wide).
    std::vector<Piece> next;
    next.reserve(pieces.size() * static_cast<std::size_t>(m));
    for (std::size_t p = 0; p < pieces.size(); ++p) {
      const Piece& piece = pieces[p];
      const std::int64_t len = piece.c1[axis] - piece.c0[axis];
      std::vector<double> prefix(static_cast<std::size_t>(len) + 1, 0.0);
      for (std::int64_t c = 0; c < len; ++c)
        prefix[static_cast<std::size_t>(c) + 1] =
            prefix[static_cast<std::size_t>(c)] + marginal[offset[p] + static_cast<std::size_t>(c)];
      const std::vector<double> capacity =
          isocost::detail::slab_capacities(process_grid, level, speeds, piece.first_rank);
      const std::vector<std::int64_t> b = isocost::detail::grid_slab_cuts(
          prefix, capacity, options.min_width[static_cast<std::size_t>(axis)], 1.0, axis);
      for (int j = 0; j < m; ++j) {
        Piece slab = piece;
        slab.first_rank = piece.first_rank + j * q;
        slab.c0[axis] = piece.c0[axis] + b[static_cast<std::size_t>(j)];
        slab.c1[axis] = piece.c0[axis] + b[static_cast<std::size_t>(j) + 1];
        slab.cost = prefix[static_cast<std::size_t>(b[static_cast<std::size_t>(j) + 1])] -
                    prefix[static_cast<std::size_t>(b[static_cast<std::size_t>(j)])];
        next.push_back(slab);
      }
    }
    pieces = std::move(next);
  }

  // The parts, as decompose()'s leaves, on the grid's box in cell units.
  Decomposition out;
  out.process_grid = process_grid;
  out.on_grid_lines = true;
  out.options = options;
  out.total_cost = total;
  Box domain;
  domain.dims = D;
  for (int a = 0; a < D; ++a) domain.hi[a] = static_cast<double>(n[a]);
  for (const Piece& piece : pieces) {
    Part part;
    part.rank = piece.first_rank;
    part.box.dims = D;
    for (int a = 0; a < D; ++a) {
      part.box.lo[a] = static_cast<double>(piece.c0[a]);
      part.box.hi[a] = static_cast<double>(piece.c1[a]);
      part.cell_lo[a] = piece.c0[a];
      part.cell_hi[a] = piece.c1[a];
    }
    part.cost = piece.cost;
    isocost::detail::finish_part(part, domain, speeds.speed(part.rank));
    out.parts.push_back(part);
  }
  isocost::detail::summarise(out);
  return out;
}

}  // namespace detail

}  // namespace isocost::mpi
