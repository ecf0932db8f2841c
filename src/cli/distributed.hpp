// Internal to the isocost command: the forms that run on every rank under
// mpiexec, each rank reading its own share of the file (mpi/files.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "isocost/decompose.hpp"
#include "isocost/partition.hpp"

namespace isocost::cli {

/// `cut --model discrete --weights FILE` on every rank: the cuts of
/// mpi::partition_weights() (exact optimum with `optimal`) as the Partition
/// mpi::to_partition() makes of them.
struct DistributedCut {
  Partition part;
  std::int64_t cells = 0;
};
DistributedCut distributed_cut(const std::string& path, const Speeds& speeds, bool optimal);

/// `partition --weights FILE --shape … [--grid …]` on every rank:
/// mpi::decompose_grid() of the boxes mpi::read_grid() gives, or, without a
/// grid (--grid auto), mpi::choose_process_grid(); `total` gets the grid's
/// total weight.
Decomposition distributed_decompose(const std::string& path, const GridShape& shape,
                                    const std::optional<ProcessGrid>& grid, const Speeds& speeds,
                                    const DecomposeOptions& options, double& total);

}  // namespace isocost::cli
