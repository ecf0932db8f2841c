// The prime search of Swartz's Appendices B and C: every rank finds the primes
// up to sqrt(MAXN) (prime_low), then tests each integer of its own range by
// trial division by those primes. The work per integer grows like sqrt(n) for
// primes and is small for most composites, so equal-length ranges take very
// unequal times (Swartz Fig. 2) — the reason for the cost model t(x).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace sieve {

/// Largest MAXN the kernel accepts: the division runs in 32-bit arithmetic.
inline constexpr std::uint64_t kMaxN = 4294967295u;

/// The odd primes p <= floor(sqrt(maxn)) in increasing order (Swartz's
/// prime_low without 2: only odd n are tested, as in Appendix B's DO n=NLO,NHI,2).
std::vector<std::uint32_t> prime_low(std::uint64_t maxn);

/// Number of primes in the integer range [lo, hi), found by trial division by
/// `low` (which must hold every odd prime up to sqrt(hi − 1)). Only primes p
/// with p² <= n are tried; the bound advances with n (Swartz's mxp).
std::uint64_t count_primes(const std::vector<std::uint32_t>& low, std::uint64_t lo,
                           std::uint64_t hi);

/// π(maxn) by an independent sieve of Eratosthenes (odd-only bit array),
/// used to verify the trial-division count.
std::uint64_t eratosthenes_pi(std::uint64_t maxn);

/// π(maxn) for well-known arguments (10^k, 2^k), if this maxn is one of them.
std::optional<std::uint64_t> known_pi(std::uint64_t maxn);

/// The "linear distribution" of Swartz Fig. 2: equal integer ranges of
/// [1, maxn] for `ranks` ranks, as P + 1 cuts from 1 to maxn + 1.
std::vector<std::uint64_t> linear_cuts(std::uint64_t maxn, int ranks);

/// CPU time of the calling thread, seconds (CLOCK_THREAD_CPUTIME_ID): it does
/// not advance while the thread waits for a core, which is what makes per-rank
/// times meaningful when ranks outnumber cores.
double thread_cpu_seconds();

/// Wall-clock seconds (CLOCK_MONOTONIC).
double wall_seconds();

}  // namespace sieve
