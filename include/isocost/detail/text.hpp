// isocost/detail/text.hpp — number formatting and field quoting shared by
// messages and output. Internal: not part of the stable API.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace isocost::detail {

/// Shortest text that reads back to exactly `value` ("0.1", "3.9098e-07", "nan").
std::string exact(double value);

/// `value` with `significant` significant digits, %g style ("1.5", "2.68e+08").
std::string fixed_digits(double value, int significant);

/// A field from a file or the command line, for a one-line error message: in
/// single quotes, with control bytes, DEL and bytes that are not UTF-8 escaped
/// (\r, \n, \t, \xNN), and cut after about `max` characters of display with
/// "..." and the field's full length: "'abc...' (10000 bytes)". A message
/// quoting a field therefore stays one short line whatever the input holds.
std::string quote(std::string_view field, std::size_t max = 60);

/// Parses all of `text` as a double (a leading '+' allowed; "nan" and "inf"
/// parse too, callers check finiteness). False if any character is left over.
bool parse_number(std::string_view text, double& value);

/// The one phrasing of a value that is not what was expected (error.hpp):
/// "NAME: expected EXPECTED, got GOT", e.g. "ranks: expected an integer >= 1,
/// got 0". Every message about a bad value is worded through it.
std::string expected_got(std::string_view name, std::string_view expected, std::string_view got);

/// "x", "y" or "z": the name of axis `a` (0, 1 or 2) in messages and files.
constexpr const char* axis_name(int a) {
  constexpr const char* names[] = {"x", "y", "z"};
  return names[a];
}

}  // namespace isocost::detail
