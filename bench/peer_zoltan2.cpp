#include "peer_zoltan2.hpp"

#include <Kokkos_Core.hpp>
#include <Zoltan2_BasicVectorAdapter.hpp>
#include <Zoltan2_PartitioningProblem.hpp>

#include <numeric>

namespace isocost::bench::zoltan2 {
namespace {
// Trilinos 13.2 (Debian) instantiates Tpetra for global ordinals of long long only.
using Types = Zoltan2::BasicUserTypes<double, int, long long>;
using Adapter = Zoltan2::BasicVectorAdapter<Types>;
}  // namespace

void initialize(int argc, char** argv) { Kokkos::initialize(argc, argv); }
void finalize() { Kokkos::finalize(); }

std::vector<int> multijagged(MPI_Comm comm, int dims, const std::vector<double>& coords,
                             const std::vector<double>& weights, std::int64_t first_id,
                             const Settings& s) {
  const auto n = static_cast<int>(weights.size());
  std::vector<long long> ids(weights.size());
  std::iota(ids.begin(), ids.end(), static_cast<long long>(first_id));
  std::vector<const double*> entries;
  std::vector<int> strides;
  for (int a = 0; a < dims; ++a) {
    entries.push_back(coords.data() + a);
    strides.push_back(dims);
  }
  std::vector<const double*> wgts{weights.data()};
  std::vector<int> wstrides{1};
  Adapter adapter(n, ids.data(), entries, strides, wgts, wstrides);

  Teuchos::ParameterList params("bench_peers");
  params.set("algorithm", "multijagged");
  params.set("num_global_parts", s.parts);
  params.set("imbalance_tolerance", s.imbalance_tolerance);
  if (!s.mj_parts.empty()) params.set("mj_parts", s.mj_parts);
  Zoltan2::PartitioningProblem<Adapter> problem(&adapter, &params, comm);
  problem.solve();
  const int* part = problem.getSolution().getPartListView();
  return std::vector<int>(part, part + n);
}

}  // namespace isocost::bench::zoltan2
