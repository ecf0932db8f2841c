// read_samples() on CSV/whitespace text and JSON (the reader picks the format
// from the first non-blank character, so one target covers both).
#include <cmath>
#include <sstream>
#include <vector>

#include "fuzz_support.hpp"
#include "isocost/limits.hpp"
#include "isocost/samples.hpp"

using isocost::fuzz::accepts;
using isocost::fuzz::check;

namespace {

isocost::Samples read(const std::string& text, bool repair) {
  std::istringstream in(text);
  return isocost::read_samples(in, "fuzz", repair);
}

void check_samples(const isocost::Samples& s) {
  check(s.size() >= 1, "read_samples returned no samples");
  double lo = s.intervals()[0].lo, hi = s.intervals()[0].hi;
  // Ranks (a rank column or member): every sample has one in range, or none.
  const bool ranked = s.intervals()[0].rank >= 0;
  check(s.ranked() == ranked, "ranked() differs from the first sample's rank");
  for (const auto& v : s.intervals()) {
    check(ranked ? v.rank >= 0 && v.rank <= isocost::kMaxRankIndex : v.rank == -1,
          "some samples ranked and others not, or a rank out of range");
    check(std::isfinite(v.lo) && std::isfinite(v.hi) && std::isfinite(v.dt), "non-finite sample");
    check(v.lo < v.hi, "sample with lo >= hi");
    check(v.dt > 0, "sample with dt <= 0");
    lo = std::min(lo, v.lo);
    hi = std::max(hi, v.hi);
  }
  check(s.lo() == lo && s.hi() == hi, "lo()/hi() differ from the samples' span");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 1 << 16) return -1;  // the readers are linear; keep iterations fast
  const std::string text = isocost::fuzz::text(data, size);

  isocost::Samples strict, repaired;
  const bool strict_ok = accepts([&] { strict = read(text, false); });
  const bool repaired_ok = accepts([&] { repaired = read(text, true); });
  if (strict_ok) {
    check_samples(strict);
    // Repair only replaces non-monotone t: data the strict reader accepts
    // must come back unchanged.
    check(repaired_ok, "accepted without --repair but refused with it");
    check(repaired.size() == strict.size(), "repair changed the number of samples");
    for (std::size_t k = 0; k < strict.size(); ++k) {
      const auto &a = strict.intervals()[k], &b = repaired.intervals()[k];
      check(a.lo == b.lo && a.hi == b.hi && a.dt == b.dt && a.rank == b.rank,
            "repair changed monotone samples");
    }
  }
  if (!repaired_ok) return 0;
  check_samples(repaired);

  // Cumulative points: when they exist, x increases strictly from lo() to
  // hi() and t rises from 0 without decreasing.
  std::vector<double> x, t;
  if (accepts([&] { repaired.cumulative_points(x, t); })) {
    check(x.size() == t.size() && x.size() >= 2, "cumulative_points: sizes");
    check(x.front() == repaired.lo() && x.back() == repaired.hi(), "cumulative_points: span");
    check(t.front() == 0, "cumulative_points: t_0 != 0");
    for (std::size_t k = 1; k < x.size(); ++k) {
      check(x[k] > x[k - 1], "cumulative_points: x not strictly increasing");
      check(t[k] >= t[k - 1] && std::isfinite(t[k]), "cumulative_points: t decreasing");
    }
  }
  return 0;
}
