// End-to-end tests of the isocost command (src/cli): `isocost cut` and
// `isocost metrics` run as a child process, with stdout and stderr captured
// separately. Every expected number is derived here from a closed form or a
// brute force over the input, never copied from a run of the tool:
//   - the sieve model t(x) = A·x^p/(ln x − c) (Swartz eq. 4) in long double;
//   - Swartz §4's heterogeneous example, 7 nodes of type 1 and 4 three times
//     faster, on t(x) = x over [0, 100]: t_int = 100/19, speedup 19;
//   - discrete cuts as "the prefix sum closest to TT·i/P, ties to the smaller
//     index", searched exhaustively;
//   - load statistics from their definitions (Swartz eqs 2–3, Watts, Pearce).
// Bad input must give exit code 2, one line "isocost: error: …" naming the bad
// value, nothing on stdout, and no output file (DESIGN.md, Conventions).
#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"

#ifndef ISOCOST_CLI
#error "ISOCOST_CLI must be the absolute path of the isocost binary"
#endif

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// ---------------------------------------------------------------------------
// Running the command (tests/support/cli_runner.hpp)

using isocost::testing::BadCase;
using isocost::testing::BadCaseName;
using isocost::testing::Cat;
using isocost::testing::Has;
using isocost::testing::Lines;
using isocost::testing::Listing;
using isocost::testing::Num;
using isocost::testing::Outcome;
using isocost::testing::ReadFile;
using isocost::testing::Show;
using isocost::testing::Tokens;
using isocost::testing::WriteFile;

class Cli : public isocost::testing::CliTest {
 protected:
  Outcome Isocost(const std::vector<std::string>& args, const std::string& stdout_path = "") {
    isocost::testing::RunOptions options;
    options.stdout_path = stdout_path;
    return CliTest::Isocost(args, options);
  }
};

// ---------------------------------------------------------------------------
// Closed forms

struct Sieve {
  long double A = 3.9098e-7L, p = 1.43L, c = 1.08366L;
  long double T(long double x) const { return A * std::pow(x, p) / (std::log(x) - c); }
};

// Shortest text that reads back to exactly `v` (gtest rounds doubles when printing).
std::string Exact(double v) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
  return std::string(buffer, end);
}

// ---------------------------------------------------------------------------
// 1. Sieve model, 16 ranks (Swartz §3, Fig. 5: x_max = 2^28 on 16 PEs)

class SieveCut : public Cli, public ::testing::WithParamInterface<const char*> {};

TEST_P(SieveCut, SixteenRanksGetEqualCostAndResidualsAreHonest) {
  const std::string method = GetParam();
  const json j = OkJson({"cut", "--model", "sieve", "--param", "A=3.9098e-7,p=1.43,c=1.08366",
                         "--domain", "6:268435456", "--ranks", "16", "--method", method, "--json"});
  const Sieve s;
  const long double lo = 6, hi = 268435456;
  const long double TT = s.T(hi) - s.T(lo);
  const double tol = 1e-10 * static_cast<double>(TT);
  const int P = 16;

  EXPECT_EQ(j.value("command", ""), "cut");
  EXPECT_EQ(j.value("ranks", -1), P);
  EXPECT_EQ(j.value("method", ""), method);
  EXPECT_EQ(j.value("integer", true), false);
  ASSERT_TRUE(j.contains("model"));
  EXPECT_EQ(j["model"].value("kind", ""), "sieve");
  EXPECT_EQ(Num(j["model"]["lo"]), 6.0);
  EXPECT_EQ(Num(j["model"]["hi"]), 268435456.0);
  EXPECT_NEAR(Num(j["model"]["total_cost"]), static_cast<double>(TT), 1e-12 * TT);

  ASSERT_TRUE(j["parts"].is_array());
  ASSERT_TRUE(j["cuts"].is_array());
  ASSERT_EQ(j["parts"].size(), 16u);
  ASSERT_EQ(j["cuts"].size(), 17u);
  const json& cuts = j["cuts"];
  const json& parts = j["parts"];
  EXPECT_EQ(Num(cuts[0]["x"]), 6.0);
  EXPECT_EQ(Num(cuts[P]["x"]), 268435456.0);

  for (int i = 0; i <= P; ++i) {
    SCOPED_TRACE("cut " + std::to_string(i));
    const json& c = cuts[i];
    EXPECT_EQ(c.value("index", -1), i);
    const double x = Num(c["x"]);
    if (i > 0) {
      EXPECT_GT(x, Num(cuts[i - 1]["x"]));
    }
    EXPECT_EQ(x, Num(c["solved_x"]));  // not an integer partition: no rounding
    const long double target = TT * i / P;
    EXPECT_NEAR(Num(c["target"]), static_cast<double>(target), 1e-12 * TT);
    const double residual = Num(c["residual"]);
    EXPECT_LE(std::abs(residual), tol);
    // The reported residual is t(x) − target, with t evaluated here.
    const long double mine = s.T(x) - s.T(lo) - target;
    EXPECT_NEAR(residual, static_cast<double>(mine), 1e-12 * TT);
    EXPECT_LE(std::abs(mine), tol) << "x=" << x << " is not a root of t(x) = TT*i/P";
  }
  for (int i = 0; i < P; ++i) {
    SCOPED_TRACE("part " + std::to_string(i));
    const json& r = parts[i];
    EXPECT_EQ(r.value("rank", -1), i);
    EXPECT_EQ(Num(r["lo"]), Num(cuts[i]["x"]));
    EXPECT_EQ(Num(r["hi"]), Num(cuts[i + 1]["x"]));
    EXPECT_EQ(Num(r["speed"]), 1.0);
    EXPECT_NEAR(Num(r["share"]), 1.0 / 16, 1e-9);
    const long double cost = s.T(Num(r["hi"])) - s.T(Num(r["lo"]));
    EXPECT_NEAR(Num(r["cost"]), static_cast<double>(cost), 1e-11 * TT);
    EXPECT_NEAR(Num(r["time"]), Num(r["cost"]), 1e-15 * TT);
  }
  ASSERT_TRUE(j.contains("predicted"));
  EXPECT_NEAR(Num(j["predicted"]["le"]), 100.0, 1e-6);
  EXPECT_NEAR(Num(j["predicted"]["li"]), 0.0, 1e-6);
  EXPECT_NEAR(Num(j["predicted"]["efficiency"]), 1.0, 1e-8);
  EXPECT_NEAR(Num(j["predicted"]["speedup"]), 16.0, 1e-7);
  EXPECT_NEAR(Num(j["predicted"]["makespan"]), static_cast<double>(TT / 16), 1e-9 * TT);
  ASSERT_TRUE(j.contains("solver"));
  EXPECT_EQ(j["solver"].value("converged", false), true);
  EXPECT_LE(Num(j["solver"]["max_abs_residual"]), tol);
}

INSTANTIATE_TEST_SUITE_P(Methods, SieveCut,
                         ::testing::Values("newton", "secant", "bisection", "toms748"));

TEST_F(Cli, ResidualIsTOfXMinusTargetWithALooseTolerance) {
  // With cost tolerance 1e-5 the residuals are large enough that their sign and
  // definition (t(x) − target, not the reverse) can be checked.
  const json j = OkJson({"cut", "--domain", "6:268435456", "--ranks", "16", "--method", "bisection",
                         "--cost-tolerance", "1e-5", "--json"});
  const Sieve s;
  const long double TT = s.T(268435456.0L) - s.T(6.0L);
  ASSERT_EQ(j["cuts"].size(), 17u);
  double largest = 0;
  for (int i = 1; i < 16; ++i) {
    SCOPED_TRACE("cut " + std::to_string(i));
    const json& c = j["cuts"][i];
    const double x = Num(c["x"]), residual = Num(c["residual"]);
    const long double mine = s.T(x) - s.T(6.0L) - TT * i / 16;
    EXPECT_NEAR(residual, static_cast<double>(mine), 1e-12 * TT);
    EXPECT_LE(std::abs(residual), 1e-5 * TT);
    EXPECT_EQ(c.value("termination", ""), "cost_tolerance");
    largest = std::max(largest, std::abs(residual));
  }
  ASSERT_GT(largest, 1e-9 * TT) << "residuals too small to tell t(x) - target from its negative";
  EXPECT_NEAR(Num(j["solver"]["max_abs_residual"]), largest, 1e-15 * TT);
  // A rank's cost is then TT/16 plus the difference of its two residuals.
  for (int i = 0; i < 16; ++i)
    EXPECT_NEAR(Num(j["parts"][i]["cost"]),
                static_cast<double>(TT / 16) + Num(j["cuts"][i + 1]["residual"]) -
                    Num(j["cuts"][i]["residual"]),
                1e-11 * TT)
        << "part " << i;
}

