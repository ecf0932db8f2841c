// The matrix's option rows: rank counts (0, -1, 10^12, far above the cells),
// speeds and shapes that do not match, impossible minimum widths, flags that
// conflict, empty and malformed option values, -0, one sample, all zero,
// duplicate and non-monotone x. Every row gets the same small input files
// (StandardInputs()).
#include <cmath>

#include "cli/cli_matrix.hpp"

namespace isocost::testing::matrix {
namespace {

// 1-D cuts with more ranks than unit cells: a rank cannot get a fraction of a
// cell, so the best answer gives every non-empty rank exactly one cell (cost
// 1) and the rest empty ranges; the ranges must still tile the domain.
Good OneCellEach(int ranks, int cells) {
  return GoodJson([ranks, cells](const json& d) {
    ASSERT_EQ(d["parts"].size(), static_cast<std::size_t>(ranks)) << d.dump();
    int non_empty = 0;
    double previous = 0, total = 0;
    for (const auto& p : d["parts"]) {
      EXPECT_EQ(Num(p["lo"]), previous);
      previous = Num(p["hi"]);
      EXPECT_LE(Num(p["cost"]), 1.0);
      non_empty += Num(p["cost"]) > 0 ? 1 : 0;
      total += Num(p["cost"]);
    }
    EXPECT_EQ(previous, cells);
    EXPECT_EQ(non_empty, cells);
    EXPECT_EQ(total, cells);
  });
}

}  // namespace

std::map<std::string, std::string> StandardInputs() {
  // Raw weights 2x2, all 1: "ISOCOSTW", dims, nx, ny, then four doubles
  // (copied from memory: the format is little-endian, as the hosts we test on).
  std::string raw = "ISOCOSTW";
  auto put = [&raw](const void* p, std::size_t n) { raw.append(static_cast<const char*>(p), n); };
  const std::uint32_t dims = 2;
  const std::int64_t n = 2;
  const double one = 1;
  put(&dims, 4);
  put(&n, 8);
  put(&n, 8);
  for (int k = 0; k < 4; ++k) put(&one, 8);
  return {{"s.csv", Replace(kSquares, "@", "4")},
          {"tile.csv", "lo,hi,dt\n1,2,1\n2,3,1.2\n3,4,1.4\n4,5,1.6\n"},
          {"w4.txt", "1\n1\n1\n1\n"},
          {"p22.txt", "1 1\n1 1\n"},
          {"p22.bin", raw},
          {"l4.txt", "4\n2\n1\n1\n"},
          {"l3.txt", "1\n2\n3\n"},
          {"l2.txt", "3\n1\n"},
          {"g4.txt", "0 1\n1 2\n2 3\n"},
          {"c3.txt", "0\n5\n10\n"},
          {"t.csv", "rank,id,load\n0,1,3\n0,2,1\n1,3,1\n"}};
}

Row& AddRow(std::vector<Row>& rows, const std::string& name, const Args& args,
            std::variant<Bad, Good> expect) {
  Row r{name, StandardInputs(), args, std::move(expect)};
  r.json = args[0] != "plot";
  r.gnuplot = args[0] == "plot";
  // A success is checked on its JSON.
  if (r.json && std::holds_alternative<Good>(r.expect) &&
      std::find(args.begin(), args.end(), "--json") == args.end())
    r.args.push_back("--json");
  rows.push_back(std::move(r));
  return rows.back();
}

std::vector<Row> OptionRows() {
  std::vector<Row> rows;
  auto add = [&rows](const std::string& name, const Args& args,
                     std::variant<Bad, Good> expect) -> Row& {
    return AddRow(rows, name, args, std::move(expect));
  };

  // Rank counts.
  const std::vector<std::pair<std::string, Args>> ranked = {
      {"Cut", kCut},          {"CutFit", kCutFit},   {"Fit", kFit},
      {"PlotSamples", kPlot}, {"Density", kDensity}, {"Weights", Cat(kWeights, {"--grid", "auto"})},
      {"HeatMap", kHeat}};
  for (const auto& [name, args] : ranked) {
    // fit --ranks 0 is test_cli_fit_errors' RanksZero.
    if (name != "Fit")
      add(name + "_RanksZero", Cat(args, {"--ranks", "0"}), Bad{{"--ranks", "'0'"}});
    add(name + "_RanksMinusOne", Cat(args, {"--ranks", "-1"}), Bad{{"--ranks", "'-1'"}});
    add(name + "_RanksFraction", Cat(args, {"--ranks", "2.5"}), Bad{{"--ranks", "'2.5'"}});
    add(name + "_RanksEmpty", Cat(args, {"--ranks", ""}), Bad{{"--ranks", "''"}});
    add(name + "_RanksNaN", Cat(args, {"--ranks", "nan"}), Bad{{"--ranks", "'nan'"}});
    add(name + "_Ranks1e12", Cat(args, {"--ranks", "1e12"}),
        Bad{{"--ranks", "1000000000000", "above the limit"}});
  }
  add("Cut_Ranks1e9", Cat(kCut, {"--ranks", "1e9"}),
      Bad{{"--ranks", "1000000000", "above the limit"}});
  // Samples that tile their span: fit --ranks P partitions the fitted model
  // over P ranks for the L_E line.
  add("FitTiling_Ranks1e9", {"fit", "tile.csv", "--model", "power", "--ranks", "1e9"},
      Bad{{"--ranks", "1000000000", "above the limit"}});
  add("Density_Ranks1e9", Cat(kDensity, {"--ranks", "1e9"}),
      Bad{{"--ranks", "1000000000", "above the limit"}});
  // Far above the cells.
  add("CutWeights_RanksAboveCells",
      {"cut", "--model", "discrete", "--weights", "w4.txt", "--ranks", "6"}, OneCellEach(6, 4));
  add("CutWeights_RanksFarAboveCells",
      {"cut", "--model", "discrete", "--weights", "w4.txt", "--ranks", "1000"},
      OneCellEach(1000, 4));
  add("CutInteger_RanksFarAboveCells",
      {"cut", "--model", "power", "--param", "p=1", "--domain", "0:4", "--integer", "--ranks",
       "50"},
      OneCellEach(50, 4));
  add("Weights_RanksAboveCells", Cat(kWeights, {"--ranks", "5"}), Bad{{"5"}});
  add("Weights_RanksFarAboveCells", Cat(kWeights, {"--ranks", "1000"}), Bad{{"1000"}});
  add("HeatMap_RanksFarAboveCells", Cat(kHeat, {"--ranks", "1000"}), Bad{{"1000"}});
  add("Weights_GridAboveCells", Cat(kWeights, {"--grid", "1x3"}), Bad{{"--grid 1x3", "2 cells"}});
  // Process meshes and graphs that do not match the loads.
  add("Diffuse_MeshZero", {"diffuse", "--mesh", "0", "--loads", "l4.txt"}, Bad{{"--mesh", "'0'"}});
  add("Diffuse_MeshMinusOne", {"diffuse", "--mesh", "-1", "--loads", "l4.txt"},
      Bad{{"--mesh", "'-1'"}});
  add("Diffuse_Mesh1e12", {"diffuse", "--mesh", "1e12", "--loads", "l4.txt"},
      Bad{{"--mesh", "1e12"}});
  add("Diffuse_MeshEmpty", {"diffuse", "--mesh", "", "--loads", "l4.txt"}, Bad{{"--mesh", "''"}});
  add("Diffuse_MeshFourDims", {"diffuse", "--mesh", "1x1x2x2", "--loads", "l4.txt"},
      Bad{{"--mesh", "1x1x2x2"}});
  add("Diffuse_MeshCountMismatch", {"diffuse", "--mesh", "3", "--loads", "l4.txt"},
      Bad{{"l4.txt", "4 loads", "3"}});
  add("Diffuse_MeshShapeMismatch", {"diffuse", "--mesh", "2x3", "--loads", "l4.txt"},
      Bad{{"l4.txt", "4 loads", "6"}});
  add("Diffuse_GraphNodeAboveLoads", {"diffuse", "--graph", "g4.txt", "--loads", "l2.txt"},
      Bad{{"g4.txt:2:", "node 2"}});
  add("Simulate_ElementsCountMismatch", Cat(kMesh, {"--simulate", "--elements", "l3.txt"}),
      Bad{{"l3.txt", "3", "4"}});
  add("Shift_LoadsCountMismatch",
      {"diffuse", "--cuts", "c3.txt", "--loads", "l4.txt", "--model", "power", "--param", "p=1",
       "--domain", "0:10"},
      Bad{{"l4.txt", "4 loads", "c3.txt"}});
  add("Tasks_RankOutsideMesh", {"diffuse", "--tasks", "t.csv", "--mesh", "1"},
      Bad{{"t.csv", "rank 1"}});
  add("Metrics_ModelledCountMismatch", {"metrics", "l3.txt", "--modelled", "l4.txt"},
      Bad{{"--modelled", "l4.txt", "4"}});
  // Speeds.
  add("Cut_SpeedsCountMismatch", Cat(kCut, {"--ranks", "3", "--speeds", "1,1"}),
      Bad{{"--ranks 3", "2 ranks", "--speeds"}});
  add("Cut_NodeTypesCountMismatch", Cat(kCut, {"--ranks", "2", "--node-types", "2x1,1x3"}),
      Bad{{"--ranks 2", "3 ranks", "--node-types"}});
  add("CutFit_SpeedsCountMismatch", Cat(kCutFit, {"--ranks", "3", "--speeds", "1,1"}),
      Bad{{"--ranks 3", "2 ranks"}});
  add("Density_SpeedsCountMismatch", Cat(kDensity, {"--grid", "2x2", "--speeds", "1,1"}),
      Bad{{"--grid 2x2", "2"}});
  add("Weights_SpeedsCountMismatch", Cat(kWeights, {"--ranks", "2", "--speeds", "1,1,1"}),
      Bad{{"--ranks", "3"}});
  add("HeatMap_SpeedsCountMismatch", Cat(kHeat, {"--grid", "2x1", "--speeds", "1,1,1"}),
      Bad{{"--grid 2x1", "3"}});
  add("Cut_SpeedZero", Cat(kCut, {"--speeds", "1,0"}), Bad{{"speed", "0"}});
  add("Cut_SpeedNegative", Cat(kCut, {"--speeds", "1,-2"}), Bad{{"speed", "-2"}});
  add("Cut_SpeedNaN", Cat(kCut, {"--speeds", "1,nan"}), Bad{{"--speeds", "'nan'"}});
  add("Cut_SpeedEmptyField", Cat(kCut, {"--speeds", "1,,2"}), Bad{{"--speeds", "''"}});
  add("Cut_SpeedsEmpty", Cat(kCut, {"--speeds", ""}), Bad{{"--speeds", "''"}});
  add("Cut_NodeTypesZeroCount", Cat(kCut, {"--node-types", "0x1"}), Bad{{"--node-types", "'0'"}});
  add("Cut_NodeTypesZeroRatio", Cat(kCut, {"--node-types", "2x0"}), Bad{{"0"}});
  add("Cut_NodeTypesMalformed", Cat(kCut, {"--node-types", "2y1"}), Bad{{"--node-types", "'2y1'"}});
  // Shapes.
  add("Weights_ShapeWider",
      {"partition", "--weights", "p22.txt", "--shape", "3x2", "--grid", "2x1"},
      Bad{{"p22.txt", "3x2"}});
  add("Weights_ShapeTaller",
      {"partition", "--weights", "p22.txt", "--shape", "2x3", "--grid", "2x1"},
      Bad{{"p22.txt", "2x3"}});
  add("Weights_ShapeOneDim", {"partition", "--weights", "p22.txt", "--shape", "4", "--grid", "2"},
      Bad{{"p22.txt:1:", "4"}});
  add("Weights_ShapeEmpty", {"partition", "--weights", "p22.txt", "--shape", "", "--grid", "2x1"},
      Bad{{"--shape", "''"}});
  add("Weights_ShapeHuge",
      {"partition", "--weights", "p22.txt", "--shape", "1e12x1e12", "--grid", "2x1"},
      Bad{{"--shape", "1e12x1e12"}});
  add("Raw_ShapeMismatch", {"partition", "--weights", "p22.bin", "--shape", "2x3", "--grid", "2x1"},
      Bad{{"p22.bin", "2x3"}});
  add("Raw_ShapeThreeDims",
      {"partition", "--weights", "p22.bin", "--shape", "2x2x1", "--grid", "2x1x1"},
      Bad{{"p22.bin", "2x2x1"}});
  add("HeatMap_ShapeMismatch", {"plot", "--weights", "p22.txt", "--shape", "3x2"},
      Bad{{"p22.txt", "3x2"}});
  add("Weights_GridDimsMismatch", Cat(kWeights, {"--grid", "2x1x1"}), Bad{{"--grid", "2x1x1"}});
  // Minimum widths that cannot be met.
  add("Density_MinWidthTooLarge", Cat(kDensity, {"--grid", "4x1", "--min-width", "6"}),
      Bad{{"6", "do not fit"}});
  add("Density_MinWidthAutoGrid", Cat(kDensity, {"--ranks", "4", "--min-width", "11"}),
      Bad{{"11"}});
  add("Weights_MinWidthTooLarge", Cat(kWeights, {"--grid", "2x1", "--min-width", "2"}),
      Bad{{"do not fit"}});
  add("HeatMap_MinWidthTooLarge", Cat(kHeat, {"--grid", "2x1", "--min-width", "1.5"}),
      Bad{{"1.5", "do not fit"}});
  add("Density_MinWidthNaN", Cat(kDensity, {"--grid", "2x1", "--min-width", "nan"}),
      Bad{{"--min-width", "'nan'"}});
  add("Density_MinWidthEmpty", Cat(kDensity, {"--grid", "2x1", "--min-width", ""}),
      Bad{{"--min-width", "''"}});
  // Both ranges are already narrower than 6: they keep their widths (the
  // boundary is capped where it was), as cli.md says, rather than failing.
  add("Shift_MinWidthAboveBothRanges", Cat(kShift, {"--min-width", "6"}),
      GoodJson([](const json& d) {
        EXPECT_EQ(d["cuts"], json::parse("[0.0, 5.0, 10.0]"));
        EXPECT_EQ(d["boundaries"][0]["capped"], true);
      }));
  add("Shift_MinWidthNegative", Cat(kShift, {"--min-width", "-1"}), Bad{{"--min-width", "'-1'"}});
  add("Shift_MaxMoveZero", Cat(kShift, {"--max-move", "0"}), Bad{{"--max-move", "'0'"}});
  // Flags that conflict or do not apply.
  add("Cut_SpeedsAndNodeTypes", Cat(kCut, {"--speeds", "1,1", "--node-types", "2x1"}),
      Bad{{"--speeds", "--node-types"}});
  add("Cut_SamplesAndWeights",
      {"cut", "--model", "linear", "--samples", "s.csv", "--weights", "w4.txt", "--ranks", "2"},
      Bad{{"--weights"}});
  add("Cut_ClosedFormWithSamples", Cat(kCut, {"--samples", "s.csv", "--ranks", "2"}),
      Bad{{"--samples"}});
  add("Cut_DiscreteWithDomain",
      {"cut", "--model", "discrete", "--weights", "w4.txt", "--domain", "0:4", "--ranks", "2"},
      Bad{{"--domain"}});
  add("Cut_ClosedFormWithoutDomain", {"cut", "--model", "power", "--param", "p=1", "--ranks", "2"},
      Bad{{"--domain"}});
  add("CutFit_WithWeights", Cat(kCutFit, {"--weights", "w4.txt", "--ranks", "2"}),
      Bad{{"--weights"}});
  add("Fit_WithDomain", Cat(kFit, {"--domain", "1:5"}), Bad{{"--domain"}});
  add("Fit_WithSpeeds", Cat(kFit, {"--speeds", "1,1"}), Bad{{"--speeds"}});
  add("Density_MethodWithWeights", Cat(kWeights, {"--grid", "2x1", "--method", "secant"}),
      Bad{{"--method"}});
  add("PlotSamples_WithBox", Cat(kPlot, {"--box", "0:1,0:1"}), Bad{{"--box"}});
  add("HeatMap_WithModel", Cat(kHeat, {"--model", "power"}), Bad{{"--model"}});
  add("HeatMap_WithLog", Cat(kHeat, {"--log", "xy"}), Bad{{"--log"}});
  add("Diffuse_MeshAndGraph", Cat(kMesh, {"--graph", "g4.txt"}), Bad{{"--mesh", "--graph"}});
  add("Diffuse_LoadsAndTasks", Cat(kTasks, {"--loads", "l2.txt"}), Bad{{"--loads", "--tasks"}});
  add("Diffuse_CutsAndSimulate", Cat(kShift, {"--simulate"}), Bad{{"--simulate"}});
  add("Diffuse_CutsWithMesh", Cat(kShift, {"--mesh", "2"}), Bad{{"--mesh"}});
  add("Diffuse_TorusWithGraph", {"diffuse", "--graph", "g4.txt", "--loads", "l4.txt", "--torus"},
      Bad{{"--torus"}});
  add("Diffuse_GammaWithoutSimulate", Cat(kMesh, {"--gamma", "0.5"}), Bad{{"--gamma"}});
  add("Diffuse_MaxMoveOnMesh", Cat(kMesh, {"--max-move", "0.5"}), Bad{{"--max-move"}});
  add("Diffuse_SelectionOnMesh", Cat(kMesh, {"--selection", "trimming"}), Bad{{"--selection"}});
  add("Simulate_WithScheme", Cat(kMesh, {"--simulate", "--scheme", "lsq"}), Bad{{"--scheme"}});
  add("Diffuse_WithoutLoads", {"diffuse", "--mesh", "4"}, Bad{{"--loads"}});
  add("Diffuse_ExplicitUnstable", Cat(kMesh, {"--scheme", "explicit", "--alpha", "0.9"}),
      Bad{{"explicit", "0.9"}});
  add("Metrics_TwoFiles", {"metrics", "l3.txt", "l4.txt"}, Bad{{"l4.txt"}});
  // Option values: empty, not finite, out of range.
  add("Cut_DomainReversed",
      {"cut", "--model", "power", "--param", "p=1", "--domain", "10:0", "--ranks", "2"},
      Bad{{"lo=10", "hi=0"}});
  add("Cut_DomainEmpty",
      {"cut", "--model", "power", "--param", "p=1", "--domain", "", "--ranks", "2"},
      Bad{{"--domain", "''"}});
  add("Cut_DomainNaN",
      {"cut", "--model", "power", "--param", "p=1", "--domain", "0:nan", "--ranks", "2"},
      Bad{{"--domain", "'nan'"}});
  add("Cut_DomainOverflow",
      {"cut", "--model", "power", "--param", "p=1", "--domain", "0:1e309", "--ranks", "2"},
      Bad{{"--domain", "'1e309'"}});
  add("Cut_DomainHex",
      {"cut", "--model", "power", "--param", "p=1", "--domain", "0:0x10", "--ranks", "2"},
      Bad{{"--domain", "'0x10'"}});
  add("Cut_ParamNaN",
      {"cut", "--model", "power", "--param", "p=nan", "--domain", "0:1", "--ranks", "2"},
      Bad{{"p", "'nan'"}});
  add("Cut_ParamEmptyValue",
      {"cut", "--model", "power", "--param", "p=", "--domain", "0:1", "--ranks", "2"},
      Bad{{"p", "''"}});
  add("Cut_ParamEmpty",
      {"cut", "--model", "power", "--param", "", "--domain", "0:1", "--ranks", "2"},
      Bad{{"--param", "''"}});
  add("Cut_ParamTwice",
      {"cut", "--model", "power", "--param", "p=1,p=2", "--domain", "0:1", "--ranks", "2"},
      Bad{{"p"}});
  add("Cut_ModelEmpty", {"cut", "--model", "", "--domain", "0:1", "--ranks", "2"},
      Bad{{"--model", "''"}});
  add("Cut_MethodEmpty", Cat(kCut, {"--ranks", "2", "--method", ""}), Bad{{"--method", "''"}});
  add("Cut_MaxIterationsZero", Cat(kCut, {"--ranks", "2", "--max-iterations", "0"}),
      Bad{{"--max-iterations", "'0'"}});
  add("Cut_CostToleranceNegative", Cat(kCut, {"--ranks", "2", "--cost-tolerance", "-1"}),
      Bad{{"--cost-tolerance", "'-1'"}});
  add("Cut_XToleranceNaN", Cat(kCut, {"--ranks", "2", "--x-tolerance", "nan"}),
      Bad{{"--x-tolerance", "'nan'"}});
  add("Fit_ModelEmpty", {"fit", "s.csv", "--model", ""}, Bad{{"--model", "''"}});
  add("Fit_LossEmpty", Cat(kFit, {"--loss", ""}), Bad{{"--loss", "''"}});
  add("Fit_IterationsZero", Cat(kFit, {"--fit-iterations", "0"}), Bad{{"--fit-iterations", "'0'"}});
  add("Fit_GuessInf", Cat(kFit, {"--param-guess", "p=inf"}), Bad{{"p", "'inf'"}});
  add("Density_OrderEmpty", Cat(kDensity, {"--grid", "2x2", "--order", ""}),
      Bad{{"--order", "''"}});
  add("Density_GridEmpty", Cat(kDensity, {"--grid", ""}), Bad{{"--grid", "''"}});
  add("Density_BoxEmpty", {"partition", "--density", "x+y", "--box", "", "--grid", "2x1"},
      Bad{{"--box", "''"}});
  add("Density_DensityEmpty", {"partition", "--density", "", "--box", "0:1,0:1", "--grid", "2x1"},
      Bad{{"--density", "''"}});
  add("Density_ToleranceZero", Cat(kDensity, {"--grid", "2x1", "--tolerance", "0"}),
      Bad{{"--tolerance", "'0'"}});
  add("Diffuse_AlphaZero", Cat(kMesh, {"--alpha", "0"}), Bad{{"--alpha", "'0'"}});
  add("Diffuse_AlphaOne", Cat(kMesh, {"--alpha", "1"}), Bad{{"--alpha", "'1'"}});
  add("Diffuse_AlphaNaN", Cat(kMesh, {"--alpha", "nan"}), Bad{{"--alpha", "'nan'"}});
  add("Diffuse_MaxStepsZero", Cat(kMesh, {"--max-steps", "0"}), Bad{{"--max-steps", "'0'"}});
  add("Diffuse_SweepsNegative", Cat(kMesh, {"--sweeps", "-1"}), Bad{{"--sweeps", "'-1'"}});
  add("Diffuse_SchemeEmpty", Cat(kMesh, {"--scheme", ""}), Bad{{"--scheme", "''"}});
  add("Simulate_GammaZero", Cat(kMesh, {"--simulate", "--gamma", "0"}), Bad{{"--gamma", "'0'"}});
  add("Simulate_GammaAboveOne", Cat(kMesh, {"--simulate", "--gamma", "1.5"}),
      Bad{{"--gamma", "'1.5'"}});
  add("Tasks_ExhaustiveLimitAbove40", Cat(kTasks, {"--exhaustive-limit", "41"}),
      Bad{{"--exhaustive-limit", "'41'"}});
  add("Tasks_TrimEpsilonZero", Cat(kTasks, {"--selection", "trimming", "--trim-epsilon", "0"}),
      Bad{{"--trim-epsilon", "'0'"}});
  add("Tasks_SelectionEmpty", Cat(kTasks, {"--selection", ""}), Bad{{"--selection", "''"}});
  add("Metrics_ModelledEmpty", {"metrics", "l3.txt", "--modelled", ""}, Bad{{"--modelled", "''"}});
  add("PlotSamples_LogEmpty", Cat(kPlot, {"--log", ""}), Bad{{"--log", "''"}});
  // -0 is 0; one sample; all zero; duplicate and non-monotone x.
  add("CutWeights_MinusZero", {"cut", "--model", "discrete", "--weights", "mz.txt", "--ranks", "2"},
      GoodJson([](const json& d) {
        // Prefix sums 0, 1, 1, 2: the half (1) is reached at boundaries 1 and
        // 2, ties go to the smaller index, exactly as for a weight 0.
        ExpectCuts(d, {0, 1, 3}, 0);
        EXPECT_EQ(Num(d["parts"][1]["cost"]), 1.0);
      }))
      .files["mz.txt"] = "1\n-0\n1\n";
  add("Metrics_MinusZero", {"metrics", "mz.txt"}, GoodJson([](const json& d) {
        EXPECT_EQ(Num(d["stats"]["min"]), 0.0);
        EXPECT_FALSE(std::signbit(Num(d["stats"]["min"]))) << "-0 printed as a negative time";
        EXPECT_EQ(Num(d["stats"]["argmin"]), 1.0);
        EXPECT_EQ(Num(d["stats"]["mean"]), 0.5);
      }))
      .files["mz.txt"] = "1\n-0\n";
  add("Diffuse_MinusZeroLoad", {"diffuse", "--mesh", "2", "--loads", "mz.txt", "--scheme", "lsq"},
      GoodJson([](const json& d) {  // 2 and 0 meet at 1
        EXPECT_EQ(Num(d["transfers"][0]["transfer"]), 1.0);
        EXPECT_EQ(Num(d["loads"][1]["final"]), 1.0);
      }))
      .files["mz.txt"] = "2\n-0\n";
  add("Weights_MinusZero", {"partition", "--weights", "mz.txt", "--shape", "2x2", "--grid", "1x2"},
      GoodJson([](const json& d) {  // the row y = 0 holds all the cost
        ASSERT_EQ(d["parts"].size(), 2u) << d.dump();
        EXPECT_EQ(Num(d["parts"][0]["cost"]), 2.0);
        EXPECT_EQ(Num(d["parts"][1]["cost"]), 0.0);
      }))
      .files["mz.txt"] = "1 1\n-0 -0\n";
  add("Metrics_OneSample", {"metrics", "one.txt"}, GoodJson([](const json& d) {
        EXPECT_EQ(Num(d["stats"]["ranks"]), 1.0);
        EXPECT_EQ(Num(d["stats"]["le"]), 100.0);
      }))
      .files["one.txt"] = "5\n";
  add("Metrics_AllZero", {"metrics", "z.txt"}, Bad{{"z.txt"}}).files["z.txt"] = "0\n0\n";
  add("CutWeights_AllZero", {"cut", "--model", "discrete", "--weights", "z.txt", "--ranks", "2"},
      Bad{{"z.txt"}})
      .files["z.txt"] = "0\n0\n0\n";
  add("HeatMap_AllZero", {"plot", "--weights", "z.txt", "--shape", "2x2"}, Bad{{"z.txt"}})
      .files["z.txt"] = "0 0\n0 0\n";
  add("Fit_OneSample", {"fit", "one.csv", "--model", "power"}, Bad{{"one.csv"}}).files["one.csv"] =
      "lo,hi,dt\n1,2,3\n";
  add("Fit_DuplicateX", {"fit", "dup.csv", "--model", "power"}, Bad{{"dup.csv:4:", "x=2"}})
      .files["dup.csv"] = "x,t\n1,1\n2,4\n2,5\n3,9\n4,16\n";
  add("CutFit_OneSample", {"cut", "--fit", "one.csv", "--model", "power", "--ranks", "2"},
      Bad{{"one.csv"}})
      .files["one.csv"] = "lo,hi,dt\n1,2,3\n";
  add("PlotSamples_OneSample", {"plot", "one.csv", "--model", "power"}, Bad{{"one.csv"}})
      .files["one.csv"] = "lo,hi,dt\n1,2,3\n";
  add("CutSamples_OneSample", {"cut", "--model", "linear", "--samples", "one.csv", "--ranks", "2"},
      Bad{{"one.csv"}})
      .files["one.csv"] = "x,t\n1,1\n";
  add("CutSamples_DuplicateX", {"cut", "--model", "linear", "--samples", "dup.csv", "--ranks", "2"},
      Bad{{"dup.csv:4:", "x=2"}})
      .files["dup.csv"] = "x,t\n1,1\n2,4\n2,5\n3,9\n4,16\n";
  add("Tasks_DuplicateId", {"diffuse", "--tasks", "dup.csv", "--mesh", "2"},
      Bad{{"dup.csv:3:", "id 1"}})
      .files["dup.csv"] = "rank,id,load\n0,1,2\n1,1,3\n";
  add("CutSamples_NonMonotoneX",
      {"cut", "--model", "linear", "--samples", "nm.csv", "--ranks", "2"}, Bad{{"nm.csv:4:"}})
      .files["nm.csv"] = "x,t\n1,1\n3,4\n2,5\n4,16\n";
  add("Shift_CutsNonMonotone",
      {"diffuse", "--cuts", "nm.txt", "--loads", "l2.txt", "--model", "power", "--param", "p=1",
       "--domain", "0:10"},
      Bad{{"nm.txt:3:"}})
      .files["nm.txt"] = "0\n6\n5\n";
  add("Diffuse_AllZeroLoads", {"diffuse", "--mesh", "2", "--loads", "z.txt"},
      Bad{{"z.txt", "zero"}})
      .files["z.txt"] = "0\n0\n";
  // Issue #25's smaller findings: an empty command word, a process grid of
  // more ranks than an int holds.
  add("EmptyCommandWord", {""}, Bad{{"not expected", "\"\" (an empty argument)"}})
      .rerun_with_output = false;
  add("Partition_GridTooManyRanks",
      {"partition", "--density", "1", "--box", "0:1,0:1", "--grid", "100000x100000"},
      Bad{{"100000x100000", "at most 2147483647 ranks", "10000000000"}});
  return rows;
}

}  // namespace isocost::testing::matrix
