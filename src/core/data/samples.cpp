#include "isocost/samples.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <string_view>
#include <utility>

#include "data/records.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

using detail::exact;
using detail::is_header;
using detail::lower;
using detail::Record;

namespace {

std::string fields_of(const IntervalSample& s) {
  return "lo=" + exact(s.lo) + ", hi=" + exact(s.hi) + ", dt=" + exact(s.dt);
}

std::string range_of(const IntervalSample& s) {
  return "[" + exact(s.lo) + ", " + exact(s.hi) + ")";
}

// What is wrong with one interval sample ("" if nothing) and which field is to
// blame, so that file readers can point at that field's line.
struct Problem {
  std::string message;
  const char* field = "";
};

Problem check_interval(const IntervalSample& s) {
  if (!std::isfinite(s.lo)) return {"expected a finite lo", "lo"};
  if (!std::isfinite(s.hi)) return {"expected a finite hi", "hi"};
  if (!std::isfinite(s.dt)) return {"expected a finite dt", "dt"};
  if (!(s.lo < s.hi)) return {"expected lo < hi", "hi"};
  if (!(s.dt > 0)) return {"expected dt > 0 (every measured range takes some time)", "dt"};
  return {};
}

// Indices of `v` ordered by lo (ties by hi), stable so messages are reproducible.
std::vector<std::size_t> order_by_lo(const std::vector<IntervalSample>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return v[a].lo < v[b].lo || (v[a].lo == v[b].lo && v[a].hi < v[b].hi);
  });
  return order;
}

// ---------------------------------------------------------------------------
// Text records: the same splitting rules as io.cpp (records.hpp).

double text_number(const Record& r, std::size_t k, const char* what, const std::string& name) {
  double v;
  if (!detail::parse_number(r.fields[k], v) || !std::isfinite(v))
    throw ParseError(name, r.line,
                     std::string(what) + ": expected a finite number, got '" + r.fields[k] + "'");
  return v;
}

// ---------------------------------------------------------------------------
// Checks shared by the text and JSON readers, reported at the offending line.

// Cumulative points read from a file; x_lines/t_lines give the line of each value.
Samples cumulative_from_file(std::vector<double> x, std::vector<double> t,
                             const std::vector<std::size_t>& x_lines,
                             const std::vector<std::size_t>& t_lines, const std::string& name,
                             bool repair) {
  if (x.size() < 2)
    throw ParseError(
        name, t_lines.back(),
        "expected at least 2 cumulative samples (x,t), got " + std::to_string(x.size()));
  for (std::size_t k = 1; k < x.size(); ++k) {
    if (!(x[k] > x[k - 1]))
      throw ParseError(name, x_lines[k],
                       "x must increase strictly, but sample " + std::to_string(k) +
                           " has x=" + exact(x[k]) + " after x=" + exact(x[k - 1]) + " (line " +
                           std::to_string(x_lines[k - 1]) + ")");
    if (!repair && t[k] < t[k - 1])
      throw ParseError(name, t_lines[k],
                       "cumulative t must not decrease, but sample " + std::to_string(k) +
                           " has t=" + exact(t[k]) + " after t=" + exact(t[k - 1]) + " (line " +
                           std::to_string(t_lines[k - 1]) +
                           "); if this is measurement noise, --repair replaces t by its isotonic "
                           "regression");
  }
  try {
    return Samples::from_cumulative(std::move(x), std::move(t), repair);
  } catch (const Error& e) {
    // What is left is about the data as a whole (e.g. t never rises).
    throw ParseError(name, t_lines.back(), e.what());
  }
}

// ---------------------------------------------------------------------------
// CSV / whitespace

