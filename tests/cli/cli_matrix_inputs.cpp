// The matrix's file rows: every option of every subcommand that reads a file
// (a "slot") x every kind of bad file the issue lists, plus a BOM and CRLF
// line ends on the slot's good file, whose answer is checked. A slot's good
// file is a template with '@' standing for one field; a bad-value kind puts
// its token there, so the row knows the file, the line and the value that its
// one-line error must name.
#include <cmath>

#include "cli/cli_matrix.hpp"

namespace isocost::testing::matrix {
namespace {

using Check = std::function<void(const Outcome&, const fs::path&)>;

struct Slot {
  std::string name;                          ///< e.g. "FitSamples"
  std::string file;                          ///< the file under test
  std::string good;                          ///< its good content, '@' standing for one field
  std::string good_value;                    ///< '@' in the good file
  std::vector<std::string> args;             ///< the command line
  std::map<std::string, std::string> other;  ///< the other files it reads
  Check check;                               ///< the answer on the good file (BOM, CRLF rows)
  bool negative_is_bad = true;               ///< "-1" in the '@' field is an error
  bool json = true;
  bool gnuplot = false;
  bool names_token = true;  ///< the error quotes the token (not for JSON syntax errors)
};

std::string Crlf(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
  return out;
}

/// "file:LINE:" of the line holding '@'.
std::string Where(const Slot& s) {
  const auto at = s.good.find('@');
  const auto line = 1 + std::count(s.good.begin(), s.good.begin() + at, '\n');
  return s.file + ":" + std::to_string(line) + ":";
}

Check Json(std::function<void(const json&)> check) {
  return [check = std::move(check)](const Outcome& r, const fs::path&) {
    EXPECT_EQ(r.err, "");
    check(ParsedJson(r));
  };
}

std::vector<Slot> Slots() {
  const std::string l4 = "4\n2\n1\n1\n";
  const std::vector<std::string> lsq = {"--scheme", "lsq"};
  std::vector<Slot> s;
  s.push_back({"FitSamples",
               "in.csv",
               kSquares,
               "4",
               {"fit", "in.csv", "--model", "power"},
               {},
               Json(ExpectPowerSquare),
               false});
  s.push_back({"FitJsonSamples",
               "in.json",
               kSquaresJson,
               "4",
               {"fit", "in.json", "--model", "power"},
               {},
               Json(ExpectPowerSquare),
               false});
  s.back().names_token = false;
  s.push_back({"CutFit",
               "in.csv",
               kSquares,
               "4",
               {"cut", "--fit", "in.csv", "--model", "power", "--ranks", "2"},
               {},
               Json([](const json& d) {
                 ExpectCuts(d, {1, std::sqrt(13.0), 5}, 1e-9);
               }),
               false});
  s.push_back({"CutSamples",
               "in.csv",
               kSquares,
               "4",
               {"cut", "--model", "linear", "--samples", "in.csv", "--ranks", "2"},
               {},
               Json([](const json& d) {
                 ExpectCuts(d, {1, 3 + 4.0 / 7.0, 5}, 1e-12);
               }),
               false});
  s.push_back({"PlotSamples",
               "in.csv",
               kSquares,
               "4",
               {"plot", "in.csv", "--model", "power"},
               {},
               Wrote("in.png", "4 samples, power"),
               false,
               false,
               true});
  s.push_back({"CutWeights",
               "w.txt",
               "1\n@\n1\n1\n",
               "1",
               {"cut", "--model", "discrete", "--weights", "w.txt", "--ranks", "2"},
               {},
               Json([](const json& d) {
                 ExpectCuts(d, {0, 2, 4}, 0);
               })});
  s.push_back(
      {"Metrics", "t.txt", "1\n@\n3\n", "2", {"metrics", "t.txt"}, {}, Json([](const json& d) {
         EXPECT_DOUBLE_EQ(Num(d["stats"]["mean"]), 2.0);
         EXPECT_DOUBLE_EQ(Num(d["stats"]["le"]), 50.0);  // 100 - (3 - 2)/2
       })});
  s.push_back({"MetricsModelled",
               "m.txt",
               "3\n@\n1\n",
               "2",
               {"metrics", "t.txt", "--modelled", "m.txt"},
               {{"t.txt", "1\n2\n3\n"}},
               Json([](const json& d) {  // exactly reversed ranks
                 EXPECT_DOUBLE_EQ(Num(d["rank_correlation"]), -1.0);
               }),
               false});
  s.push_back({"PartitionWeights",
               "w.txt",
               "1 1\n1 @\n",
               "1",
               {"partition", "--weights", "w.txt", "--shape", "2x2", "--grid", "2x1"},
               {},
               Json([](const json& d) {
                 ASSERT_EQ(d["parts"].size(), 2u) << d.dump();
                 for (const auto& p : d["parts"]) EXPECT_DOUBLE_EQ(Num(p["cost"]), 2.0);
                 EXPECT_DOUBLE_EQ(Num(d["parts"][0]["hi"][0]), 1.0);
               })});
  s.push_back({"PlotWeights",
               "w.txt",
               "1 1\n1 @\n",
               "1",
               {"plot", "--weights", "w.txt", "--shape", "2x2", "--grid", "2x1"},
               {},
               Wrote("partition.png", "2 parts"),
               true,
               false,
               true});
  s.push_back({"DiffuseMeshLoads",
               "l.txt",
               "4\n@\n1\n1\n",
               "2",
               Cat({"diffuse", "--mesh", "4", "--loads", "l.txt"}, lsq),
               {},
               Json(ExpectChainTransfers)});
  s.push_back({"DiffuseGraph",
               "g.txt",
               "0 1\n1 @\n2 3\n",
               "2",
               Cat({"diffuse", "--graph", "g.txt", "--loads", "l4.txt"}, lsq),
               {{"l4.txt", l4}},
               Json(ExpectChainTransfers)});
  s.push_back({"SimulateLoads",
               "l.txt",
               "4\n@\n1\n1\n",
               "2",
               {"diffuse", "--mesh", "4", "--loads", "l.txt", "--simulate"},
               {},
               Json(ExpectSimulated)});
  s.push_back({"SimulateElements",
               "e.txt",
               "1\n@\n1\n1\n",
               "1",
               {"diffuse", "--mesh", "4", "--loads", "l4.txt", "--simulate", "--elements", "e.txt"},
               {{"l4.txt", l4}},
               Json(ExpectSimulated)});
  s.push_back({"ShiftCuts",
               "c.txt",
               "0\n@\n10\n",
               "5",
               Cat({"diffuse", "--cuts", "c.txt", "--loads", "l2.txt", "--model", "power",
                    "--param", "p=1", "--domain", "0:10"},
                   lsq),
               {{"l2.txt", "3\n1\n"}},
               Json(ExpectShiftedCut)});
  s.push_back({"ShiftLoads",
               "l.txt",
               "3\n@\n",
               "1",
               Cat({"diffuse", "--cuts", "c.txt", "--loads", "l.txt", "--model", "power", "--param",
                    "p=1", "--domain", "0:10"},
                   lsq),
               {{"c.txt", "0\n5\n10\n"}},
               Json(ExpectShiftedCut)});
  // Weights 1, 1, 1, 1 and loads 3, 1 on cuts 0, 2, 4: the load curve is 1.5
  // per cell up to 2; taking 1 off rank 0 aims at 2 = 1.5 x 1.33, and whole
  // cells round that to the cut at 1 (load 1.5; the cut at 2 would leave 3).
  s.push_back({"ShiftWeights",
               "w.txt",
               "1\n@\n1\n1\n",
               "1",
               Cat({"diffuse", "--cuts", "c.txt", "--loads", "l2.txt", "--model", "discrete",
                    "--weights", "w.txt"},
                   lsq),
               {{"c.txt", "0\n2\n4\n"}, {"l2.txt", "3\n1\n"}},
               Json([](const json& d) { EXPECT_EQ(d["cuts"], json::parse("[0.0, 1.0, 4.0]")); })});
  // Linear t through the squares, cuts 1, 3, 5, loads 3, 1: rank 0's 3 over
  // cost 8; giving 1 leaves cost 16/3 after t(1) = 1, i.e. t = 19/3, reached
  // between (2, 4) and (3, 9) at 2 + (7/3)/5.
  s.push_back({"ShiftSamples",
               "in.csv",
               kSquares,
               "4",
               Cat({"diffuse", "--cuts", "c.txt", "--loads", "l2.txt", "--model", "linear",
                    "--samples", "in.csv"},
                   lsq),
               {{"c.txt", "1\n3\n5\n"}, {"l2.txt", "3\n1\n"}},
               Json([](const json& d) { EXPECT_NEAR(Num(d["cuts"][1]), 2 + 7.0 / 15.0, 1e-12); }),
               false});
  // Tasks of load 3 and 1 on rank 0, 1 on rank 1 (average 2.5): the best
  // single move is the task of load 1, leaving 3 and 2.
  s.push_back({"Tasks",
               "t.csv",
               "rank,id,load\n0,1,3\n0,2,@\n1,3,1\n",
               "1",
               {"diffuse", "--tasks", "t.csv", "--mesh", "2"},
               {},
               Json([](const json& d) {
                 ASSERT_TRUE(d.contains("ranks")) << d.dump();
                 EXPECT_DOUBLE_EQ(Num(d["ranks"][0]["load_after"]), 3.0);
                 EXPECT_DOUBLE_EQ(Num(d["ranks"][1]["load_after"]), 2.0);
               })});
  return s;
}

// Bytes that are no text file: an ELF-like header, NULs, a UTF-16 BOM, bytes
// that are not UTF-8, a lone CR.
const std::string kGarbage(
    "\x7f"
    "ELF\x02\x01\x01\x00\x00\xff\xfe\x00\x80\x81\r\x10\x1b[2J\xc3(",
    23);

struct Token {
  const char* kind;
  std::string text;
  bool quoted;  ///< the error must quote it
};

}  // namespace

std::vector<Row> InputRows() {
  const std::vector<Token> tokens = {
      {"NaN", "nan", true},          {"Inf", "inf", true},          {"MinusInf", "-inf", true},
      {"Overflow", "1e309", true},   {"Hex", "0x10", true},         {"TrailingJunk", "2x", true},
      {"EmptyField", "1,,2", false}, {"ColumnCount", "2 3", false},
  };
  std::vector<Row> rows;
  for (const Slot& s : Slots()) {
    const auto good = Replace(s.good, "@", s.good_value);
    auto row = [&](const std::string& kind, std::map<std::string, std::string> files,
                   std::variant<Bad, Good> expect) {
      Row r{s.name + "_" + kind, std::move(files), s.args, std::move(expect)};
      for (const auto& [name, text] : s.other) r.files.emplace(name, text);
      r.json = s.json;
      r.gnuplot = s.gnuplot;
      return r;
    };
    rows.push_back(row("MissingFile", {}, Bad{{s.file}}));
    rows.push_back(row("EmptyFile", {{s.file, ""}}, Bad{{s.file}}));
    rows.push_back(row("OnlyComments", {{s.file, "# nothing\n\n"}}, Bad{{s.file}}));
    Row directory = row("Directory", {}, Bad{{s.file, "directory"}});
    directory.dirs = {s.file};
    rows.push_back(directory);
    rows.push_back(row("BinaryGarbage", {{s.file, kGarbage}}, Bad{{s.file}}));
    for (const Token& t : tokens) {
      std::vector<std::string> fragments{Where(s)};
      if (t.quoted && s.names_token) fragments.push_back("'" + t.text + "'");
      rows.push_back(row(t.kind, {{s.file, Replace(s.good, "@", t.text)}}, Bad{fragments}));
    }
    if (s.negative_is_bad)
      rows.push_back(
          row("Negative", {{s.file, Replace(s.good, "@", "-1")}}, Bad{{Where(s), "-1"}}));
    // The good file with a UTF-8 BOM, and with CRLF line ends: the answer.
    for (auto [kind, text] : {std::pair<std::string, std::string>{"Bom", "\xEF\xBB\xBF" + good},
                              {"Crlf", Crlf(good)}}) {
      Row r = row(kind, {{s.file, text}}, Good{s.check});
      if (s.json) r.args.push_back("--json");
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

}  // namespace isocost::testing::matrix
