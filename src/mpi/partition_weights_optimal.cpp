// The distributed chains-on-chains optimum (partition_weights_optimal.hpp):
// the serial search (isocost::detail::search_bottleneck) with its greedy probe
// carried rank to rank, each rank advancing the greedy through its slice by
// binary searches in its local prefix sums; where that cannot decide
// (unequal speeds, non-empty parts), the reachable boundaries of reach.hpp,
// rank to rank too.
#include "mpi/partition_weights_optimal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "core/shared/bottleneck_internal.hpp"
#include "core/shared/reach.hpp"
#include "isocost/error.hpp"

namespace isocost::mpi::detail {

namespace {

// The greedy's state where it leaves a rank: part j started at boundary pos,
// where t = P[pos]; failed once a part cannot hold even its first cell.
struct State {
  std::int64_t pos = 0, j = 0;
  double t = 0;
  std::int64_t failed = 0;
};

// A cut this rank found: cut k (k = 1 … m − 1) at boundary pos, t = P[pos].
struct Found {
  std::int64_t k, pos;
  double t;
};

// The probe for search_bottleneck(): serial probe()'s greedy (w = 0, or the
// capped greedy of w = 1) on the global prefix sums, each rank taking the
// parts that end in its slice. Its arithmetic is the serial one, operation
// for operation (limit = P[pos] + B·s_j, the last boundary <= limit), so
// probes agree whenever the prefix sums do.
class Pipelined {
 public:
  Pipelined(MPI_Comm comm, std::span<const double> pre, std::int64_t first, std::int64_t N,
            std::span<const double> s, std::int64_t w)
      : comm_(comm), pre_(pre), first_(first), N_(N), s_(s), w_(w) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    for (const double v : s) equal_ = equal_ && v == s[0];
  }

  isocost::detail::ProbeResult probe(double B) {
    const auto m = static_cast<std::int64_t>(s_.size());
    const auto n = static_cast<std::int64_t>(pre_.size()) - 1;
    const bool last = rank_ == size_ - 1;
    State st;
    if (rank_ > 0) MPI_Recv(&st, sizeof st, MPI_BYTE, rank_ - 1, 0, comm_, MPI_STATUS_IGNORE);
    found_.clear();
    worst_ = 0;
    shortest_ = N_;
    double next = std::numeric_limits<double>::infinity();
    while (!st.failed && st.j + 1 < m) {
      const auto j = static_cast<std::size_t>(st.j);
      const double limit = st.t + B * s_[j];
      const auto from = pre_.begin() + std::max<std::int64_t>(st.pos - first_, 0);
      std::int64_t end = first_ + (std::upper_bound(from, pre_.end(), limit) - pre_.begin()) - 1;
      const std::int64_t cap = w_ == 1 ? N_ - (m - st.j - 1) : N_;
      // The part may go on into the next rank's slice.
      if (end == first_ + n && !last && end < cap) break;
      // The failure bound as serial probe() takes it (ProbeResult).
      if (end < cap && end < N_)
        next = std::min(next, (pre_[static_cast<std::size_t>(end + 1 - first_)] - st.t) / s_[j]);
      end = std::min(end, cap);
      if (w_ == 1 && end <= st.pos) {
        st.failed = 1;
        break;
      }
      record(st, end, pre_[static_cast<std::size_t>(end - first_)]);
    }
    double failed = 0;
    if (last && !st.failed) {
      // The last part, as serial probe() checks it.
      const double t = pre_.back();
      if (t - st.t <= B * s_.back() && (w_ == 0 || st.pos < N_)) {
        record(st, N_, t);
      } else {
        failed = 1;
        if (w_ == 0 || st.pos < N_) next = std::min(next, (t - st.t) / s_.back());
      }
    }
    if (last && st.failed) failed = 1;
    if (!last) MPI_Send(&st, sizeof st, MPI_BYTE, rank_ + 1, 0, comm_);
    // One reduction: failed (from the last rank), the held split's
    // bottleneck, and the failure bound (negated: all by MPI_MAX).
    double r[3] = {failed, worst_, -next};
    MPI_Allreduce(MPI_IN_PLACE, r, 3, MPI_DOUBLE, MPI_MAX, comm_);
    if (r[0] == 0) return {true, r[1]};
    // As serial probe(): at unequal capacities a failed capped greedy is not
    // proof; the reachable boundaries decide.
    if (w_ == 1 && !equal_) return reach(B);
    return {false, -r[2]};
  }