Samples read_text(const std::string& text, const std::string& name, bool repair) {
  std::istringstream stream(text);
  const auto records = detail::read_records(stream);
  std::size_t start = 0;
  std::size_t columns = 0;  // 2: cumulative x,t; 3: intervals lo,hi,dt
  std::size_t layout_line = 0;
  if (!records.empty() && is_header(records[0])) {
    const Record& h = records[0];
    std::string joined;
    std::vector<std::string> names;
    for (const auto& f : h.fields) {
      names.push_back(lower(f));
      joined += (joined.empty() ? "" : ",") + f;
    }
    using V = std::vector<std::string>;
    if (names == V{"x", "t"})
      columns = 2;
    else if (names == V{"lo", "hi", "dt"} || names == V{"x_lo", "x_hi", "dt"})
      columns = 3;
    else
      throw ParseError(
          name, h.line,
          "expected numbers or a header 'x,t', 'lo,hi,dt' or 'x_lo,x_hi,dt', got '" + joined + "'");
    start = 1;
    layout_line = h.line;
  }
  if (start == records.size())
    throw ParseError(name, records.empty() ? 1 : records.back().line, "no samples in the file");
  if (columns == 0) {
    columns = records[start].fields.size();
    layout_line = records[start].line;
    if (columns != 2 && columns != 3)
      throw ParseError(
          name, layout_line,
          "expected 2 fields (x,t: cumulative) or 3 fields (lo,hi,dt: intervals), got " +
              std::to_string(columns));
  }
  const std::string layout = columns == 2 ? "x,t" : "lo,hi,dt";

  std::vector<double> x, t;
  std::vector<std::size_t> lines;
  std::vector<IntervalSample> intervals;
  for (std::size_t i = start; i < records.size(); ++i) {
    const Record& r = records[i];
    if (r.fields.size() != columns) {
      const std::size_t n = r.fields.size();
      const bool other_kind = n == 2 || n == 3;
      throw ParseError(name, r.line,
                       "expected " + std::to_string(columns) + " fields (" + layout +
                           ", as on line " + std::to_string(layout_line) + "), got " +
                           std::to_string(n) +
                           (other_kind ? ": cumulative (x,t) and interval (lo,hi,dt) rows cannot "
                                         "be mixed in one file"
                                       : ""));
    }
    if (columns == 2) {
      x.push_back(text_number(r, 0, "x", name));
      t.push_back(text_number(r, 1, "t", name));
      lines.push_back(r.line);
    } else {
      const IntervalSample s{text_number(r, 0, "lo", name), text_number(r, 1, "hi", name),
                             text_number(r, 2, "dt", name)};
      if (const Problem p = check_interval(s); !p.message.empty())
        throw ParseError(
            name, r.line,
            "sample " + std::to_string(intervals.size()) + " (" + fields_of(s) + "): " + p.message);
      intervals.push_back(s);
    }
  }
  if (columns == 2)
    return cumulative_from_file(std::move(x), std::move(t), lines, lines, name, repair);
  return Samples(std::move(intervals));
}

// ---------------------------------------------------------------------------
// JSON

using nlohmann::json;

// Where one element of the samples array starts, and where each of its members'
// values starts (for multi-line objects).
struct JsonElement {
  std::size_t line = 1;
  std::vector<std::pair<std::string, std::size_t>> members;
};

// nlohmann::json keeps no positions, so this walks the (already validated)
// text once more to find the line of every element of the samples array: the
// top-level array, or the value of `key` in the top-level object. Deeper
// values are skipped without recursion, so any nesting depth is safe.
class LineScanner {
 public:
  explicit LineScanner(std::string_view text) : s_(text) {}

  std::vector<JsonElement> elements(const std::string& key) {
    std::vector<JsonElement> found;
    blanks();
    array_line_ = line_;
    if (peek() == '[') return array();
    if (peek() != '{') return found;
    ++i_;
    blanks();
    while (peek() == '"') {
      const std::string k = string();
      blanks();
      ++i_;  // ':'
      blanks();
      // nlohmann keeps the last of duplicate keys, so the last one wins here too.
      if (k == key) array_line_ = line_;
      if (k == key && peek() == '[')
        found = array();
      else
        skip();
      blanks();
      if (peek() != ',') break;
      ++i_;
      blanks();
    }
    return found;
  }