TEST_F(Cli, SieveParametersDefaultToSwartzEquationFour) {
  const json given = OkJson({"cut", "--param", "A=3.9098e-7,p=1.43,c=1.08366", "--domain",
                             "6:268435456", "--ranks", "16", "--json"});
  const json defaulted = OkJson({"cut", "--domain", "6:268435456", "--ranks", "16", "--json"});
  const Sieve s;
  EXPECT_NEAR(Num(defaulted["model"]["total_cost"]),
              static_cast<double>(s.T(268435456.0L) - s.T(6.0L)), 1e-12 * s.T(268435456.0L));
  EXPECT_EQ(defaulted["model"].value("kind", ""), "sieve");
  ASSERT_EQ(defaulted["cuts"].size(), given["cuts"].size());
  for (std::size_t i = 0; i < given["cuts"].size(); ++i)
    EXPECT_EQ(Num(defaulted["cuts"][i]["x"]), Num(given["cuts"][i]["x"])) << "cut " << i;
}

TEST_F(Cli, TheConstantACancelsOutOfTheCuts) {
  // Swartz §2: t = A·t_ref gives the same cuts for every A > 0.
  const json a = OkJson(
      {"cut", "--param", "A=1,p=1.43,c=1.08366", "--domain", "6:1e6", "--ranks", "5", "--json"});
  const json b = OkJson(
      {"cut", "--param", "A=1e5,p=1.43,c=1.08366", "--domain", "6:1e6", "--ranks", "5", "--json"});
  ASSERT_EQ(a["cuts"].size(), 6u);
  ASSERT_EQ(b["cuts"].size(), 6u);
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_NEAR(Num(a["cuts"][i]["x"]), Num(b["cuts"][i]["x"]), 1e-9 * 1e6) << "cut " << i;
  EXPECT_NEAR(Num(b["model"]["total_cost"]), 1e5 * Num(a["model"]["total_cost"]),
              1e-10 * Num(b["model"]["total_cost"]));
}

TEST_F(Cli, PowerModelCutsHaveTheClosedForm) {
  // t(x) = 2·x^3 + 7 on [1, 10]: x_i = (1 + (1000 − 1)·i/P)^(1/3); B cancels.
  const json j = OkJson({"cut", "--model", "power", "--param", "A=2,p=3,B=7", "--domain", "1:10",
                         "--ranks", "6", "--json"});
  ASSERT_EQ(j["cuts"].size(), 7u);
  EXPECT_NEAR(Num(j["model"]["total_cost"]), 2.0 * 999.0, 1e-12 * 2000);
  for (int i = 0; i <= 6; ++i)
    EXPECT_NEAR(Num(j["cuts"][i]["x"]), std::cbrt(1.0 + 999.0 * i / 6.0), 1e-10) << "cut " << i;
}

TEST_F(Cli, PolynomialModelCutsHaveTheClosedForm) {
  // t(x) = x + x^2 on [0, 3], TT = 12: x_i solves x^2 + x − 12·i/P = 0.
  const json j = OkJson({"cut", "--model", "polynomial", "--param", "c1=1,c2=1", "--domain", "0:3",
                         "--ranks", "4", "--json"});
  ASSERT_EQ(j["cuts"].size(), 5u);
  EXPECT_NEAR(Num(j["model"]["total_cost"]), 12.0, 1e-12);
  for (int i = 0; i <= 4; ++i)
    EXPECT_NEAR(Num(j["cuts"][i]["x"]), (-1.0 + std::sqrt(1.0 + 4.0 * 3.0 * i)) / 2.0, 1e-10)
        << "cut " << i;
}

TEST_F(Cli, LinearTabulatedModelCutsInterpolateTheSamples) {
  // Cumulative samples of t(x) = x^2 at x = 0, 1, 2, 4; linear interpolation,
  // TT = 16, P = 4: targets 4, 8, 12 fall at x = 2, 2 + 4/12·2, 2 + 8/12·2.
  const std::string f = File("samples.csv", "x,t\n0,0\n1,1\n2,4\n4,16\n");
  const json j = OkJson({"cut", "--model", "linear", "--samples", f, "--ranks", "4", "--json"});
  ASSERT_EQ(j["cuts"].size(), 5u);
  const double expected[] = {0, 2, 2 + 2.0 / 3, 2 + 4.0 / 3, 4};
  for (int i = 0; i <= 4; ++i) EXPECT_NEAR(Num(j["cuts"][i]["x"]), expected[i], 1e-10);
}

TEST_F(Cli, PchipModelCutsLieOnTheSamplesWhenTargetsDo) {
  // The interpolant passes through every sample, so a target equal to a sample's
  // t is cut at that sample's x: t = 0, 1, 2, 3, 4 at x = 0, 1, 3, 4, 10.
  const std::string f = File("samples.csv", "0 0\n1 1\n3 2\n4 3\n10 4\n");
  const json j = OkJson({"cut", "--model", "pchip", "--samples", f, "--ranks", "4", "--json"});
  ASSERT_EQ(j["cuts"].size(), 5u);
  const double expected[] = {0, 1, 3, 4, 10};
  for (int i = 0; i <= 4; ++i) EXPECT_NEAR(Num(j["cuts"][i]["x"]), expected[i], 1e-9);
}

TEST_F(Cli, OneRankOwnsTheWholeDomain) {
  const json j = OkJson({"cut", "--domain", "6:1000", "--ranks", "1", "--json"});
  ASSERT_EQ(j["parts"].size(), 1u);
  ASSERT_EQ(j["cuts"].size(), 2u);
  EXPECT_EQ(Num(j["cuts"][0]["x"]), 6.0);
  EXPECT_EQ(Num(j["cuts"][1]["x"]), 1000.0);
  EXPECT_NEAR(Num(j["parts"][0]["share"]), 1.0, 1e-15);
}

// ---------------------------------------------------------------------------
// 2. Swartz §4: 7 type-1 nodes and 4 type-2 nodes with R = 3, TT = 100

