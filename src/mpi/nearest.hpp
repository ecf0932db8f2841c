// The boundary nearest a target, agreed over the ranks: the candidate, its
// MPI datatype and the reduction that keeps the nearest (ties to the earlier
// position), shared by partition_weights() and partition_points(). Internal.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <limits>

namespace isocost::mpi::detail {

/// One rank's best boundary for a target: its distance, its position in the
/// total order (first, then second), and the cumulative cost there.
struct Nearest {
  double distance = std::numeric_limits<double>::infinity();
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t second = 0;
  double value = 0;
};

/// The datatype and the MPI_Op that reduce Nearest candidates element by
/// element to the nearest, ties to the earlier (first, second); freed on
/// destruction. Create and destroy it collectively: every rank alike.
class NearestReduction {
 public:
  NearestReduction();
  ~NearestReduction();
  NearestReduction(const NearestReduction&) = delete;
  NearestReduction& operator=(const NearestReduction&) = delete;
  MPI_Datatype type() const noexcept { return type_; }
  MPI_Op op() const noexcept { return op_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Op op_ = MPI_OP_NULL;
};

}  // namespace isocost::mpi::detail
