// What the glue examples share: one timed run (its work per step, wall and
// CPU time, rebalances, and whether its result was right) and the table and
// JSON that compare the runs.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "example_support.hpp"

namespace glue {

struct Run {
  std::string name;
  double efficiency = 0, wall = 0, cpu_max = 0, cpu_sum = 0;
  int rebalances = 0;
  bool correct = false;
};

/// Collective: runs body(work, rebalances) — it fills work[t], this rank's
/// work in step t, counts its rebalances and returns whether this rank's
/// result is right — and measures it: the slowest rank's wall time, the
/// largest and the summed CPU time, efficiency = mean over steps of avg/max
/// of the work, correct on every rank.
template <class Body>
Run timed(MPI_Comm comm, const std::string& name, int steps, Body&& body) {
  Run r;
  r.name = name;
  std::vector<double> work(static_cast<std::size_t>(steps));
  MPI_Barrier(comm);
  const double w0 = MPI_Wtime(), c0 = examples::cpu_seconds();
  bool right = body(work, r.rebalances);
  const double wall = MPI_Wtime() - w0, cpu = examples::cpu_seconds() - c0;
  MPI_Allreduce(&wall, &r.wall, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&cpu, &r.cpu_max, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&cpu, &r.cpu_sum, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, &right, 1, MPI_CXX_BOOL, MPI_LAND, comm);
  r.correct = right;
  int P = 0;
  MPI_Comm_size(comm, &P);
  std::vector<double> most(work.size()), sum(work.size());
  MPI_Allreduce(work.data(), most.data(), steps, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(work.data(), sum.data(), steps, MPI_DOUBLE, MPI_SUM, comm);
  for (std::size_t t = 0; t < work.size(); ++t)
    r.efficiency += sum[t] / P / most[t] / static_cast<double>(work.size());
  return r;
}

/// Rank 0 prints the runs side by side and, for a `json` path, writes them
/// after `header` (the JSON object's first members). True when every run
/// was correct.
inline bool report(const std::vector<Run>& runs, int rank, const std::string& header,
                   const std::string& json) {
  bool ok = true;
  std::ostringstream out;
  out << "{" << header << ", \"runs\": [";
  if (rank == 0)
    std::printf("%-9s %10s %10s %12s %12s %10s %8s\n", "run", "efficiency", "wall s", "cpu s (max)",
                "cpu s (sum)", "rebalances", "correct");
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const Run& r = runs[k];
    ok = ok && r.correct;
    if (rank == 0)
      std::printf("%-9s %10.3f %10.3f %12.3f %12.3f %10d %8s\n", r.name.c_str(), r.efficiency,
                  r.wall, r.cpu_max, r.cpu_sum, r.rebalances, r.correct ? "yes" : "NO");
    out << (k ? ", " : "") << "{\"run\": \"" << r.name << "\", \"efficiency\": " << r.efficiency
        << ", \"wall_seconds\": " << r.wall << ", \"cpu_seconds_max\": " << r.cpu_max
        << ", \"cpu_seconds_sum\": " << r.cpu_sum << ", \"rebalances\": " << r.rebalances
        << ", \"correct\": " << (r.correct ? "true" : "false") << "}";
  }
  out << "]}\n";
  if (!json.empty() && rank == 0) examples::write_summary(json, out.str());
  return ok;
}

}  // namespace glue
