// Shared by the end-to-end tests of `isocost fit`, `isocost cut --fit` and
// `isocost plot` of samples (test_cli_fit.cpp, test_cli_fit_errors.cpp): the
// closed forms and the synthetic sample files made from them, and the fixture
// that runs the command as a child process (tests/support/cli_runner.hpp).
// Each test file includes it once; everything is in an anonymous namespace of
// that file.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
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
class CliFit : public CliTest {
 protected:
  Outcome Isocost(const std::vector<std::string>& args, const std::string* path_env = nullptr) {
    isocost::testing::RunOptions options;
    if (path_env) options.path_env = *path_env;
    return CliTest::Isocost(args, options);
  }

  // Writes dir/name and returns `name` (the command runs in dir), not the full
  // path CliTest::File returns.
  std::string File(const std::string& name, const std::string& text) {
    WriteFile(dir / name, text);
    return name;
  }

  // A directory, outside `dir`, for fake executables.
  fs::path Bin() { return Scratch("bin"); }
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
using isocost::testing::GnuplotOnPath;
using isocost::testing::Has;
using isocost::testing::IsPng;
using isocost::testing::Lines;
using isocost::testing::Listing;
using isocost::testing::Num;
using isocost::testing::Outcome;
using isocost::testing::ReadFile;
using isocost::testing::Show;
using isocost::testing::WriteFile;

// ---------------------------------------------------------------------------
// Closed forms and synthetic samples

using Curve = std::function<long double(long double)>;

const Curve kPower = [](long double x) { return 2e-7L * std::pow(x, 1.5L); };
const Curve kSieve = [](long double x) {
  return 3.9098e-7L * std::pow(x, 1.43L) / (std::log(x) - 1.08366L);
};
const Curve kExp = [](long double x) { return 3.0L * std::exp(0.7L * x); };
// 5x + 0.2x² on [0, 100] = 500u + 2000u² with u = x/100.
const Curve kQuadratic = [](long double x) { return 5.0L * x + 0.2L * x * x; };

// Deterministic noise of ±0.3 %.
double Noise(int k) { return 1.0 + 0.003 * std::sin(3.7 * k + 1.0); }

std::vector<double> Tiling(double lo, double hi, int n, bool geometric) {
  std::vector<double> x(n + 1);
  for (int k = 0; k <= n; ++k)
    x[k] = geometric ? lo * std::pow(hi / lo, static_cast<double>(k) / n)
                     : lo + (hi - lo) * static_cast<double>(k) / n;
  x[0] = lo;
  x[n] = hi;
  return x;
}

std::string Text(double v) {
  std::ostringstream out;
  out.precision(17);
  out << v;
  return out.str();
}

// "lo,hi,dt" rows for one run over the given cuts; `salt` shifts the noise.
std::string IntervalRows(const Curve& t, const std::vector<double>& x, int salt = 0) {
  std::string s;
  for (std::size_t k = 0; k + 1 < x.size(); ++k) {
    const double dt =
        static_cast<double>(t(x[k + 1]) - t(x[k])) * Noise(static_cast<int>(k) + salt);
    s += Text(x[k]) + "," + Text(x[k + 1]) + "," + Text(dt) + "\n";
  }
  return s;
}

std::string IntervalCsv(const Curve& t, double lo, double hi, int n, bool geometric) {
  return "lo,hi,dt\n" + IntervalRows(t, Tiling(lo, hi, n, geometric));
}

// ---------------------------------------------------------------------------
// Fixture: a fresh directory per test, the working directory of the command.

using isocost::testing::CliFit;

}  // namespace
