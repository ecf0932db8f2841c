// The sieve demo's rounds (sieve_rounds.hpp): options, measurement in
// emulation and under MPI, and the plan of the next round from a fit.
#include "sieve_rounds.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <string>

#include "isocost/mpi/samples.hpp"
#include "isocost/partition.hpp"
#include "sieve_kernel.hpp"

namespace sieve_demo {

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

// Equal-length integer ranges: rank i owns [1 + i·MAXN/P, 1 + (i+1)·MAXN/P).
// The cuts as the model sees them: clamped to [kModelLo, MAXN + 1].
std::vector<double> model_cuts(const std::vector<std::uint64_t>& cuts) {
  std::vector<double> out;
  out.reserve(cuts.size());
  for (const auto c : cuts) out.push_back(static_cast<double>(std::max(c, kModelLo)));
  return out;
}

namespace {

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

bool tabulated(const isocost::FitSpec& spec) {
  return spec.form == isocost::FitForm::pchip || spec.form == isocost::FitForm::makima;
}

}  // namespace

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
    next.model = *rep.fit.model;
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

}  // namespace sieve_demo
