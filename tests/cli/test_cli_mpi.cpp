// `mpiexec -n R isocost …`: the forms that read their input in parts give,
// at every rank count, the output of one rank byte for byte, and the cuts of
// the serial command; a bad file is one error (printed once, exit 2 on every
// rank), with nothing written; every other form runs on rank 0 alone.
// Expected values are independent where they can be: part weights are summed
// here from the assignment file, and every part is within one point of its
// target.
#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include "cli_test.hpp"

#include "isocost/density.hpp"
#include "isocost/partition.hpp"
#include "isocost/points.hpp"

#if !defined(ISOCOST_MPIEXEC) || !defined(ISOCOST_MPI_TEST_ENV)
#error "ISOCOST_MPIEXEC and ISOCOST_MPI_TEST_ENV must be set (tests/mpi)"
#endif

namespace {

// Under AddressSanitizer each launch costs seconds: a few rank counts there,
// all of them in the plain build. (ISOCOST_SANITIZED is set by CMake for any
// sanitizer and compiler; clang does not define __SANITIZE_ADDRESS__.)
#if defined(ISOCOST_SANITIZED)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
std::vector<int> RankCounts(std::vector<int> all, std::vector<int> sanitized) {
  return kSanitized ? sanitized : all;
}

class CliMpi : public Cli {
 public:
  using Cli::dir;
  using Cli::OkJson;
  void SetUp() override {
    Cli::SetUp();
    // The environment of every MPI test (cmake/isocostTesting.cmake), NAME=value
    // entries separated by '|': mpiexec as root on a 2-core machine, OpenMPI's
    // allocations kept until exit not reported as leaks (tests/mpi/lsan.supp).
    std::istringstream env(ISOCOST_MPI_TEST_ENV);
    for (std::string entry; std::getline(env, entry, '|');) {
      const auto eq = entry.find('=');
      ASSERT_NE(eq, std::string::npos) << "ISOCOST_MPI_TEST_ENV entry " << entry;
      ::setenv(entry.substr(0, eq).c_str(), entry.substr(eq + 1).c_str(), 1);
    }
  }
  Outcome Mpi(int ranks, const std::vector<std::string>& args) {
    isocost::testing::RunOptions options;
    options.launcher = {ISOCOST_MPIEXEC, "-n", std::to_string(ranks)};
    return CliTest::Isocost(args, options);
  }
  std::string MpiOk(int ranks, const std::vector<std::string>& args) {
    const Outcome r = Mpi(ranks, args);
    EXPECT_EQ(r.code, 0) << "mpiexec -n " << ranks << " " << Show(args) << "\nstderr: " << r.err;
    return r.out;
  }
  std::string Path(const std::string& name) const { return (dir / name).string(); }
};

// Integer weights: every prefix sum is exact, so any split of the sums gives
// the same cuts.
std::vector<double> Pattern(const std::string& name, int n) {
  std::vector<double> w(static_cast<std::size_t>(n));
  unsigned state = 12345;
  for (int i = 0; i < n; ++i) {
    const double x = static_cast<double>(i) / n;
    double v = 1;
    if (name == "sieve") v = std::floor(10 * std::pow(i + 2.0, 0.43) / std::log(i + 2.0));
    if (name == "bell") v = 1 + std::floor(1000 * std::exp(-std::pow((x - 0.6) / 0.05, 2)));
    if (name == "spikes") {
      state = state * 1103515245u + 12345u;
      v = (state >> 16) % 100 == 0 ? 100 : 1;
    }
    if (name == "step") v = x < 0.7 ? 1 : 9;
    w[static_cast<std::size_t>(i)] = v;
  }
  return w;
}

void WriteText(const std::string& path, const std::vector<double>& w) {
  std::ofstream out(path);
  for (const double x : w) out << x << "\n";
}

std::vector<std::array<double, 3>> Parts(const json& j) {
  std::vector<std::array<double, 3>> p;
  for (const auto& part : j["parts"])
    p.push_back({Num(part["lo"]), Num(part["hi"]), Num(part["cost"])});
  return p;
}

TEST_F(CliMpi, CutIsTheSameAtEveryRankCount) {
  for (const std::string pattern : {"sieve", "bell", "spikes", "step"}) {
    const auto w = Pattern(pattern, 1000);
    isocost::write_grid_weights(Path("w.bin"), w, {1, {1000, 1, 1}});
    WriteText(Path("w.txt"), w);
    for (const std::string file : {"w.bin", "w.txt"}) {
      const std::vector<std::string> args{"cut",     "--model", "discrete",  "--weights", file,
                                          "--ranks", "16",      "--integer", "--json"};
      const json serial = OkJson(args);
      const std::string one = MpiOk(1, args);
      EXPECT_EQ(Parts(json::parse(one)), Parts(serial)) << pattern << " " << file;
      for (const int R :
           file == "w.bin" ? RankCounts({2, 3, 4, 5, 8}, {3, 8}) : std::vector<int>{3})
        EXPECT_EQ(MpiOk(R, args), one) << pattern << " " << file << " at " << R << " ranks";
    }
  }
}

TEST_F(CliMpi, OptimalCutIsTheSerialOptimum) {
  for (const std::string pattern : {"sieve", "bell", "spikes", "step"}) {
    isocost::write_grid_weights(Path("w.bin"), Pattern(pattern, 1000), {1, {1000, 1, 1}});
    const std::vector<std::string> args{"cut",     "--model", "discrete",  "--weights", "w.bin",
                                        "--ranks", "16",      "--optimal", "--json"};
    const json serial = OkJson(args);
    const std::string one = MpiOk(1, args);
    EXPECT_EQ(Parts(json::parse(one)), Parts(serial)) << pattern;
    EXPECT_TRUE(json::parse(one)["optimal"].get<bool>());
    for (std::size_t k = 0; k < serial["cuts"].size(); ++k)
      EXPECT_EQ(json::parse(one)["cuts"][k]["termination"], serial["cuts"][k]["termination"]);
    for (const int R : RankCounts({3, 8}, {8}))
      EXPECT_EQ(MpiOk(R, args), one) << pattern << " at " << R;
  }
  // Unequal speeds whose unconstrained optimum leaves parts empty: the
  // reachable boundaries' search, distributed as serially. 40 cells, every
  // fifth 100, the others 1, into 16 parts of speeds 1, 1, 0.25 in turn.
  std::vector<double> w(40, 1.0), prefix{0}, capacity;
  for (std::size_t i = 0; i < w.size(); i += 5) w[i] = 100;
  for (const double v : w) prefix.push_back(prefix.back() + v);
  std::string speeds;
  for (int k = 0; k < 16; ++k) {
    capacity.push_back(k % 3 == 2 ? 0.25 : 1);
    speeds += std::string(k ? "," : "") + (k % 3 == 2 ? "0.25" : "1");
  }
  const auto free = isocost::bottleneck_cuts(prefix, capacity, 0);
  ASSERT_NE(std::adjacent_find(free.begin(), free.end()), free.end());  // an empty part
  isocost::write_grid_weights(Path("w.bin"), w, {1, {40, 1, 1}});
  const std::vector<std::string> args{"cut",      "--model", "discrete",  "--weights", "w.bin",
                                      "--speeds", speeds,    "--optimal", "--json"};
  const json serial = OkJson(args);
  const std::string one = MpiOk(1, args);
  EXPECT_EQ(Parts(json::parse(one)), Parts(serial));
  EXPECT_EQ(MpiOk(3, args), one);
}

TEST_F(CliMpi, CutWithSpeedsAndMorePartsThanCells) {
  const auto w = Pattern("spikes", 10);
  isocost::write_grid_weights(Path("w.bin"), w, {1, {10, 1, 1}});
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--speeds", "1,2,3,1,2"},
                                                std::vector<std::string>{"--ranks", "13"}}) {
    std::vector<std::string> args{"cut", "--model", "discrete", "--weights", "w.bin", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const json serial = OkJson(args);
    const std::string one = MpiOk(1, args);
    EXPECT_EQ(Parts(json::parse(one)), Parts(serial)) << Show(args);
    EXPECT_EQ(MpiOk(8, args), one) << Show(args);  // ranks with no cells
  }
}

