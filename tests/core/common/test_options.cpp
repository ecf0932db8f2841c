// Tests for isocost/options.hpp: one field list drives validation, the JSON
// form and the agreement hash — every field reaches all three, and every
// kind of field is checked, printed and hashed as documented.
#include "isocost/options.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <set>

#include "isocost/cut.hpp"
#include "isocost/error.hpp"
#include "support/mutate_field.hpp"

namespace sample {

enum class Color { red, green, blue };
std::string_view to_string(Color c) {
  switch (c) {
    case Color::red:
      return "red";
    case Color::green:
      return "green";
    case Color::blue:
      return "blue";
  }
  return "?";
}

// A value list, as Speeds is.
class Weights {
 public:
  static Weights from_values(std::vector<double> v) {
    Weights w;
    w.v_ = std::move(v);
    return w;
  }
  std::vector<double> values() const { return v_; }

 private:
  std::vector<double> v_{1.0, 2.0};
};

struct Inner {
  double x = 1.5;
  int n = 2;
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("x", self.x, isocost::above(0));
    v("n", self.n, isocost::at_least(0));
  }
  bool is_valid(std::string* why) const {
    if (!isocost::check_fields(*this, why)) return false;
    if (n > 100) {
      if (why) *why = "n must be <= 100 when x is set, got " + std::to_string(n);
      return false;
    }
    return true;
  }
};

struct Plain {  // nested without is_valid: its fields are checked in place
  double y = 0.25;
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("y", self.y, isocost::closed(0, 1));
  }
};

struct Options {
  bool flag = false;
  int count = 3;
  long long big = 1;
  double rate = 0.5;
  double cap = std::numeric_limits<double>::infinity();
  std::optional<double> limit;
  std::vector<double> list;
  std::array<double, 3> width{0, 0, 0};
  Color color = Color::green;
  std::string path = "log.json";
  std::function<double()> clock;
  std::map<std::string, double> guess{{"p", 2.0}};
  Weights weights;
  Inner inner;
  Plain plain;

  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("flag", self.flag);
    v("count", self.count, isocost::at_least(1));
    v("big", self.big);
    v("rate", self.rate, isocost::left_open(0, 1));
    v("cap", self.cap, isocost::above(0).or_infinity());
    v("limit", self.limit, isocost::right_open(0, 10));
    v("list", self.list, isocost::above(0));
    v("width", self.width, isocost::at_least(0));
    v("color", self.color);
    v("path", self.path);
    v("clock", self.clock);
    v("guess", self.guess);
    v("weights", self.weights, isocost::above(0));
    v("inner", self.inner);
    v("plain", self.plain);
  }
};

// The example of options.hpp's header comment, as written there (its
// CutMethod is isocost's): it must compile and behave as the comment says.
struct CutOptions {
  isocost::CutMethod method = isocost::CutMethod::newton;
  double cost_tolerance = 1e-12;
  int max_iterations = 100;
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("method", self.method);
    v("cost_tolerance", self.cost_tolerance, isocost::at_least(0));
    v("max_iterations", self.max_iterations, isocost::at_least(1));
  }
  bool is_valid(std::string* why) const { return isocost::check_fields(*this, why); }
  void validate() const { isocost::validate_options(*this, "cut options"); }
};

}  // namespace sample

namespace {

using isocost::check_fields;
using isocost::options_hash;
using isocost::options_json;

std::string why_of(const sample::Options& o) {
  std::string why;
  EXPECT_FALSE(check_fields(o, &why));
  return why;
}

TEST(Options, TheHeaderExampleWorksAsDocumented) {
  sample::CutOptions o;
  std::string why;
  EXPECT_TRUE(o.is_valid(&why));
  EXPECT_NO_THROW(o.validate());
  o.max_iterations = 0;
  EXPECT_FALSE(o.is_valid(&why));
  EXPECT_NE(why.find("max_iterations"), std::string::npos) << why;
  try {
    o.validate();
    ADD_FAILURE() << "validate() accepted max_iterations = 0";
  } catch (const isocost::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cut options: ", 0), 0u) << e.what();
  }
  o.max_iterations = 100;
  o.cost_tolerance = -1;
  EXPECT_FALSE(o.is_valid(&why));
  EXPECT_NE(options_json(o).find("\"method\""), std::string::npos);
}

TEST(Options, DefaultsAreValid) {
  std::string why = "untouched";
  EXPECT_TRUE(check_fields(sample::Options{}, &why));
  EXPECT_EQ(why, "untouched");
  EXPECT_TRUE(check_fields(sample::Options{}, nullptr));
}

TEST(Options, EachBadFieldIsNamedWithItsValueAndTheExpectation) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  sample::Options o;
  o.count = 0;
  EXPECT_EQ(why_of(o), "count: expected an integer >= 1, got 0");
  o = {};
  o.rate = 0;
  EXPECT_EQ(why_of(o), "rate: expected a number in (0, 1], got 0");
  o.rate = nan;
  EXPECT_EQ(why_of(o), "rate: expected a number in (0, 1], got nan");
  o = {};
  o.cap = -inf;
  EXPECT_EQ(why_of(o), "cap: expected +inf or a finite number > 0, got -inf");
  o = {};
  o.limit = 10;
  EXPECT_EQ(why_of(o), "limit: expected a number in [0, 10), got 10");
  o = {};
  o.list = {1, 2, -3};
  EXPECT_EQ(why_of(o), "list[2]: expected a finite number > 0, got -3");
  o = {};
  o.width[1] = inf;
  EXPECT_EQ(why_of(o), "width[1]: expected a finite number >= 0, got inf");
  o = {};
  o.color = static_cast<sample::Color>(7);
  EXPECT_EQ(why_of(o), "color: expected one of its named values, got 7");
  o = {};
  o.weights = sample::Weights::from_values({1, 0});
  EXPECT_EQ(why_of(o), "weights[1]: expected a finite number > 0, got 0");
  o = {};
  o.inner.x = 0;
  EXPECT_EQ(why_of(o), "inner.x: expected a finite number > 0, got 0");
  o = {};
  o.inner.n = 101;  // the nested struct's own cross-field check
  EXPECT_EQ(why_of(o), "inner.n must be <= 100 when x is set, got 101");
  o = {};
  o.plain.y = 2;
  EXPECT_EQ(why_of(o), "plain.y: expected a number in [0, 1], got 2");
  // The first bad field is reported.
  o = {};
  o.count = -1;
  o.rate = 5;
  EXPECT_EQ(why_of(o), "count: expected an integer >= 1, got -1");
}

