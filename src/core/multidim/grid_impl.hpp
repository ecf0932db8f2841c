// core/multidim/grid_impl.hpp — a gridded density over its cumulative mass
// at grid lines (internal): density_grid.cpp gives it every cell's
// summed-area table, density_atoms.cpp blocks of equal cells.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "isocost/density.hpp"
#include "isocost/points.hpp"

namespace isocost::detail {

// A grid density's masses from its cumulative S at grid lines, whatever
// holds it: every cell's summed-area table (DenseTable), or blocks of equal
// cells (AtomTable, rebalance_grid_global()'s estimate).
template <class Table>
class GridImpl final : public DensityImpl {
 public:
  GridImpl(Table table, const GridShape& shape, const Box& box)
      : sat_(std::move(table)), shape_(shape), box_(box) {
    for (int a = 0; a < kMaxDims; ++a) {
      const double n = static_cast<double>(shape_.cells[a]);
      // Grid-line coordinates (Density::grid_line) come back within a few
      // ulps of an integer; snapping them makes whole-cell boxes exact.
      snap_[a] =
          a < shape_.dims
              ? 16 * std::numeric_limits<double>::epsilon() * n *
                    (1 + std::max(std::abs(box_.lo[a]), std::abs(box_.hi[a])) / box_.width(a))
              : 0;
    }
  }

  double mass(const Box& b) const override {
    return combine({real_range(0, b.lo[0], b.hi[0]), real_range(1, b.lo[1], b.hi[1]),
                    real_range(2, b.lo[2], b.hi[2])});
  }

  double cross_section(const Box& b, int axis, double x) const override {
    // The marginal is linear inside a cell, with slope (mass of that cell's
    // slab within b) / (cell width). On a grid line take the cell above —
    // except at b's top (or the grid's), where the cell below is inside b.
    const std::int64_t n = shape_.cells[axis];
    const double u = coordinate(axis, x);
    std::int64_t c = std::min(static_cast<std::int64_t>(u), n - 1);
    if (u == static_cast<double>(c) && c > 0 && u >= coordinate(axis, b.hi[axis]) &&
        coordinate(axis, b.lo[axis]) < u)
      --c;
    std::array<Terms, kMaxDims> t;
    for (int a = 0; a < kMaxDims; ++a)
      t[a] = a == axis ? cell_range(a, c, c + 1) : real_range(a, b.lo[a], b.hi[a]);
    return combine(t) * static_cast<double>(n) / box_.width(axis);
  }

  std::string describe() const override { return grid_description(shape_, box_); }

  double cell_mass(const std::array<std::int64_t, kMaxDims>& c0,
                   const std::array<std::int64_t, kMaxDims>& c1) const override {
    return combine(
        {cell_range(0, c0[0], c1[0]), cell_range(1, c0[1], c1[1]), cell_range(2, c0[2], c1[2])});
  }

  const Table& table() const { return sat_; }

 private:
  // Along one axis, a signed combination Σ coef·S(…, index, …) with index in
  // 1..n (index 0 is the zero border and is dropped). At most four terms.
  struct Terms {
    int size = 0;
    std::array<std::int64_t, 4> index{};
    std::array<double, 4> coef{};
    void add(std::int64_t i, double c) {
      if (i == 0 || c == 0) return;
      for (int k = 0; k < size; ++k)
        if (index[k] == i) {
          coef[k] += c;
          return;
        }
      index[size] = i;
      coef[size++] = c;
    }
  };

  // x as a fractional cell coordinate in [0, n].
  double coordinate(int axis, double x) const {
    const double n = static_cast<double>(shape_.cells[axis]);
    const double u = (x - box_.lo[axis]) / box_.width(axis) * n;
    const double r = std::round(u);
    return std::clamp(std::abs(u - r) <= snap_[axis] ? r : u, 0.0, n);
  }

  // The cumulative mass along an axis at cell coordinate u is the linear
  // interpolation (1 − f)·S(i) + f·S(i + 1), i = ⌊u⌋, f = u − i, since rho is
  // constant inside a cell; [x0, x1] is the difference of two of them.
  Terms real_range(int axis, double x0, double x1) const {
    Terms t;
    if (axis >= shape_.dims) {
      t.add(1, 1);
      return t;
    }
    const std::int64_t n = shape_.cells[axis];
    const double u0 = coordinate(axis, x0), u1 = coordinate(axis, x1);
    const std::int64_t i0 = std::min(static_cast<std::int64_t>(u0), n - 1);
    const std::int64_t i1 = std::min(static_cast<std::int64_t>(u1), n - 1);
    const double f0 = u0 - static_cast<double>(i0), f1 = u1 - static_cast<double>(i1);
    if (i0 == i1) {  // one cell: (f1 − f0)·(S(i + 1) − S(i)), without 1 − f rounding
      t.add(i0 + 1, f1 - f0);
      t.add(i0, f0 - f1);
      return t;
    }
    t.add(i1 + 1, f1);
    t.add(i1, 1 - f1);
    t.add(i0 + 1, -f0);
    t.add(i0, -(1 - f0));
    return t;
  }

  Terms cell_range(int axis, std::int64_t c0, std::int64_t c1) const {
    Terms t;
    if (axis >= shape_.dims) {
      t.add(1, 1);
    } else {
      t.add(c1, 1);
      t.add(c0, -1);
    }
    return t;
  }

  // Σ over the product of the per-axis terms, innermost along x.
  double combine(const std::array<Terms, kMaxDims>& t) const {
    double total = 0;
    for (int r = 0; r < t[2].size; ++r) {
      double plane = 0;
      for (int q = 0; q < t[1].size; ++q) {
        double line = 0;
        for (int p = 0; p < t[0].size; ++p)
          line += t[0].coef[p] * sat_(t[0].index[p], t[1].index[q], t[2].index[r]);
        plane += t[1].coef[q] * line;
      }
      total += t[2].coef[r] * plane;
    }
    return std::max(total, 0.0);
  }

  Table sat_;
  GridShape shape_;
  Box box_;
  std::array<double, kMaxDims> snap_{};
};

}  // namespace isocost::detail