TEST_F(CliMpi, GridIsTheSerialDecomposition) {
  struct Case {
    isocost::GridShape shape;
    std::string shape_text, grid;
  };
  for (const Case& c :
       {Case{{2, {60, 40, 1}}, "60x40", "4x3"}, Case{{3, {12, 10, 9}}, "12x10x9", "2x2x2"},
        Case{{2, {30, 3, 1}}, "30x3", "5x1"}}) {
    const auto w = Pattern("bell", static_cast<int>(c.shape.count()));
    isocost::write_grid_weights(Path("g.bin"), w, c.shape);
    const std::vector<std::string> args{"partition",  "--weights", "g.bin", "--shape",
                                        c.shape_text, "--grid",    c.grid,  "--json"};
    const std::string serial = Ok(args);
    for (const int R : RankCounts({1, 2, 3, 4}, {1, 3}))
      EXPECT_EQ(MpiOk(R, args), serial) << c.grid << " at " << R;
    // --grid auto: the serial choice among every candidate grid.
    const int P = c.shape.dims == 3 ? 8 : 12;
    const std::vector<std::string> automatic{"partition",       "--weights",  "g.bin",
                                             "--shape",         c.shape_text, "--ranks",
                                             std::to_string(P), "--json"};
    const std::string chosen = Ok(automatic);
    for (const int R : RankCounts({2, 3}, {3}))
      EXPECT_EQ(MpiOk(R, automatic), chosen) << "auto at " << R;
  }
}

