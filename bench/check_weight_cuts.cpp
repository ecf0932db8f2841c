// check_weight_cuts — an exact check of `isocost cut --model discrete
// --weights W --integer --json` outputs against the weights file itself,
// independent of the library's partitioners (it shares only the raw header
// parser, detail::raw_layout()). The check of scripts/billion (issue #13).
//
//   check_weight_cuts WEIGHTS JSON...
//
// WEIGHTS: a raw 1-D weights file ("ISOCOSTW", dims 1) of integer weights.
// It is read once, streaming, into the exact prefix sums S[0..N] as uint64:
// 8 bytes a cell, 8 GB for 10^9 cells, held for the checks of every JSON.
// Weights must be integers in [0, 2^53] (else an error, exit 2); the total
// must fit in 63 bits.
//
// For each JSON (P parts, cut x_0 = 0 ≤ x_1 ≤ … ≤ x_P = N, unit speeds):
//   - model.total_cost equals S[N];
//   - the cuts are integer cell boundaries, part k is [x_k, x_{k+1}), and its
//     cost equals S[x_{k+1}] - S[x_k] exactly;
//   - "optimal": false — every interior cut is a boundary nearest its target
//     T·k/P (|S[x_k] - T·k/P| is the least over all boundaries; ties pass);
//   - "optimal": true — the largest part cost equals the optimum bottleneck
//     B* (the least B such that P parts of cost <= B cover the cells), found
//     here by binary search on B with the greedy feasibility test (each part
//     as long as B allows, by binary search in S).
// Prints one line per JSON: max/avg (the largest part cost over T/P), the
// largest |S[x_k] - T·k/P| in weights of the cell holding the target, and
// PASS or FAIL (with the first failures on stderr). Exit status: 0 all pass,
// 1 a FAIL, 2 bad arguments or an unreadable file.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/points.hpp"

namespace {

using u64 = std::uint64_t;
__extension__ using i128 = __int128;  // exact T·k and S·P

struct Prefix {
  std::int64_t n = 0;
  std::unique_ptr<u64[]> s;  // s[0..n], s[i] = w_0 + … + w_{i-1}
  u64 wmax = 0;
  u64 total() const { return s[static_cast<std::size_t>(n)]; }
  u64 at(std::int64_t i) const { return s[static_cast<std::size_t>(i)]; }
};

Prefix read_prefix(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw isocost::Error("cannot open '" + path + "'");
  std::uintmax_t size = 0;
  const std::vector<char> head = isocost::detail::read_head(in, path, size);
  if (head.size() < 8 || std::memcmp(head.data(), isocost::detail::kWeightsMagic, 8) != 0)
    throw isocost::Error(path + ": not a raw weights file (ISOCOSTW)");
  const auto layout = isocost::detail::raw_layout(head, size, path);
  if (layout.dims != 1)
    throw isocost::Error(path + ": " + std::to_string(layout.dims) + "-D weights, expected 1-D");
  Prefix p;
  p.n = layout.count;
  // Default-initialised: the pages are touched once, when written below.
  p.s.reset(new u64[static_cast<std::size_t>(p.n) + 1]);
  p.s[0] = 0;
  in.seekg(static_cast<std::streamoff>(layout.data_offset));
  constexpr std::int64_t kChunk = std::int64_t{1} << 20;
  std::vector<double> buf(static_cast<std::size_t>(kChunk));
  u64 acc = 0;
  constexpr double kMaxExact = 9007199254740992.0;  // 2^53
  for (std::int64_t start = 0; start < p.n; start += kChunk) {
    const std::int64_t len = std::min(kChunk, p.n - start);
    in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(8 * len));
    if (!in)
      throw isocost::Error(path + ": read error at cell " + std::to_string(start) + ": " +
                           std::strerror(errno));
    for (std::int64_t j = 0; j < len; ++j) {
      const double v = buf[static_cast<std::size_t>(j)];
      if (!(v >= 0 && v <= kMaxExact) || v != std::floor(v)) {
        char text[64];
        std::snprintf(text, sizeof text, "%.17g", v);
        throw isocost::Error(path + ": weight of cell " + std::to_string(start + j) + " is " +
                             text + ", expected an integer in [0, 2^53]");
      }
      const auto w = static_cast<u64>(v);
      if (acc > (u64{1} << 63) - 1 - w)
        throw isocost::Error(path + ": the total weight exceeds 2^63 - 1");
      acc += w;
      p.wmax = std::max(p.wmax, w);
      p.s[static_cast<std::size_t>(start + j) + 1] = acc;
    }
  }
  return p;
}

