// Shared by the C interface's tests: a failed call's status and message.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>

#include "isocost/isocost.h"

namespace isocost::testing {

/// Owns a model made by the C interface.
struct ModelDeleter {
  void operator()(isocost_model* m) const { isocost_model_free(m); }
};
using Model = std::unique_ptr<isocost_model, ModelDeleter>;
/// Owns a density made by the C interface.
struct DensityDeleter {
  void operator()(isocost_density* d) const { isocost_density_free(d); }
};
using Density = std::unique_ptr<isocost_density, DensityDeleter>;

inline bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Expects `status` to be `code` and this thread's message to hold every fragment.
inline void ExpectFailure(int status, int code, std::initializer_list<std::string> fragments) {
  EXPECT_EQ(status, code) << isocost_status_name(status) << ": " << isocost_last_error();
  const std::string message = isocost_last_error();
  for (const auto& f : fragments)
    EXPECT_TRUE(Has(message, f)) << "'" << message << "' lacks '" << f << "'";
}

}  // namespace isocost::testing
