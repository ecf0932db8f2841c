// End-to-end tests of `isocost partition` (src/cli/partition_command.cpp), run
// as a child process. Expected values are derived here, never copied from a run:
//   - Swartz §5: rho = x + y on [0,20]². The cost below y of the whole box is
//     t(y) = ∫_0^y ∫_0^20 (x + s) dx ds = 200·y + 10·y², TT = t(20) = 8000, so
//     t(y_i) = 2000·i gives y_i = −10 + √(100 + 200·i); by symmetry the same
//     numbers along x for columns.
//   - rho = x·y·z on [0,1]³: every marginal of a box [0,a]×… is ∝ a², so a
//     2-way split at equal cost cuts each axis at 1/√2 in every piece (the
//     density is a product, so a slab's y marginal has the same shape); each
//     of the 8 parts costs TT/8 = 1/64.
//   - Box masses of x + y: ∫ over [x0,x1]×[y0,y1] = (x1−x0)(y1−y0)·(x̄ + ȳ).
//   - Gridded partitions: sums of the cells in the file; the optimal
//     bottleneck of a two-way split by brute force over every split line.
//   - --grid auto: every candidate (factorisation × axis order) run explicitly.
//   - --min-width on x + y, 4 rows of height >= 4.5: the top row is the
//     densest, so its cost is at least that of [15.5, 20], t(20) − t(15.5) =
//     2497.5, and [0,6.5], [6.5,11], [11,15.5], [15.5,20] reaches it: the
//     optimal heaviest part is 2497.5.
// The heat-map mode of `isocost plot` and bad input: test_cli_partition_errors.cpp.
#include "cli_partition_test.hpp"

namespace {

double SwartzRow(int i) { return -10 + std::sqrt(100.0 + 200.0 * i); }

// ∫ (x + y) over [x0,x1] × [y0,y1].
double MassXPlusY(double x0, double x1, double y0, double y1) {
  return (x1 - x0) * (y1 - y0) * (0.5 * (x0 + x1) + 0.5 * (y0 + y1));
}

std::vector<double> Coords(const json& j) {
  std::vector<double> v;
  for (const auto& x : j) v.push_back(Num(x));
  return v;
}

// The parts tile the box: inside it, pairwise disjoint, volumes summing to its volume.
void ExpectTiling(const json& parts, const std::vector<double>& lo, const std::vector<double>& hi) {
  const std::size_t dims = lo.size();
  double box_volume = 1;
  for (std::size_t a = 0; a < dims; ++a) box_volume *= hi[a] - lo[a];
  double sum = 0;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const auto plo = Coords(parts[p]["lo"]), phi = Coords(parts[p]["hi"]);
    ASSERT_EQ(plo.size(), dims);
    ASSERT_EQ(phi.size(), dims);
    double v = 1;
    for (std::size_t a = 0; a < dims; ++a) {
      EXPECT_GE(plo[a], lo[a]) << "part " << p;
      EXPECT_LE(phi[a], hi[a]) << "part " << p;
      EXPECT_LE(plo[a], phi[a]) << "part " << p;
      v *= phi[a] - plo[a];
    }
    EXPECT_NEAR(Num(parts[p]["volume"]), v, 1e-12 * box_volume) << "part " << p;
    sum += v;
    for (std::size_t q = 0; q < p; ++q) {
      const auto qlo = Coords(parts[q]["lo"]), qhi = Coords(parts[q]["hi"]);
      double overlap = 1;
      for (std::size_t a = 0; a < dims; ++a)
        overlap *= std::max(0.0, std::min(phi[a], qhi[a]) - std::max(plo[a], qlo[a]));
      EXPECT_LE(overlap, 1e-12 * box_volume) << "parts " << q << " and " << p << " overlap";
    }
  }
  EXPECT_NEAR(sum, box_volume, 1e-12 * box_volume);
}

// ---------------------------------------------------------------------------
// 1. Swartz §5 through the command line