  void keep() {
    best_ = found_;
    best_shortest_ = shortest_;
  }

  // The best split's shortest part, over all ranks.
  std::int64_t shortest() const {
    std::int64_t v = best_shortest_;
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT64_T, MPI_MIN, comm_);
    return v;
  }

  const std::vector<Found>& best() const { return best_; }

 private:
  // Serial detail::reach_probe() over the ranks' slices (reach.hpp), in
  // three passes along the ranks: the backward greedy's lower bounds (then
  // one reduction of them, m + 1 integers), the rows R_1 … R_m (each rank
  // passes on the latest element of every row, m + 1 boundaries), and the
  // latest split, traced back from N. Per rank: its rows' intervals and
  // O(m).
  isocost::detail::ProbeResult reach(double B) {
    const auto m = static_cast<std::int64_t>(s_.size());
    const auto um = static_cast<std::size_t>(m);
    const bool last = rank_ == size_ - 1;
    std::vector<std::int64_t> lb(um + 1, 0);
    isocost::detail::Backward st{m - 1, N_, pre_.back()};
    double next = std::numeric_limits<double>::infinity();
    if (!last) MPI_Recv(&st, sizeof st, MPI_BYTE, rank_ + 1, 1, comm_, MPI_STATUS_IGNORE);
    isocost::detail::backward_bounds(pre_, first_, s_, B, st, lb, next);
    if (rank_ > 0) MPI_Send(&st, sizeof st, MPI_BYTE, rank_ - 1, 1, comm_);
    lb[um] = N_;
    MPI_Allreduce(MPI_IN_PLACE, lb.data(), static_cast<int>(um + 1), MPI_INT64_T, MPI_MAX, comm_);

    // Boundaries travel as 16-byte elements, so that the count is m + 1.
    MPI_Datatype boundary;
    MPI_Type_contiguous(sizeof(isocost::detail::Boundary), MPI_BYTE, &boundary);
    MPI_Type_commit(&boundary);
    std::vector<isocost::detail::Boundary> in(um + 1);
    if (rank_ == 0)
      in[0] = {0, pre_[0]};
    else
      MPI_Recv(in.data(), static_cast<int>(um + 1), boundary, rank_ - 1, 2, comm_,
               MPI_STATUS_IGNORE);
    if (!rows_) rows_.emplace(pre_, first_, N_, s_);
    const auto out = rows_->run(B, in, lb);
    if (!last) MPI_Send(out.data(), static_cast<int>(um + 1), boundary, rank_ + 1, 2, comm_);
    MPI_Type_free(&boundary);
    // The rank owning boundary N says (the last rank may hold no cells);
    // the failure bound is the least over the ranks (negated: all by MAX).
    double said[2] = {rows_->reaches_end() ? 1.0 : 0.0, -std::min(next, rows_->next_event())};
    MPI_Allreduce(MPI_IN_PLACE, said, 2, MPI_DOUBLE, MPI_MAX, comm_);
    if (said[0] == 0)  // as serial reach_probe()
      return {false, std::isfinite(said[1]) ? std::max(B, -said[1]) : B};

    // Cut j is the latest element of R_j below cut j + 1; part j's cost is
    // taken where cut j is found, as detail::bottleneck_of() takes it.
    found_.clear();
    worst_ = 0;
    shortest_ = N_;
    struct Chain {
      std::int64_t j, k;  // cut j + 1 is at k, t = P[k]
      double t;
    } ch{m - 1, N_, pre_.back()};
    if (!last) MPI_Recv(&ch, sizeof ch, MPI_BYTE, rank_ + 1, 3, comm_, MPI_STATUS_IGNORE);
    const auto part = [&](std::int64_t pos, double t) {
      worst_ = std::max(worst_, (ch.t - t) / s_[static_cast<std::size_t>(ch.j)]);
      shortest_ = std::min(shortest_, ch.k - pos);
      if (ch.j > 0) found_.push_back({ch.j, pos, t});
      ch = {ch.j - 1, pos, t};
    };
    while (ch.j >= 1) {
      const isocost::detail::Boundary b = rows_->latest_below(ch.j, ch.k);
      if (b.pos < 0) break;  // on an earlier rank
      part(b.pos, b.t);
    }
    if (ch.j == 0) part(0, in[0].t);
    if (rank_ > 0) MPI_Send(&ch, sizeof ch, MPI_BYTE, rank_ - 1, 3, comm_);
    double r[2] = {worst_, rank_ == 0 && ch.j >= 0 ? 1.0 : 0.0};
    MPI_Allreduce(MPI_IN_PLACE, r, 2, MPI_DOUBLE, MPI_MAX, comm_);
    if (r[1] != 0)
      throw Error("partition_weights: internal error: a reached boundary has no start");
    return {true, r[0]};
  }

