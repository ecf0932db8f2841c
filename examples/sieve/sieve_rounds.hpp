// Internal to the sieve demo: its options, the rounds it measures and plans,
// and the measurement in both modes (sieve_rounds.cpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/fitters/fit.hpp"
#include "isocost/metrics.hpp"
#include "isocost/samples.hpp"

namespace sieve_demo {

using isocost::Error;
using isocost::LoadStats;
using json = nlohmann::ordered_json;

// The fitted model's domain starts here, not at 1: the sieve form
// A·x^p/(ln x − c) only increases for x > exp(c + 1/p) (≈ 6 for Swartz's
// values, hundreds when c is fitted too). Rank 0 still owns [1, kModelLo);
// those few thousand divisions take microseconds, far below the timer's noise
// on any rank's range, so its sample is taken as [kModelLo, x_1).
constexpr std::uint64_t kModelLo = 1024;

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

/// The fit spec of a --model name ("sieve2": the sieve form with q = 2 held).
isocost::FitSpec fit_spec(const std::string& name);
/// The model name a fit reports ("sieve2" for the sieve form with q = 2 held).
std::string model_label(const isocost::FitSummary& fit);
/// "emulation (one process, CPU time)" or "MPI, N ranks (CPU time per rank)".
std::string mode_text(Mode mode, int ranks);
/// "2^24", "1e6" or "16777216"; throws isocost::Error outside [1000, kMaxN].
std::uint64_t parse_maxn(const std::string& text);
/// The cuts as the model sees them: clamped to [kModelLo, MAXN + 1].
std::vector<double> model_cuts(const std::vector<std::uint64_t>& cuts);

/// Every rank's range in one process, pieces interleaved across ranks.
Measured measure_emulated(const std::vector<std::uint32_t>& low,
                          const std::vector<std::uint64_t>& cuts, int repeats, int pieces);
/// Each rank its own range under MPI; results (stats, samples) on every rank.
Measured measure_mpi(MPI_Comm comm, const std::vector<std::uint32_t>& low,
                     const std::vector<std::uint64_t>& cuts, int repeats, int pieces,
                     isocost::LoadStats& stats, isocost::Samples& samples);
/// The next round's cuts from the rounds measured so far.
Round plan_round(const Options& opt, int ranks, const std::vector<Round>& done,
                 const std::vector<isocost::Samples>& samples);

}  // namespace sieve_demo