TEST_F(Partition, SwartzFourRowsOfXPlusY) {
  const json j = Run({"--density", "x+y", "--box", "0:20,0:20", "--grid", "1x4"});
  EXPECT_EQ(j.value("command", ""), "partition");
  ASSERT_TRUE(j.contains("density"));
  EXPECT_EQ(j["density"].value("dims", 0), 2);
  EXPECT_NEAR(Num(j["density"]["total"]), 8000.0, 1e-9 * 8000);
  EXPECT_EQ(Coords(j["density"]["box"]["lo"]), (std::vector<double>{0, 0}));
  EXPECT_EQ(Coords(j["density"]["box"]["hi"]), (std::vector<double>{20, 20}));
  EXPECT_TRUE(j["density"]["shape"].is_null());
  EXPECT_EQ(j["grid"]["counts"], json::array({4}));
  EXPECT_EQ(j["grid"]["axes"], json::array({1}));  // four rows: cuts along y
  EXPECT_EQ(j["grid"].value("chosen_by", ""), "--grid");

  const json& parts = j["parts"];
  ASSERT_EQ(parts.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE("rank " + std::to_string(i));
    const json& p = parts[i];
    EXPECT_EQ(p.value("rank", -1), i);
    EXPECT_EQ(Num(p["lo"][0]), 0.0);
    EXPECT_EQ(Num(p["hi"][0]), 20.0);
    EXPECT_NEAR(Num(p["lo"][1]), SwartzRow(i), 1e-9);
    EXPECT_NEAR(Num(p["hi"][1]), SwartzRow(i + 1), 1e-9);
    EXPECT_NEAR(Num(p["cost"]), 2000.0, 1e-9 * 8000);
    EXPECT_NEAR(Num(p["share"]), 0.25, 1e-12);
    EXPECT_NEAR(Num(p["time"]), 2000.0, 1e-9 * 8000);
    EXPECT_TRUE(p["cells_lo"].is_null());
    // Shared faces only: 20 per interior cut.
    EXPECT_NEAR(Num(p["surface"]), (i == 0 || i == 3) ? 20.0 : 40.0, 1e-12);
  }
  EXPECT_EQ(Num(parts[0]["lo"][1]), 0.0);
  EXPECT_EQ(Num(parts[3]["hi"][1]), 20.0);
  ExpectTiling(parts, {0, 0}, {20, 20});
  EXPECT_NEAR(Num(j["predicted"]["le"]), 100.0, 1e-8);
  EXPECT_NEAR(Num(j["predicted"]["max_time"]), 2000.0, 1e-9 * 8000);
  EXPECT_NEAR(Num(j["predicted"]["cut_surface"]), 60.0, 1e-12);
}

TEST_F(Partition, SwartzFourColumnsGiveTheSameNumbersAlongX) {
  const json j = Run({"--density", "x+y", "--box", "0:20,0:20", "--grid", "4x1"});
  EXPECT_EQ(j["grid"]["axes"], json::array({0}));
  const json& parts = j["parts"];
  ASSERT_EQ(parts.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE("rank " + std::to_string(i));
    EXPECT_NEAR(Num(parts[i]["lo"][0]), SwartzRow(i), 1e-9);
    EXPECT_NEAR(Num(parts[i]["hi"][0]), SwartzRow(i + 1), 1e-9);
    EXPECT_EQ(Num(parts[i]["lo"][1]), 0.0);
    EXPECT_EQ(Num(parts[i]["hi"][1]), 20.0);
  }
}

TEST_F(Partition, TableShowsEveryRankAndThePrediction) {
  const std::string out =
      Ok({"partition", "--density", "x+y", "--box", "0:20,0:20", "--grid", "1x4"});
  const auto lines = Lines(out);
  std::size_t header = lines.size();
  for (std::size_t k = 0; k < lines.size(); ++k)
    if (Tokens(lines[k]).size() > 0 && Tokens(lines[k])[0] == "rank") header = k;
  ASSERT_LT(header + 4, lines.size()) << out;
  const auto names = Tokens(lines[header]);
  // rank, x lo, x hi, y lo, y hi, cost, share %, volume, surface
  const std::vector<std::string> expected{"rank", "x",  "lo",   "x",     "hi", "y",      "lo",
                                          "y",    "hi", "cost", "share", "%",  "volume", "surface"};
  EXPECT_EQ(names, expected) << out;
  for (int i = 0; i < 4; ++i) {
    const auto row = Tokens(lines[header + 1 + i]);
    ASSERT_EQ(row.size(), 9u) << lines[header + 1 + i];
    EXPECT_EQ(row[0], std::to_string(i));
    EXPECT_NEAR(std::stod(row[3]), SwartzRow(i), 1e-9);
    EXPECT_NEAR(std::stod(row[4]), SwartzRow(i + 1), 1e-9);
    EXPECT_NEAR(std::stod(row[5]), 2000.0, 1e-4);
    EXPECT_NEAR(std::stod(row[6]), 25.0, 1e-4);
  }
  EXPECT_TRUE(Has(out, "predicted L_E = 100 %")) << out;
  EXPECT_TRUE(Has(out, "heaviest part: rank")) << out;
  EXPECT_TRUE(Has(out, "total cut surface: 60")) << out;
  EXPECT_TRUE(Has(out, "grid: 4 along y")) << out;
}

