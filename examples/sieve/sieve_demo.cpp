// sieve_demo — Swartz's load-balanced prime search (Load balancing using
// Newton's method on MPP systems, §3 and Appendices B and C), end to end:
//
//   round 1  split [1, MAXN] into equal integer ranges (the "linear
//            distribution" of Swartz Fig. 2) and time every rank's range;
//   round 2  fit t(x) = A·x^p/(ln x − c) (Swartz eq. 4) to those interval
//            timings — A and p from THIS machine — and cut so that every
//            rank gets TT/P of the fitted cost (Swartz eq. 1), then time again
//            (Swartz Fig. 5);
//   round 3+ optional: refit from the samples of every round so far.
//
// Two modes, named next to every number they produce:
//   emulation  one process runs every rank's range in turn: honest per-rank
//              times on a machine with fewer cores than ranks.
//   MPI        under mpiexec -n N, each rank times its own range, with a
//              barrier between repeats.
// Both measure CPU time (CLOCK_THREAD_CPUTIME_ID), so that waiting for a core
// when ranks outnumber cores is not counted as work. Timings on a shared
// machine wander by several percent, which would swamp a 0.5 % imbalance, so
// (as issue 3 asks) every range is timed `repeats` times, interleaved across
// ranks, and the minimum kept — here per piece: each range is cut into
// `pieces` consecutive parts, each part's fastest timing is kept, and the
// rank's time is their sum. The fitter gets these same clean timings.
//
// Exit status: 0 success; 1 a prime count is wrong; 2 bad arguments or a
// failed fit; 3 --check and the fitted round's L_E is not above round 1's.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/fitters/expression.hpp"
#include "isocost/fitters/fit.hpp"
#include "isocost/metrics.hpp"
#include "isocost/mpi/samples.hpp"
#include "isocost/partition.hpp"
#include "isocost/samples.hpp"
#include "plot/gnuplot.hpp"
#include "sieve_kernel.hpp"

