// write_weights — writes N integer 1-D cell weights as a raw weights file
// ("ISOCOSTW", dims 1, int64 N, then N little-endian float64; see
// isocost/points.hpp), streaming them in chunks, so 10^9 cells (8 GB) need a
// few MiB of memory. The input of scripts/billion (issue #13: n >= 10^9).
//
//   write_weights OUT N [--pattern sieve|spikes]
//
// N: a positive integer, digits or as 1e9. Patterns (cell i = 0 … N-1):
//   sieve   w_i = 1 + floor(i·100/N): 1 to 100, increasing (the default)
//   spikes  100 with probability 1 %, else 1: a fixed hash of i (splitmix64,
//           seed 13), so the file is the same on every machine and run
// Exit status: 0 written, 1 an I/O error (the partial file is removed),
// 2 bad arguments.
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/points.hpp"

namespace {

constexpr const char* kUsage = "usage: write_weights OUT N [--pattern sieve|spikes]\n";

int usage_error(const std::string& what) {
  std::fprintf(stderr, "write_weights: %s\n%s", what.c_str(), kUsage);
  return 2;
}

// N as digits or a float literal (1e9) that is an exact positive integer.
bool parse_count(const char* s, std::int64_t& n) {
  if (*s == '\0') return false;
  char* end = nullptr;
  errno = 0;
  if (std::strspn(s, "0123456789") == std::strlen(s)) {
    const unsigned long long v = std::strtoull(s, &end, 10);
    if (errno != 0 || v < 1 || v > static_cast<unsigned long long>(INT64_MAX)) return false;
    n = static_cast<std::int64_t>(v);
    return true;
  }
  const double v = std::strtod(s, &end);
  if (errno != 0 || *end != '\0' || !(v >= 1) || v > 9.0e18 || v != std::floor(v)) return false;
  n = static_cast<std::int64_t>(v);
  return true;
}

__extension__ using u128 = unsigned __int128;  // exact i·100 for any N

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4 && argc != 5) return usage_error("expected OUT N [--pattern P]");
  const std::string out = argv[1];
  std::int64_t n = 0;
  if (!parse_count(argv[2], n))
    return usage_error(std::string("N = '") + argv[2] + "', expected a positive integer");
  std::string pattern = "sieve";
  if (argc == 5 && std::strcmp(argv[3], "--pattern") == 0) {
    pattern = argv[4];
  } else if (argc == 4 && std::strncmp(argv[3], "--pattern=", 10) == 0) {
    pattern = argv[3] + 10;
  } else if (argc != 3) {
    return usage_error(std::string("unexpected argument '") + argv[3] + "'");
  }
  const bool spikes = pattern == "spikes";
  if (!spikes && pattern != "sieve")
    return usage_error("--pattern '" + pattern + "', expected sieve or spikes");
  // The same bound as the readers (raw_layout): 8 bytes a value.
  if (n > static_cast<std::int64_t>((std::uint64_t{1} << 60) / 8))
    return usage_error("N = " + std::to_string(n) + " is too large for a raw file");
  try {
    isocost::detail::require_little_endian(out);
  } catch (const isocost::Error& e) {
    std::fprintf(stderr, "write_weights: %s\n", e.what());
    return 1;
  }

  std::FILE* f = std::fopen(out.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "write_weights: cannot open '%s': %s\n", out.c_str(),
                 std::strerror(errno));
    return 1;
  }
  auto fail = [&](const char* what) {
    std::fprintf(stderr, "write_weights: '%s': %s: %s\n", out.c_str(), what, std::strerror(errno));
    std::fclose(f);
    std::remove(out.c_str());
    return 1;
  };
  const auto dims = std::uint32_t{1};
  if (std::fwrite(isocost::detail::kWeightsMagic, 1, sizeof isocost::detail::kWeightsMagic, f) !=
          sizeof isocost::detail::kWeightsMagic ||
      std::fwrite(&dims, sizeof dims, 1, f) != 1 || std::fwrite(&n, sizeof n, 1, f) != 1)
    return fail("write error in the header");

  constexpr std::int64_t kChunk = std::int64_t{1} << 20;  // 8 MiB of doubles
  std::vector<double> buf(static_cast<std::size_t>(kChunk));
  const auto un = static_cast<u128>(n);
  for (std::int64_t start = 0; start < n; start += kChunk) {
    const std::int64_t len = std::min(kChunk, n - start);
    for (std::int64_t j = 0; j < len; ++j) {
      const auto i = static_cast<std::uint64_t>(start + j);
      double w;
      if (spikes)
        w = splitmix64(13 + i) % 100 == 0 ? 100.0 : 1.0;
      else
        w = static_cast<double>(1 + static_cast<std::uint64_t>(i * static_cast<u128>(100) / un));
      buf[static_cast<std::size_t>(j)] = w;
    }
    if (std::fwrite(buf.data(), sizeof(double), static_cast<std::size_t>(len), f) !=
        static_cast<std::size_t>(len))
      return fail("write error");
  }
  if (std::fflush(f) != 0) return fail("write error");
  if (std::fclose(f) != 0) {
    std::fprintf(stderr, "write_weights: '%s': close: %s\n", out.c_str(), std::strerror(errno));
    std::remove(out.c_str());
    return 1;
  }
  return 0;
}
