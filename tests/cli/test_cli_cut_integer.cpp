// End-to-end tests of `isocost cut` on integer domains and discrete weights,
// and its table: cuts are the integers nearest their targets, discrete cuts
// "the prefix sum closest to TT·i/P, ties to the smaller index", searched
// exhaustively here.
#include "cli_test.hpp"
#include "core/model/brute_bottleneck.hpp"

namespace {

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

TEST_F(Cli, OptimalCutsReachTheBruteForceOptimum) {
  // 5 5 9 6 3 8 2 2 into 3: the nearest-target cuts 2, 5 leave 5+9+... = 18
  // on the middle part; the optimum, 0|2|4|8, is 15.
  const std::vector<double> w{5, 5, 9, 6, 3, 8, 2, 2};
  std::string text;
  for (double v : w) text += std::to_string(static_cast<int>(v)) + "\n";
  const std::string f = File("w8.txt", text);
  const json near =
      OkJson({"cut", "--model", "discrete", "--weights", f, "--ranks", "3", "--json"});
  EXPECT_EQ(Num(near["predicted"]["max"]), 18.0);
  EXPECT_FALSE(near["optimal"].get<bool>());
  for (const auto& [speeds, ranks] : std::vector<std::pair<std::string, int>>{
           {"1,1,1", 3}, {"1,3", 2}, {"2,1,1,2", 4}, {"1,1,1,1,1,1,1,1", 8}}) {
    SCOPED_TRACE(speeds);
    const json j = OkJson(
        {"cut", "--model", "discrete", "--weights", f, "--speeds", speeds, "--optimal", "--json"});
    EXPECT_TRUE(j["optimal"].get<bool>());
    std::vector<double> s;
    for (int k = 0; k < ranks; ++k) s.push_back(Num(j["parts"][k]["speed"]));
    double worst = 0;
    for (int k = 0; k < ranks; ++k) {
      EXPECT_LT(Num(j["parts"][k]["lo"]), Num(j["parts"][k]["hi"])) << "part " << k << " empty";
      worst = std::max(worst, Num(j["parts"][k]["time"]));
    }
    EXPECT_EQ(worst, isocost::testing::brute_bottleneck(w, s, 1));  // every part non-empty
    for (const auto& c : j["cuts"]) {
      EXPECT_EQ(Num(c["iterations"]), 0.0);
      // Placed by the optimum, not as the boundary nearest the target.
      EXPECT_EQ(c["termination"], Num(c["residual"]) == 0 ? "exact" : "optimum");
    }
    EXPECT_EQ(Num(j["predicted"]["max"]), worst);
  }
  const std::string table =
      Ok({"cut", "--model", "discrete", "--weights", f, "--ranks", "3", "--optimal"});
  EXPECT_TRUE(Has(table, "optimal (the least possible heaviest part)")) << table;
  const Outcome bad = Isocost({"cut", "--model", "power", "--param", "p=2", "--domain", "0:9",
                               "--ranks", "3", "--optimal"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(Has(bad.err,
                  "--optimal needs per-cell weights (--model discrete --weights FILE), "
                  "got --model power"))
      << bad.err;
  EXPECT_EQ(bad.out, "");
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

}  // namespace
