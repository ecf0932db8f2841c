// Shared by the tests of the readers: the ParseError a call throws.
#pragma once

#include <gtest/gtest.h>

#include <optional>

#include "isocost/error.hpp"

namespace isocost::testing {

/// The ParseError that `f` throws, or nullopt (with a recorded failure) if it
/// throws nothing; other exception types escape and fail the test.
template <class F>
std::optional<ParseError> ParseErrorOf(F&& f) {
  try {
    f();
  } catch (const ParseError& e) {
    return e;
  }
  ADD_FAILURE() << "expected isocost::ParseError, nothing was thrown";
  return std::nullopt;
}

}  // namespace isocost::testing