TEST_F(Partition, OrderChoosesWhichAxisIsCutFirst) {
  // rho = x·x + 3·y on [0,2] × [0,1] is not symmetric: the two orders differ.
  const json xy =
      Run({"--density", "x*x+3*y", "--box", "0:2,0:1", "--grid", "2x2", "--order", "xy"});
  const json yx =
      Run({"--density", "x*x+3*y", "--box", "0:2,0:1", "--grid", "2x2", "--order", "yx"});
  EXPECT_EQ(xy["grid"]["axes"], json::array({0, 1}));
  EXPECT_EQ(yx["grid"]["axes"], json::array({1, 0}));
  // Ranks 0 and 1 share the first level's slab: an x range for xy, a y range for yx.
  EXPECT_EQ(Num(xy["parts"][0]["hi"][0]), Num(xy["parts"][1]["hi"][0]));
  EXPECT_EQ(Num(yx["parts"][0]["hi"][1]), Num(yx["parts"][1]["hi"][1]));
  EXPECT_NE(Num(yx["parts"][0]["hi"][0]), Num(yx["parts"][2]["hi"][0]));
  for (const json* j : {&xy, &yx}) {
    ExpectTiling((*j)["parts"], {0, 0}, {2, 1});
    for (const auto& p : (*j)["parts"]) EXPECT_NEAR(Num(p["share"]), 0.25, 1e-9);
  }
  // Without --order: x, then y.
  const json plain = Run({"--density", "x*x+3*y", "--box", "0:2,0:1", "--grid", "2x2"});
  EXPECT_EQ(plain["grid"]["axes"], json::array({0, 1}));
}

TEST_F(Partition, ThreeDimensionalSectioningOfAProductDensity) {
  const json j = Run({"--density", "x*y*z", "--box", "0:1,0:1,0:1", "--grid", "2x2x2"});
  EXPECT_EQ(j["grid"]["axes"], json::array({0, 1, 2}));
  const json& parts = j["parts"];
  ASSERT_EQ(parts.size(), 8u);
  const double c = std::sqrt(0.5);
  for (int r = 0; r < 8; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    // Rank r = 4·ix + 2·iy + iz (the last level fastest).
    const int bits[3] = {(r >> 2) & 1, (r >> 1) & 1, r & 1};
    for (int a = 0; a < 3; ++a) {
      EXPECT_NEAR(Num(parts[r]["lo"][a]), bits[a] ? c : 0.0, 1e-9);
      EXPECT_NEAR(Num(parts[r]["hi"][a]), bits[a] ? 1.0 : c, 1e-9);
    }
    EXPECT_NEAR(Num(parts[r]["cost"]), 1.0 / 64, 1e-11);
  }
  ExpectTiling(parts, {0, 0, 0}, {1, 1, 1});
}

// ---------------------------------------------------------------------------
// 2. Weights files

class WeightsFile : public Partition, public ::testing::WithParamInterface<bool> {};

