// A gridded density held as blocks of equal cells (density_atoms.hpp): its
// cumulative mass at any grid line from per-block tables, not from a table of
// every cell.
#include "core/multidim/density_atoms.hpp"

#include <cmath>
#include <string>

#include "core/multidim/grid_impl.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost::detail {

namespace {

// S(i, j, k), the mass of cells [0, i) × [0, j) × [0, k), for line indices
// from 1. With A the atom where line i starts (the last line: one past the
// atoms) and f = i − line A, the mass along x below i is Σ_{a<A} rho_a·w_a +
// f·rho_A; the product over the axes expands into 2^3 terms, each a table
// over the atom corners: T_s sums the atoms below along the axes where s has
// a 0 bit (weighted by their widths) and takes atom A itself along the others.
class AtomTable {
 public:
  AtomTable(const AtomGrid& g) {
    for (int a = 0; a < kMaxDims; ++a) {
      const auto& l = g.lines[static_cast<std::size_t>(a)];
      m_[a] = l.size() - 1;
      lines_[a] = l;
      atom_[a].resize(static_cast<std::size_t>(l.back()) + 1);
      for (std::size_t A = 0; A < m_[a]; ++A)
        for (std::int64_t i = l[A]; i < l[A + 1]; ++i) atom_[a][static_cast<std::size_t>(i)] = A;
      atom_[a].back() = m_[a];
    }
    const std::size_t sx = m_[0] + 1, sy = m_[1] + 1, size = sx * sy * (m_[2] + 1);
    for (unsigned s = 0; s < 8; ++s) {
      std::vector<double>& t = t_[s];
      t.assign(size, 0.0);
      for (std::size_t k = 0; k < m_[2]; ++k)
        for (std::size_t j = 0; j < m_[1]; ++j)
          for (std::size_t i = 0; i < m_[0]; ++i) {
            const std::size_t at[3] = {i, j, k};
            double v = g.rho[i + m_[0] * (j + m_[1] * k)];
            for (int a = 0; a < 3; ++a)
              if (!(s >> a & 1)) v *= static_cast<double>(lines_[a][at[a] + 1] - lines_[a][at[a]]);
            t[i + sx * (j + sy * k)] = v;
          }
      // Exclusive prefix sums along the axes of s's 0 bits.
      const std::size_t stride[3] = {1, sx, sx * sy};
      for (int a = 0; a < 3; ++a) {
        if (s >> a & 1) continue;
        for (std::size_t c = 0; c < size; ++c) {
          const std::size_t pos = c / stride[a] % (m_[a] + 1);
          if (pos != m_[a]) continue;  // from each line's end, back to its start
          double run = 0;
          for (std::size_t p = 0; p <= m_[a]; ++p) {
            const std::size_t at = c - (m_[a] - p) * stride[a];
            const double here = t[at];
            t[at] = run;
            run += here;
          }
        }
      }
    }
  }

  double operator()(std::int64_t i, std::int64_t j, std::int64_t k) const {
    const std::int64_t line[3] = {i, j, k};
    std::size_t A[3];
    double f[3];
    for (int a = 0; a < 3; ++a) {
      A[a] = atom_[a][static_cast<std::size_t>(line[a])];
      f[a] = A[a] < m_[a] ? static_cast<double>(line[a] - lines_[a][A[a]]) : 0.0;
    }
    const std::size_t at = A[0] + (m_[0] + 1) * (A[1] + (m_[1] + 1) * A[2]);
    double sum = 0;
    for (unsigned s = 0; s < 8; ++s) {
      double c = 1;
      for (int a = 0; a < 3; ++a)
        if (s >> a & 1) c *= f[a];
      if (c != 0) sum += c * t_[s][at];
    }
    return sum;
  }

 private:
  std::size_t m_[3];
  std::vector<std::int64_t> lines_[3];
  std::vector<std::size_t> atom_[3];  // per line index: the atom it starts (m at the end)
  std::vector<double> t_[8];
};

}  // namespace

Density atom_density(const GridShape& raw, const Box& box, const AtomGrid& atoms) {
  GridShape shape = raw;
  for (int a = shape.dims; a < kMaxDims; ++a) shape.cells[a] = 1;
  AtomTable table(atoms);
  const double total = table(shape.cells[0], shape.cells[1], shape.cells[2]);
  if (!(total > 0) || !std::isfinite(total))
    throw Error(
        expected_got("grid estimate: the cells' total cost", "a finite number > 0", exact(total)));
  return Density(std::make_shared<GridImpl<AtomTable>>(std::move(table), shape, box), box,
                 std::make_shared<GridShape>(shape));
}

}  // namespace isocost::detail
