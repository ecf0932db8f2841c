// The pieces of the heterogeneous example (heterogeneous.cpp): the emulated
// node speeds, the timed runs of the prime search, the plan from the fit, and
// the report.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "isocost/partition.hpp"
#include "isocost/samples.hpp"

namespace heterogeneous {

/// The fitted model starts here: below, t(x) = A·x^p/(ln x − c) is not
/// increasing for every c a fit may reach (as in the sieve demo); rank 0 still
/// owns [1, kModelLo).
constexpr std::uint64_t kModelLo = 1024;
/// The range every rank times in the calibration run.
constexpr std::uint64_t kCalibrationLo = 1u << 20, kCalibrationHi = (1u << 20) + (1u << 16);

struct Options {
  std::uint64_t maxn = 1u << 25;
  std::string node_types;  ///< "7x1,4x3"; empty: half the ranks 1, half 3
  bool calibrate = false;
  int repeats = 3;
  std::string json_path;  ///< "-": stdout instead of the table
  std::string plot_dir;
};

/// The emulated machine: each rank's true speed, and how many times it runs
/// the kernel over its range (R_max / R, an integer).
struct Setup {
  std::string node_types;  ///< as used ("2x1,2x3" when defaulted)
  isocost::Speeds speeds;
  std::vector<int> slowdown;
};

/// Parses the node types for P ranks; Error (the same on every rank) for a
/// malformed list, counts that do not add up to P, or an R that does not
/// divide the largest. Also checks the other options.
Setup make_setup(const Options& opt, int ranks);

/// pi(maxn) from an independent sieve of Eratosthenes (maxn <= 2^28) or the
/// table of known values; Error otherwise.
std::uint64_t reference_pi(std::uint64_t maxn);

/// The CPU seconds this rank takes to count the primes in [lo, hi) `slowdown`
/// times: the fastest of `repeats` timings, with a barrier before each.
/// Collective over `comm`. The count (once) goes to *primes when given.
double time_range(MPI_Comm comm, const std::vector<std::uint32_t>& low, std::uint64_t lo,
                  std::uint64_t hi, int slowdown, int repeats, std::uint64_t* primes);

/// One distribution, run and timed on every rank.
struct Run {
  std::string name;
  std::vector<std::uint64_t> cuts;
  std::vector<double> seconds;  ///< CPU seconds per rank
  std::uint64_t primes = 0;     ///< the sum over ranks
  double t_max() const;
  double efficiency() const;  ///< T_avg / T_max
  double le() const;          ///< L_E, percent (Swartz eq. 3)
};

/// Runs `cuts` on every rank: time_range() of its own range, gathered, and
/// the prime counts summed. Collective over `comm`; every rank gets the Run.
Run run_cuts(MPI_Comm comm, std::string name, std::vector<std::uint64_t> cuts,
             const std::vector<std::uint32_t>& low, int slowdown, int repeats);

/// Swartz §4's time of every node when the work is shared in proportion to
/// the speeds: TT/(N_1 + R·N_2) = TT/S, with TT = Σ seconds · speed (the job's
/// time on one speed-1 node) measured on `run`.
double swartz_t_int(const Run& run, const isocost::Speeds& speeds);

/// The equal-cost and the speed-aware cuts of one fit of Swartz eq. (4).
struct Plans {
  std::vector<std::uint64_t> equal, aware;
  std::string fit_report;
};
Plans plan(const isocost::Samples& samples, const std::vector<std::uint64_t>& current,
           const isocost::Speeds& speeds, std::uint64_t maxn);

/// The human report: setup, speeds, one table of ranges and times per run.
void report(std::ostream& out, const Options& opt, const Setup& setup,
            const isocost::Speeds& speeds, const std::vector<double>& calibration,
            const std::string& fit_report, const std::vector<const Run*>& runs,
            std::uint64_t expected);

/// Per-rank CPU time of every run, and the speeds, as PNGs in `dir`.
void plot(const std::string& dir, const std::vector<const Run*>& runs,
          const isocost::Speeds& speeds);

}  // namespace heterogeneous