  // Part st.j ends at `end` (t = P[end]): cut j + 1, on this rank.
  void record(State& st, std::int64_t end, double t) {
    const auto j = static_cast<std::size_t>(st.j);
    worst_ = std::max(worst_, (t - st.t) / s_[j]);  // as detail::bottleneck_of()
    shortest_ = std::min(shortest_, end - st.pos);
    if (st.j + 1 < static_cast<std::int64_t>(s_.size())) found_.push_back({st.j + 1, end, t});
    st = {end, st.j + 1, t, 0};
  }

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::span<const double> pre_;
  std::int64_t first_, N_;
  std::span<const double> s_;
  std::int64_t w_;
  bool equal_ = true;
  std::vector<Found> found_, best_;
  std::optional<isocost::detail::ReachableRows> rows_;
  double worst_ = 0;
  std::int64_t shortest_ = 0, best_shortest_ = 0;
};

}  // namespace

std::vector<Nearest> optimal_cuts(MPI_Comm comm, std::span<const double> pre, std::int64_t first,
                                  std::int64_t N, double TT, std::span<const double> s,
                                  std::int64_t min_cells) {
  // As serial bottleneck_cuts(): the unconstrained optimum first; it is also
  // the optimum with non-empty parts when none of its parts is empty.
  // The pipeline's point-to-point messages on a private communicator, so
  // that none can match a message of the caller's.
  struct Dup {
    MPI_Comm comm = MPI_COMM_NULL;
    ~Dup() { MPI_Comm_free(&comm); }
  } own;
  MPI_Comm_dup(comm, &own.comm);
  comm = own.comm;
  // The heaviest cell, for the search's first upper bound.
  double w_max = 0;
  for (std::size_t i = 0; i + 1 < pre.size(); ++i) w_max = std::max(w_max, pre[i + 1] - pre[i]);
  MPI_Allreduce(MPI_IN_PLACE, &w_max, 1, MPI_DOUBLE, MPI_MAX, comm);
  Pipelined free(comm, pre, first, N, s, 0);
  if (!isocost::detail::search_bottleneck(TT, w_max, s, free))
    throw Error("partition_weights: no split found");  // cannot happen: hi is feasible
  const Pipelined* chosen = &free;
  Pipelined wide(comm, pre, first, N, s, min_cells);
  if (min_cells > 0 && free.shortest() < min_cells) {
    if (!isocost::detail::search_bottleneck(TT, w_max, s, wide))
      throw Error("partition_weights: no split of " + std::to_string(N) + " cells into " +
                  std::to_string(s.size()) + " non-empty parts");
    chosen = &wide;
  }
  const auto m = s.size();
  std::vector<Nearest> out(m + 1);
  out[0] = {0, 0, 0, 0};
  out[m] = {0, N, 0, TT};
  for (const Found& f : chosen->best()) out[static_cast<std::size_t>(f.k)] = {0, f.pos, 0, f.t};
  return out;
}

}  // namespace isocost::mpi::detail