void ExpectSwartzSection4(const json& j) {
  const double TT = 100, t_int = TT / (7 + 4 * 3);  // 100/19 = 5.263…
  ASSERT_EQ(j.value("ranks", -1), 11);
  ASSERT_EQ(j["parts"].size(), 11u);
  ASSERT_EQ(j["cuts"].size(), 12u);
  EXPECT_NEAR(Num(j["model"]["total_cost"]), TT, 1e-12);
  double t1 = 0, t_all = 0;
  for (int i = 0; i < 11; ++i) {
    SCOPED_TRACE("rank " + std::to_string(i));
    const json& r = j["parts"][i];
    const double R = i < 7 ? 1.0 : 3.0;
    EXPECT_EQ(Num(r["speed"]), R);
    EXPECT_NEAR(Num(r["time"]), t_int, 1e-10);
    EXPECT_NEAR(Num(r["cost"]), R * t_int, 1e-10);  // 100/19 or 300/19
    EXPECT_NEAR(Num(r["share"]), R / 19, 1e-12);
    if (i < 7) t1 += Num(r["cost"]);
    t_all += Num(r["time"]);
  }
  EXPECT_NEAR(t1, 7 * t_int, 1e-9);  // T_1 = 36.84 s
  EXPECT_NEAR(t1, 36.84, 0.005);
  EXPECT_NEAR(t_all, 11 * t_int, 1e-9);  // T_all = 57.89 s
  EXPECT_NEAR(t_all, 57.89, 0.005);
  EXPECT_NEAR(Num(j["predicted"]["speedup"]), 19.0, 1e-9);  // N_1 + N_2·R
  EXPECT_NEAR(Num(j["predicted"]["makespan"]), t_int, 1e-10);
  EXPECT_NEAR(Num(j["predicted"]["le"]), 100.0, 1e-8);
  // t(x) = x, so the cut x_i is the cumulative target TT·S_i/S.
  for (int i = 0; i <= 11; ++i) {
    const double S_i = std::min(i, 7) + 3.0 * std::max(0, i - 7);
    EXPECT_NEAR(Num(j["cuts"][i]["x"]), TT * S_i / 19, 1e-10) << "cut " << i;
  }
}

TEST_F(Cli, SwartzSection4NodeTypes) {
  const json j = OkJson({"cut", "--model", "power", "--param", "A=1,p=1", "--domain", "0:100",
                         "--node-types", "7x1,4x3", "--json"});
  ExpectSwartzSection4(j);
}

TEST_F(Cli, SwartzSection4SpeedsGiveTheSameCuts) {
  const json types = OkJson({"cut", "--model", "power", "--param", "A=1,p=1", "--domain", "0:100",
                             "--node-types", "7x1,4x3", "--json"});
  const json speeds = OkJson({"cut", "--model", "power", "--param", "A=1,p=1", "--domain", "0:100",
                              "--speeds", "1,1,1,1,1,1,1,3,3,3,3", "--json"});
  ExpectSwartzSection4(speeds);
  ASSERT_EQ(types["cuts"].size(), speeds["cuts"].size());
  for (std::size_t i = 0; i < types["cuts"].size(); ++i)
    EXPECT_EQ(Num(types["cuts"][i]["x"]), Num(speeds["cuts"][i]["x"])) << "cut " << i;
  // --ranks may be given when it agrees.
  const json with_ranks = OkJson({"cut", "--model", "power", "--param", "A=1,p=1", "--domain",
                                  "0:100", "--node-types", "7x1,4x3", "--ranks", "11", "--json"});
  ExpectSwartzSection4(with_ranks);
}

TEST_F(Cli, SwartzSection4TableShowsSpeedAndTime) {
  const std::string out = Ok({"cut", "--model", "power", "--param", "A=1,p=1", "--domain", "0:100",
                              "--node-types", "7x1,4x3"});
  const auto lines = Lines(out);
  auto header = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    const auto t = Tokens(l);
    return !t.empty() && t[0] == "rank";
  });
  ASSERT_NE(header, lines.end()) << out;
  const auto h = Tokens(*header);
  EXPECT_NE(std::find(h.begin(), h.end(), "speed"), h.end()) << *header;
  EXPECT_NE(std::find(h.begin(), h.end(), "time"), h.end()) << *header;
  // speedup = 19 on the summary line.
  auto line = std::find_if(lines.begin(), lines.end(),
                           [](const std::string& l) { return Has(l, "speedup = "); });
  ASSERT_NE(line, lines.end()) << out;
  EXPECT_NEAR(std::stod(line->substr(line->find("speedup = ") + 10)), 19.0, 1e-6);
}

TEST_F(Cli, SpeedsAreReportedAsGivenAndTimesUseThem) {
  // t(x) = x on [0, 100]; rank i owns cost 100·s_i/S and time 100/S.
  const std::vector<double> given{3, 0.1, 0.7};
  const double S = 3 + 0.1 + 0.7;
  const json j = OkJson({"cut", "--model", "power", "--param", "p=1", "--domain", "0:100",
                         "--speeds", "3,0.1,0.7", "--json"});
  ASSERT_EQ(j["parts"].size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE("rank " + std::to_string(i));
    const json& r = j["parts"][i];
    EXPECT_EQ(Num(r["speed"]), given[i]) << "the speed must be echoed as given: got "
                                         << Exact(Num(r["speed"])) << ", given " << Exact(given[i]);
    EXPECT_NEAR(Num(r["cost"]), 100 * given[i] / S, 1e-10);
    EXPECT_NEAR(Num(r["time"]), Num(r["cost"]) / given[i], 1e-13 * Num(r["time"]));
    EXPECT_NEAR(Num(r["time"]), 100 / S, 1e-9);
  }
  // A small speed next to large ones: still reported as given.
  const json k = OkJson({"cut", "--model", "power", "--param", "p=1", "--domain", "0:100",
                         "--speeds", "1,1e-9,1", "--json"});
  ASSERT_EQ(k["parts"].size(), 3u);
  EXPECT_EQ(Num(k["parts"][1]["speed"]), 1e-9);
  // Its range [50, 50 + 5e-8] is known to ~4ε·50 at each end, so its time
  // (cost / 1e-9) carries a relative error up to ~2·4ε·50/5e-8 ≈ 2e-6.
  EXPECT_NEAR(Num(k["parts"][1]["time"]), 100 / (2 + 1e-9), 50 * 4e-6);
}

