// End-to-end tests of what every isocost command shares: bad input gives exit
// code 2, one line "isocost: error: …" naming the bad value, nothing on
// stdout and no output file (docs/guarantees.md §6); -o writes exactly what
// stdout would, atomically; help and version exit 0.
#include "cli_test.hpp"

namespace {

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

const std::vector<std::string> kSieveCut{"cut", "--model", "sieve", "--domain", "6:1000"};

const BadCase kBadInputCases[] = {
    // Parameters
    {"ParamNaN", Cat(kSieveCut, {"--ranks", "2", "--param", "A=nan"}), {"--param A", "'nan'"}},
    {"ParamInf", Cat(kSieveCut, {"--ranks", "2", "--param", "p=inf"}), {"--param p", "'inf'"}},
    {"ParamMinusInf", Cat(kSieveCut, {"--ranks", "2", "--param", "c=-inf"}), {"'-inf'"}},
    {"ParamEmpty", Cat(kSieveCut, {"--ranks", "2", "--param", "A="}), {"--param A"}},
    {"ParamNoValue", Cat(kSieveCut, {"--ranks", "2", "--param", "A"}), {"'A'"}},
    {"ParamTwice", Cat(kSieveCut, {"--ranks", "2", "--param", "A=1,A=2"}), {"'A'", "twice"}},
    {"ParamUnknown", Cat(kSieveCut, {"--ranks", "2", "--param", "z=1"}), {"'z'"}},
    {"ParamNegativeA", Cat(kSieveCut, {"--ranks", "2", "--param", "A=-1"}), {"A", "-1"}},
    {"PowerNeedsP", {"cut", "--model", "power", "--domain", "0:1", "--ranks", "2"}, {"--param p"}},
    {"PowerDecreasing",
     {"cut", "--model", "power", "--param", "A=-1,p=1", "--domain", "0:1", "--ranks", "2"},
     {"A=-1"}},
    {"PolynomialDecreasing",
     {"cut", "--model", "polynomial", "--param", "c1=1,c2=-1", "--domain", "0:1", "--ranks", "2"},
     {"t'(1): expected a value >= 0", "got -1"}},  // t' = 1 - 2x is least at x = 1
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
    {"RanksZero", Cat(kSieveCut, {"--ranks", "0"}), {"--ranks", "'0'"}},
    {"RanksNegative", Cat(kSieveCut, {"--ranks", "-3"}), {"--ranks", "'-3'"}},
    {"RanksText", Cat(kSieveCut, {"--ranks", "abc"}), {"--ranks", "'abc'"}},
    {"RanksFraction", Cat(kSieveCut, {"--ranks", "2.5"}), {"--ranks", "'2.5'"}},
    {"RanksMissing", kSieveCut, {"--ranks"}},
    {"SpeedZero", Cat(kSieveCut, {"--speeds", "1,0"}), {"rank 1", "got 0"}},
    {"SpeedNegative", Cat(kSieveCut, {"--speeds", "1,1,-2"}), {"rank 2", "-2"}},
    {"SpeedNaN", Cat(kSieveCut, {"--speeds", "1,nan"}), {"--speeds", "'nan'"}},
    {"SpeedEmptyEntry", Cat(kSieveCut, {"--speeds", "1,,2"}), {"--speeds entry 1"}},
    {"SpeedsCountMismatch",
     Cat(kSieveCut, {"--speeds", "1,2", "--ranks", "3"}),
     {"--ranks 3", "2 ranks"}},
    {"NodeTypesCountMismatch",
     Cat(kSieveCut, {"--node-types", "7x1,4x3", "--ranks", "12"}),
     {"--ranks 12", "11 ranks"}},
    {"SpeedsAndNodeTypes",
     Cat(kSieveCut, {"--speeds", "1,2", "--node-types", "1x1,1x2"}),
     {"--speeds", "--node-types"}},
    {"NodeTypesZeroCount", Cat(kSieveCut, {"--node-types", "0x1"}), {"'0x1'"}},
    {"NodeTypesZeroRatio", Cat(kSieveCut, {"--node-types", "2x0"}), {"got 0"}},
    {"NodeTypesNoX", Cat(kSieveCut, {"--node-types", "7"}), {"--node-types", "'7'"}},
    // Solver options
    {"UnknownMethod", Cat(kSieveCut, {"--ranks", "2", "--method", "foo"}), {"'foo'"}},
    {"NegativeCostTolerance",
     Cat(kSieveCut, {"--ranks", "2", "--cost-tolerance", "-1"}),
     {"tolerance", "-1"}},
    {"ZeroMaxIterations",
     Cat(kSieveCut, {"--ranks", "2", "--max-iterations", "0"}),
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
     Cat(kSieveCut, {"--ranks", "2", "--samples", "{dir}/samples.csv"}),
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
    {"UnknownCutOption", Cat(kSieveCut, {"--ranks", "2", "--bogus"}), {"--bogus"}},
    {"UnknownMetricsOption", {"metrics", "{dir}/four.txt", "--frobnicate"}, {"--frobnicate"}},
    {"StrayArgument", Cat(kSieveCut, {"--ranks", "2", "stray"}), {"stray"}},
    {"OptionGivenTwice", Cat(kSieveCut, {"--ranks", "2", "--ranks", "3"}), {"--ranks"}},
};

INSTANTIATE_TEST_SUITE_P(Cases, BadInput, ::testing::ValuesIn(kBadInputCases), BadCaseName);

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
