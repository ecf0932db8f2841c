// Tests for isocost/detail/text.hpp's quote(): how messages show a field from
// a file or the command line — escaped, bounded, on one line; and
// fixed_digits(), the numbers of the CLI's tables.
#include "isocost/detail/text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace {

using isocost::detail::quote;

TEST(Quote, PlainFieldsAreQuotedAsTheyAre) {
  EXPECT_EQ(quote("abc"), "'abc'");
  EXPECT_EQ(quote(""), "''");
  EXPECT_EQ(quote("-1.5e+3 x,y"), "'-1.5e+3 x,y'");
  EXPECT_EQ(quote("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "'caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80'");
}

TEST(Quote, ControlBytesAreEscaped) {
  EXPECT_EQ(quote("1\r2"), "'1\\r2'");
  EXPECT_EQ(quote("a\nb\tc"), "'a\\nb\\tc'");
  EXPECT_EQ(quote(std::string("x\0y", 3)), "'x\\x00y'");
  EXPECT_EQ(quote("\x1B[31mred"), "'\\x1b[31mred'");  // no terminal colours from a file
  EXPECT_EQ(quote("del\x7F"), "'del\\x7f'");
}

TEST(Quote, BytesThatAreNotUtf8AreEscaped) {
  EXPECT_EQ(quote("\xFF"), "'\\xff'");
  EXPECT_EQ(quote("a\x80z"), "'a\\x80z'");                         // a stray continuation byte
  EXPECT_EQ(quote("\xC0\xAF"), "'\\xc0\\xaf'");                    // an overlong '/'
  EXPECT_EQ(quote("\xE2\x82"), "'\\xe2\\x82'");                    // cut short
  EXPECT_EQ(quote("\xED\xA0\x80"), "'\\xed\\xa0\\x80'");           // a UTF-16 surrogate
  EXPECT_EQ(quote("\xF4\x90\x80\x80"), "'\\xf4\\x90\\x80\\x80'");  // beyond U+10FFFF
  EXPECT_EQ(quote("\xC2\x85"), "'\\xc2\\x85'");                    // C1 control NEL
  EXPECT_EQ(quote("\xC2\xA0"), "'\xC2\xA0'");                      // no-break space is printable
}

TEST(Quote, LongFieldsAreCutWithTheirLength) {
  const std::string sixty(60, 'z');
  EXPECT_EQ(quote(sixty), "'" + sixty + "'");
  EXPECT_EQ(quote(sixty + "!"), "'" + sixty + "...' (61 bytes)");
  const std::string q = quote(std::string(10000, 'z'));
  EXPECT_EQ(q, "'" + sixty + "...' (10000 bytes)");
  EXPECT_LE(q.size(), 80u);
  EXPECT_EQ(quote("abcdef", 3), "'abc...' (6 bytes)");
}

TEST(Quote, EscapesCountTowardsTheLimit) {
  // 100 CRs: 30 escapes of 2 characters fill the 60 columns; 100 SOHs: 15 of 4.
  std::string shown;
  for (int k = 0; k < 30; ++k) shown += "\\r";
  EXPECT_EQ(quote(std::string(100, '\r')), "'" + shown + "...' (100 bytes)");
  shown.clear();
  for (int k = 0; k < 15; ++k) shown += "\\x01";
  EXPECT_EQ(quote(std::string(100, '\x01')), "'" + shown + "...' (100 bytes)");
  std::string binary;
  for (int k = 0; k < 1000; ++k) binary += static_cast<char>(k % 32);
  EXPECT_LE(quote(binary).size(), 80u);
}

TEST(Quote, ACutNeverSplitsACharacter) {
  std::string text;
  for (int k = 0; k < 100; ++k) text += "\xC3\xA9";  // é, two bytes, one column
  std::string shown;
  for (int k = 0; k < 60; ++k) shown += "\xC3\xA9";
  EXPECT_EQ(quote(text), "'" + shown + "...' (200 bytes)");
}

// fixed_digits() is std::to_chars with a precision (fast enough for 10^7-row
// tables); the C standard's printf("%.*g") is the reference it must match.
TEST(FixedDigits, MatchesPrintfG) {
  const double inf = std::numeric_limits<double>::infinity();
  const double values[] = {0.0,       -0.0,     1.0,          -1.5,
                           0.1,       2.0 / 3,  1e-300,       1e300,
                           123456789, 1e15,     9.9999995e-5, 0.5 - 1e-17,
                           1e-5,      999999.5, 100000,       4.9e-324,
                           inf,       -inf,     std::nan(""), std::numeric_limits<double>::max()};
  for (const double v : values)
    for (int digits : {1, 2, 3, 6, 8, 10, 12, 17, 30}) {
      char expected[128];
      std::snprintf(expected, sizeof expected, "%.*g", digits, v);
      EXPECT_EQ(isocost::detail::fixed_digits(v, digits), expected) << v << " " << digits;
    }
}

}  // namespace
