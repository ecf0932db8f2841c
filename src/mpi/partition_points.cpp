// Weighted points cut along a Hilbert curve (mpi/partition_points.hpp).
#include "isocost/mpi/partition_points.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <utility>

#include "agreement.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/limits.hpp"
#include "isocost/sfc.hpp"
#include "nearest.hpp"

namespace isocost::mpi {

using detail::exact;
// Key ranges reach 2^64: one more bit than uint64_t.
__extension__ typedef unsigned __int128 u128;

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
  if (dims < 1 || dims > 3) return std::to_string(dims) + " dimensions, expected 1, 2 or 3";
  if (P > kMaxParts)
    return "speeds for " + std::to_string(P) + " parts, expected at most " +
           std::to_string(kMaxParts);
  const auto d = static_cast<std::size_t>(dims);
  if (coords.size() != w.size() * d)
    return std::to_string(coords.size()) + " coordinates for " + std::to_string(w.size()) +
           " points in " + std::to_string(dims) + " dimensions, expected " +
           std::to_string(w.size() * d);
  for (std::size_t i = 0; i < w.size(); ++i) {
    for (std::size_t a = 0; a < d; ++a)
      if (!std::isfinite(coords[i * d + a]))
        return "point " + std::to_string(i) + " has coordinate " + std::to_string(a) + " = " +
               exact(coords[i * d + a]) + ", expected a finite number";
    if (!(w[i] >= 0) || !std::isfinite(w[i]))
      return "point " + std::to_string(i) + " has weight " + exact(w[i]) +
             ", expected a finite number >= 0";
  }
  return {};
}

// A boundary in the total order (key, rank, local index), for one cut's key
// (nearest.hpp): first = the rank and second = the local index of the point
// it comes right before, or first = the communicator's size for the boundary
// after every point of the key. The nearest to the target wins; ties go to
// the earlier boundary.
using Boundary = internal::Nearest;

// Position of a point or cut in the total order.
struct Position {
  std::uint64_t key = 0;
  std::int64_t rank = 0, index = 0;
  auto operator<=>(const Position&) const = default;
};

}  // namespace