namespace {

using isocost::Error;
using isocost::LoadStats;
using json = nlohmann::ordered_json;

// The fitted model's domain starts here, not at 1: the sieve form
// A·x^p/(ln x − c) only increases for x > exp(c + 1/p) (≈ 6 for Swartz's
// values, hundreds when c is fitted too). Rank 0 still owns [1, kModelLo);
// those few thousand divisions take microseconds, far below the timer's noise
// on any rank's range, so its sample is taken as [kModelLo, x_1).
constexpr std::uint64_t kModelLo = 1024;

// Swartz's eq. (4) counts √n divisions for each prime n; trial division by
// primes costs π(√n) ≈ 2√n/ln n instead, one more factor of ln n, so
// t'(x) ∝ √x/ln²x and t(x) ≈ A·x^p/(ln x − c)² with p near 1.5: the sieve form
// with q = 2 ("sieve2" here), or with q fitted ("sieve+q").
isocost::FitSpec fit_spec(const std::string& name) {
  if (name != "sieve2") return isocost::parse_fit_spec(name);
  isocost::FitSpec spec = isocost::parse_fit_spec("sieve");
  spec.guess["q"] = 2;  // held fixed: q is fitted only by sieve+q
  return spec;
}

std::string model_label(const isocost::FitSummary& fit) {
  for (const auto& p : fit.parameters)
    if (p.name == "q" && p.fixed && p.value == 2 && fit.model == "sieve") return "sieve2";
  return fit.model;
}

// Exit statuses.
constexpr int kExitWrongCount = 1;
constexpr int kExitError = 2;
constexpr int kExitCheckFailed = 3;

struct Options {
  std::string maxn_text = "2^24";
  std::uint64_t maxn = 1u << 24;
  int ranks = 16;
  bool ranks_given = false;
  int repeats = 5;
  int pieces = 16;
  int rounds = 2;
  std::string model = "sieve2";
  bool emulate = false;
  bool check = false;
  std::string plots;
  std::string json_path;
};

enum class Mode { emulation, mpi };

std::string mode_text(Mode mode, int ranks) {
  return mode == Mode::emulation ? std::string("emulation (one process, CPU time)")
                                 : "MPI, " + std::to_string(ranks) + " ranks (CPU time per rank)";
}

// "2^24", "1e6" or "16777216".
std::uint64_t parse_maxn(const std::string& text) {
  auto fail = [&]() -> std::uint64_t {
    throw Error("--maxn: expected an integer in [1000, " + std::to_string(sieve::kMaxN) +
                "] such as 16777216, 2^24 or 1e7, got '" + text + "'");
  };
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 19 &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  auto power = [&](std::uint64_t base, std::uint64_t exponent) {
    std::uint64_t v = 1;
    for (std::uint64_t k = 0; k < exponent; ++k) {
      if (v > sieve::kMaxN / base) return fail();
      v *= base;
    }
    return v;
  };
  std::uint64_t value = 0;
  if (const auto caret = text.find('^'); caret != std::string::npos) {
    const auto b = text.substr(0, caret), e = text.substr(caret + 1);
    if (!digits(b) || !digits(e) || std::stoull(b) < 2) return fail();
    value = power(std::stoull(b), std::stoull(e));
  } else if (const auto ex = text.find_first_of("eE"); ex != std::string::npos) {
    const auto m = text.substr(0, ex), e = text.substr(ex + 1);
    if (!digits(m) || !digits(e)) return fail();
    const std::uint64_t scale = power(10, std::stoull(e));
    if (std::stoull(m) > sieve::kMaxN / scale) return fail();
    value = std::stoull(m) * scale;
  } else {
    if (!digits(text)) return fail();
    value = std::stoull(text);
  }
  if (value < 1000 || value > sieve::kMaxN) return fail();
  return value;
}

// Measured times of one distribution.
struct Measured {
  std::vector<double> time;    // per rank: minimum over the repeats, seconds
  std::vector<double> spread;  // per rank: (max − min)/min over the repeats, percent
  std::vector<std::uint64_t> primes;
};

// How a round's cuts were made and what it measured.
struct Round {
  int number = 0;
  std::string distribution;  // "linear", "fit: sieve", …
  std::string fitted_from;   // "round 1's 16 interval timings", …
  std::vector<std::uint64_t> cuts;
  Measured measured;
  LoadStats stats;
  double wall_seconds = 0;  // measurement only
  std::optional<isocost::FitSummary> fit;
  std::vector<isocost::Candidate> candidates;  // --model auto
  std::optional<double> predicted_le;          // of the new cuts on the model
  std::optional<isocost::CostModel> model;     // for the Fig. 1/4 plot
  double model_scale = 1;                      // model cost → seconds (swartz only)
};

// Equal-length integer ranges: rank i owns [1 + i·MAXN/P, 1 + (i+1)·MAXN/P).
std::vector<std::uint64_t> linear_cuts(std::uint64_t maxn, int ranks) {
  std::vector<std::uint64_t> cuts(static_cast<std::size_t>(ranks) + 1);
  for (int i = 0; i <= ranks; ++i)
    cuts[static_cast<std::size_t>(i)] =
        1 + static_cast<std::uint64_t>(i) * maxn / static_cast<std::uint64_t>(ranks);
  return cuts;
}

// The cuts as the model sees them: clamped to [kModelLo, MAXN + 1].
std::vector<double> model_cuts(const std::vector<std::uint64_t>& cuts) {
  std::vector<double> out;
  out.reserve(cuts.size());
  for (const auto c : cuts) out.push_back(static_cast<double>(std::max(c, kModelLo)));
  return out;
}

double spread_percent(double lo, double hi) { return lo > 0 ? (hi - lo) / lo * 100 : 0; }

// A rank's range [lo, hi) in `pieces` consecutive parts; this is part j.
std::pair<std::uint64_t, std::uint64_t> piece(std::uint64_t lo, std::uint64_t hi, int j,
                                              int pieces) {
  const auto n = static_cast<std::uint64_t>(pieces);
  const auto k = static_cast<std::uint64_t>(j);
  return {lo + (hi - lo) * k / n, lo + (hi - lo) * (k + 1) / n};
}

// Per-piece minima and per-pass totals of one rank, folded into its result.
struct RankTimer {
  std::vector<double> best;  // per piece: the fastest of the repeats
  double fastest_pass = std::numeric_limits<double>::infinity(), slowest_pass = 0;
  std::uint64_t primes = 0;

