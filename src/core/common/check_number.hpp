// The check of a nonnegative number that the pipeline's options share
// (pipeline/trigger.cpp, pipeline/strategy.cpp): one message for both.
#pragma once

#include <cmath>
#include <string>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost::detail {

inline bool finite_nonnegative(double x) { return std::isfinite(x) && x >= 0; }

// Throws "<what>: expected a finite number >= 0, got <x>" unless x is one.
inline void check_number(double x, const std::string& what) {
  if (!finite_nonnegative(x)) throw Error(expected_got(what, "a finite number >= 0", exact(x)));
}

}  // namespace isocost::detail