TEST_P(WeightsFile, TwoByTwoOwnsEveryCellOnceAndCostsAreCellSums) {
  const bool raw = GetParam();
  const Weights g = Scrambled(7, 5);
  const std::string f = raw ? File("w.bin", g.raw()) : File("w.csv", g.text());
  const json j = Run({"--weights", f, "--shape", g.shape(), "--grid", "2x2"});
  double total = 0;
  for (const double v : g.w) total += v;
  EXPECT_EQ(j["density"]["shape"], json::array({7, 5}));
  EXPECT_EQ(Num(j["density"]["total"]), total);
  EXPECT_EQ(j["density"].value("kind", ""), "weights");
  EXPECT_EQ(j["predicted"].value("on_grid_lines", false), true);
  const json& parts = j["parts"];
  ASSERT_EQ(parts.size(), 4u);

  std::vector<int> owner(static_cast<std::size_t>(g.nx * g.ny), 0);
  std::vector<double> slab_cost(2, 0);
  for (int r = 0; r < 4; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const json& p = parts[r];
    ASSERT_TRUE(p["cells_lo"].is_array());
    const auto i0 = p["cells_lo"][0].get<std::int64_t>(), j0 = p["cells_lo"][1].get<std::int64_t>();
    const auto i1 = p["cells_hi"][0].get<std::int64_t>(), j1 = p["cells_hi"][1].get<std::int64_t>();
    for (std::int64_t jj = j0; jj < j1; ++jj)
      for (std::int64_t ii = i0; ii < i1; ++ii) ++owner[static_cast<std::size_t>(ii + g.nx * jj)];
    const double cost = g.sum(i0, i1, j0, j1);
    EXPECT_NEAR(Num(p["cost"]), cost, 1e-12 * total);
    EXPECT_NEAR(Num(p["share"]), cost / total, 1e-12);
    // The box in cell units is the cell range.
    EXPECT_EQ(Num(p["lo"][0]), static_cast<double>(i0));
    EXPECT_EQ(Num(p["hi"][0]), static_cast<double>(i1));
    EXPECT_EQ(Num(p["lo"][1]), static_cast<double>(j0));
    EXPECT_EQ(Num(p["hi"][1]), static_cast<double>(j1));
    slab_cost[r / 2] += cost;
  }
  for (std::size_t c = 0; c < owner.size(); ++c) EXPECT_EQ(owner[c], 1) << "cell " << c;
  ExpectTiling(parts, {0, 0}, {7, 5});

  // Level 0 (x): the split line minimises the heavier column pair (brute force).
  double best = 1e300;
  for (std::int64_t k = 0; k <= g.nx; ++k)
    best = std::min(best, std::max(g.sum(0, k, 0, g.ny), g.sum(k, g.nx, 0, g.ny)));
  EXPECT_NEAR(std::max(slab_cost[0], slab_cost[1]), best, 1e-12 * total);
  // Level 1 (y), inside each column: likewise.
  for (int s = 0; s < 2; ++s) {
    const auto i0 = parts[2 * s]["cells_lo"][0].get<std::int64_t>();
    const auto i1 = parts[2 * s]["cells_hi"][0].get<std::int64_t>();
    double b = 1e300;
    for (std::int64_t k = 0; k <= g.ny; ++k)
      b = std::min(b, std::max(g.sum(i0, i1, 0, k), g.sum(i0, i1, k, g.ny)));
    EXPECT_NEAR(std::max(Num(parts[2 * s]["cost"]), Num(parts[2 * s + 1]["cost"])), b,
                1e-12 * total);
  }
}

INSTANTIATE_TEST_SUITE_P(TextAndRaw, WeightsFile, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "Raw" : "Text");
                         });

TEST_F(Partition, TextAndRawWeightsGiveTheSamePartition) {
  const Weights g = Scrambled(9, 6);
  const json a = Run({"--weights", File("w.csv", g.text()), "--shape", g.shape(), "--grid", "3x2"});
  const json b = Run({"--weights", File("w.bin", g.raw()), "--shape", g.shape(), "--grid", "3x2"});
  EXPECT_EQ(a["parts"], b["parts"]);
}

// ---------------------------------------------------------------------------
// 3. Speeds