TEST_F(Cli, AShareTooSmallToResolveIsRejectedByName) {
  // Rank 1's share 5e-14 is below the 1e-12 that double precision can resolve
  // (partition.cpp), so the tool refuses instead of silently collapsing it.
  const Outcome r = Isocost(
      {"cut", "--model", "power", "--param", "p=1", "--domain", "0:100", "--speeds", "1,1e-13,1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("rank 1 (speed 1e-13)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot be resolved"), std::string::npos) << r.err;
}

TEST_F(Cli, ATinySpeedIsEitherHandledOrRejectedByName) {
  // Speed 1e-300 is finite and > 0: a valid input. Either the partition comes
  // out (rank 1 gets next to nothing) or the error names the speed; never a NaN.
  const Outcome r = Isocost({"cut", "--model", "power", "--param", "p=1", "--domain", "0:100",
                             "--speeds", "1,1e-300,1", "--json"});
  if (r.code == 0) {
    const json j = json::parse(r.out);
    ASSERT_EQ(j["parts"].size(), 3u);
    EXPECT_EQ(Num(j["parts"][1]["speed"]), 1e-300);
    EXPECT_NEAR(Num(j["cuts"][1]["x"]), 50.0, 1e-6);
    EXPECT_NEAR(Num(j["cuts"][2]["x"]), 50.0, 1e-6);
  } else {
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(Has(r.err, "1e-300")) << r.err;
    EXPECT_FALSE(Has(r.err, "nan")) << r.err;
  }
}

// ---------------------------------------------------------------------------
// 3. Integer partitions

// Cuts of an integer partition: integers, ends at lo and hi, consecutive ranges
// [lo_i, hi_i) that meet without gaps and cover [lo, hi) exactly.
void ExpectIntegerCover(const json& j, double lo, double hi) {
  EXPECT_EQ(j.value("integer", false), true);
  const json& parts = j["parts"];
  const json& cuts = j["cuts"];
  ASSERT_EQ(cuts.size(), parts.size() + 1);
  ASSERT_FALSE(parts.empty());
  EXPECT_EQ(Num(parts[0]["lo"]), lo);
  EXPECT_EQ(Num(parts[parts.size() - 1]["hi"]), hi);
  double covered = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const double a = Num(parts[i]["lo"]), b = Num(parts[i]["hi"]);
    EXPECT_EQ(a, std::floor(a)) << "part " << i;
    EXPECT_EQ(b, std::floor(b)) << "part " << i;
    EXPECT_LE(a, b) << "part " << i;
    EXPECT_EQ(a, Num(cuts[i]["x"])) << "part " << i;
    EXPECT_EQ(b, Num(cuts[i + 1]["x"])) << "part " << i;
    if (i + 1 < parts.size()) {
      EXPECT_EQ(b, Num(parts[i + 1]["lo"])) << "gap after part " << i;
    }
    covered += b - a;
  }
  EXPECT_EQ(covered, hi - lo);
}

TEST_F(Cli, IntegerPowerCutsAreTheNearestIntegers) {
  // t(x) = x^2 on [0, 1000]: cut i is the integer b minimising |b^2 − 10^6·i/7|.
  const json j = OkJson({"cut", "--model", "power", "--param", "p=2", "--domain", "0:1000",
                         "--ranks", "7", "--integer", "--json"});
  ASSERT_EQ(j["cuts"].size(), 8u);
  ExpectIntegerCover(j, 0, 1000);
  for (int i = 0; i <= 7; ++i) {
    const long double target = 1e6L * i / 7;
    long best = 0;
    for (long b = 1; b <= 1000; ++b)
      if (std::abs(b * b - target) < std::abs(best * best - target)) best = b;
    EXPECT_EQ(Num(j["cuts"][i]["x"]), static_cast<double>(best)) << "cut " << i;
  }
  for (int i = 0; i < 7; ++i) {
    const double a = Num(j["parts"][i]["lo"]), b = Num(j["parts"][i]["hi"]);
    EXPECT_EQ(Num(j["parts"][i]["cost"]), b * b - a * a) << "part " << i;
  }
  const std::string table = Ok({"cut", "--model", "power", "--param", "p=2", "--domain", "0:1000",
                                "--ranks", "7", "--integer"});
  EXPECT_TRUE(Has(table, "integer ranges [lo, hi)")) << table;
}

TEST_F(Cli, IntegerSwartzSection4CutsAreTheNearestIntegers) {
  // t(x) = x on [0, 100] with speeds 7x1, 4x3: cut i is the integer b closest
  // to 100·S_i/19, ties to the smaller (compared exactly as |19·b − 100·S_i|).
  const json j = OkJson({"cut", "--model", "power", "--param", "p=1", "--domain", "0:100",
                         "--node-types", "7x1,4x3", "--integer", "--json"});
  ASSERT_EQ(j["cuts"].size(), 12u);
  ExpectIntegerCover(j, 0, 100);
  for (int i = 0; i <= 11; ++i) {
    const long S_i = std::min(i, 7) + 3L * std::max(0, i - 7);
    long best = 0;
    for (long b = 1; b <= 100; ++b)
      if (std::labs(19 * b - 100 * S_i) < std::labs(19 * best - 100 * S_i)) best = b;
    EXPECT_EQ(Num(j["cuts"][i]["x"]), static_cast<double>(best)) << "cut " << i;
  }
}

TEST_F(Cli, IntegerSieveCutsAreLocallyNearest) {
  const json j = OkJson({"cut", "--domain", "6:268435456", "--ranks", "16", "--integer", "--json"});
  ASSERT_EQ(j["cuts"].size(), 17u);
  ExpectIntegerCover(j, 6, 268435456);
  const Sieve s;
  const long double TT = s.T(268435456.0L) - s.T(6.0L);
  auto t = [&](long double x) { return s.T(x) - s.T(6.0L); };
  for (int i = 1; i < 16; ++i) {
    SCOPED_TRACE("cut " + std::to_string(i));
    const long double b = Num(j["cuts"][i]["x"]);
    const long double target = TT * i / 16;
    const long double slack = 1e-13L * TT;  // evaluation noise, far below one cell's cost
    EXPECT_LE(std::abs(t(b) - target), std::abs(t(b - 1) - target) + slack);
    EXPECT_LE(std::abs(t(b) - target), std::abs(t(b + 1) - target) + slack);
    // The cost of a rank is that of its integer range.
    const long double a = Num(j["parts"][i - 1]["lo"]);
    EXPECT_NEAR(Num(j["parts"][i - 1]["cost"]), static_cast<double>(t(b) - t(a)), 1e-11 * TT);
  }
}

// Brute force: the index k in 0..n whose prefix sum is closest to the target,
// ties to the smaller k.
std::vector<double> BruteForceDiscreteCuts(const std::vector<double>& w, int P) {
  std::vector<double> prefix{0};
  for (double v : w) prefix.push_back(prefix.back() + v);
  const double TT = prefix.back();
  std::vector<double> cuts;
  for (int i = 0; i <= P; ++i) {
    const double target = TT * (static_cast<double>(i) / P);
    std::size_t best = 0;
    for (std::size_t k = 1; k < prefix.size(); ++k)
      if (std::abs(prefix[k] - target) < std::abs(prefix[best] - target)) best = k;
    cuts.push_back(static_cast<double>(best));
  }
  return cuts;
}

void ExpectDiscreteCuts(const json& j, const std::vector<double>& w, int P) {
  SCOPED_TRACE("P = " + std::to_string(P));
  ASSERT_EQ(j["cuts"].size(), static_cast<std::size_t>(P) + 1);
  ExpectIntegerCover(j, 0, static_cast<double>(w.size()));
  std::vector<double> prefix{0};
  for (double v : w) prefix.push_back(prefix.back() + v);
  const auto expected = BruteForceDiscreteCuts(w, P);
  for (int i = 0; i <= P; ++i) {
    const double x = Num(j["cuts"][i]["x"]);
    EXPECT_EQ(x, expected[i]) << "cut " << i;
    const double target = prefix.back() * i / P;
    EXPECT_NEAR(Num(j["cuts"][i]["residual"]), prefix[static_cast<std::size_t>(x)] - target,
                1e-12 * prefix.back())
        << "cut " << i;
  }
  for (int i = 0; i < P; ++i) {
    const auto a = static_cast<std::size_t>(Num(j["parts"][i]["lo"]));
    const auto b = static_cast<std::size_t>(Num(j["parts"][i]["hi"]));
    EXPECT_EQ(Num(j["parts"][i]["cost"]), prefix[b] - prefix[a]) << "part " << i;
  }
}

TEST_F(Cli, DiscreteCutsMatchBruteForce) {
  const std::vector<double> w{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 0, 0, 8, 9, 7, 9, 3, 2, 3, 8, 4};
  std::ostringstream text;
  text << "# per-cell weights\nweight\n";
  for (std::size_t k = 0; k < w.size(); ++k) text << (k == 5 ? "\n" : "") << w[k] << "\n";
  const std::string f = File("weights.txt", text.str());
  for (int P : {2, 3, 5, 7, 8, 22}) {
    const json j = OkJson(
        {"cut", "--model", "discrete", "--weights", f, "--ranks", std::to_string(P), "--json"});
    ExpectDiscreteCuts(j, w, P);
  }
  // --integer is implied for discrete models and changes nothing.
  const json j =
      OkJson({"cut", "--model", "discrete", "--weights", f, "--ranks", "5", "--integer", "--json"});
  ExpectDiscreteCuts(j, w, 5);
}

TEST_F(Cli, DiscreteTiesGoToTheSmallerIndex) {
  // Four unit cells, 8 ranks: targets 0.5, 1.5, 2.5, 3.5 are exact ties.
  const std::string f = File("unit.txt", "1\n1\n1\n1\n");
  const json j = OkJson({"cut", "--model", "discrete", "--weights", f, "--ranks", "8", "--json"});
  const std::vector<double> expected{0, 0, 1, 1, 2, 2, 3, 3, 4};
  ASSERT_EQ(j["cuts"].size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(Num(j["cuts"][i]["x"]), expected[i]) << "cut " << i;
  ExpectDiscreteCuts(j, {1, 1, 1, 1}, 8);
  // Zero weights: prefix sums 0,2,2,2,4, the target 2 is cut at the first index.
  const std::string z = File("zeros.txt", "2\n0\n0\n2\n");
  const json k = OkJson({"cut", "--model", "discrete", "--weights", z, "--ranks", "2", "--json"});
  ASSERT_EQ(k["cuts"].size(), 3u);
  EXPECT_EQ(Num(k["cuts"][1]["x"]), 1.0);
  ExpectDiscreteCuts(k, {2, 0, 0, 2}, 2);
}

TEST_F(Cli, DiscreteCutsWithSpeeds) {
  // Speeds 1,3: the target is TT/4; weights 1..8 (TT = 36) → target 9, closest
  // prefix sums are 6 (k=3) and 10 (k=4) → 4.
  const std::string f = File("w.txt", "1\n2\n3\n4\n5\n6\n7\n8\n");
  const json j =
      OkJson({"cut", "--model", "discrete", "--weights", f, "--speeds", "1,3", "--json"});
  ASSERT_EQ(j["cuts"].size(), 3u);
  EXPECT_EQ(Num(j["cuts"][1]["x"]), 4.0);
  EXPECT_EQ(Num(j["parts"][0]["cost"]), 10.0);
  EXPECT_EQ(Num(j["parts"][1]["cost"]), 26.0);
  EXPECT_NEAR(Num(j["parts"][1]["time"]), 26.0 / 3, 1e-12);
}

// ---------------------------------------------------------------------------
// 4. Table output

// The table rows: the lines after the header "rank lo hi …" up to the first blank.
std::vector<std::vector<std::string>> TableRows(const std::string& out,
                                                std::vector<std::string>* header) {
  const auto lines = Lines(out);
  std::vector<std::vector<std::string>> rows;
  bool in_table = false;
  for (const auto& l : lines) {
    const auto t = Tokens(l);
    if (!in_table) {
      if (!t.empty() && t[0] == "rank") {
        in_table = true;
        *header = t;
      }
      continue;
    }
    if (t.empty()) break;
    rows.push_back(t);
  }
  return rows;
}

double NumberAfter(const std::string& out, const std::string& label) {
  const auto pos = out.find(label);
  if (pos == std::string::npos) {
    ADD_FAILURE() << "no '" << label << "' in:\n" << out;
    return std::numeric_limits<double>::quiet_NaN();
  }
  return std::stod(out.substr(pos + label.size()));
}

TEST_F(Cli, TableHasHeaderOneRowPerRankAndPredictedLE) {
  const std::string out = Ok({"cut", "--model", "sieve", "--param", "A=3.9098e-7,p=1.43,c=1.08366",
                              "--domain", "6:268435456", "--ranks", "16"});
  std::vector<std::string> header;
  const auto rows = TableRows(out, &header);
  ASSERT_GE(header.size(), 4u) << out;
  EXPECT_EQ(header[0], "rank");
  EXPECT_EQ(header[1], "lo");
  EXPECT_EQ(header[2], "hi");
  EXPECT_NE(std::find(header.begin(), header.end(), "cost"), header.end()) << out;
  EXPECT_EQ(std::find(header.begin(), header.end(), "speed"), header.end())
      << "uniform ranks need no speed column";
  ASSERT_EQ(rows.size(), 16u) << out;
  const auto cost_col =
      static_cast<std::size_t>(std::find(header.begin(), header.end(), "cost") - header.begin());
  const Sieve s;
  const long double TT = s.T(268435456.0L) - s.T(6.0L);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ASSERT_GT(rows[i].size(), cost_col) << out;
    EXPECT_EQ(rows[i][0], std::to_string(i));
    if (i + 1 < rows.size()) {
      EXPECT_EQ(rows[i][2], rows[i + 1][1]) << "ranges must meet";
    }
    EXPECT_NEAR(std::stod(rows[i][cost_col]), static_cast<double>(TT / 16), 1e-7 * TT);
  }
  EXPECT_EQ(std::stod(rows.front()[1]), 6.0);
  EXPECT_EQ(std::stod(rows.back()[2]), 268435456.0);
  EXPECT_NEAR(NumberAfter(out, "total cost TT = "), static_cast<double>(TT), 1e-9 * TT);
  EXPECT_TRUE(Has(out, "predicted L_E")) << out;
  EXPECT_NEAR(NumberAfter(out, "predicted L_E = "), 100.0, 1e-6);
  EXPECT_NEAR(NumberAfter(out, "speedup = "), 16.0, 1e-6);
}

TEST_F(Cli, TableCutsOfALinearModel) {
  // t(x) = x on [0, 100], 4 ranks: ranges [0,25), [25,50), [50,75), [75,100).
  const std::string out =
      Ok({"cut", "--model", "power", "--param", "p=1", "--domain", "0:100", "--ranks", "4"});
  std::vector<std::string> header;
  const auto rows = TableRows(out, &header);
  ASSERT_EQ(rows.size(), 4u) << out;
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(std::stod(rows[i][1]), 25.0 * static_cast<double>(i), 1e-9) << out;
    EXPECT_NEAR(std::stod(rows[i][2]), 25.0 * static_cast<double>(i + 1), 1e-9) << out;
  }
}