// The JSON number `j` as an exact non-negative integer.
bool exact_u64(const nlohmann::json& j, u64& out) {
  if (j.is_number_unsigned()) {
    out = j.get<u64>();
    return true;
  }
  if (j.is_number_integer()) {
    const auto v = j.get<std::int64_t>();
    if (v < 0) return false;
    out = static_cast<u64>(v);
    return true;
  }
  if (!j.is_number_float()) return false;
  const double d = j.get<double>();
  if (!(d >= 0 && d < 18446744073709551616.0) || d != std::floor(d)) return false;
  out = static_cast<u64>(d);
  return true;
}

// The largest boundary e >= from with S[e] <= limit.
std::int64_t last_within(const Prefix& p, std::int64_t from, u64 limit) {
  const u64* b = p.s.get();
  const u64* it = std::upper_bound(b + from, b + p.n + 1, limit);
  return (it - b) - 1;
}

// True if at most `parts` contiguous parts of cost <= B cover all cells.
bool feasible(const Prefix& p, u64 B, u64 parts) {
  if (B < p.wmax) return false;
  std::int64_t pos = 0;
  for (u64 k = 0; k < parts && pos < p.n; ++k) {
    const u64 s = p.at(pos);
    pos = last_within(p, pos, s > UINT64_MAX - B ? UINT64_MAX : s + B);
  }
  return pos == p.n;
}

