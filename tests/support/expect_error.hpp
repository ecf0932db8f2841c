// Shared by the core tests: checks that a call throws isocost::Error whose
// message names what it should.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <string>

#include "isocost/error.hpp"

namespace isocost::testing {

/// Expects `f()` to throw isocost::Error whose what() contains every fragment.
template <class F>
void expect_error(F&& f, std::initializer_list<std::string> fragments) {
  try {
    f();
    ADD_FAILURE() << "expected isocost::Error";
  } catch (const Error& e) {
    for (const auto& fragment : fragments)
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
          << "message '" << e.what() << "' lacks '" << fragment << "'";
  }
}

/// what() of the isocost::Error that `f()` throws; records a test failure if
/// it throws nothing (any other exception escapes and fails the test itself).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected isocost::Error, nothing was thrown";
  return {};
}

/// The ParseError that `f()` throws, with its line and column, or nullopt
/// (and a recorded failure) if it throws nothing; as error_of().
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

/// Whether `text` contains `part`.
inline bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace isocost::testing