// ---------------------------------------------------------------------------
// 5. isocost metrics

// Load statistics from their definitions, for comparison with the tool.
struct Expected {
  double min, max, mean, sum, li, le, li_fig2, efficiency, lambda, drift, sigma;
  std::size_t argmin, argmax;
  double skewness, kurtosis;  // NaN when sigma = 0
};

Expected ExpectedStats(const std::vector<double>& t) {
  Expected e{};
  const double n = static_cast<double>(t.size());
  e.min = *std::min_element(t.begin(), t.end());
  e.max = *std::max_element(t.begin(), t.end());
  e.argmin = static_cast<std::size_t>(std::min_element(t.begin(), t.end()) - t.begin());
  e.argmax = static_cast<std::size_t>(std::max_element(t.begin(), t.end()) - t.begin());
  e.sum = 0;
  for (double v : t) e.sum += v;
  e.mean = e.sum / n;
  e.li = (e.max - e.mean) / e.mean * 100;
  e.le = 100 - e.li;
  e.li_fig2 = (e.max - e.mean) / e.max * 100;
  e.efficiency = e.mean / e.max;
  e.lambda = (e.max / e.mean - 1) * 100;
  e.drift = (e.max - e.min) / e.mean;
  double m2 = 0, m3 = 0, m4 = 0;
  for (double v : t) {
    const double d = v - e.mean;
    m2 += d * d / n;
    m3 += d * d * d / n;
    m4 += d * d * d * d / n;
  }
  e.sigma = std::sqrt(m2);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  e.skewness = m2 > 0 ? m3 / std::pow(m2, 1.5) : nan;
  e.kurtosis = m2 > 0 ? m4 / (m2 * m2) - 3 : nan;
  return e;
}

void ExpectStats(const json& s, const std::vector<double>& times) {
  const Expected e = ExpectedStats(times);
  const double tol = 1e-12;
  auto near = [&](const char* key, double v) {
    ASSERT_TRUE(s.contains(key)) << key << " missing in " << s.dump();
    EXPECT_NEAR(Num(s[key]), v, tol * std::max(1.0, std::abs(v))) << key;
  };
  EXPECT_EQ(s.value("ranks", 0u), times.size());
  near("min", e.min);
  near("max", e.max);
  near("mean", e.mean);
  near("sum", e.sum);
  near("li", e.li);
  near("le", e.le);
  near("li_fig2", e.li_fig2);
  near("efficiency", e.efficiency);
  near("lambda", e.lambda);
  near("drift", e.drift);
  near("sigma", e.sigma);
  EXPECT_EQ(s.value("argmin", 999u), e.argmin);
  EXPECT_EQ(s.value("argmax", 999u), e.argmax);
  for (auto [key, v] : {std::pair{"skewness", e.skewness}, std::pair{"kurtosis", e.kurtosis}}) {
    ASSERT_TRUE(s.contains(key)) << key;
    if (std::isnan(v))
      EXPECT_TRUE(s[key].is_null()) << key << " must be null when sigma = 0, got " << s[key];
    else
      near(key, v);
  }
}