// Real-valued weights (two Gaussian hot spots): reduced marginals' last
// digits depend on how the rows are split among the ranks, but the totals
// and shares printed must not (issue #28: 129548.49709684894 against …895
// at 2–4 ranks). The parts are the serial command's; each part's cost is
// its cells' weight summed here in long double.
TEST_F(CliMpi, RealValuedWeightsPrintTheSameAtEveryRankCount) {
  const isocost::GridShape shape{2, {300, 211, 1}};
  std::vector<double> w(static_cast<std::size_t>(shape.count()));
  for (std::int64_t j = 0; j < 211; ++j)
    for (std::int64_t i = 0; i < 300; ++i) {
      const double x = (i + 0.5) / 300, y = (j + 0.5) / 211;
      w[static_cast<std::size_t>(i + 300 * j)] =
          1 + 40 * std::exp(-(std::pow(x - 0.3, 2) + std::pow(y - 0.6, 2)) / 0.01) +
          25 * std::exp(-(std::pow(x - 0.7, 2) + std::pow(y - 0.25, 2)) / 0.004);
    }
  isocost::write_grid_weights(Path("g.bin"), w, shape);
  const std::vector<std::string> args{"partition", "--weights", "g.bin", "--shape",
                                      "300x211",   "--grid",    "6x5",   "--json"};
  const std::string one = MpiOk(1, args);
  const json j = json::parse(one);
  const json serial = OkJson(args);
  ASSERT_EQ(j["parts"].size(), 30u);
  long double total = 0;
  for (std::size_t r = 0; r < 30; ++r) {
    const auto& part = j["parts"][r];
    EXPECT_EQ(part["cells_lo"], serial["parts"][r]["cells_lo"]) << "part " << r;
    EXPECT_EQ(part["cells_hi"], serial["parts"][r]["cells_hi"]) << "part " << r;
    long double sum = 0;
    for (std::int64_t y = part["cells_lo"][1]; y < part["cells_hi"][1].get<std::int64_t>(); ++y)
      for (std::int64_t x = part["cells_lo"][0]; x < part["cells_hi"][0].get<std::int64_t>(); ++x)
        sum += w[static_cast<std::size_t>(x + 300 * y)];
    total += sum;
    EXPECT_NEAR(Num(part["cost"]), static_cast<double>(sum), 1e-12 * static_cast<double>(sum))
        << "part " << r;
  }
  EXPECT_NEAR(Num(j["density"]["total"]), static_cast<double>(total),
              1e-13 * static_cast<double>(total));
  for (const int R : RankCounts({2, 3, 4}, {3})) EXPECT_EQ(MpiOk(R, args), one) << R << " ranks";
}

