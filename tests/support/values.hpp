// Shared by the tests: the special doubles they give the library.
#pragma once

#include <limits>
#include <string>

namespace isocost::testing {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();
/// UTF-8's byte order mark, which the readers skip.
inline const std::string kBom = "\xEF\xBB\xBF";

}  // namespace isocost::testing
