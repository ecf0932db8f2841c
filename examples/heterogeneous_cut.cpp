// Swartz §4 in a few lines: 7 ordinary nodes and 4 nodes three times as fast
// share the sieve of Appendix C; each rank computes its own range on its own.
#include <cstdio>

#include "isocost/cost_model.hpp"
#include "isocost/partition.hpp"

int main() {
  const auto t = isocost::sieve_model({}, 6, 268435456);  // Swartz eq. (4)
  const auto speeds = isocost::Speeds::from_node_types({{7, 1.0}, {4, 3.0}});
  for (int rank = 0; rank < speeds.ranks(); ++rank) {
    const auto r = isocost::rank_range(t, rank, speeds);  // no communication
    std::printf("rank %2d  speed %g  [%.0f, %.0f)  predicted time %.6g\n", rank, speeds.speed(rank),
                r.lo, r.hi, r.time);
  }
}
