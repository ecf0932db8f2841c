// The table-driven CLI matrix of issue #11 ("no silent wrong answers, no
// crash, no hang, no damaged file"): one row per command line, each run as a
// child process in a fresh directory (tests/support/cli_runner.hpp). A row
// names the files to create, the arguments, and what must happen: Bad (exit
// 2, one stderr line holding the fragments, nothing on stdout, no file
// created, an existing -o target left byte for byte) or Good (a checker of
// the answer). The rows live in three files: cli_matrix_inputs.cpp (every
// file-reading option x every kind of bad file), cli_matrix_options.cpp
// (option values, conflicts) and cli_matrix_outputs.cpp (where the result
// goes); test_cli_matrix.cpp runs them.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "support/cli_runner.hpp"

namespace isocost::testing::matrix {

/// Bad input: exit 2, exactly one line "isocost: error: …" holding every
/// fragment (the bad value and/or the file), stdout empty, nothing created.
struct Bad {
  std::vector<std::string> fragments;
};

/// A run that must succeed (or end with `code`); `check` verifies the answer.
struct Good {
  std::function<void(const Outcome&, const fs::path& dir)> check;
  int code = 0;
};

struct Row {
  std::string name;                          ///< the test's name: letters, digits, '_'
  std::map<std::string, std::string> files;  ///< created in the work directory first
  std::vector<std::string> args;             ///< the command line after "isocost"
  std::variant<Bad, Good> expect;
  std::vector<std::string> dirs = {};                ///< directories to create
  std::map<std::string, std::string> symlinks = {};  ///< link name -> target
  /// Character devices to create (name -> minor of major 1: 3 null, 7 full):
  /// output rows write to a private device node, never to /dev/null itself,
  /// so a command that replaces its -o file cannot break the machine.
  std::map<std::string, unsigned> devices = {};
  bool json = true;               ///< the command takes --json (all but plot)
  bool gnuplot = false;           ///< needs gnuplot on PATH (plot), skipped without it
  bool rerun_with_output = true;  ///< Bad: run again with --json -o over an existing file
};

inline void PrintTo(const Row& row, std::ostream* os) { *os << row.name; }

/// The rows of cli_matrix_inputs.cpp, cli_matrix_options.cpp and
/// cli_matrix_outputs.cpp.
std::vector<Row> InputRows();
std::vector<Row> OptionRows();
std::vector<Row> OutputRows();

using Args = std::vector<std::string>;

/// The small input files every option and output row gets (s.csv, w4.txt, …).
std::map<std::string, std::string> StandardInputs();

/// Appends a row on StandardInputs() and returns it, to add files or
/// options (until the next append). A Good row of a command that takes
/// --json gets --json: its answer is checked on the JSON.
Row& AddRow(std::vector<Row>& rows, const std::string& name, const Args& args,
            std::variant<Bad, Good> expect);

// Command lines that work on StandardInputs().
inline const Args kCut = {"cut", "--model", "power", "--param", "p=1", "--domain", "0:10"};
inline const Args kCutFit = {"cut", "--fit", "s.csv", "--model", "power"};
inline const Args kFit = {"fit", "s.csv", "--model", "power"};
inline const Args kPlot = {"plot", "s.csv", "--model", "power"};
inline const Args kDensity = {"partition", "--density", "x+y", "--box", "0:20,0:20"};
inline const Args kWeights = {"partition", "--weights", "p22.txt", "--shape", "2x2"};
inline const Args kHeat = {"plot", "--weights", "p22.txt", "--shape", "2x2"};
inline const Args kMesh = {"diffuse", "--mesh", "4", "--loads", "l4.txt"};
inline const Args kShift = {"diffuse", "--cuts",  "c3.txt", "--loads",  "l2.txt", "--model",
                            "power",   "--param", "p=1",    "--domain", "0:10"};
inline const Args kTasks = {"diffuse", "--tasks", "t.csv", "--mesh", "2"};

/// `text` with the first `what` replaced by `with`.
inline std::string Replace(std::string text, const std::string& what, const std::string& with) {
  const auto at = text.find(what);
  if (at != std::string::npos) text.replace(at, what.size(), with);
  return text;
}

/// stdout parsed as JSON, or a recorded failure (and an empty object).
inline json ParsedJson(const Outcome& r) {
  try {
    return json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "stdout is not JSON (" << e.what() << "):\n" << r.out;
    return json::object();
  }
}

/// A checker of a Good row that prints JSON: exit 0, stderr empty, then `check`.
inline Good GoodJson(std::function<void(const json&)> check) {
  return Good{[check = std::move(check)](const Outcome& r, const fs::path&) {
    EXPECT_EQ(r.err, "");
    check(ParsedJson(r));
  }};
}

/// The cut points of `cut --json` (lo of every part, then the last hi).
inline std::vector<double> CutPoints(const json& doc) {
  std::vector<double> x;
  if (!doc.contains("parts") || !doc["parts"].is_array() || doc["parts"].empty()) {
    ADD_FAILURE() << "no parts in " << doc.dump();
    return x;
  }
  for (const auto& p : doc["parts"]) x.push_back(Num(p["lo"]));
  x.push_back(Num(doc["parts"].back()["hi"]));
  return x;
}

// Answers shared by the rows.

// t(x) = x^2 sampled at x = 1 … 5: the fit is exact (A = 1, p = 2), two equal
// parts of t(x) - t(1) meet at sqrt(13), and the linear interpolant's cut is
// 3 + 4/7 (t = 13 between (3, 9) and (4, 16)).
inline const std::string kSquares = "x,t\n1,1\n2,@\n3,9\n4,16\n5,25\n";
inline const std::string kSquaresJson =
    "{\"cumulative\": [\n{\"x\": 1, \"t\": 1},\n{\"x\": 2, \"t\": @},\n{\"x\": 3, \"t\": 9},\n"
    "{\"x\": 4, \"t\": 16},\n{\"x\": 5, \"t\": 25}]}\n";

inline void ExpectPowerSquare(const json& doc) {
  ASSERT_TRUE(doc.contains("parameters")) << doc.dump();
  EXPECT_NEAR(Num(doc["parameters"][0]["value"]), 1.0, 1e-9);  // A
  EXPECT_NEAR(Num(doc["parameters"][1]["value"]), 2.0, 1e-9);  // p
}

inline void ExpectCuts(const json& doc, const std::vector<double>& expected, double tol) {
  const auto x = CutPoints(doc);
  ASSERT_EQ(x.size(), expected.size()) << doc.dump();
  for (std::size_t k = 0; k < x.size(); ++k) EXPECT_NEAR(x[k], expected[k], tol) << "cut " << k;
}

inline std::function<void(const Outcome&, const fs::path&)> Wrote(const std::string& png,
                                                                  const std::string& words) {
  return [png, words](const Outcome& r, const fs::path& dir) {
    EXPECT_TRUE(Has(r.out, "wrote " + png)) << r.out;
    EXPECT_TRUE(Has(r.out, words)) << r.out;
    EXPECT_TRUE(IsPng(dir / png));
  };
}

// Loads 4, 2, 1, 1 on a chain of 4: balanced at 2 each, the least-squares
// transfers are 2, 2, 1 (what crosses each edge, left to right).
inline void ExpectChainTransfers(const json& doc) {
  ASSERT_TRUE(doc.contains("transfers")) << doc.dump();
  const double expected[] = {2, 2, 1};
  ASSERT_EQ(doc["transfers"].size(), 3u);
  for (int e = 0; e < 3; ++e) EXPECT_NEAR(Num(doc["transfers"][e]["transfer"]), expected[e], 1e-12);
  for (const auto& l : doc["loads"]) EXPECT_NEAR(Num(l["final"]), 2.0, 1e-12);
}

// Pearce's simulator on loads 4, 2, 1, 1: the total is conserved, so the
// average is 2; the maximum never grows and ends within the threshold.
inline void ExpectSimulated(const json& doc) {
  EXPECT_EQ(doc.value("converged", false), true) << doc.dump();
  EXPECT_DOUBLE_EQ(Num(doc["total_load"]), 8.0);
  EXPECT_DOUBLE_EQ(Num(doc["initial_max_load"]), 4.0);
  ASSERT_TRUE(doc.contains("steps") && !doc["steps"].empty()) << doc.dump();
  double previous = 4.0;
  for (const auto& s : doc["steps"]) {
    EXPECT_LE(Num(s["max_load"]), previous);
    previous = Num(s["max_load"]);
  }
  EXPECT_LE(previous, 2.0 * 1.05);
}

// Loads 3, 1 on cuts 0, 5, 10 of t(x) = x: rank 0 gives 1 of its 3 over a
// range of cost 5, so its cut moves left by 5/3 to 10/3.
inline void ExpectShiftedCut(const json& doc) {
  ASSERT_TRUE(doc.contains("cuts")) << doc.dump();
  EXPECT_NEAR(Num(doc["cuts"][1]), 10.0 / 3.0, 1e-9);
}

}  // namespace isocost::testing::matrix