  /// Line where the samples array (or the document) starts.
  std::size_t array_line() const { return array_line_; }

 private:
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }

  void blanks() {
    for (char c; (c = peek()) == ' ' || c == '\t' || c == '\r' || c == '\n'; ++i_)
      if (c == '\n') ++line_;
  }

  // At '"': the string's value (decoded only when it has escapes).
  std::string string() {
    const std::size_t start = i_++;
    bool escapes = false;
    for (char c; (c = peek()) != '"' && c != '\0'; ++i_) {
      if (c == '\\') {
        escapes = true;
        ++i_;
      }
    }
    ++i_;
    const std::string_view raw = s_.substr(start, std::min(i_, s_.size()) - start);
    if (!escapes) return std::string(raw.substr(1, raw.size() >= 2 ? raw.size() - 2 : 0));
    try {
      return json::parse(raw).get<std::string>();
    } catch (const json::exception&) {
      return {};
    }
  }

  void skip() {
    const char c = peek();
    if (c == '"') {
      string();
    } else if (c == '{' || c == '[') {
      for (int depth = 0; peek() != '\0';) {
        const char d = peek();
        if (d == '"') {
          string();
          continue;
        }
        ++i_;
        if (d == '\n') ++line_;
        if (d == '{' || d == '[') ++depth;
        if ((d == '}' || d == ']') && --depth == 0) return;
      }
    } else {
      while (peek() != '\0' && std::string_view(",]} \t\r\n").find(peek()) == std::string::npos)
        ++i_;
    }
  }

  // At '[': each element's line, and its members' lines when it is an object.
  std::vector<JsonElement> array() {
    std::vector<JsonElement> out;
    ++i_;
    blanks();
    if (peek() == ']') {
      ++i_;
      return out;
    }
    while (peek() != '\0') {
      JsonElement e;
      e.line = line_;
      if (peek() == '{') {
        ++i_;
        blanks();
        while (peek() == '"') {
          std::string k = string();
          blanks();
          ++i_;  // ':'
          blanks();
          e.members.emplace_back(std::move(k), line_);
          skip();
          blanks();
          if (peek() != ',') break;
          ++i_;
          blanks();
        }
        ++i_;  // '}'
      } else {
        skip();
      }
      out.push_back(std::move(e));
      blanks();
      if (peek() != ',') break;
      ++i_;
      blanks();
    }
    ++i_;  // ']'
    return out;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::size_t line_ = 1;
  std::size_t array_line_ = 1;
};

// Line (and column) of a JSON syntax error from nlohmann's byte count, which
// points one past the last character read (the offending one), or one past the
// end of the input when it ended early; then the last non-blank line is the one
// to fix.
std::pair<std::size_t, std::size_t> json_error_place(const std::string& text, std::size_t byte) {
  std::size_t pos = 0;
  if (byte > text.size()) {
    pos = text.find_last_not_of(" \t\r\n");
    if (pos == std::string::npos) pos = 0;
  } else if (byte > 0) {
    pos = byte - 1;
  }
  const auto before = text.begin() + static_cast<std::ptrdiff_t>(pos);
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), before, '\n'));
  const std::size_t newline = pos == 0 ? std::string::npos : text.rfind('\n', pos - 1);
  const std::size_t column = newline == std::string::npos ? pos + 1 : pos - newline;
  return {line, column};
}

// Finds where nlohmann gave up when the exception it threw has no position
// (a number too large for a double is out_of_range, not parse_error).
struct ErrorPosition : nlohmann::json_sax<json> {
  std::size_t byte = 0;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&, const json::exception&) override {
    byte = position;
    return false;
  }
};

// nlohmann's message without its "[json.exception…] " and "parse error at line L,
// column C: " prefixes (we give our own line and column).
std::string json_error_text(const json::exception& e) {
  std::string what = e.what();
  if (what.rfind("[json.exception.", 0) == 0) {
    if (const auto close = what.find("] "); close != std::string::npos) what.erase(0, close + 2);
  }
  if (what.rfind("parse error", 0) == 0) {
    if (const auto colon = what.find(": "); colon != std::string::npos) what.erase(0, colon + 2);
  }
  return what;
}

