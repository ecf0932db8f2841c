// Shared by the end-to-end tests of `isocost cut`, `metrics` and the common
// CLI behaviour (test_cli*.cpp): the includes, the fixture that runs the
// command as a child process (tests/support/cli_runner.hpp), and the closed
// forms the tests derive their expectations from. Each test file includes it
// once; everything is in an anonymous namespace of that file.
#pragma once

#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"

#ifndef ISOCOST_CLI
#error "ISOCOST_CLI must be the absolute path of the isocost binary"
#endif

namespace isocost::testing {

// One type for every file of the suite (GoogleTest requires it of a suite's
// fixture), so outside the anonymous namespace.
class Cli : public CliTest {
 protected:
  Outcome Isocost(const std::vector<std::string>& args, const std::string& stdout_path = "") {
    isocost::testing::RunOptions options;
    options.stdout_path = stdout_path;
    return CliTest::Isocost(args, options);
  }
};

}  // namespace isocost::testing

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// ---------------------------------------------------------------------------
// Running the command (tests/support/cli_runner.hpp)

using isocost::testing::BadCase;
using isocost::testing::BadCaseName;
using isocost::testing::Cat;
using isocost::testing::Has;
using isocost::testing::Lines;
using isocost::testing::Listing;
using isocost::testing::Num;
using isocost::testing::Outcome;
using isocost::testing::ReadFile;
using isocost::testing::Show;
using isocost::testing::Tokens;
using isocost::testing::WriteFile;

using isocost::testing::Cli;

// ---------------------------------------------------------------------------
// Closed forms

struct Sieve {
  long double A = 3.9098e-7L, p = 1.43L, c = 1.08366L;
  long double T(long double x) const { return A * std::pow(x, p) / (std::log(x) - c); }
};

// Shortest text that reads back to exactly `v` (gtest rounds doubles when printing).
[[maybe_unused]] std::string Exact(double v) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
  return std::string(buffer, end);
}

[[maybe_unused]] double NumberAfter(const std::string& out, const std::string& label) {
  const auto pos = out.find(label);
  if (pos == std::string::npos) {
    ADD_FAILURE() << "no '" << label << "' in:\n" << out;
    return std::numeric_limits<double>::quiet_NaN();
  }
  return std::stod(out.substr(pos + label.size()));
}

}  // namespace
