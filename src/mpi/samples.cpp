// Gathering measurements across ranks. Every public function is collective and
// validates before it communicates data: each rank checks its own input, one
// MPI_Allreduce tells every rank whether any input was bad, and then all ranks
// throw the same isocost::Error together (naming the bad ranks), so no rank is
// left waiting in a collective that the others have abandoned.
#include "isocost/mpi/samples.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost::mpi {

namespace {

using detail::exact;

void check_comm(MPI_Comm comm, const char* what) {
  if (comm == MPI_COMM_NULL)
    throw Error(std::string(what) + ": expected a valid communicator, got MPI_COMM_NULL");
}

// Collective: if any rank's `problem` is non-empty, every rank throws one Error
// listing every bad rank's problem in rank order. The common (all good) path
// costs a single MPI_Allreduce of one int.
void agree(MPI_Comm comm, const char* what, const std::string& problem) {
  int bad = problem.empty() ? 0 : 1;
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm);
  if (any_bad == 0) return;

  // Error path: gather the messages so that every rank reports the same text.
  int size = 0;
  MPI_Comm_size(comm, &size);
  const int length = static_cast<int>(problem.size());
  std::vector<int> lengths(static_cast<std::size_t>(size));
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  std::vector<int> offsets(static_cast<std::size_t>(size), 0);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Allgatherv(problem.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                 MPI_CHAR, comm);

  std::string message = std::string(what) + ": invalid input on ";
  std::string details;
  int count = 0;
  for (int r = 0; r < size; ++r) {
    const auto n = static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)]);
    if (n == 0) continue;
    details += (count++ ? "; " : "") + std::string("rank ") + std::to_string(r) + ": " +
               all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]), n);
  }
  message += (count == 1 ? "1 rank (" : std::to_string(count) + " ranks (") + details + ")";
  throw Error(message);
}

std::string check_interval(double lo, double hi, double dt) {
  if (!std::isfinite(lo) || !std::isfinite(hi))
    return "range [" + exact(lo) + ", " + exact(hi) + "), expected finite ends";
  if (hi < lo) return "range [" + exact(lo) + ", " + exact(hi) + "), expected lo <= hi";
  if (!std::isfinite(dt)) return "time " + exact(dt) + ", expected a finite value";
  if (hi > lo && dt <= 0)
    return "time " + exact(dt) + " for the non-empty range [" + exact(lo) + ", " + exact(hi) +
           "), expected > 0";
  if (dt < 0) return "time " + exact(dt) + ", expected >= 0";
  return {};
}

std::string check_time(double time) {
  if (!std::isfinite(time) || time < 0)
    return "time " + exact(time) + ", expected a finite value >= 0";
  return {};
}

}  // namespace

Samples gather_samples(MPI_Comm comm, double lo, double hi, double dt) {
  check_comm(comm, "gather_samples");
  agree(comm, "gather_samples", check_interval(lo, hi, dt));

  int size = 0;
  MPI_Comm_size(comm, &size);
  const double mine[3] = {lo, hi, dt};
  std::vector<double> all(3 * static_cast<std::size_t>(size));
  MPI_Allgather(mine, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, comm);

  std::vector<IntervalSample> intervals;
  intervals.reserve(static_cast<std::size_t>(size));
  for (std::size_t r = 0; r < static_cast<std::size_t>(size); ++r) {
    const IntervalSample s{all[3 * r], all[3 * r + 1], all[3 * r + 2]};
    if (s.hi > s.lo) intervals.push_back(s);  // empty ranges carry no information
  }
  // Every rank holds the same data here, so if this throws (all ranges
  // empty), it throws on every rank alike.
  if (intervals.empty())
    throw Error("gather_samples: every rank's range is empty; expected at least one lo < hi");
  return Samples(std::move(intervals));
}

std::vector<double> gather_times(MPI_Comm comm, double time) {
  check_comm(comm, "gather_times");
  agree(comm, "gather_times", check_time(time));
  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<double> times(static_cast<std::size_t>(size));
  MPI_Allgather(&time, 1, MPI_DOUBLE, times.data(), 1, MPI_DOUBLE, comm);
  return times;
}

LoadStats gather_load_stats(MPI_Comm comm, double time) {
  check_comm(comm, "gather_load_stats");
  agree(comm, "gather_load_stats", check_time(time));
  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<double> times(static_cast<std::size_t>(size));
  MPI_Allgather(&time, 1, MPI_DOUBLE, times.data(), 1, MPI_DOUBLE, comm);
  // Identical input on every rank: load_stats throws (all times zero) on all
  // of them or on none.
  return load_stats(times);
}

}  // namespace isocost::mpi
