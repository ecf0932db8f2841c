// Shared by the MPI benchmarks (plain MPI programs: Google Benchmark picks
// iteration counts per process, and every rank must make the same collective
// calls): thread CPU time, medians, rank and size, and the command line.
#pragma once

#include <mpi.h>

#include <boost/math/statistics/univariate_statistics.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "isocost/error.hpp"

namespace isocost::bench {

/// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), in seconds.
inline double thread_cpu() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// The median of `v` (Boost.Math; partial sort of the copy); 0 if it is empty.
inline double median(std::vector<double> v) {
  return v.empty() ? 0.0 : boost::math::statistics::median(v);
}

/// This rank and the number of ranks of `comm`.
struct Ranks {
  int rank = 0, size = 1;
};

inline Ranks ranks_of(MPI_Comm comm = MPI_COMM_WORLD) {
  Ranks r;
  MPI_Comm_rank(comm, &r.rank);
  MPI_Comm_size(comm, &r.size);
  return r;
}

/// Per repetition, the slowest rank's wall time and the largest per-rank CPU
/// time of a call.
struct Timing {
  std::vector<double> wall, cpu;
};

/// Times `call()` `repetitions` times after one warm-up: `prepare()`
/// (untimed), MPI_Barrier, `call()`. Collective over `comm`.
template <class Prepare, class F>
Timing time_calls(MPI_Comm comm, int repetitions, Prepare&& prepare, F&& call) {
  Timing t;
  for (int rep = -1; rep < repetitions; ++rep) {  // -1: warm-up
    prepare();
    MPI_Barrier(comm);
    const double w0 = MPI_Wtime(), c0 = thread_cpu();
    call();
    const double mine[2] = {MPI_Wtime() - w0, thread_cpu() - c0};
    double worst[2] = {0, 0};
    MPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, comm);
    if (rep < 0) continue;
    t.wall.push_back(worst[0]);
    t.cpu.push_back(worst[1]);
  }
  return t;
}

/// A command-line option: `set` receives the value that follows the name, or
/// nullptr for a flag (an option without a value).
struct Option {
  const char* name;
  std::function<void(const char* value)> set;
  bool flag = false;
};

/// Parses argv[1…] on every rank. On anything it does not know (or an option
/// missing its value) rank 0 prints `usage` and a newline to stderr, and the
/// result is false: the caller finalizes MPI and exits with status 2.
inline bool parse_args(int argc, char** argv, const std::vector<Option>& options,
                       const char* usage) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto o = std::find_if(options.begin(), options.end(),
                                [&](const Option& opt) { return a == opt.name; });
    if (o != options.end() && o->flag) {
      o->set(nullptr);
    } else if (o != options.end() && i + 1 < argc) {
      o->set(argv[++i]);
    } else {
      if (ranks_of().rank == 0) std::fprintf(stderr, "%s\n", usage);
      return false;
    }
  }
  return true;
}

/// Runs the benchmark cases; an isocost::Error is reported on rank 0 as
/// "NAME: message" and gives the exit status 2 (0 otherwise).
template <class F>
int run_cases(const char* name, F&& cases) {
  try {
    cases();
  } catch (const Error& e) {
    if (ranks_of().rank == 0) std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 2;
  }
  return 0;
}

}  // namespace isocost::bench
