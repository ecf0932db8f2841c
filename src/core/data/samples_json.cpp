// Reading samples from JSON: {"cumulative": [{"x":…, "t":…}, …]},
// {"intervals": [{"lo":…, "hi":…, "dt":…}, …]} (each with an optional
// "rank") or a bare array, with every error (syntax or meaning) at its line.
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "core/data/samples_internal.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/limits.hpp"

namespace isocost::detail {

namespace {

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
  // The token nlohmann quotes can be a whole (huge) string literal.
  const std::string last = "; last read: '";
  if (const auto at = what.find(last); at != std::string::npos && what.back() == '\'') {
    const std::string token = what.substr(at + last.size(), what.size() - at - last.size() - 1);
    what = what.substr(0, at + last.size() - 1) + quote(token);
  }
  return what;
}

// A JSON value for a message: its first ~40 characters of JSON text, then
// "...", and its type: "[[[[[[[[[...] (array)". Built without recursion and
// stopped once long enough: nlohmann's dump() recurses, and a 100 000-deep
// array would overflow the stack while the message is formatted.
std::string json_value_text(const json& v) {
  constexpr std::size_t kMax = 40;
  // A string cut first, so a huge one costs nothing, and cut between UTF-8
  // characters: dump() throws on half a character (a fuzz finding).
  auto string_text = [&](const std::string& s) {
    std::size_t n = std::min(s.size(), kMax + 1);
    while (n > 0 && n < s.size() && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    return json(s.substr(0, n)).dump(-1, ' ', false, json::error_handler_t::replace);
  };
  auto scalar = [&](const json& x) {
    return x.is_string() ? string_text(x.get_ref<const std::string&>()) : x.dump();
  };
  struct Frame {
    const json* node;
    json::const_iterator next;
  };
  std::string text;
  std::vector<Frame> open;
  const json* value = &v;
  while (text.size() <= kMax) {
    if (value != nullptr) {
      if (value->is_structured()) {
        text += value->is_array() ? '[' : '{';
        open.push_back({value, value->cbegin()});
      } else {
        text += scalar(*value);
      }
      value = nullptr;
      continue;
    }
    if (open.empty()) break;
    Frame& f = open.back();
    if (f.next == f.node->cend()) {
      text += f.node->is_array() ? ']' : '}';
      open.pop_back();
      continue;
    }
    if (f.next != f.node->cbegin()) text += ',';
    if (f.node->is_object()) text += string_text(f.next.key()) + ':';
    value = &*f.next;
    ++f.next;
  }
  if (text.size() > kMax) {
    std::size_t cut = kMax - 3;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
    text = text.substr(0, cut) + "...";
  }
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
        IntervalSample s{number(e, k, "lo", false), number(e, k, "hi", false),
                         number(e, k, "dt", false)};
        s.rank = rank(e, k, first.is_object() && first.contains("rank"));
        if (const SampleProblem p = check_interval(s); !p.message.empty())
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
      throw ParseError(
          name_, line(k, key),
          detail::expected_got(where + "'" + key + "'", "a number", json_value_text(v)));
    const double d = v.get<double>();
    if (!std::isfinite(d))
      throw ParseError(name_, line(k, key),
                       detail::expected_got(where + "'" + key + "'", "a finite number", exact(d)));
    return d;
  }

  // The interval's "rank", -1 when it has none; every interval has one when
  // the first does (`ranked`), and none otherwise.
  int rank(const json& e, std::size_t k, bool ranked) const {
    const std::string where = "sample " + std::to_string(k) + ": ";
    if (!e.contains("rank")) {
      if (!ranked) return -1;
      throw ParseError(name_, line(k),
                       where +
                           "missing key 'rank', which sample 0 has (every interval has a "
                           "rank or none does)");
    }
    if (!ranked)
      throw ParseError(name_, line(k, "rank"),
                       where +
                           "a 'rank', which sample 0 has not (every interval has a rank or "
                           "none does)");
    const json& v = e["rank"];
    const double d = v.is_number() ? v.get<double>() : -1;
    if (!(d >= 0) || d != std::floor(d))
      throw ParseError(name_, line(k, "rank"),
                       detail::expected_got(where + "'rank'", "an integer >= 0",
                                            v.is_number() ? exact(d) : json_value_text(v)));
    if (d > static_cast<double>(kMaxRankIndex))
      throw ParseError(name_, line(k, "rank"),
                       where + "'rank': " + exact(d) + " is above the limit of " +
                           std::to_string(kMaxRankIndex));
    return static_cast<int>(d);
  }

  const std::string& text_;
  std::string name_;
  bool repair_;
  std::vector<JsonElement> elements_;
};

}  // namespace

Samples read_samples_json(const std::string& text, const std::string& name, bool repair) {
  return JsonReader(text, name, repair).read();
}

}  // namespace isocost::detail
