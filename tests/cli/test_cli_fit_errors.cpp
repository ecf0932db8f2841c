// End-to-end tests of `isocost plot` of samples and of bad input to `isocost
// fit`, `isocost cut --fit` and `isocost plot`, run as a child process with
// stdout and stderr captured separately (the samples and the fixture:
// cli_fit_test.hpp). A plot must write exactly its PNG; bad input must give
// exit code 2, one line "isocost: error: …" naming the bad value, nothing on
// stdout, and no output file.
#include "cli_fit_test.hpp"

namespace {

// ---------------------------------------------------------------------------
// 4. plot

TEST_F(CliFit, PlotWritesAPngNamedAfterTheSamples) {
  if (!GnuplotOnPath()) GTEST_SKIP() << "gnuplot is not installed";
  const auto f = File("power.csv", IntervalCsv(kPower, 10, 1e6, 40, true));
  const auto before = Listing(dir);
  const Outcome r = Isocost({"plot", f, "--model", "power", "--ranks", "8"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(Has(r.out, "power.png")) << r.out;
  EXPECT_TRUE(IsPng(dir / "power.png"));
  auto expected = before;
  expected.insert("power.png");
  EXPECT_EQ(Listing(dir), expected) << "only the PNG may be added";
}

TEST_F(CliFit, PlotOverlappingSamplesAsDensitiesToANamedFile) {
  if (!GnuplotOnPath()) GTEST_SKIP() << "gnuplot is not installed";
  const std::string rows = "lo,hi,dt\n" + IntervalRows(kSieve, Tiling(100, 1e7, 16, false)) +
                           IntervalRows(kSieve, Tiling(100, 1e7, 16, true), 3);
  const auto f = File("runs.csv", rows);
  fs::create_directories(dir / "plots");
  // An existing file is replaced.
  WriteFile(dir / "plots" / "fit.png", "old");
  const Outcome r = Isocost(
      {"plot", f, "--model", "auto", "--ranks", "16", "--log", "xy", "-o", "plots/fit.png"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(IsPng(dir / "plots" / "fit.png"));
  EXPECT_EQ(Listing(dir / "plots"), std::set<std::string>{"fit.png"});
  // Without cuts, linear axes, a formula.
  const Outcome s = Isocost({"plot", f, "--model", "expr:A*x^p/(log(x)-c)", "--param-guess",
                             "A=4e-7,p=1.4,c=1", "--log", "none", "-o", "expr.png"});
  EXPECT_EQ(s.code, 0) << s.err;
  EXPECT_TRUE(IsPng(dir / "expr.png"));
}

// A fit that stops at its iteration limit is a result: printed (or plotted)
// like any other, then exit code 3 with the reason on stderr.
TEST_F(CliFit, NotConvergedIsExitThreeWithTheResult) {
  const auto f = File("power.csv", IntervalCsv(kPower, 10, 1e6, 40, true));
  const std::vector<std::string> stop{"--model",   "expr:A*x^p",       "--param-guess",
                                      "A=1,p=0.1", "--fit-iterations", "1"};
  auto with = [&](std::vector<std::string> head) {
    head.insert(head.end(), stop.begin(), stop.end());
    return head;
  };
  const Outcome r = Isocost(with({"fit", f}));
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_TRUE(Has(r.out, "NOT CONVERGED")) << r.out;
  EXPECT_TRUE(Has(r.out, "iteration_limit")) << r.out;
  EXPECT_TRUE(Has(r.err, "did not converge")) << r.err;
  EXPECT_TRUE(Has(r.err, "NO_CONVERGENCE")) << r.err;
  const Outcome j = Isocost(with({"fit", f, "--json"}));
  EXPECT_EQ(j.code, 3) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["solver"]["status"], "iteration_limit");
  EXPECT_EQ(doc["solver"]["converged"], false);
  EXPECT_FALSE(doc["solver"]["converged"].get<bool>());
  const Outcome c = Isocost(with({"cut", "--fit", f, "--ranks", "2"}));
  EXPECT_EQ(c.code, 3) << c.err;
  EXPECT_TRUE(Has(c.out, "rank")) << c.out;
  EXPECT_TRUE(Has(c.err, "NO_CONVERGENCE")) << c.err;
  if (GnuplotOnPath()) {
    const Outcome p = Isocost(with({"plot", f, "-o", "stopped.png"}));
    EXPECT_EQ(p.code, 3) << p.err;
    EXPECT_TRUE(IsPng(dir / "stopped.png"));
  }
}

// A fit that yields no model was never scored: its quality is null in the
// JSON, not 0 (an rmse of 0 would read as a perfect fit), and it is no
// trusted result.
TEST_F(CliFit, AFitWithoutAModelHasNoQuality) {
  const auto f = File("power.csv", IntervalCsv(kPower, 100, 1e7, 40, true));
  const Outcome j = Isocost({"fit", f, "--model", "expr:A*exp(-x/b)", "--json"});
  EXPECT_EQ(j.code, 3) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc["solver"]["status"], "failed") << j.out;
  for (const char* field : {"rmse", "max_rel_error", "r_squared", "aicc"})
    EXPECT_TRUE(doc["quality"][field].is_null()) << field << ": " << doc["quality"];
  EXPECT_TRUE(doc["verdict"]["r_squared"].is_null()) << doc["verdict"];
  EXPECT_EQ(doc["verdict"]["trusted"], false);
  // A fit that has a model has numbers there.
  const Outcome ok = Isocost({"fit", f, "--model", "power", "--json"});
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_GT(nlohmann::json::parse(ok.out)["quality"]["r_squared"].get<double>(), 0.99);
}

TEST_F(CliFit, PlotWithoutGnuplotIsAnErrorAndWritesNothing) {
  const auto f = File("power.csv", IntervalCsv(kPower, 10, 1e6, 40, true));
  const std::string empty_path = Bin().string();  // holds no gnuplot
  const auto before = Listing(dir);
  const Outcome r = Isocost({"plot", f, "--model", "power"}, &empty_path);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("isocost: error:", 0), 0u) << r.err;
  EXPECT_TRUE(Has(r.err, "gnuplot")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(Listing(dir), before);
}

TEST_F(CliFit, PlotReportsGnuplotsOwnErrorAndLeavesNoFile) {
  // A gnuplot that fails the way gnuplot does: a message on stderr, exit 1,
  // after writing part of its output.
  const fs::path fake = Bin() / "gnuplot";
  WriteFile(fake,
            "#!/bin/sh\n"
            "out=$(sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$2\" | head -n 1)\n"
            "[ -n \"$out\" ] && printf 'partial' > \"$out\"\n"
            "echo '         plot foo' >&2\n"
            "echo '              ^' >&2\n"
            "echo \"\\\"$2\\\" line 12: frobnication failed\" >&2\n"
            "exit 1\n");
  fs::permissions(fake, fs::perms::owner_all);
  const std::string path = Bin().string() + ":/usr/bin:/bin";
  const auto f = File("power.csv", IntervalCsv(kPower, 10, 1e6, 40, true));
  WriteFile(dir / "keep.png", "previous");
  const auto before = Listing(dir);
  const Outcome r = Isocost({"plot", f, "--model", "power", "-o", "keep.png"}, &path);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("isocost: error:", 0), 0u) << r.err;
  EXPECT_TRUE(Has(r.err, "line 12: frobnication failed")) << r.err;
  EXPECT_TRUE(Has(r.err, "keep.png")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(Listing(dir), before) << "a temporary file was left behind";
  EXPECT_EQ(ReadFile(dir / "keep.png"), "previous");
}

// ---------------------------------------------------------------------------
// 5. Bad input

class BadFitInput : public CliFit, public ::testing::WithParamInterface<BadCase> {
 protected:
  void SetUp() override {
    CliFit::SetUp();
    File("power.csv", IntervalCsv(kPower, 10, 1e6, 40, true));
    File("sieve.csv", IntervalCsv(kSieve, 100, 1e7, 40, true));
    File("two.csv", "lo,hi,dt\n10,20,1\n20,30,2\n");
    File("three_cum.csv", "x,t\n10,0\n20,1\n30,3\n");
    File("same_x.csv", "x,t\n5,0\n5,1\n5,2\n5,3\n");
    File("same_interval.csv", "lo,hi,dt\n10,20,1\n10,20,1.1\n10,20,0.9\n10,20,1\n");
    File("zero_dt.csv", "lo,hi,dt\n10,20,1\n20,30,0\n30,40,2\n40,50,3\n");
    File("neg_dt.csv", "lo,hi,dt\n10,20,1\n20,30,-1.5\n30,40,2\n40,50,3\n");
    File("nan.csv", "lo,hi,dt\n10,20,1\n20,30,nan\n30,40,2\n40,50,3\n");
    File("inf.csv", "x,t\n10,0\n20,1\ninf,2\n");
    File("decreasing.csv", "x,t\n10,0\n20,1\n30,0.75\n40,4\n50,6\n");
    File("below_sieve.csv", "x,t\n2,0\n3,1\n4,2\n5,3\n6,4\n");
    File("empty.csv", "");
    File("quadratic.csv", IntervalCsv(kQuadratic, 0, 100, 20, false));
  }

  bool NeedsGnuplot() const { return !GetParam().args.empty() && GetParam().args[0] == "plot"; }
};

TEST_P(BadFitInput, ExitTwoOneLineNothingOnStdout) {
  if (NeedsGnuplot() && !GnuplotOnPath()) GTEST_SKIP() << "gnuplot is not installed";
  ExpectRejected(GetParam().args, GetParam().fragments);
}

TEST_P(BadFitInput, OutputFileIsNeitherCreatedNorTouched) {
  if (NeedsGnuplot() && !GnuplotOnPath()) GTEST_SKIP() << "gnuplot is not installed";
  auto args = GetParam().args;
  const fs::path out = dir / (NeedsGnuplot() ? "OUT.png" : "OUT.json");
  args.insert(args.begin() + 1, {"-o", out.string()});
  ExpectRejected(args, {"isocost: error:"});
  EXPECT_FALSE(fs::exists(out));
  const std::string previous = "previous contents\nof OUT\n";
  WriteFile(out, previous);
  ExpectRejected(args, {"isocost: error:"});
  EXPECT_EQ(ReadFile(out), previous);
}

const BadCase kBadFitCases[] = {
    // Samples
    {"TooFewSamples", {"fit", "two.csv", "--model", "power"}, {"two.csv", "2 samples"}},
    {"TooFewSamplesForSieveC",
     {"fit", "three_cum.csv", "--model", "sieve+c"},
     {"three_cum.csv", "samples", "3 parameters"}},
    {"AllEqualX", {"fit", "same_x.csv", "--model", "power"}, {"same_x.csv:3:", "x=5"}},
    {"AllSameInterval",
     {"fit", "same_interval.csv", "--model", "power"},
     {"same_interval.csv", "same interval"}},
    {"ZeroDt", {"fit", "zero_dt.csv", "--model", "power"}, {"zero_dt.csv:3:", "dt=0"}},
    {"NegativeDt", {"fit", "neg_dt.csv", "--model", "power"}, {"neg_dt.csv:3:", "dt=-1.5"}},
    {"NaN", {"fit", "nan.csv", "--model", "power"}, {"nan.csv:3:", "'nan'"}},
    {"Inf", {"fit", "inf.csv", "--model", "power"}, {"inf.csv:4:", "'inf'"}},
    {"DecreasingWithoutRepair",
     {"fit", "decreasing.csv", "--model", "power"},
     {"decreasing.csv:4:", "t=0.75", "--repair"}},
    {"EmptyFile", {"fit", "empty.csv", "--model", "power"}, {"empty.csv"}},
    {"MissingFile", {"fit", "nope.csv", "--model", "power"}, {"nope.csv"}},
    {"SieveBelowValidRegion",
     {"fit", "below_sieve.csv", "--model", "sieve"},
     {"below_sieve.csv", "x=2"}},
    // Models and options
    {"FormulaSyntax", {"fit", "power.csv", "--model", "expr:A*x^^p"}, {"A*x^^p", "position 4"}},
    {"FormulaUnfinished", {"fit", "power.csv", "--model", "expr:A*x^p+"}, {"position 6"}},
    {"FormulaWithoutX", {"fit", "power.csv", "--model", "expr:A*y"}, {"A*y", "x"}},
    {"UnknownGuessName",
     {"fit", "power.csv", "--model", "power", "--param-guess", "q=1"},
     {"--param-guess", "'q'"}},
    {"UnknownGuessNameFormula",
     {"fit", "power.csv", "--model", "expr:A*x^p", "--param-guess", "A=1,z=2"},
     {"--param-guess", "'z'"}},
    {"GuessNotANumber",
     {"fit", "power.csv", "--model", "power", "--param-guess", "p=abc"},
     {"--param-guess p", "'abc'"}},
    {"GuessForPchip",
     {"fit", "power.csv", "--model", "pchip", "--param-guess", "A=1"},
     {"'A'", "pchip"}},
    {"UnknownModel", {"fit", "power.csv", "--model", "foo"}, {"--model", "'foo'"}},
    {"BadPolynomialDegree", {"fit", "power.csv", "--model", "poly:0"}, {"poly:0"}},
    {"UnknownLoss", {"fit", "power.csv", "--model", "power", "--loss", "foo"}, {"--loss", "'foo'"}},
    {"UnknownSelect",
     {"fit", "power.csv", "--model", "auto", "--select", "foo"},
     {"--select", "'foo'"}},
    {"SelectWithoutAuto",
     {"fit", "power.csv", "--model", "power", "--select", "cv"},
     {"--select", "auto"}},
    {"ModelMissing", {"fit", "power.csv"}, {"--model"}},
    {"RanksZero", {"fit", "power.csv", "--model", "power", "--ranks", "0"}, {"--ranks", "'0'"}},
    // cut --fit
    {"CutFitTooFewSamples",
     {"cut", "--fit", "two.csv", "--model", "power", "--ranks", "2"},
     {"two.csv", "2 samples"}},
    {"CutFitDecreasing",
     {"cut", "--fit", "decreasing.csv", "--model", "pchip", "--ranks", "2"},
     {"t=0.75"}},
    {"CutFitDomainOutsideSieveRegion",
     {"cut", "--fit", "sieve.csv", "--model", "sieve", "--domain", "3:1e7", "--ranks", "2"},
     {"[3, "}},
    {"CutFitDomainReversed",
     {"cut", "--fit", "power.csv", "--model", "power", "--domain", "100:10", "--ranks", "2"},
     {"lo=100", "hi=10"}},
    {"CutFitDomainForPchip",
     {"cut", "--fit", "power.csv", "--model", "pchip", "--domain", "10:100", "--ranks", "2"},
     {"--domain", "pchip"}},
    {"CutFitWithParam",
     {"cut", "--fit", "power.csv", "--model", "power", "--param", "p=1", "--ranks", "2"},
     {"--param", "--param-guess"}},
    {"CutFitWithSamples",
     {"cut", "--fit", "power.csv", "--model", "pchip", "--samples", "power.csv", "--ranks", "2"},
     {"--samples", "--fit"}},
    {"CutFitUnknownModel",
     {"cut", "--fit", "power.csv", "--model", "discrete", "--ranks", "2"},
     {"'discrete'"}},
    {"CutFitFormulaSyntax",
     {"cut", "--fit", "power.csv", "--model", "expr:A*(x", "--ranks", "2"},
     {"A*(x", "position"}},
    {"CutFitUnknownGuess",
     {"cut", "--fit", "power.csv", "--model", "sieve", "--param-guess", "B=1", "--ranks", "2"},
     {"'B'"}},
    {"CutFitRanksMissing", {"cut", "--fit", "power.csv", "--model", "power"}, {"--ranks"}},
    {"CutFitOptionWithoutFit",
     {"cut", "--model", "power", "--param", "p=1", "--domain", "0:1", "--ranks", "2", "--loss",
      "huber"},
     {"--loss", "--fit"}},
    {"CutFitMissingFile",
     {"cut", "--fit", "nope.csv", "--model", "power", "--ranks", "2"},
     {"nope.csv"}},
    // plot
    {"PlotTooFewSamples", {"plot", "two.csv", "--model", "power"}, {"two.csv", "2 samples"}},
    {"PlotUnknownModel", {"plot", "power.csv", "--model", "foo"}, {"'foo'"}},
    {"PlotUnknownLoss",
     {"plot", "power.csv", "--model", "power", "--loss", "l2"},
     {"--loss", "'l2'"}},
    {"PlotNaN", {"plot", "nan.csv", "--model", "power"}, {"nan.csv:3:", "'nan'"}},
    {"PlotDecreasing", {"plot", "decreasing.csv", "--model", "pchip"}, {"t=0.75"}},
    {"PlotFormulaSyntax", {"plot", "power.csv", "--model", "expr:A*x^^p"}, {"position 4"}},
    {"PlotBadRanks", {"plot", "power.csv", "--model", "power", "--ranks", "x"}, {"--ranks", "'x'"}},
    {"PlotBadLog", {"plot", "power.csv", "--model", "power", "--log", "z"}, {"--log", "'z'"}},
    {"PlotLogXFromZero",
     {"plot", "quadratic.csv", "--model", "poly:2", "--log", "x"},
     {"--log x", "x=0"}},
    {"PlotSieveBelowValidRegion", {"plot", "below_sieve.csv", "--model", "sieve"}, {"x=2"}},
};

INSTANTIATE_TEST_SUITE_P(Cases, BadFitInput, ::testing::ValuesIn(kBadFitCases), BadCaseName);

}  // namespace
