// Shared by the core tests: checks that a call throws isocost::Error whose
// message names what it should.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
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

}  // namespace isocost::testing
