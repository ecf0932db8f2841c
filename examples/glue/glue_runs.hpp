// What the glue examples share: timed runs of the same problem done several
// ways (its work per step, wall and CPU time, rebalances, and whether its
// result was right), repeated in rotating order, and the table and JSON that
// compare their medians.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "example_support.hpp"
#include "isocost/error.hpp"

namespace glue {

struct Run {
  std::string name;
  double efficiency = 0, wall = 0, cpu_max = 0, cpu_sum = 0;
  double glue_cpu = 0;  ///< Σ over ranks of the CPU time in the balancing code
  int rebalances = 0;
  bool correct = false;
};

/// One way to run the problem: body(work, rebalances, glue_cpu) fills
/// work[t], this rank's work in step t, counts its rebalances, adds the CPU
/// time of its balancing code (Clock) to glue_cpu and returns whether this
/// rank's result is right.
struct Way {
  std::string name;
  std::function<bool(std::vector<double>&, int&, double&)> body;
};

inline int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

/// Collective: waits for every rank (MPI_Barrier, not timed), then adds the
/// CPU time of its scope to `sum`. Around the balancing code (the Balancer's
/// calls, or the glue's): its own cost, apart from the code's work and from
/// the wait for the slowest rank, which an oversubscribed rank spends
/// polling, on the CPU.
class Clock {
 public:
  Clock(MPI_Comm comm, double& sum) : sum_(sum) {
    MPI_Barrier(comm);
    start_ = examples::cpu_seconds();
  }
  ~Clock() { sum_ += examples::cpu_seconds() - start_; }
  Clock(const Clock&) = delete;
  Clock& operator=(const Clock&) = delete;

 private:
  double& sum_;
  double start_ = 0;
};

/// Collective: runs `way` once and measures it: the slowest rank's wall time,
/// the largest and the summed CPU time, efficiency = mean over steps of
/// avg/max of the work, correct on every rank.
inline Run timed(MPI_Comm comm, const Way& way, int steps) {
  Run r;
  r.name = way.name;
  std::vector<double> work(static_cast<std::size_t>(steps));
  MPI_Barrier(comm);
  const double w0 = MPI_Wtime(), c0 = examples::cpu_seconds();
  double glue = 0;
  bool right = way.body(work, r.rebalances, glue);
  const double wall = MPI_Wtime() - w0, cpu = examples::cpu_seconds() - c0;
  MPI_Allreduce(&glue, &r.glue_cpu, 1, MPI_DOUBLE, MPI_SUM, comm);
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

/// Collective: runs every way `repeat` times, the order rotating by one each
/// round (so that no way always runs first, or after the same one), and
/// returns one Run per way: the median of each number over its runs (the
/// lower median for an even count), correct only if every run was.
inline std::vector<Run> compare(MPI_Comm comm, const std::vector<Way>& ways, int steps,
                                int repeat) {
  const std::size_t n = ways.size();
  std::vector<std::vector<Run>> runs(n);
  for (int k = 0; k < repeat; ++k)
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t w = (i + static_cast<std::size_t>(k)) % n;
      runs[w].push_back(timed(comm, ways[w], steps));
    }
  std::vector<Run> out;
  for (std::size_t w = 0; w < n; ++w) {
    auto median = [&](auto field) {
      std::vector<double> v;
      for (const Run& r : runs[w]) v.push_back(static_cast<double>(r.*field));
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2),
                       v.end());
      return v[(v.size() - 1) / 2];
    };
    Run m;
    m.name = ways[w].name;
    m.efficiency = median(&Run::efficiency);
    m.wall = median(&Run::wall);
    m.cpu_max = median(&Run::cpu_max);
    m.cpu_sum = median(&Run::cpu_sum);
    m.glue_cpu = median(&Run::glue_cpu);
    m.rebalances = static_cast<int>(median(&Run::rebalances));
    m.correct = std::all_of(runs[w].begin(), runs[w].end(), [](const Run& r) { return r.correct; });
    out.push_back(m);
  }
  return out;
}

/// The ways named in `only` (comma-separated; empty: all), in their order.
/// Throws isocost::Error naming an unknown one.
inline std::vector<Way> select(std::vector<Way> ways, const std::string& only) {
  if (only.empty()) return ways;
  std::vector<Way> out;
  std::stringstream list(only);
  for (std::string name; std::getline(list, name, ',');) {
    const auto it =
        std::find_if(ways.begin(), ways.end(), [&](const Way& w) { return w.name == name; });
    if (it == ways.end()) {
      std::string known;
      for (const Way& w : ways) known += (known.empty() ? "" : ", ") + w.name;
      throw isocost::Error("--ways: expected some of " + known + ", got '" + name + "'");
    }
    out.push_back(*it);
  }
  return out;
}

/// Rank 0 prints the runs side by side and, for a `json` path, writes them
/// after `header` (the JSON object's first members). True when every run
/// was correct.
inline bool report(const std::vector<Run>& runs, int rank, const std::string& header, int repeat,
                   const std::string& json) {
  bool ok = true;
  std::ostringstream out;
  out << "{" << header << ", \"repeat\": " << repeat << ", \"runs\": [";
  if (rank == 0) {
    if (repeat > 1) std::printf("medians of %d runs each, in rotating order\n", repeat);
    std::printf("%-9s %10s %10s %12s %12s %14s %10s %8s\n", "run", "efficiency", "wall s",
                "cpu s (max)", "cpu s (sum)", "balancing cpu", "rebalances", "correct");
  }
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const Run& r = runs[k];
    ok = ok && r.correct;
    if (rank == 0)
      std::printf("%-9s %10.3f %10.3f %12.3f %12.3f %14.4f %10d %8s\n", r.name.c_str(),
                  r.efficiency, r.wall, r.cpu_max, r.cpu_sum, r.glue_cpu, r.rebalances,
                  r.correct ? "yes" : "NO");
    out << (k ? ", " : "") << "{\"run\": \"" << r.name << "\", \"efficiency\": " << r.efficiency
        << ", \"wall_seconds\": " << r.wall << ", \"cpu_seconds_max\": " << r.cpu_max
        << ", \"cpu_seconds_sum\": " << r.cpu_sum
        << ", \"balancing_cpu_seconds_sum\": " << r.glue_cpu << ", \"rebalances\": " << r.rebalances
        << ", \"correct\": " << (r.correct ? "true" : "false") << "}";
  }
  out << "]}\n";
  if (!json.empty() && rank == 0) examples::write_summary(json, out.str());
  return ok;
}

}  // namespace glue