  explicit RankTimer(int pieces)
      : best(static_cast<std::size_t>(pieces), std::numeric_limits<double>::infinity()) {}
  // Times piece j of [lo, hi) once; returns the CPU seconds it took.
  double run(const std::vector<std::uint32_t>& low, std::uint64_t lo, std::uint64_t hi, int j,
             int rep) {
    const auto [a, b] = piece(lo, hi, j, static_cast<int>(best.size()));
    const double t0 = sieve::thread_cpu_seconds();
    const auto count = sieve::count_primes(low, a, b);
    const double dt = sieve::thread_cpu_seconds() - t0;
    if (rep == 0) primes += count;
    best[static_cast<std::size_t>(j)] = std::min(best[static_cast<std::size_t>(j)], dt);
    return dt;
  }
  void end_pass(double total) {
    fastest_pass = std::min(fastest_pass, total);
    slowest_pass = std::max(slowest_pass, total);
  }
  // The range's time: the sum of its pieces' fastest timings.
  double time() const {
    double sum = 0;
    for (const double t : best) sum += t;
    return sum;
  }
  double spread() const { return spread_percent(fastest_pass, slowest_pass); }
};

// Emulation: every rank's range in one process. Each range is timed in pieces,
// and the pieces of all ranks are interleaved (piece 0 of every rank, then
// piece 1, …), so a slow spell of the machine is shared by all ranks instead
// of landing on one; each piece's fastest timing over the repeats is kept. The
// direction across ranks alternates between repeats so no rank always leads.
Measured measure_emulated(const std::vector<std::uint32_t>& low,
                          const std::vector<std::uint64_t>& cuts, int repeats, int pieces) {
  const std::size_t P = cuts.size() - 1;
  std::vector<RankTimer> timers(P, RankTimer(pieces));
  std::vector<double> pass(P);
  for (int rep = 0; rep < repeats; ++rep) {
    std::fill(pass.begin(), pass.end(), 0.0);
    for (int j = 0; j < pieces; ++j) {
      for (std::size_t k = 0; k < P; ++k) {
        const std::size_t r = rep % 2 == 0 ? k : P - 1 - k;
        pass[r] += timers[r].run(low, cuts[r], cuts[r + 1], j, rep);
      }
    }
    for (std::size_t r = 0; r < P; ++r) timers[r].end_pass(pass[r]);
  }
  Measured m;
  for (const auto& t : timers) {
    m.time.push_back(t.time());
    m.spread.push_back(t.spread());
    m.primes.push_back(t.primes);
  }
  return m;
}

// MPI: each rank its own range, in pieces as above; a barrier before each
// repeat keeps the ranks' repeats together (Swartz's ranks all start at once).
// Results on every rank.
Measured measure_mpi(MPI_Comm comm, const std::vector<std::uint32_t>& low,
                     const std::vector<std::uint64_t>& cuts, int repeats, int pieces,
                     LoadStats& stats, isocost::Samples& samples) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const auto r = static_cast<std::size_t>(rank);
  RankTimer timer(pieces);
  for (int rep = 0; rep < repeats; ++rep) {
    MPI_Barrier(comm);
    double pass = 0;
    for (int j = 0; j < pieces; ++j) pass += timer.run(low, cuts[r], cuts[r + 1], j, rep);
    timer.end_pass(pass);
  }
  const double time = timer.time();
  Measured m;
  m.time = isocost::mpi::gather_times(comm, time);
  m.spread = isocost::mpi::gather_times(comm, timer.spread());
  m.primes.resize(cuts.size() - 1);
  MPI_Allgather(&timer.primes, 1, MPI_UINT64_T, m.primes.data(), 1, MPI_UINT64_T, comm);
  stats = isocost::mpi::gather_load_stats(comm, time);
  const auto mc = model_cuts(cuts);
  samples = isocost::mpi::gather_samples(comm, mc[r], mc[r + 1], time);
  return m;
}

bool tabulated(const isocost::FitSpec& spec) {
  return spec.form == isocost::FitForm::pchip || spec.form == isocost::FitForm::makima;
}

// The next cuts from the rounds measured so far (round `next` − 1 is the
// latest). Parametric fits use every round's samples (overlapping intervals
// from different partitions combine in the interval residuals); pchip/makima
// can only tabulate a single tiling run, the latest.
Round plan_round(const Options& opt, int ranks, const std::vector<Round>& done,
                 const std::vector<isocost::Samples>& samples) {
  Round next;
  next.number = static_cast<int>(done.size()) + 1;
  const auto& prev = done.back();
  const double hi = static_cast<double>(opt.maxn + 1);
  isocost::PartitionOptions popt;
  popt.integer = true;
  isocost::Partition part;
  if (opt.model == "swartz") {
    // No fit: Swartz's Cray T3D constants (p = 1.43), to show why the
    // exponent has to come from this machine.
    next.distribution = "Swartz's T3D model (p = 1.43, no fit)";
    const auto model =
        isocost::sieve_model(isocost::SieveParams{}, static_cast<double>(kModelLo), hi);
    popt.initial_cuts = model_cuts(prev.cuts);
    part = isocost::partition(model, isocost::Speeds::uniform(ranks), popt);
    next.model = model;
    // Its A is the T3D's: scale the curve to this machine's measured total.
    double measured_total = 0;
    for (const double t : done.front().measured.time) measured_total += t;
    next.model_scale = measured_total / model.total();
  } else {
    isocost::RepartitionOptions ro;
    if (opt.model == "auto") {
      ro.auto_select = true;
    } else {
      ro.model = fit_spec(opt.model);
    }
    ro.fit.lo = static_cast<double>(kModelLo);
    ro.fit.hi = hi;
    ro.partition = popt;
    isocost::Samples input = samples.back();
    std::size_t used = 1;
    if (!ro.auto_select && tabulated(ro.model)) {
      next.fitted_from = "round " + std::to_string(prev.number) + "'s " +
                         std::to_string(input.size()) + " interval timings";
    } else {
      for (std::size_t k = 0; k + 1 < samples.size(); ++k, ++used) input = input.merged(samples[k]);
      next.fitted_from = used == 1
                             ? "round " + std::to_string(prev.number) + "'s " +
                                   std::to_string(input.size()) + " interval timings"
                             : std::to_string(input.size()) + " interval timings of rounds 1-" +
                                   std::to_string(prev.number);
    }
    const auto rep =
        isocost::repartition(input, model_cuts(prev.cuts), isocost::Speeds::uniform(ranks), ro);
    part = rep.partition;
    next.fit = rep.fit.summary;
    next.model = rep.fit.model;
    if (rep.selection) next.candidates = rep.selection->candidates;
    next.distribution = (next.number == 2 ? "fit: " : "refit: ") + model_label(rep.fit.summary);
  }
  next.predicted_le = part.predicted_le;
  next.cuts.resize(part.cuts.size());
  for (std::size_t i = 0; i < part.cuts.size(); ++i)
    next.cuts[i] = static_cast<std::uint64_t>(std::llround(part.cuts[i]));
  next.cuts.front() = 1;  // rank 0 also owns [1, kModelLo)
  next.cuts.back() = opt.maxn + 1;
  return next;
}

