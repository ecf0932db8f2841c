// End-to-end tests of `isocost fit` and `isocost cut --fit` on samples with a
// rank column (issue #27), run as a child process: the speeds learned from
// runs that cut x differently, the model fitted to the speed-1 costs (right
// where the raw times would mislead it), the cuts made with the learned
// speeds against those of the true model and speeds, and what is refused.
//
// The runs are timed on t(x) = 2e-4·x^1.5 over [100, 1000] by 4 ranks of
// speeds 1, 1, 1, 3 (mean 1: 2/3, 2/3, 2/3, 2), rank r owning the r-th part of
// each run's cuts, with the ±0.3 % noise of cli_fit_test.hpp.
#include "cli_fit_test.hpp"

namespace {

using isocost::testing::Tokens;

constexpr long double kRankedA = 2e-4L, kRankedP = 1.5L;
long double RankedT(long double x) { return kRankedA * std::pow(x, kRankedP); }

const std::vector<double> kRankedSpeeds{1, 1, 1, 3};
const std::vector<std::vector<double>> kRankedCuts{{100, 325, 550, 775, 1000},
                                                   {100, 400, 600, 750, 1000},
                                                   {100, 300, 500, 650, 1000},
                                                   {100, 450, 700, 850, 1000}};

// "lo,hi,dt,rank" rows of the runs (all of them, or the first `runs`).
std::string RankedCsv(std::size_t runs = kRankedCuts.size()) {
  std::string s = "lo,hi,dt,rank\n";
  for (std::size_t j = 0; j < runs; ++j) {
    const auto& x = kRankedCuts[j];
    for (std::size_t r = 0; r + 1 < x.size(); ++r) {
      const double dt = static_cast<double>(RankedT(x[r + 1]) - RankedT(x[r])) / kRankedSpeeds[r] *
                        Noise(static_cast<int>(4 * j + r));
      s += Text(x[r]) + "," + Text(x[r + 1]) + "," + Text(dt) + "," + std::to_string(r) + "\n";
    }
  }
  return s;
}

// The same rows without the rank column.
std::string UnrankedCsv() {
  std::istringstream in(RankedCsv());
  std::string line, out;
  while (std::getline(in, line)) out += line.substr(0, line.rfind(',')) + "\n";
  return out;
}

double RankedParam(const json& parameters, const std::string& name) {
  for (const auto& p : parameters)
    if (p.value("name", "") == name) return Num(p["value"]);
  ADD_FAILURE() << "no parameter " << name << " in " << parameters.dump();
  return std::numeric_limits<double>::quiet_NaN();
}

TEST_F(CliFit, RankedSamplesGiveTheSpeedsAndTheSpeedOneCostsAreFitted) {
  const auto f = File("ranked.csv", RankedCsv());
  const json j = OkJson({"fit", f, "--model", "power", "--json"});
  ASSERT_TRUE(j.contains("learned_speeds")) << j.dump();
  const json& l = j["learned_speeds"];
  EXPECT_TRUE(l.value("identifiable", false)) << l.dump();
  EXPECT_EQ(l.value("rounds", 0), 4);
  EXPECT_EQ(l.value("rounds_dropped", -1), 0);
  EXPECT_EQ(l.value("message", "?"), "");
  EXPECT_TRUE(l.value("used", false));  // the fit is of speed-1 costs
  EXPECT_LT(Num(l["misfit"]), 0.01);
  const std::vector<double> want{2.0 / 3, 2.0 / 3, 2.0 / 3, 2};
  ASSERT_EQ(l["speeds"].size(), 4u);
  ASSERT_EQ(l["spread"].size(), 4u);
  for (std::size_t r = 0; r < 4; ++r) {
    EXPECT_NEAR(Num(l["speeds"][r]), want[r], 0.01 * want[r]) << r << ": " << l.dump();
    EXPECT_TRUE(l["spread"][r].is_number()) << l.dump();
  }
  // Each time x its rank's speed is the cost on a rank of mean speed (1.5 times
  // slower than rank 3): A/1.5 and the exponent itself.
  EXPECT_NEAR(RankedParam(j["parameters"], "p"), 1.5, 0.01 * 1.5);
  EXPECT_NEAR(RankedParam(j["parameters"], "A"), 2e-4 / 1.5, 0.05 * 2e-4 / 1.5);
  EXPECT_GT(Num(j["quality"]["r_squared"]), 0.999);

  // The raw times read rank 3's fast work as cheap x near 1000: the exponent
  // fitted to them is far off, and the fit is not trusted (exit 3). With
  // --no-learn-speeds, or without the rank column, that is what is fitted.
  const Outcome raw = Isocost({"fit", f, "--model", "power", "--json", "--no-learn-speeds"});
  EXPECT_EQ(raw.code, 3) << raw.err;
  EXPECT_TRUE(Has(raw.err, "is not trustworthy")) << raw.err;
  const json r = json::parse(raw.out);
  EXPECT_FALSE(r.contains("learned_speeds"));
  const double p_raw = RankedParam(r["parameters"], "p");
  EXPECT_LT(p_raw, 1.5 * 0.9) << "the times alone should mislead the fit";
  EXPECT_LT(Num(r["quality"]["r_squared"]), 0.9);
  const auto g = File("unranked.csv", UnrankedCsv());
  const Outcome plain = Isocost({"fit", g, "--model", "power", "--json"});
  EXPECT_EQ(plain.code, 3) << plain.err;
  EXPECT_EQ(RankedParam(json::parse(plain.out)["parameters"], "p"), p_raw);
}

TEST_F(CliFit, RankedSamplesReportTheLearnedSpeedsInALine) {
  const auto f = File("ranked.csv", RankedCsv());
  const Outcome r = Isocost({"fit", f, "--model", "power"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto lines = Lines(r.out);
  ASSERT_GE(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[0], "samples: ranked.csv, 16 intervals on [100, 1000] (4 runs)");
  // "learned speeds 0.6667 ±…%, … from 4 rounds (…); fitted: each time x its rank's speed …"
  const auto t = Tokens(lines[1]);
  ASSERT_GE(t.size(), 10u) << lines[1];
  EXPECT_EQ(t[0] + " " + t[1], "learned speeds") << lines[1];
  EXPECT_NEAR(std::stod(t[2]), 2.0 / 3, 0.01) << lines[1];
  EXPECT_NEAR(std::stod(t[8]), 2.0, 0.02) << lines[1];
  EXPECT_TRUE(Has(lines[1], "; fitted: each time x its rank's speed (speed-1 costs)")) << lines[1];
}

TEST_F(CliFit, OneRankedRunIsFittedAsItIs) {
  const auto f = File("one.csv", RankedCsv(1));
  // The times as they are mislead the fit (exit 3: not trusted), as above.
  const Outcome r = Isocost({"fit", f, "--model", "power"});
  ASSERT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(Lines(r.out).at(1),
            "speeds not learned: one run: runs that cut x differently are needed to tell a slow "
            "rank from a costly range; fitted: the times as they are");
  // cut --fit then needs the ranks: the times say nothing of their speeds.
  ExpectRejected({"cut", "--fit", f, "--model", "power"},
                 {"--ranks is required (or give --speeds / --node-types, or --fit samples of "
                  "several runs with a rank column)"});
  const Outcome c = Isocost({"cut", "--fit", f, "--model", "power", "--ranks", "4", "--json"});
  ASSERT_EQ(c.code, 3) << c.err;
  const json j = json::parse(c.out);
  EXPECT_FALSE(j["fit"]["learned_speeds"].value("identifiable", true));
  EXPECT_FALSE(j["fit"]["learned_speeds"].value("used", true));
  for (const auto& p : j["parts"]) EXPECT_EQ(Num(p["speed"]), 1.0);
}

// The cuts of the fitted model with the learned speeds against those of the
// true model with the true speeds: rank i starts where t has reached the
// share Σ_{k<i} s_k / Σ s of the total, t(x) = A·x^1.5 inverted in closed form.
TEST_F(CliFit, CutFitCutsWithTheLearnedSpeeds) {
  const auto f = File("ranked.csv", RankedCsv());
  const json j = OkJson({"cut", "--fit", f, "--model", "power", "--json"});
  ASSERT_EQ(j.value("ranks", 0), 4);
  ASSERT_EQ(j["parts"].size(), 4u);
  ASSERT_EQ(j["cuts"].size(), 5u);
  const std::vector<double> want_speed{2.0 / 3, 2.0 / 3, 2.0 / 3, 2};
  const long double total = RankedT(1000) - RankedT(100);
  long double before = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const json& p = j["parts"][i];
    EXPECT_NEAR(Num(p["speed"]), want_speed[i], 0.01 * want_speed[i]) << p.dump();
    const double x =
        static_cast<double>(std::pow((RankedT(100) + total * before / 6) / kRankedA, 1 / kRankedP));
    EXPECT_NEAR(Num(j["cuts"][i]["x"]), x, 1.0) << "cut " << i;  // 0.1 % of the span
    before += kRankedSpeeds[i];
  }
  // The fast rank gets three times a slow one's cost: half of it.
  EXPECT_NEAR(Num(j["parts"][3]["share"]), 0.5, 0.005);
  EXPECT_NEAR(Num(j["parts"][0]["share"]), 1.0 / 6, 0.002);
  EXPECT_TRUE(j["fit"]["learned_speeds"].value("identifiable", false));
  // Without the speeds, equal shares: the slow ranks' parts are wider.
  const json equal = OkJson(
      {"cut", "--fit", f, "--model", "power", "--json", "--ranks", "4", "--speeds", "1,1,1,1"});
  EXPECT_NEAR(Num(equal["parts"][3]["share"]), 0.25, 0.002);

  // The table shows each rank's speed, and --ranks may say the same count.
  const Outcome r = Isocost({"cut", "--fit", f, "--model", "power", "--ranks", "4"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto lines = Lines(r.out);
  const auto head = std::find_if(lines.begin(), lines.end(), [](const std::string& s) {
    return !Tokens(s).empty() && Tokens(s)[0] == "rank";
  });
  ASSERT_NE(head, lines.end()) << r.out;
  EXPECT_EQ(Tokens(*head), (std::vector<std::string>{"rank", "lo", "hi", "speed", "cost", "share",
                                                     "%", "time", "iters"}));
  ASSERT_LT(head + 4, lines.end()) << r.out;
  EXPECT_NEAR(std::stod(Tokens(*(head + 4))[3]), 2.0, 0.02) << *(head + 4);
  EXPECT_TRUE(Has(r.out, "\nlearned speeds ")) << r.out;
}

TEST_F(CliFit, UnrankedSamplesLearnNothing) {
  const auto f = File("power.csv", IntervalCsv(kPower, 10, 1e6, 40, true));
  const Outcome r = Isocost({"fit", f, "--model", "power"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(Has(r.out, "speeds")) << r.out;
  EXPECT_FALSE(OkJson({"fit", f, "--model", "power", "--json"}).contains("learned_speeds"));
  // cut --fit still wants its ranks.
  ExpectRejected({"cut", "--fit", f, "--model", "power"}, {"--ranks is required"});
}

TEST_F(CliFit, RankedSamplesRefused) {
  const auto f = File("ranked.csv", RankedCsv());
  ExpectRejected({"cut", "--fit", f, "--model", "power", "--ranks", "5"},
                 {"isocost: error: --ranks 5 does not match the 4 ranks whose speeds were learned "
                  "from the rank column of the --fit samples; drop --ranks, or give --speeds / "
                  "--node-types"});
  File("bad.csv", "lo,hi,dt,rank\n100,200,1,0\n200,300,1,-1\n");
  ExpectRejected({"fit", "bad.csv", "--model", "power"},
                 {"isocost: error: bad.csv:3: rank: expected an integer >= 0, got '-1'"});
  File("half.csv", "lo,hi,dt,rank\n100,200,1,0\n200,300,1\n");
  ExpectRejected({"cut", "--fit", "half.csv", "--model", "power", "--ranks", "2"},
                 {"isocost: error: half.csv:3: expected 4 fields (lo,hi,dt,rank, as on line 1), "
                  "got 3: either every row has a rank or none does"});
  const auto g = File("unranked.csv", UnrankedCsv());
  ExpectRejected({"fit", f, g, "--model", "power"},
                 {"isocost: error: unranked.csv: has no rank column, but ranked.csv has one: give "
                  "every file a rank column or none"});
}

}  // namespace
