#include "peer_zoltan2.hpp"

#include <Kokkos_Core.hpp>
#include <Zoltan2_BasicVectorAdapter.hpp>
#include <Zoltan2_PartitioningProblem.hpp>

#include <Trilinos_version.h>

#include <numeric>
#include <sstream>
#include <string>

namespace isocost::bench::zoltan2 {
namespace {
// Trilinos 13.2 (Debian) instantiates Tpetra for global ordinals of long long only.
using Types = Zoltan2::BasicUserTypes<double, int, long long>;
using Adapter = Zoltan2::BasicVectorAdapter<Types>;
}  // namespace

void initialize(int argc, char** argv) { Kokkos::initialize(argc, argv); }
void finalize() { Kokkos::finalize(); }

std::string version() {
  // xxyyzz (TRILINOS_VERSION_STRING is not reliably "13.2" through the headers)
  const long v = TRILINOS_MAJOR_MINOR_VERSION;
  return "Trilinos " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100) + ", Kokkos " + Kokkos::DefaultExecutionSpace::name();
}

Partitioned multijagged(MPI_Comm comm, int dims, const std::vector<double>& coords,
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
  Partitioned out{std::vector<int>(part, part + n), ""};
  // The list as MJ holds it after the solve, so it shows what was used.
  for (auto it = params.begin(); it != params.end(); ++it) {
    std::ostringstream value;
    value << params.entry(it).getAny();
    out.settings += (out.settings.empty() ? "" : " ") + params.name(it) + "=" + value.str();
  }
  out.settings += std::string(" kokkos=") + Kokkos::DefaultExecutionSpace::name();
  return out;
}

}  // namespace isocost::bench::zoltan2
