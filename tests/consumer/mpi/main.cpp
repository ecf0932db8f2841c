// Links isocost::mpi from an install tree (without the fitters) and moves a
// block distribution: N = 100 elements from equal blocks to blocks of 10 and
// 90 (two ranks), checking every element arrives at its new owner.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "isocost/mpi/redistribute.hpp"
#include "isocost/version.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  using isocost::mpi::BlockDistribution;
  const auto from = BlockDistribution::uniform(100, size);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(size), 90 / size);
  counts[0] = 100 - (90 / size) * (size - 1);
  const auto to = BlockDistribution::from_counts(counts);
  std::vector<std::int64_t> mine;
  for (auto i = from.begin(rank); i < from.end(rank); ++i) mine.push_back(i);
  const auto moved = isocost::mpi::redistribute(MPI_COMM_WORLD, from, to, mine);
  int bad = 0;
  for (std::size_t k = 0; k < moved.data.size(); ++k)
    if (moved.data[k] != to.begin(rank) + static_cast<std::int64_t>(k)) ++bad;
  int all_bad = 0;
  MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("isocost %s: %d ranks, %d misplaced elements\n", isocost::version(), size, all_bad);
  MPI_Finalize();
  return all_bad == 0 ? 0 : 1;
}
