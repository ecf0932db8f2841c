// Tests for isocost/io.hpp: the strict readers for load files (scalar and
// "rank,phase,time" vector format, Watts §4.2) and single columns (samples,
// x,t or lo,hi,dt, have one reader: samples.hpp). Most go through the
// std::istream overloads; a few use real files.
#include "isocost/io.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "isocost/density.hpp"
#include "isocost/error.hpp"
#include "support/expect_error.hpp"
#include "support/values.hpp"

namespace {

using isocost::LoadFile;
using isocost::ParseError;
using isocost::testing::has;
using isocost::testing::ParseErrorOf;

LoadFile ReadLoads(const std::string& text, const std::string& name = "loads.txt") {
  std::istringstream in(text);
  return isocost::read_load_file(in, name);
}

std::optional<ParseError> LoadError(const std::string& text) {
  return ParseErrorOf([&] { ReadLoads(text); });
}

// Checks the error's line, file, "FILE:LINE: " prefix and message fragments.
void ExpectParseError(const std::optional<ParseError>& e, std::size_t line,
                      const std::vector<std::string>& parts,
                      const std::string& file = "loads.txt") {
  ASSERT_TRUE(e.has_value());
  const std::string msg = e->what();
  EXPECT_EQ(e->line(), line) << msg;
  EXPECT_EQ(e->file(), file) << msg;
  EXPECT_EQ(msg.rfind(file + ":" + std::to_string(line) + ": ", 0), 0u) << msg;
  for (const auto& p : parts) EXPECT_TRUE(has(msg, p)) << "missing '" << p << "' in: " << msg;
}

// A file in the test temp directory, removed at scope exit. The random suffix
// keeps concurrent runs (ctest -j, other build trees) from clashing.
class TempFile {
 public:
  TempFile(const std::string& stem, const std::string& contents) {
    std::random_device rd;
    path_ = (std::filesystem::path(testing::TempDir()) /
             ("isocost_test_io_" + stem + "_" + std::to_string(rd()) + ".txt"))
                .string();
    std::ofstream out(path_, std::ios::binary);  // binary: keep "\r\n" as written
    out << contents;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// ---------------------------------------------------------------------------
// Scalar format: one time per line, in rank order.

TEST(ReadLoadFile, ScalarPlain) {
  const LoadFile f = ReadLoads("1.5\n2\n0\n3.25\n");
  EXPECT_EQ(f.times, (std::vector<double>{1.5, 2, 0, 3.25}));
  EXPECT_FALSE(f.phases.has_value());
}

TEST(ReadLoadFile, ScalarCommentsBlankLinesCrlfAndHeader) {
  // Comments (also indented), blank and whitespace-only lines are skipped;
  // "\r\n" endings and surrounding blanks are stripped; "time" is a header.
  const LoadFile f = ReadLoads(
      "# per-rank busy time\r\n"
      "time\r\n"
      "\r\n"
      "  1.5  \r\n"
      "   # indented comment\r\n"
      " \t \r\n"
      "\t2e1\r\n"
      "+3\r\n"
      "4");  // no final newline
  EXPECT_EQ(f.times, (std::vector<double>{1.5, 20, 3, 4}));
  EXPECT_FALSE(f.phases.has_value());
}

TEST(ReadLoadFile, ScalarHeaderOnlyAfterCommentsStillFirstRecord) {
  // The header is the first *record*: comment lines before it do not count.
  const LoadFile f = ReadLoads("# run 7\n\nseconds\n5\n6\n");
  EXPECT_EQ(f.times, (std::vector<double>{5, 6}));
}

// ---------------------------------------------------------------------------
// Vector format: "rank,phase,time" rows (Watts §4.2 vector loads).

TEST(ReadLoadFile, VectorWithHeaderWattsFig411) {
  // Watts Fig. 4.11: rank 0 = (50, 100), rank 1 = (100, 50) → totals 150 each.
  const LoadFile f = ReadLoads(
      "rank,phase,time\n"
      "0,push,50\n"
      "0,solve,100\n"
      "1,push,100\n"
      "1,solve,50\n");
  ASSERT_TRUE(f.phases.has_value());
  const auto& p = *f.phases;
  EXPECT_EQ(p.phases, (std::vector<std::string>{"push", "solve"}));
  EXPECT_EQ(p.ranks, 2u);
  ASSERT_EQ(p.times.size(), 4u);
  EXPECT_DOUBLE_EQ(p.at(0, 0), 50);
  EXPECT_DOUBLE_EQ(p.at(0, 1), 100);
  EXPECT_DOUBLE_EQ(p.at(1, 0), 100);
  EXPECT_DOUBLE_EQ(p.at(1, 1), 50);
  EXPECT_EQ(f.times, (std::vector<double>{150, 150}));
}

TEST(ReadLoadFile, VectorWithoutHeaderOutOfOrderFirstSeenPhases) {
  // Rows in any order; phases are numbered as first seen: "solve" (line 1)
  // is phase 0, "push" (line 2) phase 1.
  //   rank 0: solve 3, push 1 → total 4;  rank 1: solve 5, push 2 → total 7.
  const LoadFile f = ReadLoads(
      "1,solve,5\n"
      "0,push,1\n"
      "1,push,2\n"
      "0,solve,3\n");
  ASSERT_TRUE(f.phases.has_value());
  const auto& p = *f.phases;
  EXPECT_EQ(p.phases, (std::vector<std::string>{"solve", "push"}));
  EXPECT_EQ(p.ranks, 2u);
  EXPECT_DOUBLE_EQ(p.at(0, 0), 3);
  EXPECT_DOUBLE_EQ(p.at(0, 1), 1);
  EXPECT_DOUBLE_EQ(p.at(1, 0), 5);
  EXPECT_DOUBLE_EQ(p.at(1, 1), 2);
  EXPECT_EQ(f.times, (std::vector<double>{4, 7}));
}

TEST(ReadLoadFile, VectorWhitespaceSeparatedCaseInsensitiveHeader) {
  // Blanks/tabs instead of commas; the header's case does not matter; comments
  // and CRLF are handled as in the scalar format.
  const LoadFile f = ReadLoads(
      "Rank  Phase\tTIME\r\n"
      "# rank 2 first\r\n"
      "2 a 0.5\r\n"
      "0\ta\t1.5\r\n"
      "1   a   2.5\r\n");
  ASSERT_TRUE(f.phases.has_value());
  EXPECT_EQ(f.phases->phases, (std::vector<std::string>{"a"}));
  EXPECT_EQ(f.phases->ranks, 3u);
  EXPECT_EQ(f.times, (std::vector<double>{1.5, 2.5, 0.5}));
}

TEST(ReadLoadFile, VectorCommaAndBlankSeparated) {
  // "0, a, 1.5": commas separate fields, blanks around them are trimmed.
  const LoadFile f = ReadLoads("rank, phase, time\n0, a, 1.5\n0, b, 2\n1 , a , 3\n1,b,0\n");
  ASSERT_TRUE(f.phases.has_value());
  EXPECT_EQ(f.phases->phases, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(f.times, (std::vector<double>{3.5, 3}));
}

// --- read_load_file errors -------------------------------------------------

TEST(ReadLoadFileErrors, NonNumber) {
  // Line counting includes comment and blank lines: "2x" is on line 4.
  ExpectParseError(LoadError("# c\n\n1\n2x\n"), 4, {"time", "finite number", "'2x'"});
}

TEST(ReadLoadFileErrors, NaNAndInf) {
  ExpectParseError(LoadError("1\nnan\n"), 2, {"finite", "'nan'"});
  ExpectParseError(LoadError("1\n2\ninf\n"), 3, {"finite", "'inf'"});
  ExpectParseError(LoadError("-inf\n"), 1, {"finite", "'-inf'"});
  ExpectParseError(LoadError("0,a,1\n1,a,NaN\n"), 2, {"finite", "'NaN'"});
}

TEST(ReadLoadFileErrors, NegativeTime) {
  ExpectParseError(LoadError("time\n1\n-2\n"), 3, {">= 0", "'-2'"});
  ExpectParseError(LoadError("0,a,1\n1,a,-0.5\n"), 2, {">= 0", "'-0.5'"});
}

TEST(ReadLoadFileErrors, WrongFieldCount) {
  ExpectParseError(LoadError("1\n2 3\n"), 2, {"expected 1 field", "got 2"});
  ExpectParseError(LoadError("0,a,1\n1,a\n"), 2, {"expected 3 fields", "rank,phase,time", "got 2"});
  ExpectParseError(LoadError("rank,phase,time\n0,a,1,9\n"), 2, {"expected 3 fields", "got 4"});
  // A trailing comma makes an empty fourth field, not a silently ignored one.
  ExpectParseError(LoadError("0,a,1\n1,a,2,\n"), 2, {"expected 3 fields", "got 4"});
}

TEST(ReadLoadFileErrors, DuplicateRankPhaseNamesFirstLine) {
  // (0, a) first on line 2, again on line 5.
  ExpectParseError(LoadError("rank,phase,time\n0,a,1\n1,a,2\n# dup\n0,a,3\n"), 5,
                   {"rank 0", "'a'", "twice", "first on line 2"});
}

TEST(ReadLoadFileErrors, MissingRankPhasePair) {
  // Rank 1 never reports phase b; detected once the whole file is read, so the
  // error points at the last record (line 3).
  ExpectParseError(LoadError("0,a,1\n0,b,2\n1,a,3\n"), 3, {"rank 1", "'b'"});
  // Ranks must be 0..R−1 without gaps: rank 1 is missing entirely.
  ExpectParseError(LoadError("0,a,1\n2,a,1\n"), 2, {"rank 1", "'a'"});
}

TEST(ReadLoadFileErrors, NonIntegerOrNegativeRank) {
  ExpectParseError(LoadError("0,a,1\n1.5,a,2\n"), 2, {"rank", "integer", "'1.5'"});
  ExpectParseError(LoadError("0,a,1\n-1,a,2\n"), 2, {"rank", ">= 0", "'-1'"});
  ExpectParseError(LoadError("0,a,1\nx,a,2\n"), 2, {"rank", "'x'"});
}

TEST(ReadLoadFileErrors, EmptyPhaseName) {
  // An empty field between commas is not a phase name ("empty fields are kept
  // and rejected later", io.cpp); "0,,1.5" must not create a phase called "".
  ExpectParseError(LoadError("0,a,1\n0,,1.5\n"), 2, {});
}

TEST(ReadLoadFileErrors, EmptyFile) {
  ExpectParseError(LoadError(""), 1, {"no loads"});
  ExpectParseError(LoadError("# only a comment\n\n   \n"), 1, {"no loads"});
  // A header with no data is still empty; the error points at the header.
  ExpectParseError(LoadError("time\n"), 1, {"no loads"});
  ExpectParseError(LoadError("\nrank,phase,time\n# none\n"), 2, {"no loads"});
}

TEST(ReadLoadFileErrors, WrongHeader) {
  ExpectParseError(LoadError("rank,phase,seconds\n0,a,1\n"), 1, {"rank,phase,time", "'rank"});
  // Two words are neither a one-word header nor a rank,phase,time header.
  ExpectParseError(LoadError("\nbusy time\n1\n"), 2, {"rank,phase,time", "'busy"});
}

// ---------------------------------------------------------------------------
// read_column: one number per line, optional one-word header.

std::vector<double> Column(const std::string& text, bool nonnegative) {
  std::istringstream in(text);
  return isocost::read_column(in, "w.txt", "weight", nonnegative);
}

std::optional<ParseError> ColumnError(const std::string& text, bool nonnegative) {
  return ParseErrorOf([&] { Column(text, nonnegative); });
}

TEST(ReadColumn, HeaderCommentsCrlfAndSigns) {
  EXPECT_EQ(Column("weight\r\n# c\r\n1\r\n\r\n-2.5\r\n3e-1\r\n", false),
            (std::vector<double>{1, -2.5, 0.3}));
  EXPECT_EQ(Column("4\n5\n", true), (std::vector<double>{4, 5}));
}

TEST(ReadColumnErrors, NegativeWhenNonnegative) {
  ExpectParseError(ColumnError("weight\n1\n-2.5\n", true), 3, {"weight", ">= 0", "'-2.5'"},
                   "w.txt");
}

TEST(ReadColumnErrors, BadNumbersAndFieldCounts) {
  // `what` names the column in every message.
  ExpectParseError(ColumnError("1\nabc\n", false), 2, {"weight", "finite number", "'abc'"},
                   "w.txt");
  ExpectParseError(ColumnError("1\ninf\n", false), 2, {"weight", "'inf'"}, "w.txt");
  ExpectParseError(ColumnError("1\nnan\n", false), 2, {"weight", "'nan'"}, "w.txt");
  ExpectParseError(ColumnError("1\n2,3\n", false), 2, {"expected 1 field", "weight", "got 2"},
                   "w.txt");
  // A second word-only line is data, not a header.
  ExpectParseError(ColumnError("weight\nweight\n", false), 2, {"'weight'"}, "w.txt");
}

TEST(ReadColumnErrors, Empty) {
  ExpectParseError(ColumnError("", false), 1, {"no weight values"}, "w.txt");
  ExpectParseError(ColumnError("# x\nweight\n", false), 2, {"no weight values"}, "w.txt");
}

// ---------------------------------------------------------------------------
// read_graph: "i j" edges; read_tasks: "rank,id,load[,immobile]" rows.

isocost::ProcessGraph Graph(const std::string& text, int nodes = -1) {
  std::istringstream in(text);
  return isocost::read_graph(in, "g.txt", nodes);
}

std::vector<std::vector<isocost::Task>> Tasks(const std::string& text) {
  std::istringstream in(text);
  return isocost::read_tasks(in, "t.csv");
}

TEST(ReadGraph, EdgesWithCommentsAndCommas) {
  const auto g = Graph("# ring of 4\n0 1\n1,2\r\n\n2\t3\n3 0\n0 1\n");
  EXPECT_EQ(g.nodes, 4);
  ASSERT_EQ(g.edges.size(), 4u);  // the repeated 0-1 merges into one edge of weight 2
  double weight01 = 0;
  for (const auto& e : g.edges)
    if (e.i == 0 && e.j == 1) weight01 = e.weight;
  EXPECT_EQ(weight01, 2.0);
  EXPECT_EQ(Graph("0 1\n", 2).nodes, 2);
  EXPECT_EQ(Graph("", 1).nodes, 1);  // one rank needs no edge
}

TEST(ReadGraphErrors, BadInput) {
  auto err = [](const std::string& text, int nodes = -1) {
    return ParseErrorOf([&] { Graph(text, nodes); });
  };
  ExpectParseError(err("0 1\n0 1 2\n"), 2, {"two node numbers", "'0 1 2'"}, "g.txt");
  ExpectParseError(err("0 1\n1 1\n"), 2, {"self-loop at node 1"}, "g.txt");
  ExpectParseError(err("0 7\n", 4), 1, {"node 7 does not exist", "4 ranks"}, "g.txt");
  ExpectParseError(err("0 -1\n"), 1, {"node number: expected an integer >= 0", "'-1'"}, "g.txt");
  ExpectParseError(err("0 1.5\n"), 1, {"'1.5'"}, "g.txt");
  EXPECT_THROW(Graph("", 3), isocost::Error);         // no edges for 3 ranks
  EXPECT_THROW(Graph("0 1\n2 3\n"), isocost::Error);  // disconnected
}

TEST(ReadTasks, RowsByRankInFileOrder) {
  const auto t = Tasks("rank,id,load,immobile\n1,10,2.5\n0,11,1,1\n1,12,0\n");
  ASSERT_EQ(t.size(), 2u);
  ASSERT_EQ(t[0].size(), 1u);
  EXPECT_EQ(t[0][0].id, 11);
  EXPECT_TRUE(t[0][0].immobile);
  ASSERT_EQ(t[1].size(), 2u);
  EXPECT_EQ(t[1][0].id, 10);
  EXPECT_EQ(t[1][0].load, 2.5);
  EXPECT_FALSE(t[1][0].immobile);
  EXPECT_EQ(t[1][1].id, 12);
  EXPECT_EQ(Tasks("3 1 1\n").size(), 4u);  // ranks 0..2 hold nothing
}

TEST(ReadTasksErrors, BadInput) {
  auto err = [](const std::string& text) { return ParseErrorOf([&] { Tasks(text); }); };
  ExpectParseError(err("0,1,1\n0,2\n"), 2, {"rank,id,load", "got 2 fields"}, "t.csv");
  ExpectParseError(err("0,1,-1\n"), 1, {"task 1", "'-1'"}, "t.csv");
  ExpectParseError(err("0,1,nan\n"), 1, {"'nan'"}, "t.csv");
  ExpectParseError(err("0,1,1\n1,1,2\n"), 2, {"task id 1 given twice", "line 1"}, "t.csv");
  ExpectParseError(err("0,1,1,2\n"), 1, {"immobile 0 or 1", "'2'"}, "t.csv");
  ExpectParseError(err("x,1,1\n0,2,1\n"), 1, {"rank: expected an integer >= 0", "'x'"}, "t.csv");
  ExpectParseError(err("0,1.5,1\n"), 1, {"task id", "'1.5'"}, "t.csv");
  EXPECT_THROW(Tasks("rank,id,load\n"), isocost::Error);  // no tasks
}

// ---------------------------------------------------------------------------
// Real files through the path overloads.

TEST(ReadFiles, LoadFileFromPath) {
  TempFile file("loads", "# scalar\r\ntime\r\n10\r\n20\r\n30\r\n");
  const LoadFile f = isocost::read_load_file(file.path());
  EXPECT_EQ(f.times, (std::vector<double>{10, 20, 30}));
  EXPECT_FALSE(f.phases.has_value());
}

TEST(ReadFiles, VectorLoadFileFromPath) {
  TempFile file("vloads", "rank,phase,time\n1,p,2\n0,p,1\n1,q,4\n0,q,3\n");
  const LoadFile f = isocost::read_load_file(file.path());
  ASSERT_TRUE(f.phases.has_value());
  EXPECT_EQ(f.phases->phases, (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(f.times, (std::vector<double>{4, 6}));
}

TEST(ReadFiles, ParseErrorNamesThePath) {
  TempFile file("bad", "1\n2\n-3\n");
  const auto e = ParseErrorOf([&] { isocost::read_load_file(file.path()); });
  ExpectParseError(e, 3, {"'-3'"}, file.path());
}

TEST(ReadFiles, ColumnFromPath) {
  TempFile col("col", "cost\n0.5\n1.5\n");
  EXPECT_EQ(isocost::read_column(col.path(), "cost", true), (std::vector<double>{0.5, 1.5}));
}

TEST(ReadFiles, MissingFileIsError) {
  const std::string path =
      (std::filesystem::path(testing::TempDir()) / "isocost_no_such_dir" / "loads.txt").string();
  for (int which = 0; which < 2; ++which) {
    try {
      if (which == 0) isocost::read_load_file(path);
      if (which == 1) isocost::read_column(path, "cost", true);
      ADD_FAILURE() << "reader " << which << " did not throw for a missing file";
    } catch (const isocost::Error& e) {
      EXPECT_TRUE(has(e.what(), path)) << e.what();
      EXPECT_TRUE(has(e.what(), "cannot open")) << e.what();
    }
  }
}

}  // namespace

namespace {

// A typo in the first value must not be mistaken for a header: only a first
// field starting with a letter (and not nan/inf) is a header.
TEST(ReadLoadFileErrors, TypoOnTheFirstLineIsNotAHeader) {
  ExpectParseError(LoadError("2x\n3\n4\n"), 1, {"expected a finite number", "'2x'"});
  ExpectParseError(LoadError("1.5.2\n7\n"), 1, {"'1.5.2'"});
  ExpectParseError(LoadError("nan\n7\n"), 1, {"'nan'"});
}

// io.hpp: fields are separated by commas and/or whitespace, mixed freely.
TEST(ReadLoadFile, MixedCommaAndBlankSeparators) {
  const auto f = ReadLoads("0 a,1.5\n0, b 2\n");
  ASSERT_TRUE(f.phases.has_value());
  EXPECT_EQ(f.phases->phases, (std::vector<std::string>{"a", "b"}));
  EXPECT_DOUBLE_EQ(f.times[0], 3.5);
  ExpectParseError(LoadError("0,,1\n"), 1, {"phase", "empty"});
}

}  // namespace

// ---------------------------------------------------------------------------
// Every reader: a byte order mark, input files that cannot be read, and bad
// fields quoted escaped and bounded.

namespace {

using isocost::testing::kBom;

TEST(ReadFiles, EveryReaderSkipsAByteOrderMark) {
  EXPECT_EQ(ReadLoads(kBom + "1\n2\n").times, (std::vector<double>{1, 2}));
  EXPECT_EQ(ReadLoads(kBom + "time\n1\n2\n").times, (std::vector<double>{1, 2}));
  const LoadFile v = ReadLoads(kBom + "rank,phase,time\n0,a,1\n1,a,2\n");
  ASSERT_TRUE(v.phases.has_value());
  EXPECT_EQ(v.times, (std::vector<double>{1, 2}));
  std::istringstream column(kBom + "cost\n0.5\n");
  EXPECT_EQ(isocost::read_column(column, "c.txt", "cost", true), (std::vector<double>{0.5}));
  std::istringstream graph(kBom + "0 1\n1 2\n");
  EXPECT_EQ(isocost::read_graph(graph, "g.txt", -1).nodes, 3);
  std::istringstream tasks(kBom + "rank,id,load\n0,7,2\n");
  const auto t = isocost::read_tasks(tasks, "t.csv");
  ASSERT_EQ(t.size(), 1u);
  ASSERT_EQ(t[0].size(), 1u);
  EXPECT_EQ(t[0][0].id, 7);
  EXPECT_EQ(t[0][0].load, 2.0);
  TempFile grid("bom_grid", kBom + "1 2\n3 4\n");
  EXPECT_EQ(isocost::read_grid_density(grid.path(), {2, {2, 2, 1}}).total(), 10.0);
  // Only at the very start: elsewhere it is a bad field, shown escaped.
  ExpectParseError(LoadError("1\n" + kBom + "2\n"), 2,
                   {"'\xEF\xBB\xBF"
                    "2'"});
}

TEST(ReadFiles, AnInputThatCannotBeReadSaysWhy) {
  const std::filesystem::path dir = testing::TempDir();
  const std::string d = dir.string();
  TempFile plain("plain", "1\n");
  const std::string under_file = plain.path() + "/x";
  const std::string dangling =
      (dir / ("isocost_test_io_dangling_" + std::to_string(std::random_device{}()))).string();
  std::filesystem::remove(dangling);
  std::filesystem::create_symlink("isocost_no_such_target", dangling);
  const std::vector<std::pair<std::string, std::string>> cases{
      {d, "is a directory"},
      {under_file, "not a directory"},
      {dangling, "dangling symbolic link to 'isocost_no_such_target'"}};
  for (const auto& [path, why] : cases) {
    for (int which = 0; which < 5; ++which) {
      const std::string e = isocost::testing::error_of([&, path = path] {
        if (which == 0) isocost::read_load_file(path);
        if (which == 1) isocost::read_column(path, "cost", true);
        if (which == 2) isocost::read_graph(path, -1);
        if (which == 3) isocost::read_tasks(path);
        if (which == 4) isocost::read_grid_density(path, {2, {2, 2, 1}});
      });
      EXPECT_TRUE(has(e, "cannot open '" + path + "': " + why)) << which << ": " << e;
    }
  }
  std::filesystem::remove(dangling);
}

TEST(ReadFiles, BadFieldsAreQuotedEscapedAndBounded) {
  ExpectParseError(LoadError("1\n2\r3\n"), 2, {"'2\\r3'"});
  ExpectParseError(LoadError("1\n\x1b[2J\n"), 2, {"'\\x1b[2J'"});
  const std::string huge(10000, '9');
  const auto e = LoadError("1\n" + huge + "x\n");
  ASSERT_TRUE(e.has_value());
  const std::string msg = e->what();
  EXPECT_TRUE(has(msg, "'" + huge.substr(0, 60) + "...' (10001 bytes)")) << msg;
  EXPECT_LE(msg.size(), 140u) << msg;
  // The other readers quote the same way.
  std::istringstream graph("0 1\n1 " + huge + "x\n");
  const std::string g =
      isocost::testing::error_of([&] { isocost::read_graph(graph, "g.txt", -1); });
  EXPECT_TRUE(has(g, "(10001 bytes)")) << g;
  EXPECT_LE(g.size(), 160u) << g;
  std::istringstream tasks("0,1,1\n0," + huge + ",1\n");
  const std::string t = isocost::testing::error_of([&] { isocost::read_tasks(tasks, "t.csv"); });
  EXPECT_TRUE(has(t, "(10000 bytes)")) << t;
  EXPECT_LE(t.size(), 160u) << t;
  TempFile grid("huge_grid", "1 2\n3 " + huge + "x\n");
  const std::string w = isocost::testing::error_of([&] {
    isocost::read_grid_density(grid.path(), {2, {2, 2, 1}});
  });
  EXPECT_TRUE(has(w, "(10001 bytes)")) << w;
  EXPECT_LE(w.size(), grid.path().size() + 160u) << w;
}

}  // namespace
