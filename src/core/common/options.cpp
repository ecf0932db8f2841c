// The options contract (options.hpp): range descriptions and the JSON pieces.
#include "isocost/options.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/result.hpp"

namespace isocost {

namespace {

std::string bound(double v, bool integer) {
  if (integer && std::abs(v) < 9.007199254740992e15)
    return std::to_string(static_cast<long long>(v));
  return detail::exact(v);
}

}  // namespace

std::string Range::describe(bool integer) const {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const std::string kind = integer ? "an integer " : "a finite number ";
  std::string s;
  if (lo == -inf && hi == inf)
    s = integer ? "an integer" : "a finite number";
  else if (hi == inf)
    s = kind + (lo_open ? "> " : ">= ") + bound(lo, integer);
  else if (lo == -inf)
    s = kind + (hi_open ? "< " : "<= ") + bound(hi, integer);
  else
    s = (integer ? "an integer in " : "a number in ") + std::string(lo_open ? "(" : "[") +
        bound(lo, integer) + ", " + bound(hi, integer) + (hi_open ? ")" : "]");
  return infinity ? "+inf or " + s : s;
}

namespace detail {

std::string json_number(double value) {
  if (std::isnan(value)) return "\"nan\"";
  if (std::isinf(value)) return value > 0 ? "\"inf\"" : "\"-inf\"";
  return exact(value);
}

std::string json_quote(std::string_view text) {
  std::string s = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        s += "\\\"";
        break;
      case '\\':
        s += "\\\\";
        break;
      case '\n':
        s += "\\n";
        break;
      case '\r':
        s += "\\r";
        break;
      case '\t':
        s += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c));
          s += buffer;
        } else {
          s += c;
        }
    }
  }
  return s + "\"";
}

}  // namespace detail

namespace {

std::vector<std::pair<std::string, std::string>> split_lines(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    const std::size_t tab = line.find('\t');
    out.emplace_back(line.substr(0, tab), tab == std::string::npos ? "" : line.substr(tab + 1));
    start = end + 1;
  }
  return out;
}

// A JSON string value without its quotes (names read better bare).
std::string bare(const std::string& value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
    return value.substr(1, value.size() - 2);
  return value;
}

}  // namespace

std::string field_differences(const std::string& mine, const std::string& theirs,
                              std::string_view who) {
  const auto a = split_lines(mine), b = split_lines(theirs);
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i < a.size() && i < b.size()) {
      if (a[i] != b[i])
        add(a[i].first + " " + bare(a[i].second) + " (" + std::string(who) + ": " +
            (a[i].first == b[i].first ? bare(b[i].second) : b[i].first + " " + bare(b[i].second)) +
            ")");
    } else if (i < a.size()) {
      add(a[i].first + " " + bare(a[i].second) + " (" + std::string(who) + ": absent)");
    } else {
      add(b[i].first + " absent (" + std::string(who) + ": " + bare(b[i].second) + ")");
    }
  }
  return out;
}

std::string_view to_string(Termination termination) {
  switch (termination) {
    case Termination::converged:
      return "converged";
    case Termination::iteration_limit:
      return "iteration_limit";
    case Termination::failed:
      return "failed";
  }
  return "?";
}

void throw_invalid_options(std::string_view what, const std::string& why) {
  throw Error(std::string(what) + ": " + why);
}

}  // namespace isocost
