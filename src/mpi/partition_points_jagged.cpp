// Weighted points cut by recursive coordinate sectioning
// (mpi/partition_points_jagged.hpp).
#include "isocost/mpi/partition_points_jagged.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

#include "core/shared/decompose_internal.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/limits.hpp"
#include "mpi/agreement.hpp"
#include "mpi/key_cuts.hpp"

namespace isocost::mpi {

using isocost::detail::exact;
using isocost::detail::expected_got;

double JaggedPointsPartition::imbalance() const noexcept {
  return ideal_time > 0 ? max_time / ideal_time - 1 : 0;
}

std::string JaggedPointsPartition::brief_report() const {
  std::ostringstream out;
  out << "partition_points_jagged: " << points << " points into " << part_weight.size()
      << " parts, " << lo.size() << "-D grid " << grid.name() << ", imbalance "
      << exact(imbalance()) << " (heaviest point " << exact(max_point) << "), " << rounds
      << " refinement rounds";
  return out.str();
}

ProcessGrid jagged_points_grid(int P, int dims, std::span<const double> extents) {
  if (P < 1) throw Error(expected_got("jagged_points_grid: parts", ">= 1", std::to_string(P)));
  if (dims < 1 || dims > 3)
    throw Error(expected_got("jagged_points_grid: dims", "1, 2 or 3", std::to_string(dims)));
  if (extents.size() != static_cast<std::size_t>(dims))
    throw Error("jagged_points_grid: " + std::to_string(extents.size()) + " extents for " +
                std::to_string(dims) + " dimensions");
  for (const double e : extents)
    if (!(e >= 0) || !std::isfinite(e))
      throw Error(expected_got("jagged_points_grid: extent", "a finite number >= 0", exact(e)));
  std::vector<int> primes;
  for (int p = 2, rest = P; rest > 1; ++p) {
    if (static_cast<long long>(p) * p > rest) p = rest;
    for (; rest % p == 0; rest /= p) primes.push_back(p);
  }
  std::vector<int> count(static_cast<std::size_t>(dims), 1);
  for (auto it = primes.rbegin(); it != primes.rend(); ++it) {
    std::size_t best = 0;  // the longest extent per part; ties to the lower axis
    for (std::size_t a = 1; a < count.size(); ++a)
      if (extents[a] / count[a] > extents[best] / count[best]) best = a;
    count[best] *= *it;
  }
  std::vector<int> axes;
  for (int a = 0; a < dims; ++a)
    if (count[static_cast<std::size_t>(a)] > 1) axes.push_back(a);
  std::stable_sort(axes.begin(), axes.end(), [&](int a, int b) {
    return extents[static_cast<std::size_t>(a)] > extents[static_cast<std::size_t>(b)];
  });
  ProcessGrid grid;
  for (const int a : axes) {
    grid.counts.push_back(count[static_cast<std::size_t>(a)]);
    grid.axes.push_back(a);
  }
  return grid;
}

namespace {

// Doubles as unsigned keys in the same order: negatives flipped whole,
// positives with the sign bit set; −0 is +0 so that equal coordinates tie.
std::uint64_t key_of(double x) {
  const auto u = std::bit_cast<std::uint64_t>(x == 0 ? 0.0 : x);
  return u >> 63 ? ~u : u | (std::uint64_t{1} << 63);
}

double coordinate_of(std::uint64_t k) {
  return std::bit_cast<double>(k >> 63 ? k & ~(std::uint64_t{1} << 63) : ~k);
}

std::string check_input(int dims, std::span<const double> coords, std::span<const double> w,
                        const ProcessGrid* grid, int P, const JaggedPointsOptions& options) {
  std::string why;
  if (!options.is_valid(&why)) return "options: " + why;
  if (dims < 1 || dims > 3) return expected_got("dims", "1, 2 or 3", std::to_string(dims));
  if (grid) {
    try {
      grid->validate(dims);
    } catch (const Error& e) {
      return e.what();
    }
    if (grid->ranks() != P)
      return expected_got("process grid " + grid->name(),
                          std::to_string(P) + " ranks, as many as the speeds",
                          std::to_string(grid->ranks()) + " ranks");
  }
  if (P > kMaxParts)
    return expected_got("parts", "at most " + std::to_string(kMaxParts), std::to_string(P));
  return detail::check_points(dims, coords, w);
}

// The partition for a given grid, or (null) for jagged_points_grid() of the
// bounding box that the summary reduces anyway.
JaggedPointsPartition run(MPI_Comm comm, int dims, std::span<const double> coords,
                          std::span<const double> weights, const ProcessGrid* given,
                          const Speeds& speeds, const JaggedPointsOptions& options) {
  const char* what = "partition_points_jagged";
  detail::check_comm(comm, what);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int P = speeds.ranks();
  const detail::Same same[] = {
      detail::same_text("dims", std::to_string(dims)),
      detail::same_text("grid", given ? given->name() : std::string("default")),
      detail::same_speeds(speeds), detail::same_options(options)};
  detail::agree(comm, what, check_input(dims, coords, weights, given, P, options), same);
  const detail::PointsSummary sum = detail::summarise_points(comm, what, dims, coords, weights);
  ProcessGrid grid;
  if (given) {
    grid = *given;
  } else {
    std::vector<double> extents(sum.lo.size());
    for (std::size_t a = 0; a < extents.size(); ++a) extents[a] = sum.hi[a] - sum.lo[a];
    grid = jagged_points_grid(P, dims, extents);
  }
  const auto d = static_cast<std::size_t>(dims);
  const std::size_t n = weights.size();

  JaggedPointsPartition out;
  out.options = options;
  out.grid = grid;
  out.lo = sum.lo;
  out.hi = sum.hi;
  out.points = sum.points;
  out.total = sum.total;
  out.max_point = sum.heaviest;
  out.ideal_time = sum.total / speeds.total();

  // Pieces of the current level, numbered as their first ranks' order; a
  // point's piece becomes its part after the last level.
  std::vector<std::size_t> piece(n, 0);
  std::vector<double> box_lo = sum.lo, box_hi = sum.hi, piece_weight{sum.total};
  std::vector<std::pair<std::uint64_t, std::size_t>> sorted(n);
  std::vector<std::uint64_t> sk(n);
  std::vector<std::size_t> order(n);
  std::vector<double> pw(n + 1, 0.0);
  for (std::size_t level = 0; level < grid.counts.size(); ++level) {
    const auto m = static_cast<std::size_t>(grid.counts[level]);
    const auto axis = static_cast<std::size_t>(grid.axes[level]);
    const int q = isocost::detail::ranks_per_slab(grid, level);
    const std::size_t pieces = piece_weight.size();
    if (level > 0) {  // the pieces' weights, summed here rather than from rounded cut values
      std::fill(piece_weight.begin(), piece_weight.end(), 0.0);
      for (std::size_t i = 0; i < n; ++i) piece_weight[piece[i]] += weights[i];
      MPI_Allreduce(MPI_IN_PLACE, piece_weight.data(), static_cast<int>(pieces), MPI_DOUBLE,
                    MPI_SUM, comm);
    }
    // This rank's points by (piece, coordinate, index), and their running
    // weight: placed by piece (a counting sort), then each piece sorted by
    // (key, index) pairs, cheaper to compare than triples.
    std::vector<std::size_t> group_begin(pieces + 1, 0);
    for (std::size_t i = 0; i < n; ++i) ++group_begin[piece[i] + 1];
    for (std::size_t p = 0; p < pieces; ++p) group_begin[p + 1] += group_begin[p];
    std::vector<std::size_t> fill(group_begin.begin(), group_begin.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      sorted[fill[piece[i]]++] = {key_of(coords[i * d + axis]), i};
    for (std::size_t p = 0; p < pieces; ++p)
      std::sort(sorted.begin() + static_cast<long>(group_begin[p]),
                sorted.begin() + static_cast<long>(group_begin[p + 1]));
    for (std::size_t j = 0; j < n; ++j) {
      sk[j] = sorted[j].first;
      order[j] = sorted[j].second;
      pw[j + 1] = pw[j] + weights[order[j]];
    }
    // Cut j of piece p at W_p·C_j/C: the speeds of its slabs' ranks.
    std::vector<std::size_t> cut_group;
    std::vector<double> target;
    for (std::size_t p = 0; p < pieces; ++p) {
      const std::vector<double> cap =
          isocost::detail::slab_capacities(grid, level, speeds, static_cast<int>(p * m) * q);
      double all = 0;
      for (const double c : cap) all += c;
      double before = 0;
      for (std::size_t j = 0; j + 1 < m; ++j) {
        before += cap[j];
        cut_group.push_back(p);
        target.push_back(piece_weight[p] * before / all);
      }
    }
    detail::KeyCutInput in{sk, order, pw, group_begin, cut_group, target};
    in.key_lo = key_of(sum.lo[axis]);
    in.key_hi = key_of(sum.hi[axis]);
    in.buckets = options.buckets;
    in.zero_weights = sum.zero_weights;
    const detail::KeyCuts found = detail::key_cuts(comm, in);
    out.rounds += found.rounds;

    // Each slab's box: its piece's, between the planes of its cuts.
    std::vector<double> next_lo(pieces * m * d), next_hi(pieces * m * d);
    for (std::size_t p = 0; p < pieces; ++p)
      for (std::size_t j = 0; j < m; ++j) {
        const std::size_t s = p * m + j;
        std::copy_n(box_lo.begin() + static_cast<long>(p * d), d,
                    next_lo.begin() + static_cast<long>(s * d));
        std::copy_n(box_hi.begin() + static_cast<long>(p * d), d,
                    next_hi.begin() + static_cast<long>(s * d));
        if (j > 0) next_lo[s * d + axis] = coordinate_of(found.cuts[p * (m - 1) + j - 1].key);
        if (j + 1 < m) next_hi[s * d + axis] = coordinate_of(found.cuts[p * (m - 1) + j].key);
      }
    box_lo = std::move(next_lo);
    box_hi = std::move(next_hi);
    // Each point's slab: its piece's cuts at or before it.
    const std::span<const detail::KeyCut> cuts(found.cuts);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t p = piece[i];
      piece[i] = p * m + detail::cuts_before(cuts.subspan(p * (m - 1), m - 1),
                                             key_of(coords[i * d + axis]), rank,
                                             static_cast<std::int64_t>(i));
    }
    piece_weight.assign(pieces * m, 0.0);
  }

  out.part.assign(piece.begin(), piece.end());
  out.part_lo = std::move(box_lo);
  out.part_hi = std::move(box_hi);
  out.part_weight.assign(static_cast<std::size_t>(P), 0.0);
  for (std::size_t i = 0; i < n; ++i) out.part_weight[piece[i]] += weights[i];
  MPI_Allreduce(MPI_IN_PLACE, out.part_weight.data(), P, MPI_DOUBLE, MPI_SUM, comm);
  for (int k = 0; k < P; ++k)
    out.max_time =
        std::max(out.max_time, out.part_weight[static_cast<std::size_t>(k)] / speeds.speed(k));
  return out;
}

}  // namespace

JaggedPointsPartition partition_points_jagged(MPI_Comm comm, int dims,
                                              std::span<const double> coords,
                                              std::span<const double> weights,
                                              const ProcessGrid& grid, const Speeds& speeds,
                                              const JaggedPointsOptions& options) {
  return run(comm, dims, coords, weights, &grid, speeds, options);
}

JaggedPointsPartition partition_points_jagged(MPI_Comm comm, int dims,
                                              std::span<const double> coords,
                                              std::span<const double> weights, const Speeds& speeds,
                                              const JaggedPointsOptions& options) {
  return run(comm, dims, coords, weights, nullptr, speeds, options);
}

}  // namespace isocost::mpi
