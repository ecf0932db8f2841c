// Shared by the tests: closeness relative to the expected value.
#pragma once

#include <gtest/gtest.h>

#include <cmath>

namespace isocost::testing {

/// Expects |actual − expected| <= tolerance·|expected|.
inline void expect_rel(double actual, double expected, double tolerance) {
  EXPECT_LE(std::abs(actual - expected), tolerance * std::abs(expected))
      << "actual " << actual << " expected " << expected;
}

}  // namespace isocost::testing