// Both methods: the serial parts at every rank count, the assignment file
// byte for byte, and each part's weight (summed here from the assignment)
// within its method's bound of its target: one point for the Hilbert curve,
// levels × one point for jagged (partition_points_jagged.hpp).
void PointsAtEveryRankCount(CliMpi& t, const std::string& method, double points_per_bound) {
  isocost::PointSet p;
  p.dims = 3;
  std::mt19937 gen(9);
  std::normal_distribution<double> cluster(0.3, 0.04);
  std::uniform_real_distribution<double> uniform(0, 1);
  for (int i = 0; i < 3000; ++i) {
    for (int a = 0; a < 3; ++a) p.coords.push_back(i % 3 ? cluster(gen) : uniform(gen));
    p.weights.push_back(static_cast<double>(1 + gen() % 4));
  }
  isocost::write_points(t.Path("p.bin"), p);
  {
    std::ofstream out(t.Path("p.csv"));
    out.precision(17);
    out << "x,y,z,w\n";
    for (std::size_t i = 0; i < p.size(); ++i)
      out << p.coords[3 * i] << "," << p.coords[3 * i + 1] << "," << p.coords[3 * i + 2] << ","
          << p.weights[i] << "\n";
  }
  const std::vector<std::string> base{"partition", "--parts", "24", "--json", "--method", method};
  auto with = [&](const std::string& file, const std::string& assignment) {
    auto a = base;
    a.insert(a.end(), {"--points", file, "--assignment", assignment});
    return a;
  };
  const json serial = t.OkJson(with("p.csv", "serial.txt"));
  const std::string assigned = ReadFile(t.dir / "serial.txt");
  // Independent check: the parts' weights summed from the assignment, each
  // within one point of its target.
  std::vector<double> sums(24, 0.0);
  const auto lines = Lines(assigned);
  ASSERT_EQ(lines.size(), p.size());
  for (std::size_t i = 0; i < lines.size(); ++i) sums.at(std::stoul(lines[i])) += p.weights[i];
  for (std::size_t k = 0; k < 24; ++k) {
    EXPECT_EQ(Num(serial["parts"][k]["weight"]), sums[k]) << "part " << k;
    EXPECT_LE(std::abs(sums[k] - Num(serial["parts"][k]["target"])),
              points_per_bound * Num(serial["points"]["max_point"]))
        << "part " << k;
  }
  for (const int R : RankCounts({1, 2, 3, 5, 8}, {1, 8}))
    for (const std::string file : {"p.bin", "p.csv"}) {
      const std::string out = t.MpiOk(R, with(file, "mpi.txt"));
      json j = json::parse(out);
      j["points"]["source"] = "p.csv";
      j["assignment"] = "serial.txt";
      EXPECT_EQ(j, serial) << file << " at " << R << " ranks";
      EXPECT_EQ(ReadFile(t.dir / "mpi.txt"), assigned) << file << " at " << R << " ranks";
    }
}

TEST_F(CliMpi, PointsAlongTheHilbertCurve) { PointsAtEveryRankCount(*this, "sfc", 1); }

// 24 parts of 3-D points: three levels (2, 3 and 4 along the axes).
TEST_F(CliMpi, PointsInJaggedParts) { PointsAtEveryRankCount(*this, "jagged", 3); }

