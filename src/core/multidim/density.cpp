// Density: the value type over an implementation, and the Box/GridShape helpers.
// The implementations live in density_grid.cpp and density_analytic.cpp.
#include "isocost/density.hpp"

#include <algorithm>
#include <cmath>

#include "core/shared/decompose_internal.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

using detail::exact;

Box Box::of(std::initializer_list<double> lo, std::initializer_list<double> hi) {
  if (lo.size() != hi.size() || lo.size() < 1 || lo.size() > kMaxDims)
    throw Error("box: expected 1 to 3 coordinates in both corners, got " +
                std::to_string(lo.size()) + " and " + std::to_string(hi.size()));
  Box b;
  b.dims = static_cast<int>(lo.size());
  std::copy(lo.begin(), lo.end(), b.lo.begin());
  std::copy(hi.begin(), hi.end(), b.hi.begin());
  return b;
}

double Box::volume() const {
  double v = 1;
  for (int a = 0; a < dims; ++a) v *= width(a);
  return v;
}

double Box::surface() const {
  if (dims == 1) return 2;
  double s = 0;
  for (int a = 0; a < dims; ++a) {
    double face = 1;  // the face normal to axis a
    for (int b = 0; b < dims; ++b)
      if (b != a) face *= width(b);
    s += 2 * face;
  }
  return s;
}

void Box::validate(const std::string& what) const {
  if (dims < 1 || dims > kMaxDims)
    throw Error(detail::expected_got(what, "1 to 3 dimensions", std::to_string(dims)));
  static const char* names = "xyz";
  for (int a = 0; a < dims; ++a) {
    if (!std::isfinite(lo[a]) || !std::isfinite(hi[a]))
      throw Error(what + ": " +
                  detail::expected_got(std::string(1, names[a]) + " range", "finite ends",
                                       "[" + exact(lo[a]) + ", " + exact(hi[a]) + "]"));
    if (!(lo[a] < hi[a]))
      throw Error(what + ": " + names[a] + " range needs lo < hi, got lo=" + exact(lo[a]) +
                  ", hi=" + exact(hi[a]));
  }
}

std::int64_t GridShape::count() const {
  std::int64_t n = 1;
  for (int a = 0; a < dims; ++a) n *= cells[a];
  return n;
}

double detail::DensityImpl::cell_mass(const std::array<std::int64_t, kMaxDims>&,
                                      const std::array<std::int64_t, kMaxDims>&) const {
  throw Error("cell_mass: the density is not gridded");
}

Density::Density(std::shared_ptr<const detail::DensityImpl> impl, Box box,
                 std::shared_ptr<const GridShape> grid)
    : impl_(std::move(impl)), grid_(std::move(grid)), box_(box) {
  box_.validate("density box");
  total_ = impl_->mass(box_);
  if (!std::isfinite(total_) || !(total_ > 0))
    throw Error(detail::expected_got("density: the total cost over the box", "a finite number > 0",
                                     exact(total_)));
}

namespace {
// Boxes from decompositions are built from the density's own coordinates,
// but allow rounding at the ends.
void check_inside(const Box& outer, const Box& b) {
  if (b.dims != outer.dims)
    throw Error("box has " + std::to_string(b.dims) + " dimensions, the density " +
                std::to_string(outer.dims));
  for (int a = 0; a < b.dims; ++a) {
    const double slack = 1e-12 * std::max(std::abs(outer.lo[a]), std::abs(outer.hi[a]));
    if (!(b.lo[a] >= outer.lo[a] - slack && b.hi[a] <= outer.hi[a] + slack && b.lo[a] <= b.hi[a]))
      throw Error("box [" + exact(b.lo[a]) + ", " + exact(b.hi[a]) + "] along axis " +
                  std::to_string(a) + " is not inside the density's [" + exact(outer.lo[a]) + ", " +
                  exact(outer.hi[a]) + "]");
  }
}
Box clamped(const Box& outer, Box b) {
  for (int a = 0; a < b.dims; ++a) {
    b.lo[a] = std::clamp(b.lo[a], outer.lo[a], outer.hi[a]);
    b.hi[a] = std::clamp(b.hi[a], outer.lo[a], outer.hi[a]);
  }
  return b;
}
}  // namespace

double Density::mass(const Box& b) const {
  check_inside(box_, b);
  const Box c = clamped(box_, b);
  for (int a = 0; a < c.dims; ++a)
    if (c.lo[a] == c.hi[a]) return 0;
  return impl_->mass(c);
}

double Density::marginal(const Box& within, int axis, double x) const {
  if (axis < 0 || axis >= dims())
    throw Error("axis " + std::to_string(axis) + " is outside [0, " + std::to_string(dims()) + ")");
  Box b = within;
  b.hi[axis] = std::clamp(x, within.lo[axis], within.hi[axis]);
  return mass(b);
}

double Density::cross_section(const Box& within, int axis, double x) const {
  if (axis < 0 || axis >= dims())
    throw Error("axis " + std::to_string(axis) + " is outside [0, " + std::to_string(dims()) + ")");
  check_inside(box_, within);
  return impl_->cross_section(clamped(box_, within), axis,
                              std::clamp(x, within.lo[axis], within.hi[axis]));
}

CostModel Density::marginal_model(const Box& within, int axis) const {
  if (axis < 0 || axis >= dims())
    throw Error("axis " + std::to_string(axis) + " is outside [0, " + std::to_string(dims()) + ")");
  check_inside(box_, within);
  // The Density is a cheap shared value: the model keeps its own copy.
  return callable_model(
      [d = *this, within, axis](double x) {
        return CostPoint{d.marginal(within, axis, x), d.cross_section(within, axis, x)};
      },
      within.lo[axis], within.hi[axis], "marginal",
      std::string("marginal along ") + detail::axis_name(axis) + " of " + describe());
}

double Density::grid_line(int axis, std::int64_t k) const {
  if (!grid_) throw Error("grid_line: the density is not gridded");
  if (axis < 0 || axis >= dims() || k < 0 || k > grid_->cells[axis])
    throw Error("grid line " + std::to_string(k) + " along axis " + std::to_string(axis) +
                " does not exist");
  return detail::grid_line(box_, grid_->cells[axis], axis, k);
}

double Density::cell_mass(const std::array<std::int64_t, kMaxDims>& c0,
                          const std::array<std::int64_t, kMaxDims>& c1) const {
  if (!grid_) throw Error("cell_mass: the density is not gridded");
  for (int a = 0; a < dims(); ++a)
    if (c0[a] < 0 || c1[a] > grid_->cells[a] || c0[a] > c1[a])
      throw Error("cell range [" + std::to_string(c0[a]) + ", " + std::to_string(c1[a]) +
                  ") along axis " + std::to_string(a) + " is outside [0, " +
                  std::to_string(grid_->cells[a]) + "]");
  return impl_->cell_mass(c0, c1);
}

}  // namespace isocost
