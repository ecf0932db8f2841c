// 1-D partition of distributed weights (mpi/partition_weights.hpp): a
// compensated prefix sum across ranks, and each cut found where it lies.
#include "isocost/mpi/partition_weights.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "core/shared/compensated_sum.hpp"
#include "core/shared/double_array.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/limits.hpp"
#include "mpi/agreement.hpp"
#include "mpi/nearest.hpp"
#include "mpi/partition_weights_optimal.hpp"

namespace isocost::mpi {

using isocost::detail::exact;

double WeightsPartition::imbalance() const noexcept {
  return ideal_time > 0 ? max_time / ideal_time - 1 : 0;
}

std::string WeightsPartition::brief_report() const {
  std::ostringstream out;
  out << "partition_weights: " << cells << " cells, total " << exact(total) << "; bottleneck "
      << exact(max_time) << " against the ideal " << exact(ideal_time) << " (imbalance "
      << exact(imbalance()) << ")" << (options.optimal ? "; exact optimum" : "")
      << (options.all_cuts ? "" : "; own part only");
  return out.str();
}

Partition to_partition(const WeightsPartition& p, const Speeds& speeds) {
  const auto P = static_cast<std::size_t>(speeds.ranks());
  if (p.cuts.size() != P + 1 || p.prefix.size() != P + 1)
    throw Error("to_partition: expected the " + std::to_string(P + 1) + " cuts of " +
                std::to_string(P) + " parts (speeds), got " + std::to_string(p.cuts.size()) +
                (p.options.all_cuts ? "" : " (options.all_cuts was false)"));
  return isocost::partition_from_cuts(
      p.cuts, p.prefix, speeds,
      p.options.optimal ? CutTermination::optimum : CutTermination::nearest_integer);
}

namespace {

// A slice's compensated sum and cell count: what the scans carry.
struct Slice {
  double sum = 0, compensation = 0;
  std::int64_t cells = 0;
};

// Slices in rank order: lower ranks' (in) before higher ranks' (inout), the
// two compensated sums added as a double-double (TwoSum of the heads).
void add_slices(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const Slice*>(in);
  auto* b = static_cast<Slice*>(inout);
  for (int k = 0; k < *len; ++k) {
    isocost::detail::CompensatedSum sum{b[k].sum, b[k].compensation};
    sum.add_earlier({a[k].sum, a[k].compensation});
    b[k].sum = sum.sum;
    b[k].compensation = sum.compensation;
    b[k].cells = a[k].cells + b[k].cells;
  }
}

// The slices' scan: its datatype and operation, freed on return.
struct SliceScan {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op add = MPI_OP_NULL;
  SliceScan() {
    MPI_Type_contiguous(sizeof(Slice), MPI_BYTE, &type);
    MPI_Type_commit(&type);
    MPI_Op_create(&add_slices, 0, &add);  // not commutative: rank order matters
  }
  ~SliceScan() {
    MPI_Op_free(&add);
    MPI_Type_free(&type);
  }
  SliceScan(const SliceScan&) = delete;
  SliceScan& operator=(const SliceScan&) = delete;
};

// A target's candidate boundary (nearest.hpp): first = the global cell
// boundary b, value = t(b); the nearest wins, ties to the smaller b, as
// serially.
using Candidate = detail::Nearest;

// The local candidate for `target` among the boundaries [first, first + n)
// of this rank (and first + n too on the last rank): the serial search of
// cut.cpp on the local prefix sums pre[0..n].
Candidate local_candidate(std::span<const double> pre, std::int64_t first, bool last_rank,
                          double target) {
  const std::size_t n = pre.size() - 1;
  const std::size_t top = last_rank ? n : n - 1;  // the last boundary this rank owns
  if (n == 0 && !last_rank) return {};
  auto k = static_cast<std::size_t>(
      std::lower_bound(pre.begin(), pre.begin() + static_cast<long>(top) + 1, target) -
      pre.begin());
  k = std::min(k, top);
  if (k > 0 && std::abs(pre[k - 1] - target) <= std::abs(pre[k] - target)) --k;
  // Among equal sums (zero weights) the smallest boundary.
  k = static_cast<std::size_t>(
      std::lower_bound(pre.begin(), pre.begin() + static_cast<long>(k), pre[k]) - pre.begin());
  return {std::abs(pre[k] - target), first + static_cast<std::int64_t>(k), 0, pre[k]};
}

// Weight i of this slice is negative, NaN or infinite (compensated_add()
// found it, the first such one).
std::string bad_weight(std::span<const double> w, std::size_t i, std::int64_t first) {
  return isocost::detail::expected_got("weight of local cell " + std::to_string(i) + " (global " +
                                           std::to_string(first + static_cast<std::int64_t>(i)) +
                                           ")",
                                       "a finite number >= 0", exact(w[i]));
}

}  // namespace

WeightsPartition partition_weights(MPI_Comm comm, std::span<const double> weights,
                                   const Speeds& speeds, const WeightsPartitionOptions& options) {
  const char* what = "partition_weights";
  detail::check_comm(comm, what);
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const SliceScan scan;
  const detail::NearestReduction near;

  // This slice's own sum and count, and where it starts (an exclusive scan).
  isocost::detail::CompensatedSum own;
  // The first bad weight, if any, is reported below, once the slice's
  // global start is known: validation is part of this pass.
  const std::size_t bad = isocost::detail::compensated_add(weights, own);
  Slice mine{own.sum, own.compensation, static_cast<std::int64_t>(weights.size())}, before;
  MPI_Exscan(&mine, &before, 1, scan.type, scan.add, comm);
  if (rank == 0) before = Slice{};

  std::string problem, why;
  const int P = speeds.ranks();
  if (!options.is_valid(&why))
    problem = "options: " + why;
  else if (P > kMaxParts)
    problem = isocost::detail::expected_got(
        "speeds", "at most " + std::to_string(kMaxParts) + " parts", std::to_string(P) + " parts");
  else if (!options.all_cuts && P != size)
    problem = "all_cuts false with " + std::to_string(P) + " parts on " + std::to_string(size) +
              " ranks; a rank's own part needs P equal to the communicator's size";
  if (problem.empty() && bad < weights.size()) problem = bad_weight(weights, bad, before.cells);
  const detail::Same same[] = {detail::same_speeds(speeds), detail::same_options(options)};
  detail::agree(comm, what, problem, same);

  // t at this rank's boundaries: the lower ranks' sum carried on.
  // Uninitialised, as discrete_model()'s: every slot is written below.
  isocost::detail::DoubleArray array;
  std::string memory;
  try {
    array = isocost::detail::DoubleArray(weights.size() + 1);
  } catch (const std::bad_alloc&) {
    memory = std::to_string(weights.size() + 1) + " prefix sums";
  }
  detail::agree(comm, what, memory, {}, "out of memory on");
  isocost::detail::CompensatedSum run;
  run.sum = before.sum;
  run.compensation = before.compensation;
  array.data()[0] = run.value();
  // As discrete_model() sums: the same prefix sums at one rank, bit for bit.
  isocost::detail::compensated_prefix(weights, run, array.data() + 1);  // weights checked above
  const std::span<const double> pre = array.span();
  // N and TT as the last rank holds them: t(N) is its last prefix sum.
  double TT = run.value();
  std::int64_t N = before.cells + mine.cells;
  MPI_Bcast(&TT, 1, MPI_DOUBLE, size - 1, comm);
  MPI_Bcast(&N, 1, MPI_INT64_T, size - 1, comm);
  if (N == 0) throw Error(std::string(what) + ": no rank holds a cell; expected at least one");
  if (!std::isfinite(TT))
    throw Error(std::string(what) + ": the weights sum to " + exact(TT) +
                " (beyond the double range)");
  if (!(TT > 0)) throw Error(std::string(what) + ": all weights are zero; the total must be > 0");

  WeightsPartition out;
  out.cells = N;
  out.total = TT;
  out.options = options;
  out.ideal_time = TT / speeds.total();
  const bool last_rank = rank == size - 1;
  std::vector<Candidate> local(static_cast<std::size_t>(P));
  if (options.optimal) {
    // The cuts found where they lie (partition_weights_optimal.cpp).
    std::vector<double> s(static_cast<std::size_t>(P));
    for (int k = 0; k < P; ++k) s[static_cast<std::size_t>(k)] = speeds.speed(k);
    local = detail::optimal_cuts(comm, pre, before.cells, N, TT, s, N >= P ? 1 : 0);
    local.pop_back();
  } else {
    // Every target's local candidate: P − 1 binary searches, O(P log n).
    for (int k = 1; k < P; ++k)
      local[static_cast<std::size_t>(k)] =
          local_candidate(pre, before.cells, last_rank, TT * speeds.fraction_before(k));
  }
  // Cut 0 is 0 and cut P is N on every rank; their slots stay at t = 0 / TT.
  local[0] = {0, 0, 0, 0};
  if (options.all_cuts) {
    std::vector<Candidate> best(static_cast<std::size_t>(P));
    MPI_Allreduce(local.data(), best.data(), P, near.type(), near.op(), comm);
    best[0] = {0, 0, 0, 0};
    out.cuts.resize(static_cast<std::size_t>(P) + 1);
    out.time.resize(static_cast<std::size_t>(P));
    for (int k = 0; k < P; ++k)
      out.cuts[static_cast<std::size_t>(k)] = best[static_cast<std::size_t>(k)].first;
    out.cuts.back() = N;
    out.prefix.resize(static_cast<std::size_t>(P) + 1);
    for (int k = 0; k < P; ++k)
      out.prefix[static_cast<std::size_t>(k)] = best[static_cast<std::size_t>(k)].value;
    out.prefix.back() = TT;
    for (int k = 0; k < P; ++k)
      out.time[static_cast<std::size_t>(k)] =
          (out.prefix[static_cast<std::size_t>(k) + 1] - out.prefix[static_cast<std::size_t>(k)]) /
          speeds.speed(k);
    out.max_time = *std::max_element(out.time.begin(), out.time.end());
    if (P == size) {
      out.begin = out.cuts[static_cast<std::size_t>(rank)];
      out.end = out.cuts[static_cast<std::size_t>(rank) + 1];
    }
    return out;
  }
  // Own part only: rank r receives cut r, then cut r + 1 from its neighbour.
  Candidate lo;
  MPI_Reduce_scatter_block(local.data(), &lo, 1, near.type(), near.op(), comm);
  if (rank == 0) lo = {0, 0, 0, 0};
  Candidate hi{0, N, 0, TT};
  MPI_Sendrecv(&lo, 1, near.type(), rank > 0 ? rank - 1 : MPI_PROC_NULL, 0, &hi, 1, near.type(),
               last_rank ? MPI_PROC_NULL : rank + 1, 0, comm, MPI_STATUS_IGNORE);
  if (last_rank) hi = {0, N, 0, TT};
  out.begin = lo.first;
  out.end = hi.first;
  const double my_time = (hi.value - lo.value) / speeds.speed(rank);
  MPI_Allreduce(&my_time, &out.max_time, 1, MPI_DOUBLE, MPI_MAX, comm);
  return out;
}

}  // namespace isocost::mpi