// --- output ----------------------------------------------------------------

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string maxn_name(const Options& opt) {
  const std::string digits = std::to_string(opt.maxn);
  return opt.maxn_text == digits ? digits : opt.maxn_text + " = " + digits;
}

void print_round(std::ostream& out, const Round& r, const std::string& mode) {
  out << "\n== Round " << r.number << ": " << r.distribution << " — " << mode << "\n";
  if (!r.fitted_from.empty()) out << "fitted to " << r.fitted_from << "\n";
  if (r.fit) out << r.fit->brief_report() << (r.fit->brief_report().ends_with('\n') ? "" : "\n");
  if (!r.candidates.empty()) {
    out << "candidates (--model auto):\n";
    for (const auto& c : r.candidates) {
      char line[256];
      if (c.ok)
        std::snprintf(line, sizeof line, "  %-10s score %.6g\n", c.model.c_str(), c.score);
      else
        std::snprintf(line, sizeof line, "  %-10s failed: %s\n", c.model.c_str(), c.error.c_str());
      out << line;
    }
  }
  if (r.predicted_le)
    out << "predicted L_E of these cuts on the model: " << fmt("%.3f", *r.predicted_le) << " %\n";
  out << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%4s %12s %12s %9s %11s %8s %9s\n", "rank", "lo", "hi", "primes",
                "time [s]", "spread%", "vs avg %");
  out << line;
  const auto& m = r.measured;
  for (std::size_t i = 0; i < m.time.size(); ++i) {
    std::snprintf(line, sizeof line, "%4zu %12llu %12llu %9llu %11.6f %8.2f %+9.2f\n", i,
                  static_cast<unsigned long long>(r.cuts[i]),
                  static_cast<unsigned long long>(r.cuts[i + 1]),
                  static_cast<unsigned long long>(m.primes[i]), m.time[i], m.spread[i],
                  (m.time[i] / r.stats.mean - 1) * 100);
    out << line;
  }
  const auto& s = r.stats;
  std::snprintf(line, sizeof line,
                "T_max = %.6f s (rank %zu), T_avg = %.6f s, T_min = %.6f s (rank %zu)\n", s.max,
                s.argmax, s.mean, s.min, s.argmin);
  out << line;
  std::snprintf(line, sizeof line,
                "L_I = %.2f %%, L_E = %.2f %% (Swartz eqs 2-3; Fig. 2 arithmetic "
                "(T_max-T_avg)/T_max = %.2f %%)  [%s]\n",
                s.li, s.le, s.li_fig2, mode.c_str());
  out << line;
  double max_spread = 0;
  for (const double sp : m.spread) max_spread = std::max(max_spread, sp);
  std::snprintf(line, sizeof line,
                "measured in %.2f s wall; largest spread between full repeats %.2f %%\n",
                r.wall_seconds, max_spread);
  out << line;
}

json stats_json(const LoadStats& s) {
  return {{"t_max", s.max},     {"t_avg", s.mean},      {"t_min", s.min},
          {"argmax", s.argmax}, {"argmin", s.argmin},   {"l_i", s.li},
          {"l_e", s.le},        {"li_fig2", s.li_fig2}, {"efficiency", s.efficiency},
          {"sigma", s.sigma}};
}

