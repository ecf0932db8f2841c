// Tests for samples labelled with the rank that timed them (issue #27):
// IntervalSample::rank, Samples::ranked(), the text and JSON readers' rank
// column and member with their errors, and merged() / split_runs() keeping
// the ranks.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/merge.hpp"
#include "isocost/samples.hpp"
#include "support/expect_error.hpp"

namespace {

using isocost::IntervalSample;
using isocost::Samples;
using isocost::testing::error_of;
using isocost::testing::ParseErrorOf;

Samples ReadRanked(const std::string& text) {
  std::istringstream in(text);
  return isocost::read_samples(in, "r.csv");
}

// (lo, hi, dt, rank) of every sample, in order.
struct Row {
  double lo, hi, dt;
  int rank;
  bool operator==(const Row&) const = default;
};
std::vector<Row> RowsOf(const Samples& s) {
  std::vector<Row> out;
  for (const IntervalSample& i : s.intervals()) out.push_back({i.lo, i.hi, i.dt, i.rank});
  return out;
}

// The whole message of the ParseError reading `text` gives, checked for its line.
std::string RankedReadError(const std::string& text, std::size_t line) {
  const auto e = ParseErrorOf([&] { ReadRanked(text); });
  if (!e) return {};
  EXPECT_EQ(e->line(), line) << e->what();
  return e->what();
}

TEST(RankedSamples, ThreeFieldInitialisersHaveNoRank) {
  const IntervalSample s{0, 1, 2};
  EXPECT_EQ(s.rank, -1);
  const Samples plain({{0, 1, 2}, {1, 2, 3}});
  EXPECT_FALSE(plain.ranked());
  EXPECT_FALSE(Samples().ranked());
  const Samples ranked({{0, 1, 2, 1}, {1, 2, 3, 0}});
  EXPECT_TRUE(ranked.ranked());
}

TEST(RankedSamples, EveryOrNoSampleHasARank) {
  EXPECT_EQ(error_of([] {
              Samples({{0, 1, 2, 0}, {1, 2, 3}});
            }),
            "samples: sample 1 (lo=1, hi=2, dt=3): has no rank, but sample 0 has one; every "
            "sample has a rank or none does");
  EXPECT_EQ(error_of([] {
              Samples({{0, 1, 2}, {1, 2, 3, 4}});
            }),
            "samples: sample 1 (lo=1, hi=2, dt=3, rank=4): has a rank, but sample 0 has none; "
            "every sample has a rank or none does");
  EXPECT_EQ(error_of([] {
              Samples({{0, 1, 2, -2}});
            }),
            "samples: sample 0 (lo=0, hi=1, dt=2, rank=-2): expected a rank in [0, 9999999] or "
            "-1 (not known)");
  // merged() of a ranked and an unranked set is the same mix.
  const Samples ranked({{0, 1, 2, 0}});
  const Samples plain({{0, 1, 2}});
  EXPECT_NE(error_of([&] { ranked.merged(plain); }).find("has no rank, but sample 0 has one"),
            std::string::npos);
}

TEST(RankedSamples, TextWithAndWithoutHeader) {
  const std::vector<Row> want{{0, 1, 2, 3}, {1, 3, 6, 0}};
  EXPECT_EQ(RowsOf(ReadRanked("lo,hi,dt,rank\n0,1,2,3\n1,3,6,0\n")), want);
  EXPECT_EQ(RowsOf(ReadRanked("X_LO, x_hi, dt, Rank\r\n0,1,2,3\r\n1,3,6,0\r\n")), want);
  EXPECT_EQ(RowsOf(ReadRanked("# two ranks\n0 1 2 3\n1\t3 6 +0\n")), want);
  EXPECT_EQ(RowsOf(ReadRanked("0,1,2,3.0\n1,3,6,0e0\n")), want);  // whole numbers
  EXPECT_TRUE(ReadRanked("0,1,2,0\n").ranked());
  EXPECT_FALSE(ReadRanked("lo,hi,dt\n0,1,2\n").ranked());
}

TEST(RankedSamples, TextErrorsNameFileLineAndValue) {
  EXPECT_EQ(RankedReadError("lo,hi,dt,rank\n0,1,2,0\n1,2,3,-1\n", 3),
            "r.csv:3: rank: expected an integer >= 0, got '-1'");
  EXPECT_EQ(RankedReadError("0,1,2,0\n1,2,3,1.5\n", 2),
            "r.csv:2: rank: expected an integer >= 0, got '1.5'");
  EXPECT_EQ(RankedReadError("0,1,2,one\n", 1),
            "r.csv:1: rank: expected an integer >= 0, got 'one'");
  EXPECT_EQ(RankedReadError("0,1,2,1e7\n", 1),
            "r.csv:1: rank: 10000000 is above the limit of 9999999");
  // A row without its rank among ranked rows, and the reverse.
  EXPECT_EQ(RankedReadError("lo,hi,dt,rank\n0,1,2,0\n1,2,3\n", 3),
            "r.csv:3: expected 4 fields (lo,hi,dt,rank, as on line 1), got 3: either every row "
            "has a rank or none does");
  EXPECT_EQ(RankedReadError("0,1,2\n1,2,3,0\n", 2),
            "r.csv:2: expected 3 fields (lo,hi,dt, as on line 1), got 4: either every row has a "
            "rank or none does");
  EXPECT_EQ(RankedReadError("x,t\n0,0\n1,2,3,0\n", 3),
            "r.csv:3: expected 2 fields (x,t, as on line 1), got 4: cumulative (x,t) and interval "
            "(lo,hi,dt) rows cannot be mixed in one file");
  EXPECT_EQ(RankedReadError("lo,hi,rank\n0,1,2\n", 1),
            "r.csv:1: expected numbers or a header 'x,t', 'lo,hi,dt', 'x_lo,x_hi,dt', "
            "'lo,hi,dt,rank' or 'x_lo,x_hi,dt,rank', got 'lo,hi,rank'");
  // The other checks of a sample still come first, then name the rank too.
  EXPECT_EQ(RankedReadError("0,1,2,0\n1,1,2,1\n", 2),
            "r.csv:2: sample 1 (lo=1, hi=1, dt=2, rank=1): expected lo < hi");
}

TEST(RankedSamples, Json) {
  const std::vector<Row> want{{0, 1, 2, 3}, {1, 3, 6, 0}};
  EXPECT_EQ(RowsOf(ReadRanked(R"({"intervals": [{"lo": 0, "hi": 1, "dt": 2, "rank": 3},
                                                {"lo": 1, "hi": 3, "dt": 6, "rank": 0}]})")),
            want);
  EXPECT_EQ(RowsOf(ReadRanked(R"([{"rank": 3, "lo": 0, "hi": 1, "dt": 2},
                                  {"lo": 1, "hi": 3, "dt": 6, "rank": 0.0}])")),
            want);
  EXPECT_FALSE(ReadRanked(R"([{"lo": 0, "hi": 1, "dt": 2}])").ranked());
  // A cumulative object's "rank" is one of the other keys, ignored.
  EXPECT_FALSE(ReadRanked(R"([{"x": 0, "t": 0, "rank": 1}, {"x": 1, "t": 2}])").ranked());
}

