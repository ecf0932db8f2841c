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
#include "mpi/agreement.hpp"

namespace isocost::mpi {

namespace {

using detail::check_comm;
using isocost::detail::exact;
using isocost::detail::expected_got;

void agree(MPI_Comm comm, const char* what, const std::string& problem) {
  detail::agree(comm, what, problem);
}

std::string check_interval(double lo, double hi, double dt) {
  const std::string range = "[" + exact(lo) + ", " + exact(hi) + ")";
  if (!std::isfinite(lo) || !std::isfinite(hi)) return expected_got("range", "finite ends", range);
  if (hi < lo) return expected_got("range", "lo <= hi", range);
  if (!std::isfinite(dt)) return expected_got("time", "a finite value", exact(dt));
  if (hi > lo && dt <= 0)
    return expected_got("time for the non-empty range " + range, "> 0", exact(dt));
  if (dt < 0) return expected_got("time", ">= 0", exact(dt));
  return {};
}

std::string check_time(double time) {
  if (!std::isfinite(time) || time < 0)
    return expected_got("time", "a finite value >= 0", exact(time));
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

Speeds calibrate_speeds(MPI_Comm comm, double seconds) {
  check_comm(comm, "calibrate_speeds");
  std::string problem;
  if (!std::isfinite(seconds) || !(seconds > 0))
    problem = expected_got("calibration time", "a finite time > 0", exact(seconds) + " s");
  agree(comm, "calibrate_speeds", problem);
  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<double> times(static_cast<std::size_t>(size));
  MPI_Allgather(&seconds, 1, MPI_DOUBLE, times.data(), 1, MPI_DOUBLE, comm);
  return Speeds::from_times(times);  // valid on every rank: each checked its own
}

}  // namespace isocost::mpi
