// Each part's weight of a grid held in boxes, summed independently of the
// layout (mpi/decompose_grid.hpp: sum_part_costs()).
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/shared/compensated_sum.hpp"
#include "core/shared/decompose_internal.hpp"
#include "isocost/mpi/decompose_grid.hpp"

namespace isocost::mpi {

namespace {

using isocost::detail::CompensatedSum;

// inout += in, in rank order (in's terms come first): as double-doubles.
void add_sums(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const CompensatedSum*>(in);
  auto* b = static_cast<CompensatedSum*>(inout);
  for (int k = 0; k < *len; ++k) b[k].add_earlier(a[k]);
}

}  // namespace

void sum_part_costs(MPI_Comm comm, const GridShape& shape,
                    const std::array<std::int64_t, kMaxDims>& lo,
                    const std::array<std::int64_t, kMaxDims>& hi, std::span<const double> weights,
                    const Speeds& speeds, Decomposition& d) {
  using Cells = std::array<std::int64_t, kMaxDims>;
  const int D = shape.dims;
  Cells blo = lo, bhi = hi;
  for (int a = D; a < kMaxDims; ++a) blo[a] = 0, bhi[a] = 1;
  const std::int64_t nx = bhi[0] - blo[0], ny = bhi[1] - blo[1];
  std::vector<CompensatedSum> sums(d.parts.size());
  for (std::size_t r = 0; r < d.parts.size(); ++r) {
    const Part& p = d.parts[r];
    Cells s0, s1;  // the part ∩ this rank's box
    bool empty = false;
    for (int a = 0; a < kMaxDims; ++a) {
      s0[a] = std::max(a < D ? p.cell_lo[a] : 0, blo[a]);
      s1[a] = std::min(a < D ? p.cell_hi[a] : 1, bhi[a]);
      empty = empty || s0[a] >= s1[a];
    }
    if (empty) continue;
    CompensatedSum s;
    for (std::int64_t k = s0[2]; k < s1[2]; ++k)
      for (std::int64_t j = s0[1]; j < s1[1]; ++j) {
        const double* row =
            weights.data() + ((s0[0] - blo[0]) + nx * ((j - blo[1]) + ny * (k - blo[2])));
        for (std::int64_t i = 0; i < s1[0] - s0[0]; ++i) s.add(row[i]);
      }
    sums[r] = s;
  }
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op add = MPI_OP_NULL;
  MPI_Type_contiguous(2, MPI_DOUBLE, &type);
  MPI_Type_commit(&type);
  MPI_Op_create(&add_sums, 0, &add);  // in rank order: the same result on every rank
  MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), type, add, comm);
  MPI_Op_free(&add);
  MPI_Type_free(&type);
  // The total in part order, as double-doubles too.
  CompensatedSum total;
  for (const CompensatedSum& s : sums) {
    CompensatedSum next = s;
    next.add_earlier(total);
    total = next;
  }
  Box domain;
  domain.dims = D;
  for (int a = 0; a < D; ++a) domain.hi[a] = static_cast<double>(shape.cells[a]);
  for (std::size_t r = 0; r < d.parts.size(); ++r) {
    d.parts[r].cost = sums[r].sum + sums[r].compensation;
    isocost::detail::finish_part(d.parts[r], domain, speeds.speed(d.parts[r].rank));
  }
  d.total_cost = total.sum + total.compensation;
  isocost::detail::summarise(d);
}

}  // namespace isocost::mpi