std::string json_value_text(const json& v) {
  std::string text = v.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text + " (" + v.type_name() + ")";
}

class JsonReader {
 public:
  JsonReader(const std::string& text, std::string name, bool repair)
      : text_(text), name_(std::move(name)), repair_(repair) {}

  Samples read() {
    json doc;
    try {
      doc = json::parse(text_);
    } catch (const json::exception& e) {
      std::size_t byte = 0;
      if (const auto* p = dynamic_cast<const json::parse_error*>(&e)) {
        byte = p->byte;
      } else {
        ErrorPosition where;
        json::sax_parse(text_, &where);
        byte = where.byte;
      }
      const auto [line, column] = json_error_place(text_, byte);
      throw ParseError(
          name_, line,
          "invalid JSON at column " + std::to_string(column) + ": " + json_error_text(e));
    }
    const std::size_t top_line =
        1 +
        static_cast<std::size_t>(std::count(
            text_.begin(),
            text_.begin() + static_cast<std::ptrdiff_t>(text_.find_first_not_of(" \t\r\n")), '\n'));
    enum class Kind { unknown, cumulative, intervals } kind = Kind::unknown;
    std::string key;
    const json* array = &doc;
    if (doc.is_object()) {
      const bool c = doc.contains("cumulative"), i = doc.contains("intervals");
      if (c == i)
        throw ParseError(name_, top_line,
                         c ? "the object has both 'cumulative' and 'intervals': one kind of "
                             "samples per file"
                           : "expected a key 'cumulative' or 'intervals' (or a bare array of "
                             "samples)");
      key = c ? "cumulative" : "intervals";
      kind = c ? Kind::cumulative : Kind::intervals;
      array = &doc[key];
    }
    LineScanner scanner(text_);
    elements_ = scanner.elements(key);
    const std::size_t array_line = scanner.array_line();
    if (!array->is_array())
      throw ParseError(name_, array_line,
                       (key.empty() ? std::string("the document") : "'" + key + "'") +
                           ": expected an array of sample objects, got " + json_value_text(*array));
    if (elements_.size() != array->size()) elements_.clear();  // not expected; lines fall back
    if (array->empty()) throw ParseError(name_, array_line, "no samples in the file");

    const json& first = (*array)[0];
    if (kind == Kind::unknown) {
      if (first.is_object() && (first.contains("x") || first.contains("t")))
        kind = Kind::cumulative;
      else if (first.is_object() &&
               (first.contains("lo") || first.contains("hi") || first.contains("dt")))
        kind = Kind::intervals;
      else
        throw ParseError(name_, line(0),
                         "sample 0: expected an object {\"x\": …, \"t\": …} (cumulative) or "
                         "{\"lo\": …, \"hi\": …, \"dt\": …} (interval), got " +
                             json_value_text(first));
    }
    const bool cumulative = kind == Kind::cumulative;
    std::vector<double> x, t;
    std::vector<std::size_t> x_lines, t_lines;
    std::vector<IntervalSample> intervals;
    for (std::size_t k = 0; k < array->size(); ++k) {
      const json& e = (*array)[k];
      if (!e.is_object())
        throw ParseError(
            name_, line(k),
            "sample " + std::to_string(k) + ": expected an object, got " + json_value_text(e));
      if (cumulative) {
        x.push_back(number(e, k, "x", true));
        t.push_back(number(e, k, "t", true));
        x_lines.push_back(line(k, "x"));
        t_lines.push_back(line(k, "t"));
      } else {
        const IntervalSample s{number(e, k, "lo", false), number(e, k, "hi", false),
                               number(e, k, "dt", false)};
        if (const Problem p = check_interval(s); !p.message.empty())
          throw ParseError(name_, line(k, p.field),
                           "sample " + std::to_string(k) + " (" + fields_of(s) + "): " + p.message);
        intervals.push_back(s);
      }
    }
    if (cumulative)
      return cumulative_from_file(std::move(x), std::move(t), x_lines, t_lines, name_, repair_);
    return Samples(std::move(intervals));
  }

