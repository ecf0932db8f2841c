// Shared by the libFuzzer harnesses: what counts as a finding.
//
// A reader or parser may refuse its input with isocost::Error (that is its
// job); any other exception escaping, or a result that breaks the documented
// invariants, is a finding and aborts the run (__builtin_trap(), so libFuzzer
// keeps the input).
#pragma once

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "isocost/error.hpp"

namespace isocost::fuzz {

/// Reports `what` and stops: a broken invariant.
[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz: invariant broken: %s\n", what.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

/// Stops unless `ok`.
inline void check(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

/// Runs `body`; isocost::Error is an accepted refusal (returns false), any
/// other exception is a finding. True when `body` returned normally.
template <class F>
bool accepts(F&& body) {
  try {
    body();
    return true;
  } catch (const isocost::Error&) {
    return false;
  } catch (const std::exception& e) {
    fail(std::string("exception other than isocost::Error: ") + e.what());
  } catch (...) {
    fail("non-std exception");
  }
}

/// The fuzz input as text.
inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace isocost::fuzz
