#include "isocost/detail/text.hpp"

#include <charconv>
#include <cstdio>

namespace isocost::detail {

std::string expected_got(std::string_view name, std::string_view expected, std::string_view got) {
  std::string out;
  out.reserve(name.size() + expected.size() + got.size() + 16);
  out.append(name).append(": expected ").append(expected).append(", got ").append(got);
  return out;
}

std::string exact(double value) {
  if (value == 0) value = 0.0;  // print −0 as 0
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string fixed_digits(double value, int significant) {
  // to_chars with a precision is specified as printf's "%.*g" in the C
  // locale, the same text, without printf's format parsing: a 10^7-row table
  // spends most of its time here.
  char buffer[64];
  const auto r =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, significant);
  if (r.ec == std::errc()) return std::string(buffer, r.ptr);
  std::snprintf(buffer, sizeof buffer, "%.*g", significant, value);  // > 64 characters: cut
  return buffer;
}

namespace {

// Length of the well-formed UTF-8 sequence at s[i] (1 to 4), or 0 if the
// bytes there are not one (stray continuation byte, overlong form, surrogate,
// beyond U+10FFFF, or cut short).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  // C1 controls (U+0080 to U+009F) move the cursor or do nothing visible.
  if (n == 2 && c == 0xC2 && byte(i + 1) < 0xA0) return 0;
  return n;
}

}  // namespace

std::string quote(std::string_view field, std::size_t max) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string shown;
  std::size_t i = 0, columns = 0;
  while (i < field.size()) {
    const auto c = static_cast<unsigned char>(field[i]);
    std::string unit;
    std::size_t used = 1;
    if (c == '\r') {
      unit = "\\r";
    } else if (c == '\n') {
      unit = "\\n";
    } else if (c == '\t') {
      unit = "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      unit = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    } else if (c < 0x80) {
      unit = static_cast<char>(c);
    } else if (const std::size_t n = utf8_length(field, i); n > 0) {
      unit = field.substr(i, n);
      used = n;
    } else {
      unit = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    }
    // One multi-byte character counts as one column of display.
    const std::size_t width = used > 1 ? 1 : unit.size();
    if (columns + width > max) break;
    shown += unit;
    columns += width;
    i += used;
  }
  if (i == field.size()) return "'" + shown + "'";
  return "'" + shown + "...' (" + std::to_string(field.size()) + " bytes)";
}

bool parse_number(std::string_view text, double& value) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin != end && *begin == '+') ++begin;  // from_chars rejects a leading '+'
  auto [ptr, ec] = std::from_chars(begin, end, value);
  return begin != end && ec == std::errc() && ptr == end;
}

}  // namespace isocost::detail
