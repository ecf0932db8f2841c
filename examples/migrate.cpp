// Moving data to a new distribution (Eijkhout: rebalancing is a copy between
// two distributions). N elements start in equal blocks, but element i costs
// 1 + 9·(i/N)^2, so the last rank works hardest. We cut the discrete cost into
// equal shares (isocost::partition), then move three arrays of the elements
// together with redistribute_arrays(). Exits 1 if an element is lost or
// misplaced, or the new efficiency (T_avg/T_max of cost) is below 0.99.
//   Run: mpiexec -n 3 ./migrate
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "isocost/cost_model.hpp"
#include "isocost/mpi/distribution.hpp"
#include "isocost/mpi/redistribute.hpp"
#include "isocost/mpi/samples.hpp"
#include "isocost/partition.hpp"

namespace {

double cost_of(std::int64_t i, std::int64_t n) {
  const double x = static_cast<double>(i) / static_cast<double>(n);
  return 1.0 + 9.0 * x * x;
}

// Efficiency T_avg / T_max of the ranks' total costs (collective).
double efficiency(const std::vector<double>& cost) {
  double mine = 0;
  for (double c : cost) mine += c;
  return isocost::mpi::gather_load_stats(MPI_COMM_WORLD, mine).efficiency;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const std::int64_t N = 3000;

  // 1. The old distribution and this rank's elements: a struct of arrays.
  const auto from = isocost::mpi::BlockDistribution::uniform(N, P);
  std::vector<std::int64_t> id;
  std::vector<double> cost;
  std::vector<float> value;
  for (std::int64_t i = from.begin(rank); i < from.end(rank); ++i) {
    id.push_back(i);
    cost.push_back(cost_of(i, N));
    value.push_back(static_cast<float>(i) * 0.5f);
  }
  const double eff_before = efficiency(cost);

  // 2. New offsets: every rank computes the same partition of the per-element
  //    costs (here all ranks know the cost formula; a real code would gather).
  std::vector<double> all_costs;
  for (std::int64_t i = 0; i < N; ++i) all_costs.push_back(cost_of(i, N));
  const auto part =
      isocost::partition(isocost::discrete_model(all_costs), isocost::Speeds::uniform(P));
  isocost::mpi::BlockDistribution to;
  for (double c : part.cuts) to.offsets.push_back(std::llround(c));  // integer cuts, as doubles

  // 3. Move all three arrays together; only elements that change owner travel.
  isocost::mpi::RedistributeOptions options;
  options.verify = true;  // global count and checksum, checked by the library too
  const auto s =
      isocost::mpi::redistribute_arrays(MPI_COMM_WORLD, from, to, options, id, cost, value);

  // 4. Check: this rank holds exactly [to.begin, to.end), in order, with its data.
  int bad = 0;
  if (static_cast<std::int64_t>(id.size()) != to.count(rank)) bad = 1;
  for (std::size_t k = 0; k < id.size() && !bad; ++k)
    bad = id[k] != to.begin(rank) + static_cast<std::int64_t>(k) || cost[k] != cost_of(id[k], N) ||
          value[k] != static_cast<float>(id[k]) * 0.5f;
  std::int64_t ids = 0, global_ids = 0;
  for (std::int64_t i : id) ids += i;
  MPI_Allreduce(&ids, &global_ids, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const double eff_after = efficiency(cost);

  if (rank == 0) {
    std::printf("%d ranks, %lld elements: %s\n", P, static_cast<long long>(N),
                s.brief_report().c_str());
    for (int r = 0; r < P; ++r)
      std::printf("  rank %d: [%lld, %lld) -> [%lld, %lld)\n", r,
                  static_cast<long long>(from.begin(r)), static_cast<long long>(from.end(r)),
                  static_cast<long long>(to.begin(r)), static_cast<long long>(to.end(r)));
    std::printf("efficiency before %.3f, after %.3f; sum of ids %lld (expected %lld)\n", eff_before,
                eff_after, static_cast<long long>(global_ids),
                static_cast<long long>(N * (N - 1) / 2));
  }
  const bool ok = !bad && global_ids == N * (N - 1) / 2 && eff_after >= 0.99;
  if (rank == 0 && !ok) std::printf("FAIL: elements lost or misplaced, or efficiency below 0.99\n");
  MPI_Finalize();
  return ok ? 0 : 1;
}
