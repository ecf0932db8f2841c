// Weighted cuts of distributed 64-bit keys (key_cuts.hpp).
#include "mpi/key_cuts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

#include "mpi/nearest.hpp"

namespace isocost::mpi::detail {

namespace {
// Key ranges reach 2^64: one more bit than uint64_t.
__extension__ typedef unsigned __int128 u128;

// A cut at the start of its key K (value wlo) ties with every boundary
// between zero-weight points before K; the earliest of them is right after
// the last point of positive weight before K (or the group's start). Its
// position, the max over ranks of (key, rank, index), takes a MAX of keys
// and a nearest reduction of −(rank, index).
void earliest_ties(MPI_Comm comm, const KeyCutInput& in, const std::vector<double>& wlo,
                   const std::vector<std::size_t>& i0, std::vector<KeyCut>& cuts) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::size_t n = cuts.size();
  std::vector<std::uint64_t> key(n, 0);  // key + 1 of this rank's last such point, or 0
  std::vector<std::size_t> at(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    if (cuts[k].value != wlo[k]) continue;
    const std::size_t begin = in.group_begin[in.cut_group[k]];
    const auto pw = in.prefix.begin();
    const auto e = static_cast<std::size_t>(std::lower_bound(pw + static_cast<long>(begin),
                                                             pw + static_cast<long>(i0[k]) + 1,
                                                             in.prefix[i0[k]]) -
                                            pw);
    if (e > begin) key[k] = in.keys[e - 1] + 1, at[k] = e - 1;  // < K <= 2^64 − 1
  }
  std::vector<std::uint64_t> top(n, 0);
  MPI_Allreduce(key.data(), top.data(), static_cast<int>(n), MPI_UINT64_T, MPI_MAX, comm);
  std::vector<Nearest> last(n);
  for (std::size_t k = 0; k < n; ++k)
    if (top[k] > 0 && key[k] == top[k])
      last[k] = {0, -rank, -static_cast<std::int64_t>(in.index[at[k]]), 0};
  const NearestReduction near;
  MPI_Allreduce(MPI_IN_PLACE, last.data(), static_cast<int>(n), near.type(), near.op(), comm);
  for (std::size_t k = 0; k < n; ++k) {
    if (cuts[k].value != wlo[k]) continue;
    if (top[k] == 0)
      cuts[k] = {in.key_lo, -1, 0, wlo[k]};
    else
      cuts[k] = {top[k] - 1, -last[k].first, -last[k].second + 1, wlo[k]};
  }
}

// A non-empty bucket of one rank's histogram: its slot (an integer below
// 2^26, exact in a double) and weight; two doubles, one MPI type.
struct Bucket {
  double slot, weight;
};

// `sum` := the non-empty buckets of the sum over the ranks of their
// buckets `filled`, in slot order (slots below `slots`). All ranks take the
// same of two ways: when the non-empty buckets of all ranks are fewer than
// half the slots (few points, a wide histogram), every rank gathers them
// (MPI_Allgatherv) and adds them up in rank order; otherwise the dense
// histograms (`dense`) are summed by one MPI_Allreduce.
void reduce_histogram(MPI_Comm comm, const std::vector<Bucket>& filled, std::size_t slots,
                      std::vector<double>& dense, std::vector<Bucket>& sum) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const int mine = static_cast<int>(filled.size());  // distinct slots: < 2^26
  std::vector<int> count(static_cast<std::size_t>(size)), displ(static_cast<std::size_t>(size));
  MPI_Allgather(&mine, 1, MPI_INT, count.data(), 1, MPI_INT, comm);
  std::size_t total = 0;
  for (const int c : count) total += static_cast<std::size_t>(c);
  sum.clear();
  if (2 * total < slots) {  // then 2·total < 2^26: int counts
    for (std::size_t q = 0, at = 0; q < count.size(); ++q) {
      displ[q] = static_cast<int>(2 * at);
      at += static_cast<std::size_t>(count[q]);
      count[q] *= 2;
    }
    std::vector<Bucket> all(total);
    MPI_Allgatherv(filled.data(), 2 * mine, MPI_DOUBLE, all.data(), count.data(), displ.data(),
                   MPI_DOUBLE, comm);
    // Each rank's buckets come in slot order; a stable sort keeps the ranks'
    // order within a slot, so every rank adds the same numbers the same way.
    std::stable_sort(all.begin(), all.end(),
                     [](const Bucket& x, const Bucket& y) { return x.slot < y.slot; });
    for (const Bucket& b : all) {
      if (!sum.empty() && sum.back().slot == b.slot)
        sum.back().weight += b.weight;
      else
        sum.push_back(b);
    }
    return;
  }
  dense.assign(slots, 0.0);
  for (const Bucket& b : filled) dense[static_cast<std::size_t>(b.slot)] = b.weight;
  MPI_Allreduce(MPI_IN_PLACE, dense.data(), static_cast<int>(dense.size()), MPI_DOUBLE, MPI_SUM,
                comm);
  for (std::size_t j = 0; j < slots; ++j)
    if (dense[j] != 0) sum.push_back({static_cast<double>(j), dense[j]});
}

}  // namespace

