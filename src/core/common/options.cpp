// The options contract (options.hpp): range descriptions and the JSON pieces.
#include "isocost/options.hpp"

#include <cstdio>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

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
  const std::string kind = integer ? "" : "a finite number ";
  std::string s;
  if (lo == -inf && hi == inf)
    s = integer ? "an integer" : "a finite number";
  else if (hi == inf)
    s = kind + (lo_open ? "> " : ">= ") + bound(lo, integer);
  else if (lo == -inf)
    s = kind + (hi_open ? "< " : "<= ") + bound(hi, integer);
  else
    s = "in " + std::string(lo_open ? "(" : "[") + bound(lo, integer) + ", " + bound(hi, integer) +
        (hi_open ? ")" : "]");
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

void throw_invalid_options(std::string_view what, const std::string& why) {
  throw Error(std::string(what) + ": " + why);
}

}  // namespace isocost