TEST_F(Cli, MetricsScalarFile) {
  const std::vector<double> times{3, 1.5, 4, 2.5, 4};
  const std::string f = File("times.txt", "# seconds per rank\ntime\n3\n1.5\n\n4\n2.5\r\n4\n");
  const json j = OkJson({"metrics", f, "--json"});
  EXPECT_EQ(j.value("command", ""), "metrics");
  EXPECT_EQ(j.value("file", ""), f);
  ASSERT_TRUE(j.contains("stats"));
  ExpectStats(j["stats"], times);
  EXPECT_FALSE(j.contains("phases"));
  EXPECT_FALSE(j.contains("rank_correlation"));

  const std::string text = Ok({"metrics", f});
  const Expected e = ExpectedStats(times);
  EXPECT_NEAR(NumberAfter(text, "L_E = 100 - L_I [Swartz eq. 3]"), e.le, 1e-5 * e.le) << text;
  EXPECT_NEAR(NumberAfter(text, "L_I = (T_max - T_avg)/T_avg [Swartz eq. 2]"), e.li, 1e-5 * e.li);
  EXPECT_NEAR(NumberAfter(text, "efficiency T_avg/T_max [Watts]"), e.efficiency, 1e-5);
  EXPECT_TRUE(Has(text, "T_max (rank " + std::to_string(e.argmax) + ")")) << text;
  EXPECT_TRUE(Has(text, "T_min (rank " + std::to_string(e.argmin) + ")")) << text;
}

TEST_F(Cli, MetricsBalancedLoadsHaveUndefinedMoments) {
  const std::string f = File("flat.txt", "7\n7\n7\n");
  const json j = OkJson({"metrics", "--json", f});
  ExpectStats(j["stats"], {7, 7, 7});
  EXPECT_TRUE(Has(Ok({"metrics", f}), "undefined"));
}

TEST_F(Cli, MetricsPhaseFileWattsFigure4_11) {
  // Two ranks, two phases: each rank's total is 150 (perfectly balanced), but
  // with phase synchronisation the run takes max(50,100) + max(100,50) = 200.
  const std::string f = File("phases.csv",
                             "rank,phase,time\n0,one,50\n1,one,100\n"
                             "0,two,100\n1,two,50\n");
  const json j = OkJson({"metrics", f, "--json"});
  ExpectStats(j["stats"], {150, 150});
  ASSERT_TRUE(j.contains("phases"));
  ASSERT_EQ(j["phases"].size(), 2u);
  EXPECT_EQ(j["phases"][0].value("name", ""), "one");
  EXPECT_EQ(j["phases"][1].value("name", ""), "two");
  ExpectStats(j["phases"][0]["stats"], {50, 100});
  ExpectStats(j["phases"][1]["stats"], {100, 50});
  const double sync = std::max(50.0, 100.0) + std::max(100.0, 50.0);
  EXPECT_EQ(sync, 200.0);
  EXPECT_NEAR(Num(j["synchronised_time"]), sync, 1e-12);
  EXPECT_NEAR(Num(j["synchronised_efficiency"]), 150.0 / sync, 1e-12);
  EXPECT_NEAR(Num(j["synchronised_efficiency"]), 0.75, 1e-12);

  const std::string text = Ok({"metrics", f});
  EXPECT_NEAR(NumberAfter(text, "sum_phase max_i T_i = "), 200.0, 1e-9) << text;
  EXPECT_NEAR(NumberAfter(text, "phase synchronisation T_avg/that = "), 0.75, 1e-9) << text;
}

// Fractional ranks and Pearson's r of them, from the definitions.
double RankCorrelation(const std::vector<double>& a, const std::vector<double>& b) {
  auto ranks = [](const std::vector<double>& v) {
    std::vector<double> r;
    for (double x : v) {
      double below = 0, equal = 0;
      for (double y : v) {
        below += y < x;
        equal += y == x;
      }
      r.push_back(1 + below + (equal - 1) / 2);
    }
    return r;
  };
  const auto ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ma += ra[i] / n;
    mb += rb[i] / n;
  }
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

TEST_F(Cli, MetricsModelledGivesRankCorrelation) {
  const std::string measured = File("measured.txt", "1\n2\n3\n4\n");
  const std::string reversed = File("reversed.txt", "4\n3\n2\n1\n");
  const json j = OkJson({"metrics", measured, "--modelled", reversed, "--json"});
  EXPECT_NEAR(Num(j["rank_correlation"]), -1.0, 1e-12);

  const std::vector<double> modelled{1, 1, 2, 3, 2.5}, times{1, 2, 3, 4, 0.5};
  const std::string m = File("modelled.txt", "modelled\n1\n1\n2\n3\n2.5\n");
  const std::string t = File("t.txt", "1\n2\n3\n4\n0.5\n");
  const json k = OkJson({"metrics", t, "--modelled", m, "--json"});
  const double r = RankCorrelation(modelled, times);
  EXPECT_NEAR(Num(k["rank_correlation"]), r, 1e-12);
  const std::string text = Ok({"metrics", t, "--modelled", m});
  EXPECT_NEAR(NumberAfter(text, "[Pearce eq. 13]: "), r, 1e-5) << text;

  // A constant modelled vector has no rank correlation.
  const std::string flat = File("flat.txt", "2\n2\n2\n2\n2\n");
  const json u = OkJson({"metrics", t, "--modelled", flat, "--json"});
  ASSERT_TRUE(u.contains("rank_correlation"));
  EXPECT_TRUE(u["rank_correlation"].is_null()) << u["rank_correlation"];
}

// ---------------------------------------------------------------------------
// 6. Bad input

class BadInput : public Cli, public ::testing::WithParamInterface<BadCase> {
 protected:
  void SetUp() override {
    Cli::SetUp();
    File("neg.txt", "1\n-2\n3\n");
    File("empty.txt", "");
    File("comments.txt", "# nothing but a comment\n\n");
    File("nonmono_t.csv", "x,t\n0,0\n1,1\n2,0.5\n3,4\n");
    File("nonmono_x.csv", "x,t\n0,0\n1,1\n1,2\n3,4\n");
    File("bad_metrics.txt", "1\n2\nx\n4\n");
    File("neg_metrics.txt", "1\n-5\n");
    File("dup_phase.csv", "rank,phase,time\n0,a,1\n1,a,2\n0,a,3\n");
    File("missing_cell.csv", "rank,phase,time\n0,a,1\n1,a,2\n0,b,3\n");
    File("four.txt", "1\n2\n3\n4\n");
    File("three.txt", "1\n2\n3\n");
    File("samples.csv", "x,t\n0,0\n1,1\n2,2\n3,3\n");
  }

  // A case's args and fragments with "{dir}" replaced by the input directory.
  std::vector<std::string> Args(const std::vector<std::string>& in) const {
    std::vector<std::string> out;
    for (auto s : in) {
      const auto pos = s.find("{dir}");
      if (pos != std::string::npos) s.replace(pos, 5, dir.string());
      out.push_back(s);
    }
    return out;
  }
};

TEST_P(BadInput, ExitTwoOneLineNothingOnStdout) {
  ExpectRejected(Args(GetParam().args), Args(GetParam().fragments));
}

TEST_P(BadInput, OutputFileIsNeitherCreatedNorTouched) {
  auto args = Args(GetParam().args);
  const bool sub = !args.empty() && (args[0] == "cut" || args[0] == "metrics");
  const fs::path out = dir / "OUT.json";
  auto with_output = args;
  with_output.insert(sub ? with_output.begin() + 1 : with_output.end(), {"-o", out.string()});

  // OUT does not exist: it must not be created, and nothing else may appear
  // (ExpectRejected compares the listings).
  ExpectRejected(with_output, {"isocost: error:"});
  EXPECT_FALSE(fs::exists(out));

  // OUT exists: it is left exactly as it was.
  const std::string previous = "previous contents\nof OUT\n";
  WriteFile(out, previous);
  ExpectRejected(with_output, {"isocost: error:"});
  EXPECT_EQ(ReadFile(out), previous);
}