 private:
  // Line of element k, or of its member `key` when given and present.
  std::size_t line(std::size_t k, const char* key = nullptr) const {
    if (k >= elements_.size()) return 1;
    const JsonElement& e = elements_[k];
    if (key != nullptr)
      for (auto it = e.members.rbegin(); it != e.members.rend(); ++it)
        if (it->first == key) return it->second;
    return e.line;
  }

  double number(const json& e, std::size_t k, const char* key, bool cumulative) const {
    const std::string where = "sample " + std::to_string(k) + ": ";
    if (!e.contains(key)) {
      const bool other = cumulative ? (e.contains("lo") || e.contains("hi") || e.contains("dt"))
                                    : (e.contains("x") || e.contains("t"));
      throw ParseError(
          name_, line(k),
          where + "missing key '" + key + "'" +
              (other ? std::string(cumulative ? " (it looks like an interval sample lo,hi,dt; "
                                              : " (it looks like a cumulative sample x,t; ") +
                           "cumulative and interval samples cannot be mixed in one file)"
                     : ""));
    }
    const json& v = e[key];
    if (!v.is_number())
      throw ParseError(name_, line(k, key),
                       where + "'" + key + "' must be a number, got " + json_value_text(v));
    const double d = v.get<double>();
    if (!std::isfinite(d))
      throw ParseError(name_, line(k, key),
                       where + "'" + key + "' must be finite, got " + exact(d));
    return d;
  }

  const std::string& text_;
  std::string name_;
  bool repair_;
  std::vector<JsonElement> elements_;
};

}  // namespace

// ---------------------------------------------------------------------------
// Samples

Samples::Samples(std::vector<IntervalSample> intervals) : intervals_(std::move(intervals)) {
  if (intervals_.empty()) throw Error("samples: expected at least one sample, got none");
  lo_ = std::numeric_limits<double>::infinity();
  hi_ = -lo_;
  for (std::size_t k = 0; k < intervals_.size(); ++k) {
    const IntervalSample& s = intervals_[k];
    if (const Problem p = check_interval(s); !p.message.empty())
      throw Error("samples: sample " + std::to_string(k) + " (" + fields_of(s) + "): " + p.message);
    lo_ = std::min(lo_, s.lo);
    hi_ = std::max(hi_, s.hi);
  }
}

Samples Samples::from_cumulative(std::vector<double> x, std::vector<double> t, bool repair) {
  const std::string what = "cumulative samples: ";
  if (x.size() != t.size())
    throw Error(what + std::to_string(x.size()) + " x values but " + std::to_string(t.size()) +
                " t values");
  if (x.size() < 2)
    throw Error(what + "expected at least 2 points (x, t), got " + std::to_string(x.size()));
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (!std::isfinite(x[k]) || !std::isfinite(t[k]))
      throw Error(what + "point " + std::to_string(k) + " (x=" + exact(x[k]) +
                  ", t=" + exact(t[k]) + ") is not finite");
    if (k > 0 && !(x[k] > x[k - 1]))
      throw Error(what + "x must increase strictly, but point " + std::to_string(k) +
                  " has x=" + exact(x[k]) + " after x=" + exact(x[k - 1]));
  }
  if (repair) {
    t = isotonic_regression(t);
  } else {
    for (std::size_t k = 1; k < t.size(); ++k)
      if (t[k] < t[k - 1])
        throw Error(what + "t must not decrease, but point " + std::to_string(k) +
                    " has t=" + exact(t[k]) + " after t=" + exact(t[k - 1]) + " (x=" + exact(x[k]) +
                    "); repair replaces t by its isotonic regression");
  }
  // A point still at t_0 would be an interval with dt = 0, which no interval
  // sample may have (it carries no cost); such a flat start is dropped.
  std::vector<IntervalSample> intervals;
  for (std::size_t k = 1; k < x.size(); ++k)
    if (const double dt = t[k] - t[0]; dt > 0) intervals.push_back({x[0], x[k], dt});
  if (intervals.empty())
    throw Error(what + "t never rises above t_0=" + exact(t[0]) + ": the total cost must be > 0");
  return Samples(std::move(intervals));
}

