// The emulated node speeds, the timed runs, the plan from the fit, and the
// report of the heterogeneous example (heterogeneous_run.hpp).
#include "heterogeneous_run.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <numeric>
#include <sstream>

#include "example_support.hpp"
#include "isocost/error.hpp"
#include "isocost/fitters/fit.hpp"
#include "isocost/metrics.hpp"
#include "plot/gnuplot.hpp"
#include "sieve_kernel.hpp"

namespace heterogeneous {

using isocost::Error;

namespace {

int parse_positive(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  long v = 0;
  try {
    v = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || v < 1 || v > 1000000)
    throw Error(what + ": expected an integer in [1, 1000000], got '" + text + "'");
  return static_cast<int>(v);
}

}  // namespace

Setup make_setup(const Options& opt, int ranks) {
  if (opt.maxn < 2 * kModelLo || opt.maxn > sieve::kMaxN)
    throw Error("--maxn " + std::to_string(opt.maxn) + ": expected an integer in [" +
                std::to_string(2 * kModelLo) + ", " + std::to_string(sieve::kMaxN) + "]");
  if (opt.repeats < 1)
    throw Error("--repeats " + std::to_string(opt.repeats) + ": expected an integer >= 1");
  Setup s;
  s.node_types = opt.node_types;
  if (s.node_types.empty()) {
    const int fast = ranks / 2;
    s.node_types = std::to_string(ranks - fast) + "x1";
    if (fast > 0) s.node_types += "," + std::to_string(fast) + "x3";
  }
  std::vector<isocost::NodeType> types;
  std::vector<int> ratio;  // R per rank, an integer here
  std::stringstream items(s.node_types);
  for (std::string item; std::getline(items, item, ',');) {
    const auto x = item.find('x');
    if (x == std::string::npos)
      throw Error("--node-types: expected COUNTxR (e.g. 7x1,4x3), got '" + item + "'");
    const int count = parse_positive(item.substr(0, x), "--node-types count in '" + item + "'");
    const int r = parse_positive(item.substr(x + 1), "--node-types R in '" + item + "'");
    types.push_back({count, static_cast<double>(r)});
    ratio.insert(ratio.end(), static_cast<std::size_t>(count), r);
  }
  if (static_cast<int>(ratio.size()) != ranks)
    throw Error("--node-types " + s.node_types + ": " + std::to_string(ratio.size()) +
                " ranks, but this run has " + std::to_string(ranks));
  const int fastest = *std::max_element(ratio.begin(), ratio.end());
  for (const int r : ratio) {
    if (fastest % r != 0)
      throw Error("--node-types " + s.node_types + ": R = " + std::to_string(r) +
                  " does not divide the largest R = " + std::to_string(fastest) +
                  " (a slower node is emulated by repeating the kernel R_max/R times)");
    s.slowdown.push_back(fastest / r);
  }
  s.speeds = isocost::Speeds::from_node_types(types);
  return s;
}

std::uint64_t reference_pi(std::uint64_t maxn) {
  if (maxn <= (1u << 28)) return sieve::eratosthenes_pi(maxn);
  if (const auto known = sieve::known_pi(maxn)) return *known;
  throw Error("--maxn " + std::to_string(maxn) +
              ": above 2^28 only the known values of pi (10^k, 2^k) can check the count");
}

double time_range(MPI_Comm comm, const std::vector<std::uint32_t>& low, std::uint64_t lo,
                  std::uint64_t hi, int slowdown, int repeats, std::uint64_t* primes) {
  return examples::fastest_cpu_seconds(comm, repeats, [&] {
    std::uint64_t count = 0;
    // The slower node: the same range, slowdown times over (real work).
    for (int s = 0; s < slowdown; ++s) count = sieve::count_primes(low, lo, hi);
    if (primes) *primes = count;
  });
}

double swartz_t_int(const Run& run, const isocost::Speeds& speeds) {
  double tt = 0;  // the whole job's time on one type-1 node
  for (std::size_t k = 0; k < run.seconds.size(); ++k)
    tt += run.seconds[k] * speeds.speed(static_cast<int>(k));
  return tt / speeds.total();
}

double Run::t_max() const { return isocost::load_stats(seconds).max; }

double Run::efficiency() const { return isocost::load_stats(seconds).efficiency; }

double Run::le() const { return isocost::load_stats(seconds).le; }

Run run_cuts(MPI_Comm comm, std::string name, std::vector<std::uint64_t> cuts,
             const std::vector<std::uint32_t>& low, int slowdown, int repeats) {
  int rank = 0, P = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  Run run;
  run.name = std::move(name);
  run.cuts = std::move(cuts);
  std::uint64_t mine = 0;
  const double t =
      time_range(comm, low, run.cuts[static_cast<std::size_t>(rank)],
                 run.cuts[static_cast<std::size_t>(rank) + 1], slowdown, repeats, &mine);
  run.seconds.resize(static_cast<std::size_t>(P));
  MPI_Allgather(&t, 1, MPI_DOUBLE, run.seconds.data(), 1, MPI_DOUBLE, comm);
  MPI_Allreduce(&mine, &run.primes, 1, MPI_UINT64_T, MPI_SUM, comm);
  return run;
}

Plans plan(const isocost::Samples& samples, const std::vector<std::uint64_t>& current,
           const isocost::Speeds& speeds, std::uint64_t maxn) {
  isocost::RepartitionOptions ro;
  ro.model = isocost::parse_fit_spec("sieve");
  ro.fit.lo = static_cast<double>(kModelLo);
  ro.fit.hi = static_cast<double>(maxn + 1);
  ro.partition.integer = true;
  std::vector<double> from;
  for (const auto c : current) from.push_back(static_cast<double>(std::max(c, kModelLo)));
  auto cuts_of = [&](const isocost::Repartition& r) {
    std::vector<std::uint64_t> cuts;
    for (const double c : r.partition.cuts) cuts.push_back(static_cast<std::uint64_t>(c));
    cuts.front() = 1;  // rank 0 also owns [1, kModelLo)
    cuts.back() = maxn + 1;
    return cuts;
  };
  const auto equal =
      isocost::repartition(samples, from, isocost::Speeds::uniform(speeds.ranks()), ro);
  const auto aware = isocost::repartition(samples, from, speeds, ro);
  return {cuts_of(equal), cuts_of(aware), aware.fit.summary.brief_report()};
}

void report(std::ostream& out, const Options& opt, const Setup& setup,
            const isocost::Speeds& speeds, const std::vector<double>& calibration,
            const std::string& fit_report, const std::vector<const Run*>& runs,
            std::uint64_t expected) {
  const int P = speeds.ranks();
  out << "heterogeneous (Swartz §4): primes in [1, " << opt.maxn << "] on " << P
      << " ranks, node types " << setup.node_types
      << " (a node R times as fast; slower ones repeat the kernel R_max/R times)\n"
      << "speeds: " << (opt.calibrate ? "estimated from a calibration run" : "the node types")
      << "; times: CPU seconds per rank, fastest of " << opt.repeats
      << "; L_E = 100 - (T_max - T_avg)/T_avg x 100 (Swartz eq. 3)\n"
      << "linear split: equal integer ranges; equal-cost split: the fitted model cut into equal "
         "costs, speeds ignored;\nspeed-aware split: the same model cut in proportion to the "
         "speeds (Swartz eq. 1 with S_i/S)\n"
      << "fit (rank 0, from the linear run's cost = time x speed): " << fit_report << "\n\n";
  out << std::setw(5) << "rank" << std::setw(7) << "R" << std::setw(10) << "speed";
  if (opt.calibrate) out << std::setw(12) << "calib. s";
  for (const Run* r : runs) out << "  " << std::setw(18) << r->name;
  out << "\n";
  for (int i = 0; i < P; ++i) {
    const auto k = static_cast<std::size_t>(i);
    out << std::setw(5) << i << std::setw(7) << setup.speeds.speed(i) << std::setw(10)
        << std::setprecision(4) << speeds.speed(i);
    if (opt.calibrate) out << std::setw(12) << std::setprecision(4) << calibration[k];
    for (const Run* r : runs) out << "  " << std::setw(18) << std::setprecision(4) << r->seconds[k];
    out << "\n";
  }
  out << "\n";
  for (const Run* r : runs)
    out << std::left << std::setw(18) << r->name << std::right << " T_max " << std::setw(9)
        << std::setprecision(4) << r->t_max() << " s   L_E " << std::fixed << std::setprecision(2)
        << r->le() << " %   primes " << r->primes << (r->primes == expected ? " (ok)" : " (WRONG)")
        << std::defaultfloat << "\n";
  const Run& equal = *runs[runs.size() - 2];
  const Run& aware = *runs.back();
  out << "Swartz §4: every node's time t_int = TT/(N_1 + R·N_2) = TT/S = " << std::setprecision(4)
      << swartz_t_int(aware, setup.speeds) << " s (TT = the speed-aware run's sum of time x "
      << "speed); measured T_max " << aware.t_max() << " s\n";
  out << "speed-aware vs equal-cost split: T_max " << std::setprecision(4) << equal.t_max()
      << " -> " << aware.t_max() << " s (" << std::fixed << std::setprecision(1)
      << 100 * (1 - aware.t_max() / equal.t_max()) << " % less)" << std::defaultfloat << "\n";
}

void plot(const std::string& dir, const std::vector<const Run*>& runs,
          const isocost::Speeds& speeds) {
  std::filesystem::create_directories(dir);
  isocost::plot::Figure f;
  f.title = "Prime search on " + std::to_string(speeds.ranks()) +
            " ranks of different speeds: CPU time per rank";
  f.xlabel = "rank";
  f.ylabel = "CPU seconds";
  for (const Run* r : runs) {
    isocost::plot::Series s{r->name, {}, {}, "linespoints"};
    for (std::size_t k = 0; k < r->seconds.size(); ++k) {
      s.x.push_back(static_cast<double>(k));
      s.y.push_back(r->seconds[k]);
    }
    f.series.push_back(std::move(s));
  }
  isocost::plot::render_png(f, dir + "/heterogeneous_times.png");
}

}  // namespace heterogeneous
