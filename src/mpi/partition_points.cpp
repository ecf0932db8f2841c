// Weighted points cut along a Hilbert curve (mpi/partition_points.hpp).
#include "isocost/mpi/partition_points.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <utility>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/limits.hpp"
#include "isocost/sfc.hpp"
#include "mpi/agreement.hpp"
#include "mpi/key_cuts.hpp"

namespace isocost::mpi {

using isocost::detail::exact;

double PointsPartition::imbalance() const noexcept {
  return ideal_time > 0 ? max_time / ideal_time - 1 : 0;
}

std::string PointsPartition::brief_report() const {
  std::ostringstream out;
  out << "partition_points: " << points << " points into " << part_weight.size()
      << " parts along a " << lo.size() << "-D Hilbert curve (" << bits
      << " bits per axis), imbalance " << exact(imbalance()) << " (heaviest point "
      << exact(max_point) << "), " << rounds << " refinement rounds";
  return out.str();
}

namespace {

std::string check_input(int dims, std::span<const double> coords, std::span<const double> w, int P,
                        const PointsPartitionOptions& options) {
  std::string why;
  if (!options.is_valid(&why)) return "options: " + why;
  if (dims < 1 || dims > 3)
    return isocost::detail::expected_got("dims", "1, 2 or 3", std::to_string(dims));
  if (P > kMaxParts)
    return isocost::detail::expected_got(
        "speeds", "at most " + std::to_string(kMaxParts) + " parts", std::to_string(P) + " parts");
  return detail::check_points(dims, coords, w);
}

}  // namespace

PointsPartition partition_points(MPI_Comm comm, int dims, std::span<const double> coords,
                                 std::span<const double> weights, const Speeds& speeds,
                                 const PointsPartitionOptions& options) {
  const char* what = "partition_points";
  detail::check_comm(comm, what);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int P = speeds.ranks();
  const detail::Same same[] = {detail::same_text("dims", std::to_string(dims)),
                               detail::same_speeds(speeds), detail::same_options(options)};
  detail::agree(comm, what, check_input(dims, coords, weights, P, options), same);
  const auto d = static_cast<std::size_t>(dims);
  const std::size_t n = weights.size();

  const detail::PointsSummary sum = detail::summarise_points(comm, what, dims, coords, weights);

  PointsPartition out;
  out.options = options;
  out.points = sum.points;
  out.total = sum.total;
  out.max_point = sum.heaviest;
  out.ideal_time = sum.total / speeds.total();
  // Doubles resolve 52 bits of a coordinate; more would only add zeros.
  out.bits = dims == 1 ? 52 : 64 / dims;
  const HilbertGrid grid{dims, out.bits};
  out.lo = sum.lo;
  out.hi = sum.hi;
  const double side = std::ldexp(1.0, out.bits);
  out.key.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::array<std::uint64_t, 3> cell{0, 0, 0};
    for (std::size_t a = 0; a < d; ++a) {
      const double span = out.hi[a] - out.lo[a];
      if (!(span > 0)) continue;
      const double c = std::floor((coords[i * d + a] - out.lo[a]) / span * side);
      cell[a] = static_cast<std::uint64_t>(std::min(c, side - 1));
    }
    out.key[i] = hilbert_key(grid, cell);
  }
  // This rank's points in key order, and their running weight. Sorting
  // (key, index) pairs keeps the comparisons in cache.
  std::vector<std::pair<std::uint64_t, std::size_t>> sorted(n);
  for (std::size_t i = 0; i < n; ++i) sorted[i] = {out.key[i], i};
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::size_t> order(n);
  std::vector<std::uint64_t> sk(n);
  std::vector<double> pw(n + 1, 0.0);
  for (std::size_t j = 0; j < n; ++j) {
    order[j] = sorted[j].second;
    sk[j] = sorted[j].first;
    pw[j + 1] = pw[j] + weights[order[j]];
  }
  sorted = {};

  // One group: every point, cut at TT·S_k/S.
  const std::size_t cuts = static_cast<std::size_t>(P) - 1;
  std::vector<double> target(cuts);
  for (std::size_t k = 0; k < cuts; ++k)
    target[k] = sum.total * speeds.fraction_before(static_cast<int>(k) + 1);
  const std::vector<std::size_t> group_begin{0, n}, cut_group(cuts, 0);
  detail::KeyCutInput in{sk, order, pw, group_begin, cut_group, target};
  in.key_hi =
      dims * out.bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (dims * out.bits)) - 1;
  in.buckets = options.buckets;
  in.zero_weights = sum.zero_weights;
  const detail::KeyCuts found = detail::key_cuts(comm, in);
  out.rounds = found.rounds;

  // Part of each point: the number of cuts at or before its position.
  out.part.resize(n);
  out.part_weight.assign(static_cast<std::size_t>(P), 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k =
        detail::cuts_before(found.cuts, out.key[i], rank, static_cast<std::int64_t>(i));
    out.part[i] = static_cast<int>(k);
    out.part_weight[k] += weights[i];
  }
  MPI_Allreduce(MPI_IN_PLACE, out.part_weight.data(), P, MPI_DOUBLE, MPI_SUM, comm);
  for (int k = 0; k < P; ++k)
    out.max_time =
        std::max(out.max_time, out.part_weight[static_cast<std::size_t>(k)] / speeds.speed(k));
  return out;
}

}  // namespace isocost::mpi