const std::vector<std::string> kSieve{"cut", "--model", "sieve", "--domain", "6:1000"};

const BadCase kBadCases[] = {
    // Parameters
    {"ParamNaN", Cat(kSieve, {"--ranks", "2", "--param", "A=nan"}), {"--param A", "'nan'"}},
    {"ParamInf", Cat(kSieve, {"--ranks", "2", "--param", "p=inf"}), {"--param p", "'inf'"}},
    {"ParamMinusInf", Cat(kSieve, {"--ranks", "2", "--param", "c=-inf"}), {"'-inf'"}},
    {"ParamEmpty", Cat(kSieve, {"--ranks", "2", "--param", "A="}), {"--param A"}},
    {"ParamNoValue", Cat(kSieve, {"--ranks", "2", "--param", "A"}), {"'A'"}},
    {"ParamTwice", Cat(kSieve, {"--ranks", "2", "--param", "A=1,A=2"}), {"'A'", "twice"}},
    {"ParamUnknown", Cat(kSieve, {"--ranks", "2", "--param", "z=1"}), {"'z'"}},
    {"ParamNegativeA", Cat(kSieve, {"--ranks", "2", "--param", "A=-1"}), {"A", "-1"}},
    {"PowerNeedsP", {"cut", "--model", "power", "--domain", "0:1", "--ranks", "2"}, {"--param p"}},
    {"PowerDecreasing",
     {"cut", "--model", "power", "--param", "A=-1,p=1", "--domain", "0:1", "--ranks", "2"},
     {"A=-1"}},
    {"PolynomialDecreasing",
     {"cut", "--model", "polynomial", "--param", "c1=1,c2=-1", "--domain", "0:1", "--ranks", "2"},
     {"t'(x) = -1", "x=1"}},  // t' = 1 - 2x is least at x = 1
    {"PolynomialUnknownCoefficient",
     {"cut", "--model", "polynomial", "--param", "c33=1", "--domain", "0:1", "--ranks", "2"},
     {"'c33'"}},
    // Domain
    {"DomainEmpty", {"cut", "--domain", "5:5", "--ranks", "2"}, {"lo=5", "hi=5"}},
    {"DomainReversed",
     {"cut", "--model", "power", "--param", "p=1", "--domain", "100:6", "--ranks", "2"},
     {"lo=100", "hi=6"}},
    {"DomainOneNumber", {"cut", "--domain", "6", "--ranks", "2"}, {"--domain", "'6'"}},
    {"DomainNaN", {"cut", "--domain", "6:nan", "--ranks", "2"}, {"--domain", "'nan'"}},
    {"DomainOverflow", {"cut", "--domain", "6:1e400", "--ranks", "2"}, {"'1e400'"}},
    {"DomainMissing", {"cut", "--ranks", "2"}, {"--domain"}},
    {"SieveBelowIncreasingRegion",
     {"cut", "--model", "sieve", "--domain", "5:100", "--ranks", "2"},
     {"lo=5", "5.947"}},
    {"IntegerDomainNotInteger",
     {"cut", "--domain", "6.5:100", "--ranks", "2", "--integer"},
     {"6.5"}},
    // Ranks and speeds
    {"RanksZero", Cat(kSieve, {"--ranks", "0"}), {"--ranks", "'0'"}},
    {"RanksNegative", Cat(kSieve, {"--ranks", "-3"}), {"--ranks", "'-3'"}},
    {"RanksText", Cat(kSieve, {"--ranks", "abc"}), {"--ranks", "'abc'"}},
    {"RanksFraction", Cat(kSieve, {"--ranks", "2.5"}), {"--ranks", "'2.5'"}},
    {"RanksMissing", kSieve, {"--ranks"}},
    {"SpeedZero", Cat(kSieve, {"--speeds", "1,0"}), {"rank 1", "got 0"}},
    {"SpeedNegative", Cat(kSieve, {"--speeds", "1,1,-2"}), {"rank 2", "-2"}},
    {"SpeedNaN", Cat(kSieve, {"--speeds", "1,nan"}), {"--speeds", "'nan'"}},
    {"SpeedEmptyEntry", Cat(kSieve, {"--speeds", "1,,2"}), {"--speeds entry 1"}},
    {"SpeedsCountMismatch",
     Cat(kSieve, {"--speeds", "1,2", "--ranks", "3"}),
     {"--ranks 3", "2 ranks"}},
    {"NodeTypesCountMismatch",
     Cat(kSieve, {"--node-types", "7x1,4x3", "--ranks", "12"}),
     {"--ranks 12", "11 ranks"}},
    {"SpeedsAndNodeTypes",
     Cat(kSieve, {"--speeds", "1,2", "--node-types", "1x1,1x2"}),
     {"--speeds", "--node-types"}},
    {"NodeTypesZeroCount", Cat(kSieve, {"--node-types", "0x1"}), {"'0x1'"}},
    {"NodeTypesZeroRatio", Cat(kSieve, {"--node-types", "2x0"}), {"got 0"}},
    {"NodeTypesNoX", Cat(kSieve, {"--node-types", "7"}), {"--node-types", "'7'"}},
    // Solver options
    {"UnknownMethod", Cat(kSieve, {"--ranks", "2", "--method", "foo"}), {"'foo'"}},
    {"NegativeCostTolerance",
     Cat(kSieve, {"--ranks", "2", "--cost-tolerance", "-1"}),
     {"tolerance", "-1"}},
    {"ZeroMaxIterations",
     Cat(kSieve, {"--ranks", "2", "--max-iterations", "0"}),
     {"--max-iterations", "'0'"}},
    // Models and data files
    {"UnknownModel", {"cut", "--model", "foo", "--domain", "0:1", "--ranks", "2"}, {"'foo'"}},
    {"NegativeWeight",
     {"cut", "--model", "discrete", "--weights", "{dir}/neg.txt", "--ranks", "2"},
     {"{dir}/neg.txt:2:", "'-2'"}},
    {"EmptyWeights",
     {"cut", "--model", "discrete", "--weights", "{dir}/empty.txt", "--ranks", "2"},
     {"{dir}/empty.txt", "no weight"}},
    {"OnlyCommentWeights",
     {"cut", "--model", "discrete", "--weights", "{dir}/comments.txt", "--ranks", "2"},
     {"{dir}/comments.txt", "no weight"}},
    {"MissingWeightsFile",
     {"cut", "--model", "discrete", "--weights", "{dir}/nope.txt", "--ranks", "2"},
     {"{dir}/nope.txt"}},
    {"DiscreteWithDomain",
     {"cut", "--model", "discrete", "--weights", "{dir}/four.txt", "--domain", "0:4", "--ranks",
      "2"},
     {"--domain"}},
    {"DiscreteWithoutWeights", {"cut", "--model", "discrete", "--ranks", "2"}, {"--weights"}},
    {"SamplesForSieve",
     Cat(kSieve, {"--ranks", "2", "--samples", "{dir}/samples.csv"}),
     {"--samples"}},
    {"NonMonotoneSamplesT",
     {"cut", "--model", "pchip", "--samples", "{dir}/nonmono_t.csv", "--ranks", "2"},
     {"t=0.5", "decrease"}},
    {"NonMonotoneSamplesX",
     {"cut", "--model", "pchip", "--samples", "{dir}/nonmono_x.csv", "--ranks", "2"},
     {"x=1"}},
    {"TooFewPchipSamples",
     {"cut", "--model", "pchip", "--samples", "{dir}/three.txt", "--ranks", "2"},
     {"{dir}/three.txt:1:"}},
    {"MissingSamplesFile",
     {"cut", "--model", "makima", "--samples", "{dir}/nope.csv", "--ranks", "2"},
     {"{dir}/nope.csv"}},
    // metrics
    {"MetricsMalformed", {"metrics", "{dir}/bad_metrics.txt"}, {"{dir}/bad_metrics.txt:3:", "'x'"}},
    {"MetricsMalformedJson",
     {"metrics", "--json", "{dir}/bad_metrics.txt"},
     {"{dir}/bad_metrics.txt:3:"}},
    {"MetricsNegativeTime",
     {"metrics", "{dir}/neg_metrics.txt"},
     {"{dir}/neg_metrics.txt:2:", "'-5'"}},
    {"MetricsDuplicatePhase",
     {"metrics", "{dir}/dup_phase.csv"},
     {"{dir}/dup_phase.csv:4:", "twice"}},
    {"MetricsMissingCell",
     {"metrics", "{dir}/missing_cell.csv"},
     {"{dir}/missing_cell.csv", "'b'"}},
    {"MetricsEmptyFile", {"metrics", "{dir}/empty.txt"}, {"{dir}/empty.txt"}},
    {"MetricsMissingFile", {"metrics", "{dir}/nope.txt"}, {"{dir}/nope.txt"}},
    {"MetricsModelledMissing",
     {"metrics", "{dir}/four.txt", "--modelled", "{dir}/nope.txt"},
     {"{dir}/nope.txt"}},
    {"MetricsModelledWrongSize",
     {"metrics", "{dir}/four.txt", "--modelled", "{dir}/three.txt"},
     {"{dir}/three.txt", "3", "4"}},
    {"MetricsNoFile", {"metrics"}, {"file"}},
    // The command line itself
    {"UnknownSubcommand", {"bogus"}, {"bogus"}},
    {"NoSubcommand", {}, {"subcommand"}},
    {"UnknownCutOption", Cat(kSieve, {"--ranks", "2", "--bogus"}), {"--bogus"}},
    {"UnknownMetricsOption", {"metrics", "{dir}/four.txt", "--frobnicate"}, {"--frobnicate"}},
    {"StrayArgument", Cat(kSieve, {"--ranks", "2", "stray"}), {"stray"}},
    {"OptionGivenTwice", Cat(kSieve, {"--ranks", "2", "--ranks", "3"}), {"--ranks"}},
};

