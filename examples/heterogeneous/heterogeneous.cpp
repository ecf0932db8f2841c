// heterogeneous — ranks of different speeds share Swartz's prime search
// (Load balancing using Newton's method on MPP systems, §4 and Appendix C).
//
// Every rank runs the same trial-division kernel (examples/sieve); a rank of
// relative speed s emulates a slower node by doing its range R_max/s times, so
// the speeds are real CPU time, not sleeps. Three runs, all timed in CPU
// seconds per rank (the fastest of --repeats, with a barrier between):
//   calibration  (--calibrate) every rank does the same small range; the
//                library turns the times into speeds (mpi::calibrate_speeds);
//   round 1      equal integer ranges; their times, converted to speed-1 cost
//                (time · speed), are fitted by t(x) = A·x^p/(ln x − c)
//                (Swartz eq. 4) on rank 0;
//   equal split  the fitted model cut into equal costs, speeds ignored;
//   speed-aware  the same model cut into costs proportional to the speeds
//                (Swartz eq. 1 with S_i/S).
// Each run's prime count is checked against an independent sieve of
// Eratosthenes (or the known value of pi(MAXN)).
//
//   mpiexec -n 11 heterogeneous --node-types 7x1,4x3     Swartz §4's case
//   mpiexec -n 4 heterogeneous --calibrate --json -      speeds measured
//
// Exit status: 0 success; 1 a prime count is wrong; 2 bad arguments or a
// failed fit.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "example_main.hpp"
#include "example_support.hpp"
#include "heterogeneous_run.hpp"
#include "isocost/error.hpp"
#include "isocost/fitters/fit.hpp"
#include "isocost/metrics.hpp"
#include "isocost/mpi/samples.hpp"
#include "sieve_kernel.hpp"