bool Samples::tiles() const {
  if (intervals_.empty()) return false;
  const auto order = order_by_lo(intervals_);
  for (std::size_t k = 1; k < order.size(); ++k)
    if (intervals_[order[k - 1]].hi != intervals_[order[k]].lo) return false;
  return true;
}

bool Samples::cumulative() const {
  if (intervals_.empty()) return false;
  return std::all_of(intervals_.begin(), intervals_.end(),
                     [&](const IntervalSample& s) { return s.lo == lo_; });
}

void Samples::cumulative_points(std::vector<double>& x, std::vector<double>& t) const {
  if (intervals_.empty()) throw Error("samples: there are no samples to accumulate");
  x.assign(1, lo_);
  t.assign(1, 0.0);
  if (cumulative()) {
    std::vector<std::size_t> order(intervals_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return intervals_[a].hi < intervals_[b].hi;
    });
    std::size_t previous = 0;
    for (const std::size_t k : order) {
      const IntervalSample& s = intervals_[k];
      // The same interval measured twice: identical repeats collapse, a
      // disagreement has no single cumulative curve through it.
      if (x.size() > 1 && s.hi == x.back()) {
        if (s.dt != t.back())
          throw Error("samples: samples " + std::to_string(previous) + " and " + std::to_string(k) +
                      " both cover " + range_of(s) + " but took dt=" + exact(t.back()) +
                      " and dt=" + exact(s.dt) +
                      "; average repeated measurements or fit a parametric model");
        continue;
      }
      x.push_back(s.hi);
      t.push_back(s.dt);
      previous = k;
    }
    return;
  }
  const auto order = order_by_lo(intervals_);
  long double sum = 0;  // extended accumulation, as for discrete weights
  for (std::size_t k = 0; k < order.size(); ++k) {
    const IntervalSample& s = intervals_[order[k]];
    if (k > 0 && s.lo != x.back()) {
      const IntervalSample& p = intervals_[order[k - 1]];
      throw Error(
          "samples: neither cumulative (one common left end) nor tiling the domain: "
          "sample " +
          std::to_string(order[k - 1]) + " " + range_of(p) + " and sample " +
          std::to_string(order[k]) + " " + range_of(s) +
          (s.lo < p.hi ? " overlap" : " leave a gap") +
          "; samples from several runs need a parametric fit");
    }
    sum += s.dt;
    x.push_back(s.hi);
    t.push_back(static_cast<double>(sum));
  }
}

Samples Samples::merged(const Samples& other) const {
  if (other.intervals_.empty()) return *this;
  if (intervals_.empty()) return other;
  std::vector<IntervalSample> all = intervals_;
  all.insert(all.end(), other.intervals_.begin(), other.intervals_.end());
  return Samples(std::move(all));
}

// ---------------------------------------------------------------------------