TEST(Options, JsonListsEveryFieldInOrder) {
  sample::Options o;
  EXPECT_EQ(options_json(o),
            "{\"flag\":false,\"count\":3,\"big\":1,\"rate\":0.5,\"cap\":\"inf\",\"limit\":null,"
            "\"list\":[],\"width\":[0,0,0],\"color\":\"green\",\"path\":\"log.json\","
            "\"clock\":null,\"guess\":{\"p\":2},\"weights\":[1,2],\"inner\":{\"x\":1.5,\"n\":2},"
            "\"plain\":{\"y\":0.25}}");
  o.limit = 0.1;
  o.clock = [] { return 0.0; };
  o.path = "a\"b\n";
  const std::string j = options_json(o);
  EXPECT_NE(j.find("\"limit\":0.1,"), std::string::npos) << j;
  EXPECT_NE(j.find("\"clock\":\"set\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"path\":\"a\\\"b\\n\""), std::string::npos) << j;
}

// The heart of the contract: change any one field and the hash and the JSON
// change, and a field changed within its Range stays valid.
TEST(Options, EveryFieldReachesTheHashAndTheJson) {
  const sample::Options o;
  const std::size_t n = isocost::field_count(o);
  EXPECT_EQ(n, 16u);  // 13 leaves at the top, x and n in inner, y in plain
  std::set<std::string> names;
  std::set<std::uint64_t> hashes{options_hash(o)};
  for (std::size_t k = 0; k < n; ++k) {
    sample::Options changed = o;
    const std::string name = isocost::testing::mutate_field(changed, k);
    names.insert(name);
    hashes.insert(options_hash(changed));
    EXPECT_NE(options_hash(changed), options_hash(o)) << name;
    EXPECT_NE(options_json(changed), options_json(o)) << name;
    std::string why;
    EXPECT_TRUE(check_fields(changed, &why)) << name << ": " << why;
  }
  EXPECT_EQ(names.size(), n);
  EXPECT_EQ(hashes.size(), n + 1);  // all different from each other too
  EXPECT_TRUE(names.count("inner.n"));
  EXPECT_TRUE(names.count("plain.y"));
  EXPECT_THROW(isocost::testing::mutate_field(const_cast<sample::Options&>(o), n),
               std::out_of_range);
}

TEST(Options, HashIsOfTheValuesNotTheObject) {
  sample::Options a, b;
  EXPECT_EQ(options_hash(a), options_hash(b));
  a.rate = -0.0 + 0.5;
  EXPECT_EQ(options_hash(a), options_hash(b));
  a.width[0] = -0.0;  // -0 and +0 are one setting
  EXPECT_EQ(options_hash(a), options_hash(b));
  a.clock = [] { return 1.0; };
  b.clock = [] { return 2.0; };  // callbacks compare by whether they are set
  EXPECT_EQ(options_hash(a), options_hash(b));
}

TEST(Options, RangeDescriptions) {
  using isocost::Range;
  EXPECT_EQ(isocost::at_least(0).describe(false), "a finite number >= 0");
  EXPECT_EQ(isocost::at_least(1).describe(true), "an integer >= 1");
  EXPECT_EQ(isocost::above(0).describe(false), "a finite number > 0");
  EXPECT_EQ(isocost::open(0, 1).describe(false), "a number in (0, 1)");
  EXPECT_EQ(isocost::closed(0, 40).describe(true), "an integer in [0, 40]");
  EXPECT_EQ(isocost::any_value.describe(false), "a finite number");
  EXPECT_EQ(isocost::any_value.describe(true), "an integer");
  EXPECT_EQ(isocost::above(0).or_infinity().describe(false), "+inf or a finite number > 0");
  EXPECT_TRUE(isocost::above(0).or_infinity().contains(std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(isocost::above(0).contains(std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(
      isocost::closed(0, 1).or_infinity().contains(std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(isocost::any_value.contains(std::numeric_limits<double>::quiet_NaN()));
}

// What the mpi layer names when two ranks' options differ.
TEST(Options, LinesAndTheirDifferences) {
  sample::Options a;
  const std::string lines = isocost::options_lines(a);
  EXPECT_EQ(lines.substr(0, lines.find("limit")),
            "flag\tfalse\ncount\t3\nbig\t1\nrate\t0.5\ncap\t\"inf\"\n");
  EXPECT_NE(lines.find("inner.x\t1.5\ninner.n\t2\nplain.y\t0.25\n"), std::string::npos) << lines;
  sample::Options b = a;
  EXPECT_EQ(isocost::field_differences(isocost::options_lines(b), lines, "rank 0"), "");
  b.rate = 0.25;
  b.color = sample::Color::blue;
  b.inner.n = 7;
  EXPECT_EQ(isocost::field_differences(isocost::options_lines(b), lines, "rank 0"),
            "rate 0.25 (rank 0: 0.5), color blue (rank 0: green), inner.n 7 (rank 0: 2)");
}

}  // namespace
