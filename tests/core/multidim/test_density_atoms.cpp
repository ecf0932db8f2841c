// The gridded density held as blocks of equal cells (density_atoms.hpp)
// against grid_density() of every cell's cost: the same masses of whole
// cells, of boxes cutting through cells, and the same cross-sections, on
// 1-, 2- and 3-D grids with random blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/multidim/density_atoms.hpp"

namespace {

using isocost::Box;
using isocost::GridShape;
using isocost::kMaxDims;
using isocost::detail::AtomGrid;

TEST(AtomDensity, EqualsTheDensityOfEveryCell) {
  std::mt19937 g(11);
  for (const GridShape& shape :
       {GridShape{1, {37, 1, 1}}, GridShape{2, {19, 23, 1}}, GridShape{3, {9, 7, 11}}}) {
    SCOPED_TRACE(std::to_string(shape.dims) + "-D");
    AtomGrid atoms;
    for (int a = 0; a < kMaxDims; ++a) {
      const std::int64_t n = a < shape.dims ? shape.cells[a] : 1;
      auto& l = atoms.lines[static_cast<std::size_t>(a)];
      l = {0, n};
      std::uniform_int_distribution<std::int64_t> at(1, std::max<std::int64_t>(1, n - 1));
      for (int k = 0; k < 4 && n > 1; ++k) l.push_back(at(g));
      std::sort(l.begin(), l.end());
      l.erase(std::unique(l.begin(), l.end()), l.end());
    }
    std::uniform_real_distribution<> rho(0, 5);
    atoms.rho.resize(atoms.atoms());
    for (double& v : atoms.rho) v = rho(g);
    atoms.rho[0] = 0;  // an empty block too
    // Every cell's cost, x fastest.
    const std::int64_t nx = shape.cells[0], ny = shape.cells[1],
                       nz = shape.dims > 2 ? shape.cells[2] : 1;
    std::vector<double> cells(static_cast<std::size_t>(nx * ny * nz));
    const auto atom = [&](int a, std::int64_t c) {
      const auto& l = atoms.lines[static_cast<std::size_t>(a)];
      return static_cast<std::size_t>(std::upper_bound(l.begin(), l.end(), c) - l.begin() - 1);
    };
    for (std::int64_t k = 0; k < nz; ++k)
      for (std::int64_t j = 0; j < ny; ++j)
        for (std::int64_t i = 0; i < nx; ++i)
          cells[static_cast<std::size_t>(i + nx * (j + ny * k))] =
              atoms.rho[atom(0, i) + atoms.count(0) * (atom(1, j) + atoms.count(1) * atom(2, k))];
    Box box;
    box.dims = shape.dims;
    for (int a = 0; a < shape.dims; ++a) {
      box.lo[a] = -1.5 * a;
      box.hi[a] = box.lo[a] + 0.25 * static_cast<double>(shape.cells[a]);
    }
    const auto dense = isocost::grid_density(cells, shape, box);
    const auto held = isocost::detail::atom_density(shape, box, atoms);
    EXPECT_NEAR(held.total(), dense.total(), 1e-12 * dense.total());
    for (int trial = 0; trial < 200; ++trial) {
      std::array<std::int64_t, kMaxDims> c0{0, 0, 0}, c1{1, 1, 1};
      Box b = box;
      for (int a = 0; a < shape.dims; ++a) {
        std::uniform_int_distribution<std::int64_t> at(0, shape.cells[a]);
        c0[a] = at(g);
        c1[a] = at(g);
        if (c0[a] > c1[a]) std::swap(c0[a], c1[a]);
        std::uniform_real_distribution<> x(box.lo[a], box.hi[a]);
        b.lo[a] = x(g);
        b.hi[a] = x(g);
        if (b.lo[a] > b.hi[a]) std::swap(b.lo[a], b.hi[a]);
      }
      EXPECT_NEAR(held.cell_mass(c0, c1), dense.cell_mass(c0, c1), 1e-12 * dense.total());
      EXPECT_NEAR(held.mass(b), dense.mass(b), 1e-12 * dense.total());
      const int axis = trial % shape.dims;
      const double x = 0.5 * (b.lo[axis] + b.hi[axis]);
      EXPECT_NEAR(held.cross_section(b, axis, x), dense.cross_section(b, axis, x),
                  1e-12 * dense.total() / box.width(axis) * static_cast<double>(shape.cells[axis]));
    }
  }
}

}  // namespace