namespace {

using namespace heterogeneous;
using isocost::Error;

constexpr int kExitWrongCount = 1;
constexpr int kExitError = 2;

// Rank 0 plans, every rank learns the cuts or the error (the same on all).
std::vector<std::uint64_t> broadcast_cuts(MPI_Comm comm, std::vector<std::uint64_t> cuts,
                                          std::string& error, int ranks) {
  int failed = error.empty() ? 0 : 1;
  MPI_Bcast(&failed, 1, MPI_INT, 0, comm);
  if (failed) {
    int length = static_cast<int>(error.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, comm);
    error.resize(static_cast<std::size_t>(length));
    MPI_Bcast(error.data(), length, MPI_CHAR, 0, comm);
    return {};
  }
  cuts.resize(static_cast<std::size_t>(ranks) + 1);
  MPI_Bcast(cuts.data(), ranks + 1, MPI_UINT64_T, 0, comm);
  return cuts;
}

nlohmann::ordered_json run_json(const Run& r) {
  return {{"name", r.name},
          {"cuts", r.cuts},
          {"cpu_seconds", r.seconds},
          {"primes", r.primes},
          {"efficiency", r.efficiency()},
          {"le", r.le()},
          {"t_max", r.t_max()}};
}

int main_body(const Options& opt, MPI_Comm comm) {
  int rank = 0, P = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  const bool root = rank == 0;
  const Setup setup = make_setup(opt, P);  // throws the same Error on every rank
  const int slowdown = setup.slowdown[static_cast<std::size_t>(rank)];
  const auto low = sieve::prime_low(opt.maxn);
  const std::uint64_t expected = reference_pi(opt.maxn);

  // Speeds: given by the node types, or measured on the kernel itself.
  isocost::Speeds speeds = setup.speeds;
  std::vector<double> calibration;
  if (opt.calibrate) {
    const double mine =
        time_range(comm, low, kCalibrationLo, kCalibrationHi, slowdown, opt.repeats, nullptr);
    calibration = isocost::mpi::gather_times(comm, mine);
    speeds = isocost::mpi::calibrate_speeds(comm, mine);
  }

  // Round 1: equal integer ranges; the fit from their cost (time · speed).
  Run linear =
      run_cuts(comm, "linear split", sieve::linear_cuts(opt.maxn, P), low, slowdown, opt.repeats);
  const auto& lc = linear.cuts;
  const auto samples = isocost::mpi::gather_samples(
      comm, static_cast<double>(std::max(lc[rank], kModelLo)),
      static_cast<double>(std::max(lc[rank + 1], kModelLo)),
      linear.seconds[static_cast<std::size_t>(rank)] * speeds.speed(rank));

  std::string error;
  std::vector<std::uint64_t> equal_cuts, aware_cuts;
  std::string fit_report;
  if (root) {
    try {
      const Plans plans = plan(samples, lc, speeds, opt.maxn);
      equal_cuts = plans.equal;
      aware_cuts = plans.aware;
      fit_report = plans.fit_report;
    } catch (const Error& e) {
      error = e.what();
    }
  }
  equal_cuts = broadcast_cuts(comm, equal_cuts, error, P);
  if (!error.empty()) {
    if (root) std::cerr << "heterogeneous: the fit failed: " << error << "\n";
    return kExitError;
  }
  aware_cuts = broadcast_cuts(comm, aware_cuts, error, P);
  const Run equal = run_cuts(comm, "equal-cost split", equal_cuts, low, slowdown, opt.repeats);
  const Run aware = run_cuts(comm, "speed-aware split", aware_cuts, low, slowdown, opt.repeats);

  const std::vector<const Run*> runs{&linear, &equal, &aware};
  bool counts_ok = true;
  for (const Run* r : runs) counts_ok = counts_ok && r->primes == expected;
  if (!root) return counts_ok ? 0 : kExitWrongCount;

  std::ostringstream text;
  report(text, opt, setup, speeds, calibration, fit_report, runs, expected);
  if (opt.json_path != "-") std::cout << text.str();
  if (!opt.json_path.empty()) {
    nlohmann::ordered_json j = {{"example", "heterogeneous"},
                                {"ranks", P},
                                {"maxn", opt.maxn},
                                {"node_types", setup.node_types},
                                {"true_speeds", setup.speeds.values()},
                                {"calibrated", opt.calibrate},
                                {"speeds", speeds.values()},
                                {"calibration_seconds", calibration},
                                {"efficiency_before", equal.efficiency()},
                                {"efficiency_after", aware.efficiency()},
                                {"time_none", equal.t_max()},
                                {"time_balanced", aware.t_max()},
                                {"swartz_t_int", swartz_t_int(aware, setup.speeds)},
                                {"primes_expected", expected},
                                {"primes_ok", counts_ok},
                                {"runs", {run_json(linear), run_json(equal), run_json(aware)}}};
    examples::write_summary(opt.json_path, j.dump(2) + "\n");
  }
  if (!opt.plot_dir.empty()) plot(opt.plot_dir, runs, speeds);
  if (!counts_ok) {
    std::cerr << "heterogeneous: a prime count is wrong (expected " << expected << ")\n";
    return kExitWrongCount;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Options opt;
  CLI::App app{"Ranks of different speeds share Swartz's prime search (Swartz §4)"};
  app.add_option("--maxn", opt.maxn, "primes in [1, MAXN]")->capture_default_str();
  app.add_option("--node-types", opt.node_types,
                 "COUNTxR,... : COUNT ranks R times as fast as type 1 (Swartz §4); the counts "
                 "must add up to the ranks, and every R must divide the largest [half 1, half 3]");
  app.add_flag("--calibrate", opt.calibrate,
               "estimate the speeds from a calibration run instead of using the node types");
  app.add_option("--repeats", opt.repeats, "time every range this often, keep the fastest")
      ->capture_default_str();
  app.add_option("--json", opt.json_path, "write the summary as JSON to this file ('-': stdout)");
  app.add_option("--plot", opt.plot_dir, "write PNG plots (gnuplot) into this folder");
  return examples::parse_and_run(app, argc, argv, "heterogeneous",
                                 [&] { return main_body(opt, MPI_COMM_WORLD); });
}