KeyCuts key_cuts(MPI_Comm comm, const KeyCutInput& in) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const detail::NearestReduction near;
  const std::span<const std::uint64_t> sk = in.keys;
  const std::span<const double> pw = in.prefix;
  // The first of sk[from, to) with key >= k (k up to 2^64).
  const auto below = [&](u128 k, std::size_t from, std::size_t to) -> std::size_t {
    if (k > std::numeric_limits<std::uint64_t>::max()) return to;
    return static_cast<std::size_t>(std::lower_bound(sk.begin() + static_cast<long>(from),
                                                     sk.begin() + static_cast<long>(to),
                                                     static_cast<std::uint64_t>(k)) -
                                    sk.begin());
  };

  // Each cut's key range [klo, khi] holds the key where its group's
  // cumulative weight passes its target; wlo is the group's weight of all
  // keys below klo, and this rank's points in the range are sk[i0, i1).
  const std::size_t cuts = in.target.size();
  KeyCuts out;
  std::vector<u128> klo(cuts, in.key_lo), khi(cuts, in.key_hi);
  std::vector<double> wlo(cuts, 0.0);
  std::vector<std::size_t> i0(cuts), i1(cuts);
  for (std::size_t k = 0; k < cuts; ++k) {
    i0[k] = in.group_begin[in.cut_group[k]];
    i1[k] = in.group_begin[in.cut_group[k] + 1];
  }
  std::vector<std::size_t> ranges, range_of(cuts);
  std::vector<double> dense;
  std::vector<Bucket> filled, sum;
  for (;;) {
    // Cuts of a group in the same range (consecutive: their targets are
    // ordered) share one histogram; at first all of the group's do.
    ranges.clear();
    for (std::size_t k = 0; k < cuts; ++k) {
      if (klo[k] == khi[k]) continue;
      const std::size_t b = ranges.empty() ? 0 : ranges.back();
      const bool shared = !ranges.empty() && in.cut_group[b] == in.cut_group[k] &&
                          klo[b] == klo[k] && khi[b] == khi[k];
      if (!shared) ranges.push_back(k);
      range_of[k] = ranges.size() - 1;
    }
    if (ranges.empty()) break;
    // At least 2^20 doubles a round (the first, one range, is narrowed
    // 2^16-fold at once), `buckets` per range within 2^26, at least 2.
    const std::size_t budget = std::max<std::size_t>(
        std::size_t{1} << 20,
        std::min(ranges.size() * static_cast<std::size_t>(in.buckets), std::size_t{1} << 26));
    const std::size_t B = std::clamp<std::size_t>(budget / ranges.size(), 2, 65536);
    const auto edge = [&](std::size_t k, std::size_t j) {
      return klo[k] + (khi[k] - klo[k] + 1) * j / B;  // < 2^128: no overflow
    };
    // This rank's non-empty buckets, (slot r·B + j, weight) in slot order.
    // Only the buckets that hold a local point are visited (a few points in
    // a wide histogram cost as few steps): the next point's bucket is the
    // last j with edge(k, j) <= its key, j = ⌈(d + 1)·B / n⌉ − 1 for
    // d = key − klo and the width n, and its points end at edge(k, j + 1).
    filled.clear();
    for (std::size_t r = 0; r < ranges.size(); ++r) {
      const std::size_t k = ranges[r];
      const u128 n = khi[k] - klo[k] + 1;
      for (std::size_t from = i0[k]; from < i1[k];) {
        const u128 d = sk[from] - klo[k];
        const auto j = static_cast<std::size_t>(((d + 1) * B - 1) / n);
        const std::size_t to = below(edge(k, j + 1), from + 1, i1[k]);
        filled.push_back({static_cast<double>(r * B + j), pw[to] - pw[from]});
        from = to;
      }
    }
    reduce_histogram(comm, filled, ranges.size() * B, dense, sum);
    for (std::size_t k = 0; k < cuts; ++k) {
      if (klo[k] == khi[k]) continue;
      const std::size_t r = range_of[k];
      // The range's non-empty buckets, j = slot − r·B.
      const auto slot_at = [&](std::size_t j) {
        return std::partition_point(sum.begin(), sum.end(), [&](const Bucket& b) {
          return b.slot < static_cast<double>(j);
        });
      };
      const auto first = slot_at(r * B), end = slot_at((r + 1) * B);
      // The bucket where the running weight passes the target; if rounding
      // leaves it unpassed, the last bucket that holds weight. Empty buckets
      // change nothing, but a target below the range's start takes bucket 0.
      double run = wlo[k];
      std::size_t pick = run > in.target[k] ? 0 : B, last = B;
      double run_last = run;
      for (auto b = first; b != end && pick == B; ++b) {
        const auto j = static_cast<std::size_t>(b->slot) - r * B;
        if (b->weight > 0) last = j, run_last = run;
        if (run + b->weight > in.target[k])
          pick = j;
        else
          run += b->weight;
      }
      if (pick == B) pick = last, run = run_last;
      if (pick == B) pick = 0, run = wlo[k];  // no weight at all: keep the range's start
      const u128 a0 = edge(k, pick), a1 = edge(k, pick + 1);
      i0[k] = below(a0, i0[k], i1[k]);
      i1[k] = below(a1, i0[k], i1[k]);
      klo[k] = a0;
      khi[k] = a1 > a0 ? a1 - 1 : a0;
      wlo[k] = run;
    }
    ++out.rounds;
  }

  // Within each cut's key, its points in (rank, local index) order: the
  // weight on lower ranks (an exclusive scan), then the nearest boundary.
  std::vector<double> group(cuts, 0.0), before(cuts, 0.0);
  for (std::size_t k = 0; k < cuts; ++k) group[k] = pw[i1[k]] - pw[i0[k]];
  if (cuts > 0)
    MPI_Exscan(group.data(), before.data(), static_cast<int>(cuts), MPI_DOUBLE, MPI_SUM, comm);
  if (rank == 0) std::fill(before.begin(), before.end(), 0.0);
  std::vector<Nearest> best(cuts);
  for (std::size_t k = 0; k < cuts; ++k) {
    Nearest& b = best[k];
    // Before each local point of the key, in (key, index) order as sorted.
    for (std::size_t j = i0[k]; j < i1[k]; ++j) {
      const double v = wlo[k] + before[k] + (pw[j] - pw[i0[k]]);
      const double dist = std::abs(v - in.target[k]);
      if (dist < b.distance) b = {dist, rank, static_cast<std::int64_t>(in.index[j]), v};
    }
    // After every point of the key: the last rank knows that weight.
    if (rank == size - 1) {
      const double v = wlo[k] + before[k] + group[k];
      const double dist = std::abs(v - in.target[k]);
      if (dist < b.distance) b = {dist, size, 0, v};
    }
  }
  if (cuts > 0)
    MPI_Allreduce(MPI_IN_PLACE, best.data(), static_cast<int>(cuts), near.type(), near.op(), comm);
  out.cuts.resize(cuts);
  for (std::size_t k = 0; k < cuts; ++k)
    out.cuts[k] = {static_cast<std::uint64_t>(klo[k]), best[k].first, best[k].second,
                   best[k].value};
  if (in.zero_weights) earliest_ties(comm, in, wlo, i0, out.cuts);
  return out;
}