TEST(RankedSamples, JsonErrorsNameTheLine) {
  EXPECT_EQ(RankedReadError("[{\"lo\": 0, \"hi\": 1, \"dt\": 2, \"rank\": 0},\n"
                            " {\"lo\": 1, \"hi\": 2, \"dt\": 2,\n  \"rank\": -1}]",
                            3),
            "r.csv:3: sample 1: 'rank': expected an integer >= 0, got -1");
  EXPECT_EQ(RankedReadError("[{\"lo\": 0, \"hi\": 1, \"dt\": 2, \"rank\": 2.5}]", 1),
            "r.csv:1: sample 0: 'rank': expected an integer >= 0, got 2.5");
  EXPECT_EQ(RankedReadError("[{\"lo\": 0, \"hi\": 1, \"dt\": 2, \"rank\": \"1\"}]", 1),
            "r.csv:1: sample 0: 'rank': expected an integer >= 0, got \"1\" (string)");
  EXPECT_EQ(RankedReadError("[{\"lo\": 0, \"hi\": 1, \"dt\": 2, \"rank\": 0},\n"
                            " {\"lo\": 1, \"hi\": 2, \"dt\": 2}]",
                            2),
            "r.csv:2: sample 1: missing key 'rank', which sample 0 has (every interval has a "
            "rank or none does)");
  EXPECT_EQ(RankedReadError("[{\"lo\": 0, \"hi\": 1, \"dt\": 2},\n"
                            " {\"lo\": 1, \"hi\": 2, \"dt\": 2, \"rank\": 0}]",
                            2),
            "r.csv:2: sample 1: a 'rank', which sample 0 has not (every interval has a rank or "
            "none does)");
}

TEST(RankedSamples, SplitRunsAndMergedKeepTheRanks) {
  // Two runs of 3 ranks over [0, 6): equal thirds, then cuts at 1 and 4.
  const Samples s = ReadRanked(
      "lo,hi,dt,rank\n0,2,4,0\n2,4,2,1\n4,6,1,2\n"
      "0,1,1,0\n1,4,5,1\n4,6,3,2\n");
  const std::vector<Samples> runs = isocost::split_runs(s);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(RowsOf(runs[0]), (std::vector<Row>{{0, 2, 4, 0}, {2, 4, 2, 1}, {4, 6, 1, 2}}));
  EXPECT_EQ(RowsOf(runs[1]), (std::vector<Row>{{0, 1, 1, 0}, {1, 4, 5, 1}, {4, 6, 3, 2}}));
  EXPECT_TRUE(runs[0].ranked());
  EXPECT_EQ(RowsOf(runs[0].merged(runs[1])), RowsOf(s));
  // One run that tiles comes back whole, ranks and all.
  EXPECT_EQ(RowsOf(isocost::split_runs(runs[1]).front()), RowsOf(runs[1]));
}

}  // namespace
