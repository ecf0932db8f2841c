// The matrix's output rows: for every subcommand, where the result goes — a
// missing directory, a directory, an empty name (exit 2, nothing written),
// "-o -" (stdout), a symlink (the link stays, its target gets the result), a
// device node (stays a device; /dev/full: exit 1) — and --json alone.
#include <sys/stat.h>

#include <cmath>

#include "cli/cli_matrix.hpp"

namespace isocost::testing::matrix {
namespace {

struct Command {
  const char* name;
  Args args;  ///< succeeds with --json
  std::function<void(const json&)> answer;
};

std::vector<Command> Commands() {
  return {
      {"Cut", Cat(kCut, {"--ranks", "5"}),
       [](const json& d) {
         ExpectCuts(d, {0, 2, 4, 6, 8, 10}, 1e-12);
       }},
      {"CutFit", Cat(kCutFit, {"--ranks", "2"}),
       [](const json& d) {
         ExpectCuts(d, {1, std::sqrt(13.0), 5}, 1e-9);
       }},
      {"Fit", kFit, ExpectPowerSquare},
      {"Partition", Cat(kWeights, {"--grid", "2x1"}),
       [](const json& d) {
         ASSERT_EQ(d["parts"].size(), 2u) << d.dump();
         for (const auto& p : d["parts"]) EXPECT_DOUBLE_EQ(Num(p["cost"]), 2.0);
       }},
      {"Metrics",
       {"metrics", "l3.txt"},
       [](const json& d) { EXPECT_DOUBLE_EQ(Num(d["stats"]["le"]), 50.0); }},
      {"Diffuse", Cat(kMesh, {"--scheme", "lsq"}), ExpectChainTransfers},
      {"Simulate", Cat(kMesh, {"--simulate"}), ExpectSimulated},
      {"Shift", Cat(kShift, {"--scheme", "lsq"}), ExpectShiftedCut},
      {"Tasks", kTasks,
       [](const json& d) { EXPECT_DOUBLE_EQ(Num(d["ranks"][0]["load_after"]), 3.0); }},
  };
}

bool IsCharDevice(const fs::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}
}  // namespace

std::vector<Row> OutputRows() {
  std::vector<Row> rows;
  auto add = [&rows](const std::string& name, const Args& args,
                     std::variant<Bad, Good> expect) -> Row& {
    return AddRow(rows, name, args, std::move(expect));
  };
  // Where the result goes.
  for (const Command& c : Commands()) {
    const std::string n = c.name;
    add(n + "_OutputInMissingDirectory", Cat(c.args, {"-o", "/nonexistent-dir/out.json"}),
        Bad{{"/nonexistent-dir/out.json"}});
    rows.back().rerun_with_output = false;
    add(n + "_OutputIsADirectory", Cat(c.args, {"-o", "outdir"}), Bad{{"outdir"}});
    rows.back().dirs = {"outdir"};
    rows.back().rerun_with_output = false;
    add(n + "_OutputEmptyName", Cat(c.args, {"-o", ""}), Bad{{"--output", "''"}});
    rows.back().rerun_with_output = false;
    add(n + "_Json", Cat(c.args, {"--json"}), GoodJson(c.answer));
    add(n + "_OutputDash", Cat(c.args, {"--json", "-o", "-"}), GoodJson(c.answer));
    add(n + "_OutputNullDevice", Cat(c.args, {"--json", "-o", "null.dev"}),
        Good{[](const Outcome& r, const fs::path& dir) {
          EXPECT_EQ(r.out, "");
          EXPECT_EQ(r.err, "");
          EXPECT_TRUE(IsCharDevice(dir / "null.dev")) << "the device was replaced";
        }})
        .devices = {{"null.dev", 3}};
    add(n + "_OutputFullDevice", Cat(c.args, {"--json", "-o", "full.dev"}),
        Good{[](const Outcome& r, const fs::path& dir) {
               EXPECT_EQ(r.out, "");
               EXPECT_EQ(r.err.rfind("isocost: error:", 0), 0u) << r.err;
               EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
               EXPECT_TRUE(IsCharDevice(dir / "full.dev")) << "the device was replaced";
             },
             1})
        .devices = {{"full.dev", 7}};
    add(n + "_OutputSymlink", Cat(c.args, {"--json", "-o", "link.json"}),
        Good{[answer = c.answer](const Outcome& r, const fs::path& dir) {
          EXPECT_EQ(r.out, "");
          EXPECT_EQ(r.err, "");
          EXPECT_TRUE(fs::is_symlink(dir / "link.json")) << "the link was replaced by a file";
          EXPECT_EQ(fs::read_symlink(dir / "link.json"), "target.json");
          Outcome target;
          target.out = ReadFile(dir / "target.json");
          answer(ParsedJson(target));
        }});
    rows.back().files["target.json"] = "old contents\n";
    rows.back().symlinks = {{"link.json", "target.json"}};
  }
  for (const auto& [name, args, png] :
       {std::tuple<std::string, Args, std::string>{"PlotSamples", kPlot, "s.png"},
        {"HeatMap", Cat(kHeat, {"--grid", "2x1"}), "partition.png"}}) {
    add(name + "_Default", args, Good{[png = png](const Outcome& r, const fs::path& dir) {
          EXPECT_TRUE(Has(r.out, "wrote " + png)) << r.out;
          EXPECT_TRUE(IsPng(dir / png));
        }});
    add(name + "_OutputInMissingDirectory", Cat(args, {"-o", "/nonexistent-dir/out.png"}),
        Bad{{"/nonexistent-dir/out.png"}});
    rows.back().rerun_with_output = false;
    add(name + "_OutputIsADirectory", Cat(args, {"-o", "outdir"}), Bad{{"outdir"}});
    rows.back().dirs = {"outdir"};
    rows.back().rerun_with_output = false;
    add(name + "_OutputNullDevice", Cat(args, {"-o", "null.dev"}),
        Good{[](const Outcome& r, const fs::path& dir) {
          EXPECT_EQ(r.err, "");
          EXPECT_TRUE(IsCharDevice(dir / "null.dev")) << "the device was replaced";
        }})
        .devices = {{"null.dev", 3}};
    add(name + "_OutputSymlink", Cat(args, {"-o", "link.png"}),
        Good{[](const Outcome& r, const fs::path& dir) {
          EXPECT_EQ(r.err, "");
          EXPECT_TRUE(fs::is_symlink(dir / "link.png")) << "the link was replaced by a file";
          EXPECT_TRUE(IsPng(dir / "target.png"));
        }});
    rows.back().files["target.png"] = "old contents\n";
    rows.back().symlinks = {{"link.png", "target.png"}};
  }
  return rows;
}

}  // namespace isocost::testing::matrix