TEST_F(Partition, SpeedsGiveEqualTimesOnAContinuousDensity) {
  const std::vector<double> s{1, 2, 3, 4};
  const json j =
      Run({"--density", "x+y", "--box", "0:20,0:20", "--grid", "2x2", "--speeds", "1,2,3,4"});
  const json& parts = j["parts"];
  ASSERT_EQ(parts.size(), 4u);
  double sum = 0;
  for (int r = 0; r < 4; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const json& p = parts[r];
    EXPECT_EQ(Num(p["speed"]), s[r]);
    // The cost of the box from the closed form, and the time from the speed.
    const double cost =
        MassXPlusY(Num(p["lo"][0]), Num(p["hi"][0]), Num(p["lo"][1]), Num(p["hi"][1]));
    EXPECT_NEAR(Num(p["cost"]), cost, 1e-9 * 8000);
    EXPECT_NEAR(cost / s[r], 8000.0 / 10, 1e-8 * 8000) << "each rank's time is TT / S";
    EXPECT_NEAR(Num(p["time"]), cost / s[r], 1e-9 * 8000);
    sum += cost;
  }
  EXPECT_NEAR(sum, 8000, 1e-9 * 8000);
  EXPECT_NEAR(Num(j["predicted"]["le"]), 100.0, 1e-6);
  ExpectTiling(parts, {0, 0}, {20, 20});

  // Swartz §4 node types: 2 of type 1 and 2 three times as fast → speeds 1,1,3,3.
  const json n =
      Run({"--density", "x+y", "--box", "0:20,0:20", "--grid", "4x1", "--node-types", "2x1,2x3"});
  for (int r = 0; r < 4; ++r) {
    const double speed = r < 2 ? 1 : 3;
    EXPECT_EQ(Num(n["parts"][r]["speed"]), speed);
    EXPECT_NEAR(Num(n["parts"][r]["cost"]), 8000.0 * speed / 8, 1e-9 * 8000);
  }
  // Columns: t(x) = 200·x + 10·x² as for rows; the first cut at TT/8 = 1000.
  EXPECT_NEAR(Num(n["parts"][0]["hi"][0]), -10 + std::sqrt(100.0 + 100.0), 1e-9);
}

TEST_F(Partition, SpeedsOnWeightsMinimiseTheHeaviestTime) {
  const Weights g = Scrambled(12, 1);
  const json j = Run({"--weights", File("w.csv", g.text()), "--shape", "12x1", "--speeds", "1,3"});
  // Brute force over the split line: min over k of max(cost_0/1, cost_1/3).
  double best = 1e300;
  for (std::int64_t k = 0; k <= 12; ++k)
    best = std::min(best, std::max(g.sum(0, k, 0, 1), g.sum(k, 12, 0, 1) / 3));
  EXPECT_NEAR(Num(j["predicted"]["max_time"]), best, 1e-12 * best);
  for (int r = 0; r < 2; ++r)
    EXPECT_NEAR(Num(j["parts"][r]["time"]), Num(j["parts"][r]["cost"]) / (r ? 3 : 1), 1e-12);
}

// ---------------------------------------------------------------------------
// 4. --grid auto

struct Candidate {
  std::vector<std::string> args;
  json counts, axes;
};

class AutoGrid : public Partition, public ::testing::WithParamInterface<std::string> {};

TEST_P(AutoGrid, PicksTheSmallestHeaviestPartThenTheSmallestSurface) {
  const std::string speeds = GetParam();  // empty: 4 ranks of speed 1
  const Weights g = Scrambled(8, 6);
  const std::string f = File("w.csv", g.text());
  const std::vector<std::string> base{"--weights", f, "--shape", g.shape()};
  const std::vector<std::string> ranks = speeds.empty()
                                             ? std::vector<std::string>{"--ranks", "4"}
                                             : std::vector<std::string>{"--speeds", speeds};
  // Every factorisation of 4 over (x, y) and every axis order (levels of
  // count 1 dropped): 1x4, 2x2 x-first, 2x2 y-first, 4x1.
  const std::vector<Candidate> candidates{
      {{"--grid", "1x4"}, json::array({4}), json::array({1})},
      {{"--grid", "2x2", "--order", "xy"}, json::array({2, 2}), json::array({0, 1})},
      {{"--grid", "2x2", "--order", "yx"}, json::array({2, 2}), json::array({1, 0})},
      {{"--grid", "4x1"}, json::array({4}), json::array({0})}};
  std::vector<double> max_time, surface;
  for (const auto& c : candidates) {
    const json j =
        Run(Cat(Cat(base, c.args), speeds.empty() ? std::vector<std::string>{}
                                                  : std::vector<std::string>{"--speeds", speeds}));
    EXPECT_EQ(j["grid"]["axes"], c.axes);
    max_time.push_back(Num(j["predicted"]["max_time"]));
    surface.push_back(Num(j["predicted"]["cut_surface"]));
  }
  const double best_time = *std::min_element(max_time.begin(), max_time.end());
  double best_surface = 1e300;
  for (std::size_t k = 0; k < candidates.size(); ++k)
    if (max_time[k] <= best_time * (1 + 1e-12)) best_surface = std::min(best_surface, surface[k]);

  const json a = Run(Cat(Cat(base, {"--grid", "auto"}), ranks));
  EXPECT_EQ(a["grid"].value("chosen_by", ""), "auto");
  EXPECT_EQ(a["grid"].value("candidates", 0), 4);
  EXPECT_NEAR(Num(a["predicted"]["max_time"]), best_time, 1e-12 * best_time);
  EXPECT_NEAR(Num(a["predicted"]["cut_surface"]), best_surface, 1e-12);
  bool matches = false;
  for (std::size_t k = 0; k < candidates.size(); ++k)
    matches = matches || (a["grid"]["counts"] == candidates[k].counts &&
                          a["grid"]["axes"] == candidates[k].axes &&
                          max_time[k] <= best_time * (1 + 1e-12) && surface[k] == best_surface);
  EXPECT_TRUE(matches) << a["grid"].dump();
  // Without --grid, auto is the default; the text names the winner.
  const std::string text = Ok(Cat(Cat({"partition"}, base), ranks));
  EXPECT_TRUE(Has(text, "grid: " + a["grid"].value("name", "?") + " (--grid auto")) << text;
}

