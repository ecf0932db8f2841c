// End-to-end tests of the heat-map mode of `isocost plot`
// (src/cli/plot_command.cpp) and of bad input to `isocost partition` and to
// the heat maps, run as a child process (the fixture and the test weights:
// cli_partition_test.hpp). A heat map must write exactly its PNG; bad input
// must give exit 2, one line "isocost: error: …" naming the value, nothing on
// stdout, no output file (docs/guarantees.md §6).
#include "cli_partition_test.hpp"

namespace {

// ---------------------------------------------------------------------------
// 6. Heat maps

TEST_F(Partition, HeatMapOfAFormulaWithItsParts) {
  if (!GnuplotOnPath()) GTEST_SKIP() << "gnuplot is not installed";
  const auto before = Listing(dir);
  const Outcome r = Isocost({"plot", "--density", "x+y", "--box", "0:20,0:20", "--grid", "2x2",
                             "--speeds", "1,2,3,4", "-o", "map.png"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(Has(r.out, "wrote map.png")) << r.out;
  EXPECT_TRUE(IsPng(dir / "map.png"));
  auto expected = before;
  expected.insert("map.png");
  EXPECT_EQ(Listing(dir), expected) << "only the PNG may be added";
}

TEST_F(Partition, HeatMapOfWeightsGoesToPartitionPngByDefault) {
  if (!GnuplotOnPath()) GTEST_SKIP() << "gnuplot is not installed";
  const Weights g = Scrambled(30, 20);
  File("w.bin", g.raw());
  const Outcome r = Isocost({"plot", "--weights", "w.bin", "--shape", "30x20", "--ranks", "6"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "partition.png")) << r.out;
  EXPECT_TRUE(IsPng(dir / "partition.png"));
  // The density alone, without parts.
  const Outcome s = Isocost({"plot", "--weights", "w.bin", "--shape", "30x20", "-o", "rho.png"});
  EXPECT_EQ(s.code, 0) << s.err;
  EXPECT_TRUE(IsPng(dir / "rho.png"));
}

TEST_F(Partition, HeatMapWithoutGnuplotIsAnErrorAndWritesNothing) {
  const fs::path empty = Scratch("empty-bin");
  isocost::testing::RunOptions options;
  options.path_env = empty.string();
  const auto before = Listing(dir);
  const Outcome r = CliTest::Isocost(
      {"plot", "--density", "x+y", "--box", "0:20,0:20", "--grid", "2x2"}, options);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("isocost: error:", 0), 0u) << r.err;
  EXPECT_TRUE(Has(r.err, "gnuplot")) << r.err;
  EXPECT_EQ(Listing(dir), before);
}

// ---------------------------------------------------------------------------
// 7. Bad input

class BadPartitionInput : public Partition, public ::testing::WithParamInterface<BadCase> {
 protected:
  void SetUp() override {
    Partition::SetUp();
    const Weights g = Scrambled(4, 3);
    File("w43.csv", g.text());
    File("w43.bin", g.raw());
    File("zeros.csv", "0,0\n0,0\n");
    File("negative.csv", "1,2\n3,-4\n");
    File("nan.csv", "1,2\nnan,4\n");
    File("cube.csv", "1,2\n3,4\n5,6\n7,8\n");
  }
};

TEST_P(BadPartitionInput, ExitsTwoWithOneLineAndWritesNothing) {
  const BadCase& c = GetParam();
  if (c.args[0] == "plot" && !GnuplotOnPath()) GTEST_SKIP() << "gnuplot is not installed";
  // -o: no output file may appear, whatever the command.
  ExpectRejected(Cat(c.args, {"-o", "out.file"}), c.fragments);
}

const std::vector<std::string> kRows{"partition", "--box", "0:20,0:20",
                                     "--grid",    "1x4",   "--density"};

const BadCase kBadPartitionCases[] = {
    // The density.
    {"NegativeDensity", Cat(kRows, {"x-y"}), {"rho", "-"}},
    {"NegativeInsideOnly", Cat(kRows, {"(x-10)^2+(y-10)^2-1"}), {"rho", ">= 0"}},
    {"InfiniteDensity",
     {"partition", "--density", "1/x", "--box", "0:1,0:1", "--ranks", "2"},
     {"rho", "inf"}},
    {"NaNDensity",
     {"partition", "--density", "sqrt(x-1)", "--box", "0:2,0:1", "--ranks", "2"},
     {"rho", "nan"}},
    {"ZeroTotal", Cat(kRows, {"0*x*y"}), {"total", "0"}},
    {"UnknownIdentifier", Cat(kRows, {"x+y+q"}), {"unknown identifier", " q"}},
    {"ZOnATwoDimensionalBox", Cat(kRows, {"x+y+z"}), {"unknown identifier", " z"}},
    {"FormulaSyntax", Cat(kRows, {"x+*y"}), {"x+*y"}},
    // The box.
    {"MissingBox", {"partition", "--density", "x+y", "--grid", "2x2"}, {"--box"}},
    {"BoxLoEqualsHi",
     {"partition", "--density", "x+y", "--box", "5:5,0:1", "--grid", "2x1"},
     {"--box", "lo=5", "hi=5"}},
    {"BoxLoAboveHi",
     {"partition", "--density", "x+y", "--box", "0:1,3:1", "--grid", "2x1"},
     {"--box", "lo=3", "hi=1"}},
    {"BoxMalformed",
     {"partition", "--density", "x+y", "--box", "0:20,0", "--grid", "2x1"},
     {"--box", "'0:20,0'"}},
    {"BoxNotANumber",
     {"partition", "--density", "x+y", "--box", "0:20,a:1", "--grid", "2x1"},
     {"--box y lo", "'a'"}},
    {"BoxInfinite",
     {"partition", "--density", "x+y", "--box", "0:inf,0:1", "--grid", "2x1"},
     {"--box x hi", "'inf'"}},
    {"BoxFourAxes",
     {"partition", "--density", "x+y", "--box", "0:1,0:1,0:1,0:1", "--grid", "2x1"},
     {"--box", "0:1,0:1,0:1,0:1"}},
    // The process grid and the ranks.
    {"GridProductNotSpeeds", Cat(kRows, {"x+y", "--speeds", "1,1,1"}), {"--grid 1x4", "3"}},
    {"GridProductNotRanks",
     {"partition", "--density", "x+y", "--box", "0:1,0:1", "--grid", "3x2", "--ranks", "4"},
     {"--grid 3x2", "6", "--ranks"}},
    {"GridMalformed",
     {"partition", "--density", "x+y", "--box", "0:1,0:1", "--grid", "2x"},
     {"--grid", "'2x'"}},
    {"GridZero",
     {"partition", "--density", "x+y", "--box", "0:1,0:1", "--grid", "0x4"},
     {"--grid", "'0x4'"}},
    {"GridWrongDims",
     {"partition", "--density", "x+y", "--box", "0:1,0:1", "--grid", "2x2x2"},
     {"--grid", "2x2x2"}},
    {"AutoWithoutRanks",
     {"partition", "--density", "x+y", "--box", "0:1,0:1", "--grid", "auto"},
     {"--grid auto", "--ranks"}},
    {"NoGridNoRanks", {"partition", "--density", "x+y", "--box", "0:1,0:1"}, {"--grid"}},
    {"BadOrder",
     {"partition", "--density", "x+y", "--box", "0:1,0:1", "--grid", "2x2", "--order", "xx"},
     {"--order", "'xx'"}},
    {"OrderWithAuto",
     {"partition", "--density", "x+y", "--box", "0:1,0:1", "--ranks", "4", "--order", "yx"},
     {"--order"}},
    {"BadSpeed", Cat(kRows, {"x+y", "--speeds", "1,1,0,1"}), {"0"}},
    // --min-width.
    {"MinWidthDoesNotFit", Cat(kRows, {"x+y", "--min-width", "0,5.5"}), {"5.5", "do not fit"}},
    {"MinWidthNegative", Cat(kRows, {"x+y", "--min-width", "-1"}), {"--min-width", "'-1'"}},
    {"MinWidthMalformed", Cat(kRows, {"x+y", "--min-width", "1,2,3"}), {"--min-width", "'1,2,3'"}},
    {"MinWidthNotANumber", Cat(kRows, {"x+y", "--min-width", "w"}), {"--min-width", "'w'"}},
    {"MinWidthCellsDoNotFit",
     {"partition", "--weights", "w43.csv", "--shape", "4x3", "--grid", "1x2", "--min-width", "0,2"},
     {"do not fit"}},
    // Weights.
    {"DensityAndWeights",
     {"partition", "--density", "x+y", "--weights", "w43.csv", "--shape", "4x3", "--grid", "2x1"},
     {"--density", "--weights"}},
    {"WeightsWithoutShape", {"partition", "--weights", "w43.csv", "--grid", "2x1"}, {"--shape"}},
    {"ShapeMalformed",
     {"partition", "--weights", "w43.csv", "--shape", "4x", "--grid", "2x1"},
     {"--shape", "'4x'"}},
    {"ShapeZero",
     {"partition", "--weights", "w43.csv", "--shape", "0x3", "--grid", "2x1"},
     {"--shape", "'0x3'"}},
    {"TextSizeMismatch",
     {"partition", "--weights", "w43.csv", "--shape", "5x3", "--grid", "2x1"},
     {"w43.csv"}},
    {"RawSizeMismatch",
     {"partition", "--weights", "w43.bin", "--shape", "4x4", "--grid", "2x1"},
     {"w43.bin", "4x4"}},
    {"ZeroWeights",
     {"partition", "--weights", "zeros.csv", "--shape", "2x2", "--grid", "2x1"},
     {"zeros.csv", "zero"}},
    {"NegativeWeight",
     {"partition", "--weights", "negative.csv", "--shape", "2x2", "--grid", "2x1"},
     {"negative.csv", "-4"}},
    {"NaNWeight",
     {"partition", "--weights", "nan.csv", "--shape", "2x2", "--grid", "2x1"},
     {"nan.csv"}},
    {"MissingWeightsFile",
     {"partition", "--weights", "nope.csv", "--shape", "2x2", "--grid", "2x1"},
     {"nope.csv"}},
    {"MorePartsThanCells",
     {"partition", "--weights", "w43.csv", "--shape", "4x3", "--grid", "5x1"},
     {"--grid 5x1", "5 parts along x", "4 cells"}},
    {"BoxWithWeights",
     {"partition", "--weights", "w43.csv", "--shape", "4x3", "--box", "0:1,0:1", "--grid", "2x1"},
     {"--box"}},
    {"QuadratureWithWeights",
     {"partition", "--weights", "w43.csv", "--shape", "4x3", "--grid", "2x1", "--quadrature",
      "tanh_sinh"},
     {"--quadrature"}},
    {"UnknownQuadrature",
     Cat(kRows, {"x+y", "--quadrature", "simpson"}),
     {"--quadrature", "'simpson'"}},
    {"BadTolerance", Cat(kRows, {"x+y", "--tolerance", "2"}), {"--tolerance", "'2'"}},
    {"UnknownMethod", Cat(kRows, {"x+y", "--method", "magic"}), {"--method", "'magic'"}},
    // Heat maps.
    {"HeatMapThreeD",
     {"plot", "--density", "x+y+z", "--box", "0:1,0:1,0:1", "--grid", "2x1x1"},
     {"2-D", "3 dimensions"}},
    {"HeatMapThreeDWeights",
     {"plot", "--weights", "cube.csv", "--shape", "2x2x2"},
     {"2-D", "--shape 2x2x2", "3 dimensions"}},
    {"HeatMapWithSamplesFile",
     {"plot", "w43.csv", "--density", "x+y", "--box", "0:1,0:1"},
     {"samples FILE"}},
    {"HeatMapNegativeDensity",
     {"plot", "--density", "x-y", "--box", "0:1,0:1", "--grid", "2x1"},
     {"rho"}},
    {"PlotGridWithoutDensity",
     {"plot", "w43.csv", "--model", "power", "--grid", "2x2"},
     {"--grid"}},
};

INSTANTIATE_TEST_SUITE_P(Cases, BadPartitionInput, ::testing::ValuesIn(kBadPartitionCases),
                         BadCaseName);

}  // namespace
