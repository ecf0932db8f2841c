// isocost/metrics.hpp — load-balance statistics of per-rank times.
//
// Which formula is which:
//   L_I = (T_max − T_avg)/T_avg·100, L_E = 100 − L_I      (Swartz eqs 2–3)
//   λ   = (T_max/T_avg − 1)·100                            (Pearce eq. 1; equal to L_I)
//   E   = T_avg/T_max                                      (Watts' mineff test)
// Swartz's Fig. 2 arithmetic divides by T_max instead: (T_max − T_avg)/T_max·100
// = (1 − E)·100, reported separately as li_fig2 so the two are never confused.
// σ, g1, g2 are population moments over the n ranks (Pearce Fig. 1, eqs 2–4),
// computed with Boost.Math statistics.
//
//   auto s = isocost::load_stats(times);
//   if (s.efficiency < 0.9) rebalance();
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace isocost {

/// Statistics of one load vector (one time per rank).
struct LoadStats {
  std::size_t ranks = 0;
  double min = 0, max = 0, mean = 0, sum = 0;
  std::size_t argmin = 0, argmax = 0;  ///< first rank holding the min / max
  double li = 0;                       ///< L_I, percent (Swartz eq. 2)
  double le = 0;                       ///< L_E = 100 − L_I, percent (Swartz eq. 3)
  double li_fig2 = 0;                  ///< (T_max − T_avg)/T_max·100 (Swartz Fig. 2 arithmetic)
  double efficiency = 0;               ///< T_avg/T_max (Watts)
  double lambda = 0;                   ///< percent imbalance (Pearce eq. 1)
  double drift = 0;                    ///< (T_max − T_min)/T_avg (Swartz §6 drift check)
  double sigma = 0;                    ///< population standard deviation (Pearce eq. 2)
  /// Skewness g1 (Pearce eq. 3); empty when σ = 0 (undefined).
  std::optional<double> skewness;
  /// Excess kurtosis g2 (Pearce eq. 4); empty when σ = 0 (undefined).
  std::optional<double> kurtosis;
};

/// The one JSON form of LoadStats, written by every command and demo:
/// nlohmann::json's to_json hook, found by argument-dependent lookup (`json j
/// = stats;`), templated so the core needs no JSON library. Keys: ranks, min,
/// max, mean, sum, argmin, argmax, li, le, li_fig2, efficiency, lambda, drift,
/// sigma, skewness and kurtosis (null when σ = 0).
template <class Json>
void to_json(Json& j, const LoadStats& s) {
  auto optional = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  j = Json{{"ranks", s.ranks},
           {"min", s.min},
           {"max", s.max},
           {"mean", s.mean},
           {"sum", s.sum},
           {"argmin", s.argmin},
           {"argmax", s.argmax},
           {"li", s.li},
           {"le", s.le},
           {"li_fig2", s.li_fig2},
           {"efficiency", s.efficiency},
           {"lambda", s.lambda},
           {"drift", s.drift},
           {"sigma", s.sigma},
           {"skewness", optional(s.skewness)},
           {"kurtosis", optional(s.kurtosis)}};
}

/// Statistics of per-rank times. Throws Error if `times` is empty, holds a
/// negative or non-finite value (naming its index), or sums to zero.
LoadStats load_stats(std::span<const double> times);

/// The one check of a load vector (one value per rank or node) everywhere in
/// isocost: `count` values (0: any number >= 1), each finite and >= 0, and a
/// positive total unless `allow_all_zero`. Returns the total. Throws Error
/// "WHAT: load of UNIT i: expected a finite number >= 0, got v", "WHAT: 3 loads
/// for 4 UNITs; expected one per UNIT", "WHAT: all loads are zero; expected a
/// positive total", or "WHAT: expected at least one load, got none".
double check_loads(std::span<const double> loads, std::string_view what, std::size_t count = 0,
                   std::string_view unit = "rank", bool allow_all_zero = false);

/// The imbalance max/mean − 1 of loads >= 0 (λ/100, Pearce eq. 1; what
/// diffusion's u_max <= (1 + α)·u_avg bounds); 0 when they sum to 0 or are
/// empty. The second form divides by a given mean (e.g. the conserved mean of
/// the loads before a diffusion step), so both sides of a comparison use it.
double imbalance(std::span<const double> loads);
double imbalance(std::span<const double> loads, double mean);

/// Fractional ranks 1..n: tied values share the mean of the ranks they span.
std::vector<double> fractional_ranks(std::span<const double> values);

/// Rank correlation of modelled vs measured loads (Pearce eq. 13): Pearson's
/// correlation of the fractional ranks, which handles ties. Empty when either
/// vector is constant (correlation undefined). Throws Error on size mismatch,
/// fewer than 2 values, or non-finite values.
std::optional<double> rank_correlation(std::span<const double> modelled,
                                       std::span<const double> measured);

/// Per-phase (vector) loads: times[rank·phases + phase].
struct PhaseLoads {
  std::vector<std::string> phases;  ///< phase names, in first-seen order
  std::size_t ranks = 0;
  std::vector<double> times;  ///< row-major ranks × phases

  /// Time of one rank in one phase.
  double at(std::size_t rank, std::size_t phase) const {
    return times[rank * phases.size() + phase];
  }
};

/// Statistics of vector loads (Watts §4.2).
struct PhaseStats {
  std::vector<std::string> phases;
  std::vector<LoadStats> per_phase;  ///< one per phase; per_phase[j].efficiency
                                     ///< is that phase's own T_avg/T_max
  LoadStats total;                   ///< of each rank's sum over phases
  /// Σ_phase max_i T_i,phase: the run time when phases synchronise (Watts §4.2).
  double synchronised_time = 0;
  /// mean total / synchronised_time: the efficiency left once phases synchronise;
  /// never above total.efficiency.
  double synchronised_efficiency = 0;
};

/// Statistics of vector loads; validates like load_stats (per phase, a phase may
/// be all zero; the grand total may not).
PhaseStats phase_stats(const PhaseLoads& loads);

}  // namespace isocost
