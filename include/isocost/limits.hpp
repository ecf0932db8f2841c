// isocost/limits.hpp — the largest inputs isocost accepts, in one place.
//
// Each limit is checked where the allocation it guards happens (so a library
// caller gets the same clear Error as the CLI) and again early in the CLI,
// with the option's name: "--ranks: 1000000000 is above the limit of
// 10000000 parts". The values come from what the code answers on a 24 GiB,
// 2-core machine in well under a minute (measured with `isocost cut
// --ranks 1e7`, text and streamed JSON).
#pragma once

#include <cstdint>
#include <string>

namespace isocost {

/// The most parts (ranks) of one partition or decomposition. A partition
/// keeps a cut, a solver summary and a cost per part (~150 bytes): 10^7 parts
/// are 1.5 GB and about a minute of `cut --json`; 10^8 would not fit
/// comfortably beside the output.
inline constexpr std::int64_t kMaxParts = 10'000'000;

/// The largest rank index in a "rank,phase,time" load row: every rank below
/// it gets a row of per-phase times, so the bound is that on parts.
inline constexpr std::int64_t kMaxRankIndex = kMaxParts - 1;

/// "1000000000 is above the limit of 10000000 parts": the message every limit
/// check uses after the name of what was given.
inline std::string above_limit(std::int64_t value, std::int64_t limit, const std::string& unit) {
  return std::to_string(value) + " is above the limit of " + std::to_string(limit) + " " + unit;
}

}  // namespace isocost