Samples samples_from_partition(std::span<const double> cuts, std::span<const double> times,
                               const Speeds* speeds) {
  const std::string what = "samples from a partition: ";
  if (times.empty()) throw Error(what + "expected at least one rank's time, got none");
  if (cuts.size() != times.size() + 1)
    throw Error(what + "expected P + 1 = " + std::to_string(times.size() + 1) + " cuts for P = " +
                std::to_string(times.size()) + " times, got " + std::to_string(cuts.size()));
  if (speeds != nullptr && static_cast<std::size_t>(speeds->ranks()) != times.size())
    throw Error(what + "speeds are given for " + std::to_string(speeds->ranks()) +
                " ranks but there are " + std::to_string(times.size()) + " times");
  for (std::size_t i = 0; i < cuts.size(); ++i) {
    if (!std::isfinite(cuts[i]))
      throw Error(what + "cut " + std::to_string(i) + " = " + exact(cuts[i]) +
                  ", expected a finite value");
    if (i > 0 && cuts[i] < cuts[i - 1])
      throw Error(what + "cuts must not decrease, but cut " + std::to_string(i) + " = " +
                  exact(cuts[i]) + " is below cut " + std::to_string(i - 1) + " = " +
                  exact(cuts[i - 1]));
  }
  std::vector<IntervalSample> out;
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (cuts[i] == cuts[i + 1]) continue;  // an idle rank measured nothing
    const double time = times[i];
    if (!std::isfinite(time) || !(time > 0))
      throw Error(what + "rank " + std::to_string(i) + " owns [" + exact(cuts[i]) + ", " +
                  exact(cuts[i + 1]) + ") but its time is " + exact(time) +
                  ", expected a finite time > 0");
    const double dt = speeds != nullptr ? time * speeds->speed(static_cast<int>(i)) : time;
    out.push_back({cuts[i], cuts[i + 1], dt});
  }
  if (out.empty())
    throw Error(what + "every rank's range is empty (all cuts are " + exact(cuts[0]) + ")");
  return Samples(std::move(out));
}

Samples read_samples(std::istream& in, const std::string& name, bool repair) {
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw Error(name + ": read error");
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // UTF-8 byte order mark
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw ParseError(name, 1, "no samples in the file");
  if (text[first] == '{' || text[first] == '[') return JsonReader(text, name, repair).read();
  return read_text(text, name, repair);
}

Samples read_samples(const std::string& path, bool repair) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open '" + path + "' for reading");
  return read_samples(in, path, repair);
}

std::vector<double> isotonic_regression(std::span<const double> y,
                                        std::span<const double> weights) {
  if (!weights.empty() && weights.size() != y.size())
    throw Error("isotonic regression: " + std::to_string(y.size()) + " values but " +
                std::to_string(weights.size()) + " weights");
  struct Block {
    double mean;
    double weight;
    std::size_t count;
  };
  std::vector<Block> blocks;
  blocks.reserve(y.size());
  for (std::size_t k = 0; k < y.size(); ++k) {
    const double w = weights.empty() ? 1.0 : weights[k];
    if (!std::isfinite(y[k]))
      throw Error("isotonic regression: value " + std::to_string(k) + " = " + exact(y[k]) +
                  ", expected a finite value");
    if (!std::isfinite(w) || !(w > 0))
      throw Error("isotonic regression: weight " + std::to_string(k) + " = " + exact(w) +
                  ", expected a finite value > 0");
    blocks.push_back({y[k], w, 1});
    // Pool while the last two blocks are out of order. Every pool removes a
    // block for good, so the whole pass is O(n). Equal neighbours stay apart,
    // which leaves already-monotone input bit for bit unchanged.
    while (blocks.size() >= 2 && blocks[blocks.size() - 2].mean > blocks.back().mean) {
      const Block b = blocks.back();
      blocks.pop_back();
      Block& a = blocks.back();
      const double total = a.weight + b.weight;
      // The weighted mean as an update of a's mean: no products w·y that could overflow.
      a.mean += (b.mean - a.mean) * (b.weight / total);
      a.weight = total;
      a.count += b.count;
    }
  }
  std::vector<double> z;
  z.reserve(y.size());
  for (const Block& b : blocks) z.insert(z.end(), b.count, b.mean);
  return z;
}

CostModel tabulate(const Samples& samples, Interpolation interpolation) {
  try {
    std::vector<double> x, t;
    samples.cumulative_points(x, t);
    return tabulated_model(std::move(x), std::move(t), interpolation);
  } catch (const Error& e) {
    throw Error(std::string("cannot tabulate: ") + e.what());
  }
}

}  // namespace isocost