json round_json(const Round& r) {
  json j = {{"round", r.number}, {"distribution", r.distribution}};
  if (!r.fitted_from.empty()) j["fitted_from"] = r.fitted_from;
  if (r.fit) {
    json params = json::object();
    for (const auto& p : r.fit->parameters) {
      params[p.name] = {{"value", p.value}};
      if (p.std_error) params[p.name]["std_error"] = *p.std_error;
    }
    j["fit"] = {{"model", r.fit->model},
                {"formula", r.fit->formula},
                {"parameters", params},
                {"samples", r.fit->samples},
                {"rmse", r.fit->rmse},
                {"max_rel_error", r.fit->max_rel_error},
                {"r_squared", r.fit->r_squared},
                {"iterations", r.fit->iterations},
                {"termination", r.fit->termination}};
  }
  if (r.predicted_le) j["predicted_le"] = *r.predicted_le;
  j["cuts"] = r.cuts;
  j["time"] = r.measured.time;
  j["spread_percent"] = r.measured.spread;
  j["primes"] = r.measured.primes;
  j["stats"] = stats_json(r.stats);
  j["measure_seconds"] = r.wall_seconds;
  return j;
}

void write_atomically(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary);
    out << text;
    out.close();
    if (!out) throw Error("cannot write '" + path + "'");
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    throw Error("cannot write '" + path + "': " + ec.message());
  }
}

// Swartz Figs 2 and 5: per-rank times as bars, T_avg as a line.
void plot_times(const Round& r, const std::string& mode, const Options& opt,
                const std::string& path) {
  isocost::plot::Figure f;
  f.title = "Round " + std::to_string(r.number) + ": " + r.distribution +
            " — L_E = " + fmt("%.2f", r.stats.le) + " %  (MAXN = " + maxn_name(opt) + ", " + mode +
            ")";
  f.xlabel = "rank";
  f.ylabel = "CPU time of the rank's range [s]";
  isocost::plot::Series bars{"per-rank time", {}, r.measured.time, "boxes"};
  for (std::size_t i = 0; i < r.measured.time.size(); ++i) bars.x.push_back(static_cast<double>(i));
  f.series.push_back(std::move(bars));
  // A zero-height bar (invisible, no legend entry) makes the
  // y axis start at 0, as the bars of Swartz's figures do.
  f.series.push_back({"", {0.0}, {0.0}, "boxes"});
  f.horizontal_line = r.stats.mean;
  f.horizontal_label = "T_avg = " + fmt("%.4g", r.stats.mean) + " s";
  isocost::plot::render_png(f, path);
}

// Swartz Figs 1 and 4: the fitted t(x), the measured cumulative times of each
// round, and the cuts the fit produced.
void plot_fit(const std::vector<Round>& rounds, const std::string& mode, const Options& opt,
              const std::string& path) {
  const Round& fitted = rounds[1];
  const auto& model = *fitted.model;
  isocost::plot::Figure f;
  f.title = "t(x): " + fitted.distribution + ", cuts for " +
            std::to_string(fitted.cuts.size() - 1) + " ranks (MAXN = " + maxn_name(opt) + ", " +
            mode + ")";
  f.xlabel = "x (integers below x)";
  f.ylabel = "cumulative time t(x) [s]";
  isocost::plot::Series curve{"fitted t(x)", {}, {}, "lines"};
  if (fitted.model_scale != 1) curve.title = "Swartz's t(x), scaled to the measured total";
  const int n = 400;
  for (int k = 0; k <= n; ++k) {
    const double x = model.lo() + (model.hi() - model.lo()) * k / n;
    curve.x.push_back(x);
    curve.y.push_back(model.cost(x) * fitted.model_scale);
  }
  f.series.push_back(std::move(curve));
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    const auto& r = rounds[k];
    isocost::plot::Series pts{
        "measured, round " + std::to_string(r.number) + " (" + r.distribution + ")",
        {static_cast<double>(kModelLo)},
        {0.0},
        "points"};
    double sum = 0;
    for (std::size_t i = 0; i < r.measured.time.size(); ++i) {
      sum += r.measured.time[i];
      pts.x.push_back(static_cast<double>(r.cuts[i + 1]));
      pts.y.push_back(sum);
    }
    f.series.push_back(std::move(pts));
  }
  // Swartz Fig. 1: equal shares i·TT/P of the t axis, each mapped to its cut.
  const std::size_t P = fitted.cuts.size() - 1;
  const double total = model.total() * fitted.model_scale;
  isocost::plot::Series shares{"equal shares i*TT/P", {}, {}, "lines"};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 1; i < P; ++i) {
    const double y = total * static_cast<double>(i) / static_cast<double>(P);
    shares.x.insert(shares.x.end(), {model.lo(), static_cast<double>(fitted.cuts[i]), nan});
    shares.y.insert(shares.y.end(), {y, y, nan});
    f.vertical_lines.push_back(static_cast<double>(fitted.cuts[i]));
  }
  f.series.push_back(std::move(shares));
  f.vertical_label = "cuts of round 2";
  isocost::plot::render_png(f, path);
}

