// read_load_file() (scalar and rank,phase,time formats) and read_column() on
// the same bytes.
#include <cmath>
#include <sstream>

#include "fuzz_support.hpp"
#include "isocost/io.hpp"

using isocost::fuzz::accepts;
using isocost::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 1 << 16) return -1;
  const std::string text = isocost::fuzz::text(data, size);

  isocost::LoadFile loads;
  if (accepts([&] {
        std::istringstream in(text);
        loads = isocost::read_load_file(in, "fuzz");
      })) {
    check(!loads.times.empty(), "load file: no times");
    for (double t : loads.times) check(std::isfinite(t) && t >= 0, "load file: bad time");
    if (loads.phases) {
      const auto& p = *loads.phases;
      check(!p.phases.empty(), "load file: no phases");
      check(p.ranks == loads.times.size(), "load file: ranks != times");
      check(p.times.size() == p.ranks * p.phases.size(), "load file: table size");
      for (std::size_t k = 0; k < p.ranks; ++k) {
        double sum = 0;
        for (std::size_t f = 0; f < p.phases.size(); ++f) {
          check(std::isfinite(p.at(k, f)) && p.at(k, f) >= 0, "load file: bad phase time");
          sum += p.at(k, f);
        }
        // The rank's time is its sum over phases (up to the order of addition).
        check(std::abs(sum - loads.times[k]) <= 1e-12 * std::max(1.0, sum),
              "load file: rank time is not the sum of its phases");
      }
    }
  }

  for (bool nonnegative : {false, true}) {
    std::vector<double> column;
    if (accepts([&] {
          std::istringstream in(text);
          column = isocost::read_column(in, "fuzz", "value", nonnegative);
        })) {
      check(!column.empty(), "read_column: no values");
      for (double v : column) {
        check(std::isfinite(v), "read_column: non-finite value");
        check(!nonnegative || v >= 0, "read_column: negative value");
      }
    }
  }
  return 0;
}