INSTANTIATE_TEST_SUITE_P(Speeds, AutoGrid, ::testing::Values("", "1,1,2,2"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return std::string(info.param.empty() ? "Uniform" : "Heterogeneous");
                         });

// ---------------------------------------------------------------------------
// 5. --min-width

TEST_F(Partition, MinimumWidthIsHonouredOnAFormula) {
  const json j =
      Run({"--density", "x+y", "--box", "0:20,0:20", "--grid", "1x4", "--min-width", "0,4.5"});
  const json& parts = j["parts"];
  ASSERT_EQ(parts.size(), 4u);
  double heaviest = 0;
  for (const auto& p : parts) {
    EXPECT_GE(Num(p["hi"][1]) - Num(p["lo"][1]), 4.5 - 1e-9) << p.dump();
    heaviest = std::max(
        heaviest, MassXPlusY(Num(p["lo"][0]), Num(p["hi"][0]), Num(p["lo"][1]), Num(p["hi"][1])));
  }
  // Unconstrained, the top row is 20 − 16.46 = 3.54 high; constrained, the
  // optimum heaviest part is the top row [15.5, 20]: 2497.5 (see the top).
  EXPECT_NEAR(heaviest, 2497.5, 1e-6);
  EXPECT_NEAR(Num(j["predicted"]["max_time"]), 2497.5, 1e-6);
  ExpectTiling(parts, {0, 0}, {20, 20});
  // One value applies to every axis.
  const json k =
      Run({"--density", "x+y", "--box", "0:20,0:20", "--grid", "1x4", "--min-width", "4.5"});
  EXPECT_EQ(k["parts"], parts);
}

TEST_F(Partition, MinimumWidthIsHonouredOnWeights) {
  Weights g{8, 2, {}};
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 8; ++i) g.w.push_back(i < 6 ? 1 : 40);  // heavy at high x
  const std::string f = File("w.csv", g.text());
  const json free = Run({"--weights", f, "--shape", "8x2", "--grid", "4x1"});
  bool narrow = false;
  for (const auto& p : free["parts"])
    narrow = narrow || p["cells_hi"][0].get<int>() - p["cells_lo"][0].get<int>() < 2;
  ASSERT_TRUE(narrow) << "the test needs a partition that the width changes";
  const json j = Run({"--weights", f, "--shape", "8x2", "--grid", "4x1", "--min-width", "2,0"});
  for (const auto& p : j["parts"])
    EXPECT_EQ(p["cells_hi"][0].get<int>() - p["cells_lo"][0].get<int>(), 2) << p.dump();
}

TEST_F(Partition, HelpListsTheCommandAndItsOptions) {
  const Outcome help = Isocost({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_TRUE(Has(help.out, "partition")) << help.out;
  const Outcome p = Isocost({"partition", "--help"});
  EXPECT_EQ(p.code, 0);
  for (const char* option : {"--density", "--box", "--weights", "--shape", "--grid", "--order",
                             "--speeds", "--node-types", "--ranks", "--min-width", "--quadrature",
                             "--tolerance", "--method", "--json"})
    EXPECT_TRUE(Has(p.out, option)) << option << "\n" << p.out;
}

}  // namespace
