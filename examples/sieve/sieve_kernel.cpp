#include "sieve_kernel.hpp"

#include <time.h>

#include <array>
#include <cmath>
#include <utility>

namespace sieve {

namespace {

// floor(sqrt(n)) exactly, for n < 2^64.
std::uint64_t isqrt(std::uint64_t n) {
  auto r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(n)));
  while (r * r > n) --r;
  while ((r + 1) * (r + 1) <= n) ++r;
  return r;
}

double seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

std::vector<std::uint32_t> prime_low(std::uint64_t maxn) {
  const std::uint64_t root = isqrt(maxn);
  std::vector<std::uint32_t> odd_primes;
  // Swartz step 1 finds these with the same trial division; a small sieve is
  // equivalent and keeps step 1 out of the timings' way.
  std::vector<bool> composite(root + 1, false);
  for (std::uint64_t p = 3; p <= root; p += 2) {
    if (composite[p]) continue;
    odd_primes.push_back(static_cast<std::uint32_t>(p));
    for (std::uint64_t m = p * p; m <= root; m += 2 * p) composite[m] = true;
  }
  return odd_primes;
}

std::uint64_t count_primes(const std::vector<std::uint32_t>& low, std::uint64_t lo,
                           std::uint64_t hi) {
  std::uint64_t count = 0;
  if (lo <= 2 && 2 < hi) ++count;           // the one even prime
  std::uint64_t n = lo < 3 ? 3 : (lo | 1);  // first odd n >= max(lo, 3)
  std::size_t mxp = 0;                      // primes low[0..mxp) satisfy p² <= n (Swartz's mxp)
  const std::size_t np = low.size();
  for (; n < hi; n += 2) {
    while (mxp < np && static_cast<std::uint64_t>(low[mxp]) * low[mxp] <= n) ++mxp;
    const auto m = static_cast<std::uint32_t>(n);
    bool prime = true;
    for (std::size_t k = 0; k < mxp; ++k) {
      if (m % low[k] == 0) {
        prime = false;
        break;
      }
    }
    count += prime ? 1 : 0;
  }
  return count;
}

std::uint64_t eratosthenes_pi(std::uint64_t maxn) {
  if (maxn < 2) return 0;
  // Bit k stands for the odd number 2k + 1.
  const std::uint64_t odd = (maxn + 1) / 2;
  std::vector<bool> composite(odd, false);
  composite[0] = true;  // 1
  for (std::uint64_t p = 3; p * p <= maxn; p += 2) {
    if (composite[p / 2]) continue;
    for (std::uint64_t m = p * p; m <= maxn; m += 2 * p) composite[m / 2] = true;
  }
  std::uint64_t count = 1;  // 2
  for (std::uint64_t k = 0; k < odd; ++k) count += composite[k] ? 0 : 1;
  return count;
}

std::optional<std::uint64_t> known_pi(std::uint64_t maxn) {
  // Standard tables of π(x) (e.g. OEIS A006880 for 10^k, A007053 for 2^k).
  static constexpr std::array<std::pair<std::uint64_t, std::uint64_t>, 16> kTable{{
      {10000u, 1229u},
      {100000u, 9592u},
      {1000000u, 78498u},
      {10000000u, 664579u},
      {100000000u, 5761455u},
      {1000000000u, 50847534u},
      {1u << 16, 6542u},
      {1u << 18, 23000u},
      {1u << 20, 82025u},
      {1u << 22, 295947u},
      {1u << 24, 1077871u},
      {1u << 26, 3957809u},
      {1u << 28, 14630843u},
      {1u << 30, 54400028u},
      {1u << 31, 105097565u},
      {4294967295u, 203280221u},  // π(2^32 − 1) = π(2^32)
  }};
  for (const auto& [x, pi] : kTable)
    if (x == maxn) return pi;
  return std::nullopt;
}

std::vector<std::uint64_t> linear_cuts(std::uint64_t maxn, int ranks) {
  std::vector<std::uint64_t> cuts(static_cast<std::size_t>(ranks) + 1);
  for (int i = 0; i <= ranks; ++i)
    cuts[static_cast<std::size_t>(i)] =
        1 + static_cast<std::uint64_t>(i) * maxn / static_cast<std::uint64_t>(ranks);
  return cuts;
}

double thread_cpu_seconds() { return seconds(CLOCK_THREAD_CPUTIME_ID); }

double wall_seconds() { return seconds(CLOCK_MONOTONIC); }

}  // namespace sieve
