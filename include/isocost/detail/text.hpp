// isocost/detail/text.hpp — number formatting shared by messages and output.
// Internal: not part of the stable API.
#pragma once

#include <string>
#include <string_view>

namespace isocost::detail {

/// Shortest text that reads back to exactly `value` ("0.1", "3.9098e-07", "nan").
std::string exact(double value);

/// `value` with `significant` significant digits, %g style ("1.5", "2.68e+08").
std::string fixed_digits(double value, int significant);

/// Parses all of `text` as a double (a leading '+' allowed; "nan" and "inf"
/// parse too, callers check finiteness). False if any character is left over.
bool parse_number(std::string_view text, double& value);

}  // namespace isocost::detail