INSTANTIATE_TEST_SUITE_P(Cases, BadInput, ::testing::ValuesIn(kBadCases), BadCaseName);

TEST_F(Cli, OutputIntoAMissingDirectoryFailsCleanly) {
  const fs::path out = dir / "no" / "such" / "dir" / "out.json";
  const auto before = Listing(dir);
  const Outcome r = Isocost({"cut", "--domain", "6:1000", "--ranks", "2", "-o", out.string()});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("isocost: error:", 0), 0u) << r.err;
  EXPECT_TRUE(Has(r.err, out.string())) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(Listing(dir), before);
}

TEST_F(Cli, OutputOntoADirectoryFailsCleanly) {
  fs::create_directories(dir / "taken");
  const auto before = Listing(dir);
  const Outcome r = Isocost({"cut", "--domain", "6:1000", "--ranks", "2", "-o", "taken"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("isocost: error:", 0), 0u) << r.err;
  EXPECT_TRUE(Has(r.err, "'taken'")) << r.err;
  EXPECT_EQ(Listing(dir), before) << "a temporary file was left behind";
}

TEST_F(Cli, FailureToWriteStdoutIsAnError) {
  // A full disk must not look like success: the result was lost.
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const Outcome r = Isocost({"cut", "--domain", "6:1000", "--ranks", "2"}, "/dev/full");
  EXPECT_NE(r.code, 0) << "isocost cut … > /dev/full exited 0; stderr: " << r.err;
  EXPECT_EQ(r.err.rfind("isocost: ", 0), 0u) << r.err;
}

// ---------------------------------------------------------------------------
// 7. -o OUT on success

TEST_F(Cli, OutputFileHoldsExactlyWhatStdoutWouldCut) {
  const std::vector<std::string> base{"cut", "--domain", "6:268435456", "--ranks", "16"};
  // Table, relative path (resolved against the working directory).
  {
    const auto inputs = Listing(dir);
    const Outcome a = Isocost(base);
    ASSERT_EQ(a.code, 0) << a.err;
    const Outcome b = Isocost(Cat(base, {"-o", "table.txt"}));
    EXPECT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(b.out, "");
    EXPECT_EQ(b.err, "");
    EXPECT_EQ(ReadFile(dir / "table.txt"), a.out);
    auto expected = inputs;
    expected.insert("table.txt");
    EXPECT_EQ(Listing(dir), expected) << "only OUT may be added (no temporary files left)";
  }
  // JSON, absolute path in a subdirectory, with --output.
  {
    fs::create_directories(dir / "sub");
    const auto inputs = Listing(dir);
    const Outcome a = Isocost(Cat(base, {"--json"}));
    ASSERT_EQ(a.code, 0) << a.err;
    const fs::path out = dir / "sub" / "cut.json";
    const Outcome b = Isocost(Cat(base, {"--json", "--output", out.string()}));
    EXPECT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(b.out, "");
    EXPECT_EQ(b.err, "");
    EXPECT_EQ(ReadFile(out), a.out);
    auto expected = inputs;
    expected.insert("sub/cut.json");
    EXPECT_EQ(Listing(dir), expected) << "only OUT may be added (no temporary files left)";
  }
}

TEST_F(Cli, OutputFileReplacesAnExistingFile) {
  const std::vector<std::string> base{"cut",      "--model", "power",   "--param", "p=1",
                                      "--domain", "0:100",   "--ranks", "2",       "--json"};
  const Outcome a = Isocost(base);
  ASSERT_EQ(a.code, 0) << a.err;
  // Longer than the result, so a missing truncation would show.
  WriteFile(dir / "out.json", std::string(a.out.size() * 3, 'x') + "\n");
  const auto inputs = Listing(dir);
  const Outcome b = Isocost(Cat(base, {"-o", "out.json"}));
  EXPECT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(ReadFile(dir / "out.json"), a.out);
  EXPECT_EQ(Listing(dir), inputs);
}

TEST_F(Cli, OutputFileHoldsExactlyWhatStdoutWouldMetrics) {
  const std::string f = File("phases.csv",
                             "rank,phase,time\n0,one,50\n1,one,100\n"
                             "0,two,100\n1,two,50\n");
  for (const bool as_json : {false, true}) {
    SCOPED_TRACE(as_json ? "json" : "text");
    std::vector<std::string> args{"metrics", f};
    if (as_json) args.push_back("--json");
    const auto inputs = Listing(dir);
    const Outcome a = Isocost(args);
    ASSERT_EQ(a.code, 0) << a.err;
    const std::string name = as_json ? "m.json" : "m.txt";
    const Outcome b = Isocost(Cat(args, {"-o", name}));
    EXPECT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(b.out, "");
    EXPECT_EQ(b.err, "");
    EXPECT_EQ(ReadFile(dir / name), a.out);
    auto expected = inputs;
    expected.insert(name);
    EXPECT_EQ(Listing(dir), expected) << "only OUT may be added (no temporary files left)";
  }
}

TEST_F(Cli, HelpAndVersionExitZero) {
  const Outcome help = Isocost({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_TRUE(Has(help.out, "cut")) << help.out;
  EXPECT_TRUE(Has(help.out, "metrics")) << help.out;
  const Outcome cut_help = Isocost({"cut", "--help"});
  EXPECT_EQ(cut_help.code, 0);
  EXPECT_TRUE(Has(cut_help.out, "--node-types")) << cut_help.out;
  const Outcome version = Isocost({"--version"});
  EXPECT_EQ(version.code, 0);
  EXPECT_TRUE(Has(version.out, "isocost")) << version.out;
}

}  // namespace