// The optimum bottleneck of `parts` contiguous parts.
u64 optimum(const Prefix& p, u64 parts) {
  const u64 T = p.total();
  u64 lo = std::max<u64>(p.wmax, (T + parts - 1) / parts), hi = std::max(lo, T);
  while (lo < hi) {
    const u64 mid = lo + (hi - lo) / 2;
    if (feasible(p, mid, parts))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

struct Failures {
  std::string file;
  int count = 0;
  void add(const std::string& what) {
    if (++count <= 5)
      std::fprintf(stderr, "check_weight_cuts: %s: %s\n", file.c_str(), what.c_str());
  }
};

// Checks one JSON output; prints its line; returns true on PASS.
bool check(const Prefix& p, const std::string& file) {
  Failures fail{file};
  nlohmann::json j;
  try {
    std::ifstream in(file);
    if (!in) throw isocost::Error("cannot open '" + file + "'");
    j = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    fail.add(std::string("cannot read the JSON: ") + e.what());
    std::printf("%s: FAIL (unreadable)\n", file.c_str());
    return false;
  }
  const u64 T = p.total();
  bool optimal = false;
  u64 max_cost = 0, b_star = 0;
  long double worst_rel = 0;
  std::size_t P = 0;
  try {
    if (j.at("command") != "cut" || j.at("model").at("kind") != "discrete")
      fail.add("not the output of isocost cut --model discrete");
    optimal = j.at("optimal").get<bool>();
    u64 total = 0;
    if (!exact_u64(j.at("model").at("total_cost"), total) || total != T)
      fail.add("model.total_cost " + j.at("model").at("total_cost").dump() +
               " is not the exact total " + std::to_string(T));
    const auto& parts = j.at("parts");
    const auto& cuts = j.at("cuts");
    P = parts.size();
    if (P == 0 || cuts.size() != P + 1)
      throw isocost::Error(std::to_string(P) + " parts and " + std::to_string(cuts.size()) +
                           " cuts, expected P >= 1 parts and P + 1 cuts");
    std::vector<std::int64_t> x(P + 1);
    for (std::size_t k = 0; k <= P; ++k) {
      u64 v = 0;
      if (!exact_u64(cuts[k].at("x"), v) || v > static_cast<u64>(p.n))
        throw isocost::Error("cut " + std::to_string(k) + " x = " + cuts[k].at("x").dump() +
                             " is not a cell boundary 0.." + std::to_string(p.n));
      x[k] = static_cast<std::int64_t>(v);
      if (k > 0 && x[k] < x[k - 1])
        throw isocost::Error("cut " + std::to_string(k) + " lies before cut " +
                             std::to_string(k - 1));
    }
    if (x[0] != 0 || x[P] != p.n) fail.add("the cuts do not span 0.." + std::to_string(p.n));
    for (std::size_t k = 0; k < P; ++k) {
      const auto& part = parts[k];
      u64 lo = 0, hi = 0, cost = 0;
      if (!exact_u64(part.at("lo"), lo) || !exact_u64(part.at("hi"), hi) ||
          static_cast<std::int64_t>(lo) != x[k] || static_cast<std::int64_t>(hi) != x[k + 1])
        fail.add("part " + std::to_string(k) + " is not [cut " + std::to_string(k) + ", cut " +
                 std::to_string(k + 1) + ")");
      if (part.at("speed").get<double>() != 1.0)
        fail.add("part " + std::to_string(k) + " has speed " + part.at("speed").dump() +
                 ": only unit speeds are checked");
      const u64 exact = p.at(x[k + 1]) - p.at(x[k]);
      max_cost = std::max(max_cost, exact);
      if (!exact_u64(part.at("cost"), cost) || cost != exact)
        fail.add("part " + std::to_string(k) + " cost " + part.at("cost").dump() +
                 ", the exact sum over [" + std::to_string(x[k]) + ", " + std::to_string(x[k + 1]) +
                 ") is " + std::to_string(exact));
    }
    // Each interior cut against its target T·k/P, in units of 1/P.
    for (std::size_t k = 1; k < P && T > 0; ++k) {
      const i128 target = static_cast<i128>(T) * static_cast<i128>(k);
      const i128 dev = static_cast<i128>(p.at(x[k])) * static_cast<i128>(P) - target;
      // The cell i holding the target: S[i]·P <= T·k < S[i+1]·P.
      const std::int64_t i = last_within(p, 0, static_cast<u64>(target / static_cast<i128>(P)));
      const i128 below = target - static_cast<i128>(p.at(i)) * static_cast<i128>(P);
      const i128 above = static_cast<i128>(p.at(i + 1)) * static_cast<i128>(P) - target;
      const i128 abs_dev = dev < 0 ? -dev : dev;
      const auto cell = static_cast<long double>(p.at(i + 1) - p.at(i));
      worst_rel = std::max(
          worst_rel, static_cast<long double>(abs_dev) / (static_cast<long double>(P) * cell));
      if (!optimal && abs_dev != std::min(below, above))
        fail.add("cut " + std::to_string(k) + " at " + std::to_string(x[k]) +
                 " is not a boundary nearest its target T*" + std::to_string(k) + "/" +
                 std::to_string(P));
    }
    if (optimal) {
      b_star = optimum(p, P);
      if (max_cost != b_star)
        fail.add("largest part cost " + std::to_string(max_cost) + ", the optimum is " +
                 std::to_string(b_star));
    }
  } catch (const std::exception& e) {
    fail.add(e.what());
  }
  const long double avg = static_cast<long double>(T) / static_cast<long double>(P ? P : 1);
  std::printf("%s: %s, %zu parts: max/avg %.9Lf, max |cut - target| %.4Lf cell weights",
              file.c_str(), optimal ? "optimal" : "nearest", P, avg > 0 ? max_cost / avg : 1.0L,
              worst_rel);
  if (optimal) std::printf(", optimum %llu", static_cast<unsigned long long>(b_star));
  std::printf(": %s\n", fail.count ? "FAIL" : "PASS");
  std::fflush(stdout);
  return fail.count == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: check_weight_cuts WEIGHTS JSON...\n");
    return 2;
  }
  Prefix p;
  try {
    p = read_prefix(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "check_weight_cuts: %s\n", e.what());
    return 2;
  }
  std::printf("%s: %lld cells, total %llu, largest weight %llu\n", argv[1],
              static_cast<long long>(p.n), static_cast<unsigned long long>(p.total()),
              static_cast<unsigned long long>(p.wmax));
  bool all = true;
  for (int a = 2; a < argc; ++a) all = check(p, argv[a]) && all;
  return all ? 0 : 1;
}