std::size_t cuts_before(std::span<const KeyCut> cuts, std::uint64_t key, std::int64_t rank,
                        std::int64_t index) {
  const auto at_or_before = [&](const KeyCut& c) {
    return std::tie(c.key, c.rank, c.index) <= std::tie(key, rank, index);
  };
  return static_cast<std::size_t>(std::partition_point(cuts.begin(), cuts.end(), at_or_before) -
                                  cuts.begin());
}

std::string check_points(int dims, std::span<const double> coords, std::span<const double> w) {
  using isocost::detail::exact;
  using isocost::detail::expected_got;
  if (dims < 1 || dims > 3) return expected_got("dims", "1, 2 or 3", std::to_string(dims));
  const auto d = static_cast<std::size_t>(dims);
  if (coords.size() != w.size() * d)
    return expected_got("coordinates for " + std::to_string(w.size()) + " points in " +
                            std::to_string(dims) + " dimensions",
                        std::to_string(w.size() * d), std::to_string(coords.size()));
  for (std::size_t i = 0; i < w.size(); ++i) {
    for (std::size_t a = 0; a < d; ++a)
      if (!std::isfinite(coords[i * d + a]))
        return expected_got("coordinate " + std::to_string(a) + " of point " + std::to_string(i),
                            "a finite number", exact(coords[i * d + a]));
    if (!(w[i] >= 0) || !std::isfinite(w[i]))
      return expected_got("weight of point " + std::to_string(i), "a finite number >= 0",
                          exact(w[i]));
  }
  return {};
}

PointsSummary summarise_points(MPI_Comm comm, const char* what, int dims,
                               std::span<const double> coords, std::span<const double> weights) {
  using isocost::detail::exact;
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
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  double most[2] = {0, 0};  // the heaviest point, and 1 if a point weighs 0
  for (const double w : weights) most[0] = std::max(most[0], w), most[1] = w == 0 ? 1 : most[1];
  PointsSummary out;
  MPI_Allreduce(&sum, &out.total, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, most, 2, MPI_DOUBLE, MPI_MAX, comm);
  out.heaviest = most[0];
  out.zero_weights = most[1] > 0;
  const auto mine = static_cast<std::int64_t>(n);
  MPI_Allreduce(&mine, &out.points, 1, MPI_INT64_T, MPI_SUM, comm);
  if (out.points == 0)
    throw Error(std::string(what) + ": no rank holds a point; expected at least one");
  if (!std::isfinite(out.total))
    throw Error(std::string(what) + ": the weights sum to " + exact(out.total) +
                " (beyond the double range)");
  if (!(out.total > 0))
    throw Error(std::string(what) + ": all weights are zero; the total must be > 0");
  for (std::size_t a = 0; a < d; ++a) {
    out.lo.push_back(box[a]);
    out.hi.push_back(-box[d + a]);
  }
  return out;
}

}  // namespace isocost::mpi::detail
