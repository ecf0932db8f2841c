// The newest rounds of a history (GlobalRebalanceOptions::history and its
// grid twin), shared by rebalance.cpp and rebalance_grid.cpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>

namespace isocost::detail {

/// The last min(count, rounds.size()) rounds, oldest first; count >= 0.
template <class Round>
std::span<const Round> newest(std::span<const Round> rounds, int count) {
  const std::size_t keep = std::min(rounds.size(), static_cast<std::size_t>(count));
  return rounds.subspan(rounds.size() - keep);
}

}  // namespace isocost::detail