TEST_F(CliMpi, JaggedGridAutoIsTheDefaultAndAGivenGridIsUsed) {
  WriteFile(dir / "p.csv", "0,0,1\n1,0,1\n2,0,1\n3,0,1\n0,1,1\n1,1,1\n2,1,1\n3,1,1\n");
  const std::vector<std::string> base{"partition", "--points", "p.csv",  "--parts",
                                      "4",         "--method", "jagged", "--json"};
  const json by_default = OkJson(base);
  auto with = [&](const std::string& grid) {
    auto a = base;
    a.insert(a.end(), {"--grid", grid});
    return a;
  };
  EXPECT_EQ(OkJson(with("auto")), by_default);
  // Extents 3 and 1: both factors 2 go along x first (3/1 > 1), then 3/2 > 1 again.
  EXPECT_EQ(by_default["grid"], "4 along x");
  const json given = OkJson(with("2x2"));
  EXPECT_EQ(given["grid"], "2x2 along x,y");
  for (const auto& part : given["parts"]) EXPECT_EQ(Num(part["weight"]), 2);
  const Outcome bad = Isocost(with("3x2"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(Has(bad.err, "--grid 3x2 has 6 parts but 4 were asked for")) << bad.err;
}

TEST_F(CliMpi, ABadFileIsOneErrorAndNoOutput) {
  auto w = Pattern("step", 100);
  w[90] = -1;  // on the last rank's share
  {
    std::ofstream out(Path("neg.txt"));
    for (const double x : w) out << x << "\n";
  }
  std::string raw = "ISOCOSTW";
  const std::uint32_t dims = 1;
  const std::int64_t cells = 100;
  raw.append(reinterpret_cast<const char*>(&dims), 4);
  raw.append(reinterpret_cast<const char*>(&cells), 8);
  w[90] = std::nan("");
  raw.append(reinterpret_cast<const char*>(w.data()), 8 * w.size());
  WriteFile(dir / "nan.bin", raw);
  WriteFile(dir / "short.bin", raw.substr(0, 500));
  const std::vector<std::vector<std::string>> cases{
      {"cut", "--model", "discrete", "--weights", "nan.bin", "--ranks", "4", "-o", "out.json"},
      {"cut", "--model", "discrete", "--weights", "neg.txt", "--ranks", "4", "-o", "out.json"},
      {"cut", "--model", "discrete", "--weights", "short.bin", "--ranks", "4", "-o", "out.json"},
      {"cut", "--model", "discrete", "--weights", "none.bin", "--ranks", "4", "-o", "out.json"},
      {"partition", "--weights", "nan.bin", "--shape", "10x10", "--grid", "2x2", "-o", "out.json"},
      {"partition", "--weights", "nan.bin", "--shape", "100", "--grid", "2", "-o", "out.json"},
      {"partition", "--points", "nan.bin", "--parts", "3", "-o", "out.json"},
      {"partition", "--points", "neg.txt", "--parts", "3", "-o", "out.json"},
      {"partition", "--points", "none.bin", "--parts", "3", "-o", "out.json"}};
  for (const auto& args : cases) {
    const Outcome serial = Isocost(args);
    EXPECT_EQ(serial.code, 2) << Show(args) << "\n" << serial.err;
    for (const int R : RankCounts({3, 5}, {3})) {
      const Outcome r = Mpi(R, args);
      EXPECT_EQ(r.code, 2) << Show(args) << " at " << R << "\n" << r.err;
      EXPECT_EQ(r.out, "");
      // One line from rank 0, the serial command's words.
      const auto first = r.err.find("isocost: error: ");
      ASSERT_NE(first, std::string::npos) << r.err;
      EXPECT_EQ(r.err.find("isocost: error: ", first + 1), std::string::npos) << r.err;
      EXPECT_EQ(r.err.substr(first, serial.err.size()), serial.err) << Show(args);
      EXPECT_FALSE(fs::exists(dir / "out.json"));
    }
  }
}

TEST_F(CliMpi, OtherFormsRunOnRankZeroAlone) {
  const std::vector<std::string> args{"cut",    "--model", "sieve", "--domain",
                                      "10:1e6", "--ranks", "5"};
  const std::string serial = Ok(args);
  EXPECT_EQ(MpiOk(3, args), serial);
  const std::vector<std::string> bad{"cut", "--model", "sieve", "--domain", "1:2", "--ranks", "5"};
  const Outcome r = Mpi(3, bad);
  EXPECT_EQ(r.code, 2);
  const std::string serial_err = Isocost(bad).err;
  EXPECT_EQ(r.err.substr(r.err.find("isocost: error: "), serial_err.size()), serial_err);
}

}  // namespace
