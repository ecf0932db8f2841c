// End-to-end tests of `isocost cut` (src/cli): every expected number is
// derived here from a closed form, never copied from a run of the tool:
//   - the sieve model t(x) = A·x^p/(ln x − c) (Swartz eq. 4) in long double;
//   - power, polynomial and tabulated models' cuts in closed form;
//   - Swartz §4's heterogeneous example, 7 nodes of type 1 and 4 three times
//     faster, on t(x) = x over [0, 100]: t_int = 100/19, speedup 19.
#include "cli_test.hpp"

namespace {

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

}  // namespace