// --- the demo --------------------------------------------------------------

struct Context {
  Mode mode = Mode::emulation;
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int ranks = 1;  // P: emulated ranks, or the communicator's size
  bool root() const { return rank == 0; }
};

// Rank 0 decides, every rank learns the outcome: cuts or an error message.
void broadcast_plan(const Context& ctx, Round& next, std::string& error) {
  if (ctx.mode != Mode::mpi) return;
  int failed = error.empty() ? 0 : 1;
  MPI_Bcast(&failed, 1, MPI_INT, 0, ctx.comm);
  if (failed) {
    int length = static_cast<int>(error.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, ctx.comm);
    error.resize(static_cast<std::size_t>(length));
    MPI_Bcast(error.data(), length, MPI_CHAR, 0, ctx.comm);
    return;
  }
  next.cuts.resize(static_cast<std::size_t>(ctx.ranks) + 1);
  MPI_Bcast(next.cuts.data(), ctx.ranks + 1, MPI_UINT64_T, 0, ctx.comm);
}

int run(const Options& opt, const Context& ctx) {
  const double wall0 = sieve::wall_seconds();
  const std::string mode = mode_text(ctx.mode, ctx.ranks);
  std::ostringstream sink;
  std::ostream& out = (ctx.root() && opt.json_path != "-") ? std::cout : sink;

  // Swartz step 1: every rank finds the primes up to sqrt(MAXN).
  const auto low = sieve::prime_low(opt.maxn);

  // The reference count, before any timing.
  std::optional<std::uint64_t> expected;
  std::string reference = "none (MAXN > 2^26 and not in the table of known values)";
  if (ctx.root()) {
    const auto known = sieve::known_pi(opt.maxn);
    if (opt.maxn <= (1u << 26)) {
      const auto sieved = sieve::eratosthenes_pi(opt.maxn);
      expected = sieved;
      reference = "sieve of Eratosthenes";
      if (known) {
        if (*known != sieved) {
          std::cerr << "sieve_demo: internal error: sieve of Eratosthenes gives " << sieved
                    << " but pi(" << opt.maxn << ") = " << *known << "\n";
          return kExitWrongCount;
        }
        reference = "known value, and the sieve of Eratosthenes agrees";
      }
    } else if (known) {
      expected = known;
      reference = "known value";
    }
  }

  out << "sieve demo (Swartz §3, Appendices B and C): primes in [1, " << maxn_name(opt)
      << "] by trial division by the " << low.size() + 1 << " primes up to sqrt(MAXN)\n"
      << "mode: " << mode
      << (ctx.mode == Mode::emulation ? "; " + std::to_string(ctx.ranks) + " ranks" : "") << "\n"
      << "timing: each range in " << opt.pieces << (opt.pieces == 1 ? " piece" : " pieces")
      << ", each piece timed " << opt.repeats << (opt.repeats == 1 ? " time" : " times")
      << (ctx.mode == Mode::emulation ? " (pieces interleaved across ranks)"
                                      : " (barrier between repeats)")
      << "; a rank's time = sum of its pieces' fastest timings\n";

  std::vector<Round> rounds;
  std::vector<isocost::Samples> samples;
  bool counts_ok = true;
  for (int k = 1; k <= opt.rounds; ++k) {
    Round round;
    if (k == 1) {
      round.number = 1;
      round.distribution = "linear distribution (equal integer ranges)";
      round.cuts = linear_cuts(opt.maxn, ctx.ranks);
    } else {
      std::string error;
      if (ctx.root()) {
        try {
          round = plan_round(opt, ctx.ranks, rounds, samples);
        } catch (const Error& e) {
          error = e.what();
        }
      }
      broadcast_plan(ctx, round, error);
      if (!error.empty()) {
        if (ctx.root()) std::cerr << "sieve_demo: round " << k << ": " << error << "\n";
        return kExitError;
      }
    }

    const double t0 = sieve::wall_seconds();
    if (ctx.mode == Mode::emulation) {
      round.measured = measure_emulated(low, round.cuts, opt.repeats, opt.pieces);
      round.stats = isocost::load_stats(round.measured.time);
      samples.push_back(
          isocost::samples_from_partition(model_cuts(round.cuts), round.measured.time));
    } else {
      isocost::Samples s;
      round.measured =
          measure_mpi(ctx.comm, low, round.cuts, opt.repeats, opt.pieces, round.stats, s);
      samples.push_back(std::move(s));
    }
    round.wall_seconds = sieve::wall_seconds() - t0;

    if (ctx.root()) {
      print_round(out, round, mode);
      std::uint64_t total = 0;
      for (const auto c : round.measured.primes) total += c;
      if (expected) {
        const bool ok = total == *expected;
        counts_ok = counts_ok && ok;
        out << "primes found: " << total << (ok ? " = " : " != ") << "pi(" << opt.maxn
            << ") = " << *expected << " (" << reference << ")" << (ok ? "" : "  WRONG") << "\n";
      } else {
        out << "primes found: " << total << " (not verified: " << reference << ")\n";
      }
    }
    rounds.push_back(std::move(round));
  }
  if (!ctx.root()) return 0;

  const double wall = sieve::wall_seconds() - wall0;
  out << "\n== Summary — " << mode << ", MAXN = " << maxn_name(opt) << ", " << ctx.ranks
      << " ranks, " << opt.repeats << " repeats of " << opt.pieces << " pieces\n";
  char line[256];
  std::snprintf(line, sizeof line, "%5s  %-44s %8s %8s %11s %11s\n", "round", "distribution",
                "L_E %", "L_I %", "T_max [s]", "T_avg [s]");
  out << line;
  for (const auto& r : rounds) {
    std::snprintf(line, sizeof line, "%5d  %-44s %8.2f %8.2f %11.6f %11.6f\n", r.number,
                  r.distribution.c_str(), r.stats.le, r.stats.li, r.stats.max, r.stats.mean);
    out << line;
  }
  std::snprintf(line, sizeof line, "wall time %.1f s\n", wall);
  out << line;

  int status = 0;
  if (!counts_ok) {
    std::cerr << "sieve_demo: wrong prime count (see the tables above)\n";
    status = kExitWrongCount;
  }
  const bool improved = rounds[1].stats.le > rounds[0].stats.le;
  if (opt.check) {
    out << "check: L_E after the fit " << fmt("%.2f", rounds[1].stats.le) << " % "
        << (improved ? ">" : "<=") << " linear " << fmt("%.2f", rounds[0].stats.le)
        << " %: " << (improved ? "ok" : "FAILED") << "\n";
    if (!improved && status == 0) status = kExitCheckFailed;
  }

  std::string plot_error;
  if (!opt.plots.empty()) {
    try {
      std::filesystem::create_directories(opt.plots);
      for (const auto& r : rounds) {
        const auto path = opt.plots + "/sieve_round" + std::to_string(r.number) + "_times.png";
        plot_times(r, mode, opt, path);
        out << "wrote " << path << "\n";
      }
      const auto path = opt.plots + "/sieve_fit.png";
      plot_fit(rounds, mode, opt, path);
      out << "wrote " << path << "\n";
    } catch (const std::exception& e) {
      plot_error = e.what();
    }
  }

  if (!opt.json_path.empty()) {
    json j = {{"mode", mode},           {"maxn", opt.maxn},     {"ranks", ctx.ranks},
              {"repeats", opt.repeats}, {"pieces", opt.pieces}, {"model", opt.model},
              {"model_lo", kModelLo}};
    j["rounds"] = json::array();
    for (const auto& r : rounds) j["rounds"].push_back(round_json(r));
    std::uint64_t total = 0;
    for (const auto c : rounds.back().measured.primes) total += c;
    j["primes"] = {{"count", total}, {"reference", reference}, {"ok", counts_ok}};
    if (expected) j["primes"]["expected"] = *expected;
    j["check"] = {{"fitted_le_above_linear", improved}};
    j["wall_seconds"] = wall;
    const std::string text = j.dump(2) + "\n";
    if (opt.json_path == "-")
      std::cout << text;
    else
      write_atomically(opt.json_path, text);
  }
  if (!plot_error.empty()) {
    std::cerr << "sieve_demo: " << plot_error << "\n";
    if (status == 0) status = kExitError;
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  // MPI is started unless the run is an emulation (or just --help), so that a
  // single process needs no MPI runtime. Decided before parsing so that only
  // rank 0 reports a bad option.
  bool emulate = false, help = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    emulate = emulate || a == "--emulate";
    help = help || a == "-h" || a == "--help";
  }
  const bool use_mpi = !emulate && !help;
  Context ctx;
  if (use_mpi) {
    MPI_Init(&argc, &argv);
    ctx.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(ctx.comm, &ctx.rank);
    MPI_Comm_size(ctx.comm, &ctx.ranks);
  }
  auto finish = [&](int status) {
    if (use_mpi) MPI_Finalize();
    return status;
  };

  Options opt;
  CLI::App app{
      "Swartz's load-balanced prime search: time a linear split of [1, MAXN], fit t(x) to the "
      "timings, repartition, time again."};
  app.add_option("--maxn", opt.maxn_text, "largest integer tested, e.g. 2^24, 1e7, 1000000")
      ->capture_default_str();
  auto* ranks_opt =
      app.add_option("--ranks", opt.ranks, "ranks to emulate (MPI mode: the communicator's size)")
          ->check(CLI::Range(1, 1 << 16))
          ->capture_default_str();
  app.add_option("--repeats", opt.repeats, "timings per piece; the fastest is kept")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--pieces", opt.pieces,
                 "consecutive parts each range is timed in (1: the whole range at once)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--rounds", opt.rounds, "2: linear, then fitted; 3+: refit from all rounds so far")
      ->check(CLI::Range(2, 20))
      ->capture_default_str();
  app.add_option("--model", opt.model,
                 "sieve (Swartz eq. 4), sieve2 (A*x^p/(ln x - c)^2), sieve+q (the log's power "
                 "fitted too), sieve+c, power, poly:N, exp, expr:FORMULA, pchip, makima, auto, "
                 "or swartz (Swartz's T3D constants, no fit)")
      ->capture_default_str();
  app.add_flag("--emulate", opt.emulate,
               "one process runs every rank's range in turn (no MPI); also the mode when "
               "started as a single MPI process");
  app.add_flag("--check", opt.check, "exit 3 unless round 2's L_E is above round 1's (for tests)");
  app.add_option("--plots", opt.plots, "write PNG plots (gnuplot) into this directory");
  app.add_option("--json", opt.json_path,
                 "write a JSON summary of all rounds to FILE (- for stdout)");

  std::ostringstream quiet;
  try {
    app.parse(argc, argv);
    opt.ranks_given = ranks_opt->count() > 0;
    opt.maxn = parse_maxn(opt.maxn_text);
    if (opt.model != "auto" && opt.model != "swartz") {
      // Validate before any timing, formulas included.
      isocost::FitSpec spec;
      try {
        spec = fit_spec(opt.model);
      } catch (const Error& e) {
        throw Error(std::string("--model: ") + e.what() + "; or sieve2, auto, swartz");
      }
      if (spec.form == isocost::FitForm::expression) try {
          (void)isocost::Expression(spec.expression);
        } catch (const Error& e) {
          throw Error(std::string("--model: ") + e.what());
        }
    }
  } catch (const CLI::ParseError& e) {
    const int rc = ctx.rank == 0 ? app.exit(e) : app.exit(e, quiet, quiet);
    return finish(rc == 0 ? 0 : kExitError);
  } catch (const Error& e) {
    if (ctx.rank == 0) std::cerr << "sieve_demo: " << e.what() << "\n";
    return finish(kExitError);
  }

  if (use_mpi && ctx.ranks > 1) {
    ctx.mode = Mode::mpi;
    if (opt.ranks_given && opt.ranks != ctx.ranks) {
      if (ctx.rank == 0)
        std::cerr << "sieve_demo: --ranks " << opt.ranks << " but running on " << ctx.ranks
                  << " MPI ranks; drop --ranks or add --emulate\n";
      return finish(kExitError);
    }
  } else {
    ctx.mode = Mode::emulation;  // --emulate, or a single MPI process
    ctx.ranks = opt.ranks;
  }
  if (opt.maxn / static_cast<std::uint64_t>(ctx.ranks) < 2 * kModelLo) {
    if (ctx.rank == 0)
      std::cerr << "sieve_demo: --maxn " << opt.maxn << " is too small for " << ctx.ranks
                << " ranks; expected MAXN >= "
                << 2 * kModelLo * static_cast<std::uint64_t>(ctx.ranks) << "\n";
    return finish(kExitError);
  }

  int status = 0;
  try {
    status = run(opt, ctx);
  } catch (const Error& e) {
    // Collective calls throw on every rank alike; one report is enough.
    if (ctx.rank == 0) std::cerr << "sieve_demo: " << e.what() << "\n";
    status = kExitError;
  } catch (const std::exception& e) {
    std::cerr << "sieve_demo: rank " << ctx.rank << ": " << e.what() << "\n";
    if (ctx.mode == Mode::mpi) MPI_Abort(ctx.comm, kExitError);
    status = kExitError;
  }
  // Every rank returns the root's verdict, so mpiexec's status is the demo's.
  if (ctx.mode == Mode::mpi) MPI_Bcast(&status, 1, MPI_INT, 0, ctx.comm);
  return finish(status);
}
