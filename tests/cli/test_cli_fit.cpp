// End-to-end tests of `isocost fit` and `isocost cut --fit`, run as a child
// process with stdout and stderr captured separately: recovering known
// parameters, the reports, model selection, and the cuts of a fitted model.
//
// Sample files are generated (cli_fit_test.hpp) from known closed forms —
// A·x^p, the sieve model A·x^p/(ln x − c) (Swartz eq. 4), A·e^{bx}, a quadratic
// — over a tiling of the domain, with small deterministic noise (±0.3 %, a sine
// of the sample index), so the recovered parameters can be checked against the
// truth and the fitted model's cuts against the true model's cuts (closed form,
// or bisection in long double). `isocost plot` of samples and bad input:
// test_cli_fit_errors.cpp.
#include "cli_fit_test.hpp"

namespace {

// The value of parameter `name` in a "parameters" array.
double Param(const json& parameters, const std::string& name) {
  for (const auto& p : parameters)
    if (p.value("name", "") == name) return Num(p["value"]);
  ADD_FAILURE() << "no parameter " << name << " in " << parameters.dump();
  return std::numeric_limits<double>::quiet_NaN();
}

// Cut i of P for the true curve t on [lo, hi]: bisection in long double.
long double TrueCut(const Curve& t, long double lo, long double hi, int i, int P) {
  const long double target = t(lo) + (t(hi) - t(lo)) * i / P;
  long double a = lo, b = hi;
  for (int k = 0; k < 200 && b - a > 0; ++k) {
    const long double m = 0.5L * (a + b);
    if (m <= a || m >= b) break;
    (t(m) < target ? a : b) = m;
  }
  return 0.5L * (a + b);
}

// ---------------------------------------------------------------------------
// 1. Recovering known parameters

TEST_F(CliFit, PowerParametersWithinOnePercent) {
  const auto f = File("power.csv", IntervalCsv(kPower, 10, 1e6, 40, true));
  const json j = OkJson({"fit", f, "--model", "power", "--json"});
  EXPECT_EQ(j.value("command", ""), "fit");
  EXPECT_EQ(j.value("file", ""), f);
  ASSERT_TRUE(j.contains("samples"));
  EXPECT_EQ(j["samples"].value("count", 0), 40);
  EXPECT_EQ(Num(j["samples"]["lo"]), 10.0);
  EXPECT_EQ(Num(j["samples"]["hi"]), 1e6);
  EXPECT_EQ(j["samples"].value("tiles", false), true);
  EXPECT_EQ(j["samples"].value("cumulative", true), false);
  EXPECT_EQ(j["model"].value("name", ""), "power");
  EXPECT_EQ(Num(j["model"]["lo"]), 10.0);
  EXPECT_EQ(Num(j["model"]["hi"]), 1e6);
  EXPECT_NEAR(Param(j["parameters"], "A"), 2e-7, 0.01 * 2e-7);
  EXPECT_NEAR(Param(j["parameters"], "p"), 1.5, 0.01 * 1.5);
  for (const auto& p : j["parameters"]) {
    SCOPED_TRACE(p.dump());
    EXPECT_EQ(p.value("fixed", true), false);
    ASSERT_TRUE(p["std_error"].is_number());
    EXPECT_GT(Num(p["std_error"]), 0.0);
    EXPECT_LT(Num(p["std_error"]), 0.01 * std::abs(Num(p["value"])));
  }
  // ±0.3 % noise: relative residuals of that size, R² close to 1.
  EXPECT_LT(Num(j["quality"]["rmse"]), 0.004);
  EXPECT_LT(Num(j["quality"]["max_rel_error"]), 0.01);
  EXPECT_GT(Num(j["quality"]["r_squared"]), 0.9999);
  EXPECT_EQ(j["options"].value("relative", false), true);
  EXPECT_EQ(j["options"].value("loss", ""), "none");
  EXPECT_EQ(j["solver"].value("status", ""), "converged") << j["solver"].dump();
  EXPECT_TRUE(j["solver"].value("converged", false)) << j["solver"].dump();
  EXPECT_EQ(j["solver"].value("termination", "").rfind("CONVERGENCE", 0), 0u) << j["solver"].dump();
  EXPECT_GE(j["solver"].value("iterations", -1), 0);
  // One tiling run: the balance on the samples is reported for one rank per sample.
  EXPECT_EQ(j["balance"].value("ranks", 0), 40);
  EXPECT_TRUE(j["balance"]["le_of_samples"].is_number());
  EXPECT_GT(Num(j["balance"]["le_on_samples"]), 90.0);
  EXPECT_FALSE(j.contains("selection"));
}

struct Family {
  const char* name;
  const char* model;
  Curve curve;
  double lo, hi;
  bool geometric;
  std::vector<std::pair<const char*, double>> truth;  // each within 1 %
  std::vector<std::string> extra;                     // more arguments
};

void PrintTo(const Family& f, std::ostream* os) { *os << f.name; }

class Recover : public CliFit, public ::testing::WithParamInterface<Family> {};

TEST_P(Recover, ParametersWithinOnePercent) {
  const Family& fam = GetParam();
  const auto f = File("s.csv", IntervalCsv(fam.curve, fam.lo, fam.hi, 40, fam.geometric));
  const json j = OkJson(Cat({"fit", f, "--model", fam.model, "--json"}, fam.extra));
  for (const auto& [name, value] : fam.truth)
    EXPECT_NEAR(Param(j["parameters"], name), value, 0.01 * std::abs(value)) << name;
  EXPECT_LT(Num(j["quality"]["max_rel_error"]), 0.01);
  // Legendre's c trades off against A and p (a 1 % change of c is absorbed by
  // them at this noise level): when fitted, within 5 %.
  if (j["parameters"].dump().find("\"c\"") != std::string::npos &&
      std::string(fam.model) != "sieve") {
    EXPECT_NEAR(Param(j["parameters"], "c"), 1.08366, 0.05 * 1.08366);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Forms, Recover,
    ::testing::Values(
        Family{"Sieve", "sieve", kSieve, 100, 1e7, true, {{"A", 3.9098e-7}, {"p", 1.43}}, {}},
        Family{
            "SieveWithC", "sieve+c", kSieve, 100, 1e7, true, {{"A", 3.9098e-7}, {"p", 1.43}}, {}},
        Family{"Power", "power", kPower, 10, 1e6, true, {{"A", 2e-7}, {"p", 1.5}}, {}},
        Family{"Exponential", "exp", kExp, 0, 10, false, {{"A", 3.0}, {"b", 0.7}}, {}},
        Family{"Quadratic", "poly:2", kQuadratic, 0, 100, false, {{"c1", 500}, {"c2", 2000}}, {}},
        Family{"Formula",
               "expr:A*x^p",
               kPower,
               10,
               1e6,
               true,
               {{"A", 2e-7}, {"p", 1.5}},
               {"--param-guess", "A=1e-7,p=1"}},
        Family{"FormulaSieve",
               "expr:A*x^p/(log(x)-c)",
               kSieve,
               100,
               1e7,
               true,
               {{"A", 3.9098e-7}, {"p", 1.43}},
               {"--param-guess", "A=4e-7,p=1.4,c=1"}},
        Family{"PowerHuber",
               "power",
               kPower,
               10,
               1e6,
               true,
               {{"A", 2e-7}, {"p", 1.5}},
               {"--loss", "huber"}},
        // Absolute residuals suit dt of one size (a linear tiling of a mild curve).
        Family{"QuadraticCauchyAbsolute",
               "poly:2",
               kQuadratic,
               0,
               100,
               false,
               {{"c1", 500}, {"c2", 2000}},
               {"--loss", "cauchy", "--absolute"}}),
    [](const ::testing::TestParamInfo<Family>& info) { return std::string(info.param.name); });

TEST_F(CliFit, SieveKeepsLegendresConstantFixed) {
  const auto f = File("sieve.csv", IntervalCsv(kSieve, 100, 1e7, 40, true));
  const json j = OkJson({"fit", f, "--model", "sieve", "--json"});
  bool seen = false;
  for (const auto& p : j["parameters"])
    if (p.value("name", "") == "c") {
      seen = true;
      EXPECT_EQ(p.value("fixed", false), true);
      EXPECT_TRUE(p["std_error"].is_null());
      EXPECT_NEAR(Num(p["value"]), 1.08366, 1e-12);
    }
  EXPECT_TRUE(seen) << j["parameters"].dump();
}

TEST_F(CliFit, CsvJsonAndCumulativeFilesOfOneRun) {
  // One tiling as CSV intervals, JSON intervals and cumulative rows "x,t".
  const auto x = Tiling(10, 1e6, 40, true);
  std::string cumulative = "x,t\n" + Text(x[0]) + ",0\n";
  double t = 0;
  json intervals = json::array();
  for (std::size_t k = 0; k + 1 < x.size(); ++k) {
    const double dt =
        static_cast<double>(kPower(x[k + 1]) - kPower(x[k])) * Noise(static_cast<int>(k));
    t += dt;
    cumulative += Text(x[k + 1]) + "," + Text(t) + "\n";
    intervals.push_back({{"lo", x[k]}, {"hi", x[k + 1]}, {"dt", dt}});
  }
  const json csv = OkJson(
      {"fit", File("i.csv", "lo,hi,dt\n" + IntervalRows(kPower, x)), "--model", "power", "--json"});
  const json js = OkJson(
      {"fit", File("i.json", json{{"intervals", intervals}}.dump()), "--model", "power", "--json"});
  const json cum = OkJson({"fit", File("c.csv", cumulative), "--model", "power", "--json"});
  EXPECT_EQ(js["samples"].value("tiles", false), true);
  EXPECT_EQ(cum["samples"].value("cumulative", false), true);
  EXPECT_EQ(cum["samples"].value("count", 0), 40);
  for (const char* name : {"A", "p"}) {
    // The same intervals, whatever the file format.
    EXPECT_NEAR(Param(csv["parameters"], name), Param(js["parameters"], name),
                1e-9 * std::abs(Param(js["parameters"], name)))
        << name;
  }
  // Cumulative rows are the intervals [x_0, x_k): other residuals, same truth.
  EXPECT_NEAR(Param(cum["parameters"], "A"), 2e-7, 0.01 * 2e-7);
  EXPECT_NEAR(Param(cum["parameters"], "p"), 1.5, 0.015);
}

TEST_F(CliFit, TwoRunsWithOverlappingIntervalsCombine) {
  // A linear and a geometric partition of [10, 1e6]: overlapping intervals.
  const std::string rows = "lo,hi,dt\n" + IntervalRows(kPower, Tiling(10, 1e6, 16, false)) +
                           IntervalRows(kPower, Tiling(10, 1e6, 16, true), 7);
  const json j = OkJson({"fit", File("runs.csv", rows), "--model", "power", "--json"});
  EXPECT_EQ(j["samples"].value("count", 0), 32);
  EXPECT_EQ(j["samples"].value("tiles", true), false);
  EXPECT_NEAR(Param(j["parameters"], "A"), 2e-7, 0.01 * 2e-7);
  EXPECT_NEAR(Param(j["parameters"], "p"), 1.5, 0.015);
  // Two runs: the partition is costed on their merge (merge_runs()), over
  // the newest run's 16 intervals. The power law is the truth, so its cuts
  // balance; the newest run (geometric) is far from balanced for x^1.5.
  const json& b = j["balance"];
  EXPECT_EQ(b.value("ranks", 0), 16);
  EXPECT_GT(Num(b["le_on_samples"]), 98.0) << b.dump();
  EXPECT_LT(Num(b["le_of_samples"]), 50.0) << b.dump();
  EXPECT_FALSE(b["guaranteed"].is_null());
  EXPECT_TRUE(j["merged"].is_null());  // a parametric form fits the samples themselves
  EXPECT_TRUE(j["verdict"].value("trusted", false));
}

TEST_F(CliFit, RepairAcceptsNoisyCumulativeSamples) {
  const auto f = File("noisy.csv", "x,t\n10,0\n20,1\n30,0.9\n40,3\n50,4.5\n60,6\n");
  const json j = OkJson({"fit", f, "--model", "power", "--repair", "--json"});
  EXPECT_EQ(j["samples"].value("repair", false), true);
  EXPECT_TRUE(Num(j["quality"]["rmse"]) >= 0);
}

TEST_F(CliFit, PchipInterpolatesTheSamples) {
  const auto f = File("c.csv", "x,t\n0,0\n1,1\n3,2\n4,3\n10,4\n");
  const json j = OkJson({"fit", f, "--model", "pchip", "--json"});
  EXPECT_EQ(j["model"].value("name", ""), "pchip");
  EXPECT_TRUE(j["parameters"].empty());
  EXPECT_LT(Num(j["quality"]["max_rel_error"]), 1e-12);
  EXPECT_NEAR(Num(j["model"]["total_cost"]), 4.0, 1e-12);
  // Makima through samples of a convex curve (it may overshoot elsewhere).
  const auto g = File("m.csv", "x,t\n0,0\n1,1\n2,4\n3,9\n4,16\n5,25\n");
  const std::string text = Ok({"fit", g, "--model", "makima"});
  EXPECT_TRUE(Has(text, "model: makima")) << text;
}

TEST_F(CliFit, HumanReportNamesEverything) {
  const auto f = File("power.csv", IntervalCsv(kPower, 10, 1e6, 40, true));
  const std::string text = Ok({"fit", f, "--model", "power", "--ranks", "8"});
  for (const char* part :
       {"samples: power.csv, 40 intervals", "model: power", "parameter", "std error", "RMSE",
        "max relative error", "R^2", "AICc", "iterations", "ms", "CONVERGENCE",
        "L_E of the samples' own partition", "over 8 ranks"})
    EXPECT_TRUE(Has(text, part)) << "missing '" << part << "' in\n" << text;
  // One table row per parameter, name first.
  int rows = 0;
  for (const auto& line : Lines(text)) {
    std::istringstream in(line);
    std::string first;
    in >> first;
    rows += first == "A" || first == "p";
  }
  EXPECT_EQ(rows, 2) << text;
}

TEST_F(CliFit, OutputFileHoldsExactlyWhatStdoutWould) {
  const auto f = File("power.csv", IntervalCsv(kPower, 10, 1e6, 40, true));
  for (const bool as_json : {false, true}) {
    SCOPED_TRACE(as_json ? "json" : "text");
    std::vector<std::string> args{"fit", f, "--model", "power"};
    if (as_json) args.push_back("--json");
    const Outcome a = Isocost(args);
    ASSERT_EQ(a.code, 0) << a.err;
    const auto inputs = Listing(dir);
    const Outcome b = Isocost(Cat(args, {"-o", "fit.out"}));
    EXPECT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(b.out, "");
    EXPECT_EQ(b.err, "");
    // The solve time differs between runs; everything else must match.
    auto strip = [](const std::string& s) {
      std::string out;
      for (const auto& line : Lines(s))
        if (!Has(line, "solve_seconds") && !Has(line, " ms, ")) out += line + "\n";
      return out;
    };
    EXPECT_EQ(strip(ReadFile(dir / "fit.out")), strip(a.out));
    auto expected = inputs;
    expected.insert("fit.out");
    EXPECT_EQ(Listing(dir), expected);
    fs::remove(dir / "fit.out");
  }
}

// ---------------------------------------------------------------------------
// 2. Model selection

struct Pick {
  const char* name;
  Curve curve;
  double lo, hi;
  bool geometric;
  std::set<std::string> family;  // acceptable winners (nested forms of the truth)
};

void PrintTo(const Pick& p, std::ostream* os) { *os << p.name; }

class AutoPicks : public CliFit,
                  public ::testing::WithParamInterface<std::tuple<Pick, const char*>> {};

TEST_P(AutoPicks, TheTrueFamily) {
  const auto& [pick, criterion] = GetParam();
  const auto f = File("s.csv", IntervalCsv(pick.curve, pick.lo, pick.hi, 40, pick.geometric));
  const json j = OkJson({"fit", f, "--model", "auto", "--select", criterion, "--json"});
  const std::string winner = j["model"].value("name", "");
  EXPECT_TRUE(pick.family.count(winner)) << "auto picked " << winner;
  ASSERT_TRUE(j.contains("selection"));
  const json& sel = j["selection"];
  EXPECT_EQ(sel.value("criterion", ""), criterion);
  EXPECT_EQ(sel.value("winner", ""), winner);
  ASSERT_TRUE(sel["candidates"].is_array());
  ASSERT_GE(sel["candidates"].size(), 4u);
  // Best first: scores ascending among those that fitted, failures last; the
  // winner is the first row and the only one marked. Under AICc the
  // interpolants have no score (no parameter count): they follow the scored
  // rows, with their held-out error. Every default candidate is listed.
  EXPECT_EQ(sel["candidates"].size(), 9u);
  int winners = 0;
  bool failed_seen = false, unscored_seen = false;
  double previous = -std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < sel["candidates"].size(); ++k) {
    const json& c = sel["candidates"][k];
    SCOPED_TRACE(c.dump());
    if (c.value("winner", false)) {
      ++winners;
      EXPECT_EQ(k, 0u);
      EXPECT_EQ(c.value("model", ""), winner);
    }
    if (c.value("ok", false)) {
      EXPECT_FALSE(failed_seen) << "a candidate that fitted comes after one that failed";
      const std::string model = c.value("model", "");
      if (c["score"].is_null()) {
        EXPECT_EQ(std::string(criterion), "aicc");
        EXPECT_TRUE(model == "pchip" || model == "makima") << model;
        EXPECT_GT(Num(c["cv_error"]), 0.0);
        unscored_seen = true;
      } else {
        EXPECT_FALSE(unscored_seen) << "a scored candidate comes after an unscored one";
        EXPECT_GE(Num(c["score"]), previous);
        previous = Num(c["score"]);
      }
      EXPECT_FALSE(c.value("note", "").empty());
      EXPECT_TRUE(c.contains("parameters"));
    } else {
      failed_seen = true;
      EXPECT_TRUE(c["score"].is_null());
      EXPECT_FALSE(c.value("error", "").empty());
    }
  }
  EXPECT_EQ(winners, 1);
}

INSTANTIATE_TEST_SUITE_P(
    Families, AutoPicks,
    ::testing::Combine(
        ::testing::Values(Pick{"Power", kPower, 10, 1e6, true, {"power"}},
                          Pick{"Sieve", kSieve, 100, 1e7, true, {"sieve", "sieve+c"}},
                          Pick{"Exponential", kExp, 0, 10, false, {"exp"}},
                          Pick{"Quadratic", kQuadratic, 0, 100, false, {"poly:2", "poly:3"}}),
        ::testing::Values("aicc", "cv")),
    [](const ::testing::TestParamInfo<std::tuple<Pick, const char*>>& info) {
      return std::string(std::get<0>(info.param).name) + "_" + std::get<1>(info.param);
    });

TEST_F(CliFit, AutoPrintsTheCandidateTableWithTheWinnerMarked) {
  const auto f = File("power.csv", IntervalCsv(kPower, 10, 1e6, 40, true));
  const std::string text = Ok({"fit", f, "--model", "auto"});
  EXPECT_TRUE(Has(text, "model: power (chosen by --model auto)")) << text;
  EXPECT_TRUE(Has(text, "candidates by 5-fold cross-validation")) << text;  // the default
  EXPECT_TRUE(Has(text, "chosen: power (lowest held-out error")) << text;
  int marked = 0;
  bool power_marked = false, sieve_listed = false;
  for (const auto& line : Lines(text)) {
    std::istringstream in(line);
    std::string first, second;
    in >> first >> second;
    if (first == "*") {
      ++marked;
      power_marked = second == "power";
    }
    sieve_listed = sieve_listed || first == "sieve" || second == "sieve";
  }
  EXPECT_EQ(marked, 1) << text;
  EXPECT_TRUE(power_marked) << text;
  EXPECT_TRUE(sieve_listed) << text;
}

// ---------------------------------------------------------------------------
// 3. cut --fit

TEST_F(CliFit, CutFitGivesEqualSharesAndTheTrueCuts) {
  const auto f = File("power.csv", IntervalCsv(kPower, 10, 1e6, 40, true));
  const int P = 8;
  const json j =
      OkJson({"cut", "--fit", f, "--model", "power", "--ranks", std::to_string(P), "--json"});
  EXPECT_EQ(j.value("command", ""), "cut");
  ASSERT_TRUE(j.contains("fit"));
  EXPECT_EQ(j["fit"]["model"].value("name", ""), "power");
  EXPECT_EQ(j["fit"].value("file", ""), f);
  EXPECT_NEAR(Param(j["fit"]["parameters"], "p"), 1.5, 0.015);
  EXPECT_EQ(j["fit"]["balance"].value("ranks", 0), P);  // the cut's P
  EXPECT_EQ(j["model"].value("kind", ""), "power");
  EXPECT_EQ(Num(j["model"]["lo"]), 10.0);  // the samples' span
  EXPECT_EQ(Num(j["model"]["hi"]), 1e6);
  ASSERT_EQ(j["parts"].size(), static_cast<std::size_t>(P));
  ASSERT_EQ(j["cuts"].size(), static_cast<std::size_t>(P + 1));
  for (int i = 0; i < P; ++i) EXPECT_NEAR(Num(j["parts"][i]["share"]), 1.0 / P, 1e-9) << i;
  EXPECT_EQ(j["solver"].value("converged", false), true);
  for (int i = 0; i <= P; ++i) {
    const double x = Num(j["cuts"][i]["x"]);
    const double truth = static_cast<double>(TrueCut(kPower, 10, 1e6, i, P));
    EXPECT_NEAR(x, truth, 0.01 * truth) << "cut " << i;
  }
}

TEST_F(CliFit, CutFitSieveMatchesTheTrueSieveCuts) {
  const auto f = File("sieve.csv", IntervalCsv(kSieve, 100, 1e7, 40, true));
  const int P = 16;
  const json j =
      OkJson({"cut", "--fit", f, "--model", "sieve", "--ranks", std::to_string(P), "--json"});
  for (int i = 0; i < P; ++i) EXPECT_NEAR(Num(j["parts"][i]["share"]), 1.0 / P, 1e-9) << i;
  for (int i = 1; i < P; ++i) {
    const double truth = static_cast<double>(TrueCut(kSieve, 100, 1e7, i, P));
    EXPECT_NEAR(Num(j["cuts"][i]["x"]), truth, 0.01 * truth) << "cut " << i;
  }
}

TEST_F(CliFit, CutFitDomainOverridesTheSamplesSpan) {
  const auto f = File("power.csv", IntervalCsv(kPower, 10, 1e6, 40, true));
  const json j = OkJson(
      {"cut", "--fit", f, "--model", "power", "--domain", "1000:500000", "--ranks", "4", "--json"});
  EXPECT_EQ(Num(j["model"]["lo"]), 1000.0);
  EXPECT_EQ(Num(j["model"]["hi"]), 500000.0);
  for (int i = 0; i <= 4; ++i) {
    const double truth = static_cast<double>(TrueCut(kPower, 1000, 500000, i, 4));
    EXPECT_NEAR(Num(j["cuts"][i]["x"]), truth, 0.01 * truth) << "cut " << i;
  }
}

TEST_F(CliFit, CutFitKeepsSpeedsAndPrintsTheFitFirst) {
  const auto f = File("power.csv", IntervalCsv(kPower, 10, 1e6, 40, true));
  const json j = OkJson({"cut", "--fit", f, "--model", "power", "--speeds", "1,3", "--json"});
  ASSERT_EQ(j["parts"].size(), 2u);
  EXPECT_NEAR(Num(j["parts"][0]["share"]), 0.25, 1e-9);
  EXPECT_NEAR(Num(j["parts"][1]["time"]), Num(j["parts"][0]["time"]),
              1e-9 * Num(j["parts"][0]["time"]));

  const std::string text = Ok({"cut", "--fit", f, "--model", "power", "--ranks", "4"});
  const auto lines = Lines(text);
  ASSERT_GE(lines.size(), 3u) << text;
  EXPECT_EQ(lines[0].rfind("fit: power to 40 samples from power.csv: A=", 0), 0u) << text;
  EXPECT_EQ(lines[1].rfind("guaranteed L_E ", 0), 0u) << text;
  EXPECT_EQ(lines[2].rfind("model: power", 0), 0u) << text;
}

TEST_F(CliFit, CutFitAutoAndPchip) {
  const auto f = File("power.csv", IntervalCsv(kPower, 10, 1e6, 40, true));
  const json a = OkJson({"cut", "--fit", f, "--model", "auto", "--ranks", "4", "--json"});
  EXPECT_EQ(a["fit"]["model"].value("name", ""), "power");
  EXPECT_TRUE(a["fit"].contains("selection"));
  const std::string text = Ok({"cut", "--fit", f, "--model", "auto", "--ranks", "4"});
  EXPECT_EQ(text.rfind("fit: power (chosen by --model auto", 0), 0u) << text;

  // PCHIP through the cumulative samples: cuts land near the true cuts too.
  const json p = OkJson({"cut", "--fit", f, "--model", "pchip", "--ranks", "4", "--json"});
  EXPECT_EQ(p["model"].value("kind", ""), "pchip");
  for (int i = 0; i <= 4; ++i) {
    const double truth = static_cast<double>(TrueCut(kPower, 10, 1e6, i, 4));
    EXPECT_NEAR(Num(p["cuts"][i]["x"]), truth, 0.01 * truth) << "cut " << i;
  }
}

TEST_F(CliFit, HelpListsTheNewCommands) {
  const Outcome help = Isocost({"--help"});
  EXPECT_EQ(help.code, 0);
  for (const char* word : {"fit", "cut", "plot", "metrics"})
    EXPECT_TRUE(Has(help.out, word)) << help.out;
  const Outcome fit_help = Isocost({"fit", "--help"});
  EXPECT_EQ(fit_help.code, 0);
  for (const char* option : {"--model", "--param-guess", "--loss", "--absolute", "--repair",
                             "--select", "--ranks", "--json"})
    EXPECT_TRUE(Has(fit_help.out, option)) << fit_help.out;
  const Outcome cut_help = Isocost({"cut", "--help"});
  EXPECT_TRUE(Has(cut_help.out, "--fit")) << cut_help.out;
}

}  // namespace