PointsPartition partition_points(MPI_Comm comm, int dims, std::span<const double> coords,
                                 std::span<const double> weights, const Speeds& speeds,
                                 const PointsPartitionOptions& options) {
  const char* what = "partition_points";
  internal::check_comm(comm, what);
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int P = speeds.ranks();
  const internal::Same same[] = {internal::same_text("dims", std::to_string(dims)),
                                 internal::same_speeds(speeds), internal::same_options(options)};
  internal::agree(comm, what, check_input(dims, coords, weights, P, options), same);
  const internal::NearestReduction near;
  const auto d = static_cast<std::size_t>(dims);
  const std::size_t n = weights.size();

  // The bounding box (min of x and of −x), the count, total and heaviest point.
  std::vector<double> box(2 * d, std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t a = 0; a < d; ++a) {
      box[a] = std::min(box[a], coords[i * d + a]);
      box[d + a] = std::min(box[d + a], -coords[i * d + a]);
    }
  MPI_Allreduce(MPI_IN_PLACE, box.data(), static_cast<int>(box.size()), MPI_DOUBLE, MPI_MIN, comm);
  double sums[2] = {std::accumulate(weights.begin(), weights.end(), 0.0), 0.0};
  for (const double w : weights) sums[1] = std::max(sums[1], w);
  double total = 0, heaviest = 0;
  MPI_Allreduce(&sums[0], &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&sums[1], &heaviest, 1, MPI_DOUBLE, MPI_MAX, comm);
  std::int64_t points = static_cast<std::int64_t>(n), all = 0;
  MPI_Allreduce(&points, &all, 1, MPI_INT64_T, MPI_SUM, comm);
  if (all == 0) throw Error(std::string(what) + ": no rank holds a point; expected at least one");
  if (!std::isfinite(total))
    throw Error(std::string(what) + ": the weights sum to " + exact(total) +
                " (beyond the double range)");
  if (!(total > 0))
    throw Error(std::string(what) + ": all weights are zero; the total must be > 0");

  PointsPartition out;
  out.options = options;
  out.points = all;
  out.total = total;
  out.max_point = heaviest;
  out.ideal_time = total / speeds.total();
  // Doubles resolve 52 bits of a coordinate; more would only add zeros.
  out.bits = dims == 1 ? 52 : 64 / dims;
  const HilbertGrid grid{dims, out.bits};
  for (std::size_t a = 0; a < d; ++a) {
    out.lo.push_back(box[a]);
    out.hi.push_back(-box[d + a]);
  }
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
  // The first of sk[from, to) with key >= k (k up to 2^64).
  const auto below = [&](u128 k, std::size_t from, std::size_t to) -> std::size_t {
    if (k > std::numeric_limits<std::uint64_t>::max()) return to;
    return static_cast<std::size_t>(std::lower_bound(sk.begin() + static_cast<long>(from),
                                                     sk.begin() + static_cast<long>(to),
                                                     static_cast<std::uint64_t>(k)) -
                                    sk.begin());
  };

  // Each cut's key range [klo, khi] holds the key where the cumulative weight
  // passes its target; wlo is the weight of all keys below klo, and this
  // rank's points in the range are sk[i0, i1).
  const std::size_t cuts = static_cast<std::size_t>(P) - 1;
  const u128 top = dims * out.bits == 64 ? ~std::uint64_t{0} : (u128{1} << (dims * out.bits)) - 1;
  std::vector<u128> klo(cuts, 0), khi(cuts, top);
  std::vector<double> wlo(cuts, 0.0), target(cuts);
  std::vector<std::size_t> i0(cuts, 0), i1(cuts, n);
  for (std::size_t k = 0; k < cuts; ++k)
    target[k] = total * speeds.fraction_before(static_cast<int>(k) + 1);
  std::vector<std::size_t> ranges, range_of(cuts), idx;
  std::vector<double> hist;
  for (;;) {
    // Cuts in the same range (consecutive: their targets are ordered) share
    // one histogram; at first all of them do.
    ranges.clear();
    for (std::size_t k = 0; k < cuts; ++k) {
      if (klo[k] == khi[k]) continue;
      const bool shared =
          !ranges.empty() && klo[ranges.back()] == klo[k] && khi[ranges.back()] == khi[k];
      if (!shared) ranges.push_back(k);
      range_of[k] = ranges.size() - 1;
    }
    if (ranges.empty()) break;
    // At least 2^20 doubles a round (the first, one range, is narrowed
    // 2^16-fold at once), `buckets` per range within 2^26, at least 2.
    const std::size_t budget = std::max<std::size_t>(
        std::size_t{1} << 20,
        std::min(ranges.size() * static_cast<std::size_t>(options.buckets), std::size_t{1} << 26));
    const std::size_t B = std::clamp<std::size_t>(budget / ranges.size(), 2, 65536);
    hist.assign(ranges.size() * B, 0.0);
    idx.assign(ranges.size() * (B + 1), 0);
    const auto edge = [&](std::size_t k, std::size_t j) {
      return klo[k] + (khi[k] - klo[k] + 1) * j / B;  // < 2^128: no overflow
    };
    for (std::size_t r = 0; r < ranges.size(); ++r) {
      const std::size_t k = ranges[r];
      std::size_t* at = idx.data() + r * (B + 1);
      at[0] = i0[k];
      for (std::size_t j = 1; j <= B; ++j) {
        at[j] = j == B ? i1[k] : below(edge(k, j), at[j - 1], i1[k]);
        hist[r * B + j - 1] = pw[at[j]] - pw[at[j - 1]];
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, hist.data(), static_cast<int>(hist.size()), MPI_DOUBLE, MPI_SUM,
                  comm);
    for (std::size_t k = 0; k < cuts; ++k) {
      if (klo[k] == khi[k]) continue;
      const std::size_t r = range_of[k];
      const double* h = hist.data() + r * B;
      // The bucket where the running weight passes the target; if rounding
      // leaves it unpassed, the last bucket that holds weight.
      double run = wlo[k];
      std::size_t pick = B, last = B;
      double run_last = run;
      for (std::size_t j = 0; j < B && pick == B; ++j) {
        if (h[j] > 0) last = j, run_last = run;
        if (run + h[j] > target[k])
          pick = j;
        else
          run += h[j];
      }
      if (pick == B) pick = last, run = run_last;
      if (pick == B) pick = 0, run = wlo[k];  // no weight at all: keep the range's start
      const u128 a0 = edge(k, pick), a1 = edge(k, pick + 1);
      i0[k] = idx[r * (B + 1) + pick];
      i1[k] = idx[r * (B + 1) + pick + 1];
      klo[k] = a0;
      khi[k] = a1 > a0 ? a1 - 1 : a0;
      wlo[k] = run;
    }
    ++out.rounds;
  }

  // Within each cut's key, its points in (rank, local index) order: the
  // weight on lower ranks (an exclusive scan), then the nearest boundary.
  std::vector<double> group(cuts, 0.0), before(cuts, 0.0);
  std::vector<std::size_t> g0(cuts), g1(cuts);
  for (std::size_t k = 0; k < cuts; ++k) {
    g0[k] = i0[k];
    g1[k] = i1[k];
    group[k] = pw[g1[k]] - pw[g0[k]];
  }
  if (cuts > 0)
    MPI_Exscan(group.data(), before.data(), static_cast<int>(cuts), MPI_DOUBLE, MPI_SUM, comm);
  if (rank == 0) std::fill(before.begin(), before.end(), 0.0);
  std::vector<Boundary> best(cuts);
  for (std::size_t k = 0; k < cuts; ++k) {
    Boundary& b = best[k];
    // Before each local point of the key, in (key, index) order as sorted.
    for (std::size_t j = g0[k]; j < g1[k]; ++j) {
      const double v = wlo[k] + before[k] + (pw[j] - pw[g0[k]]);
      const double dist = std::abs(v - target[k]);
      if (dist < b.distance) b = {dist, rank, static_cast<std::int64_t>(order[j]), v};
    }
    // After every point of the key: the last rank knows that weight.
    if (rank == size - 1) {
      const double v = wlo[k] + before[k] + group[k];
      const double dist = std::abs(v - target[k]);
      if (dist < b.distance) b = {dist, size, 0, v};
    }
  }
  if (cuts > 0)
    MPI_Allreduce(MPI_IN_PLACE, best.data(), static_cast<int>(cuts), near.type(), near.op(), comm);

  // Part of each point: the number of cuts at or before its position.
  std::vector<Position> at(cuts);
  for (std::size_t k = 0; k < cuts; ++k)
    at[k] = {static_cast<std::uint64_t>(klo[k]), best[k].first, best[k].second};
  out.part.resize(n);
  out.part_weight.assign(static_cast<std::size_t>(P), 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const Position p{out.key[i], rank, static_cast<std::int64_t>(i)};
    const auto k = std::upper_bound(at.begin(), at.end(), p) - at.begin();
    out.part[i] = static_cast<int>(k);
    out.part_weight[static_cast<std::size_t>(k)] += weights[i];
  }
  MPI_Allreduce(MPI_IN_PLACE, out.part_weight.data(), P, MPI_DOUBLE, MPI_SUM, comm);
  for (int k = 0; k < P; ++k)
    out.max_time =
        std::max(out.max_time, out.part_weight[static_cast<std::size_t>(k)] / speeds.speed(k));
  return out;
}

}  // namespace isocost::mpi
