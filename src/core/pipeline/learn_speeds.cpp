// learn_speeds(): the ranks' speeds and the cost density along the elements
// from rounds of per-rank loads (isocost/learn_speeds.hpp).
#include "isocost/learn_speeds.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/pipeline/speed_fit.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

namespace {

// One load with its range [a, b) of elements.
struct Observation {
  int rank = 0;
  double a = 0, b = 0, load = 0;
};

std::vector<Observation> observations(std::span<const BlockRound> rounds, int& distinct) {
  const BlockRound& first = rounds.front();
  validate_block_offsets(first.offsets);
  const std::size_t P = first.offsets.size() - 1;
  std::vector<Observation> out;
  distinct = 0;
  for (std::size_t j = 0; j < rounds.size(); ++j) {
    const BlockRound& h = rounds[j];
    const std::string name = "learn_speeds: round " + std::to_string(j);
    validate_block_offsets(h.offsets);
    if (h.offsets.size() != first.offsets.size() || h.offsets.back() != first.offsets.back())
      throw Error(detail::expected_got(name,
                                       std::to_string(P) + " ranks and " +
                                           std::to_string(first.offsets.back()) +
                                           " elements (round 0's)",
                                       std::to_string(h.offsets.size() - 1) + " ranks and " +
                                           std::to_string(h.offsets.back()) + " elements"));
    if (h.loads.size() != P)
      throw Error(name + ": " + std::to_string(h.loads.size()) + " loads for " + std::to_string(P) +
                  " ranks");
    for (std::size_t r = 0; r < P; ++r) {
      const double v = h.loads[r];
      if (!(v >= 0) || !std::isfinite(v))
        throw Error(detail::expected_got(name + ": load " + std::to_string(r),
                                         "a finite number >= 0", detail::exact(v)));
      if (h.offsets[r + 1] > h.offsets[r] && v > 0)
        out.push_back({static_cast<int>(r), static_cast<double>(h.offsets[r]),
                       static_cast<double>(h.offsets[r + 1]), v});
    }
    bool fresh = true;
    for (std::size_t i = 0; i < j && fresh; ++i) fresh = rounds[i].offsets != h.offsets;
    distinct += fresh ? 1 : 0;
  }
  return out;
}

}  // namespace

bool SpeedLearningOptions::is_valid(std::string* why) const {
  if (!check_fields(*this, why)) return false;
  if (knots == 1) {
    if (why) *why = "knots: expected 0 (chosen from the data) or an integer >= 2, got 1";
    return false;
  }
  return true;
}

std::string LearnedSpeeds::brief_report() const {
  std::ostringstream s;
  if (!identifiable) {
    s << "speeds not learned: " << message;
    return s.str();
  }
  s << "learned speeds";
  for (std::size_t r = 0; r < speeds.size(); ++r) {
    s << (r ? ", " : " ") << detail::exact(std::round(speeds[r] * 1e4) / 1e4);
    if (r < spread.size() && std::isfinite(spread[r]))
      s << " ±" << detail::exact(std::round(spread[r] * 1e4) / 100) << "%";
  }
  s << " from " << rounds << " rounds"
    << (rounds_dropped > 0 ? " (" + std::to_string(rounds_dropped) + " older left out)" : "")
    << " (" << observations << " loads, " << knots << " knots), misfit "
    << detail::exact(std::round(misfit * 1e6) / 1e6) << ", " << iterations << " iterations"
    << (termination == Termination::converged ? "" : " (NOT converged)");
  return s.str();
}

const std::optional<std::vector<double>>& SpeedTracker::update(LearnedSpeeds& estimate) {
  estimate.used = false;
  if (!estimate.identifiable) return used_;
  bool agree = pending_ && pending_->speeds.size() == estimate.speeds.size();
  for (std::size_t r = 0; agree && r < estimate.speeds.size(); ++r) {
    const double a = pending_->spread[r], b = estimate.spread[r];
    const double width = std::isfinite(a) && std::isfinite(b) ? 3 * std::hypot(a, b) : 0.0;
    agree = std::abs(std::log(estimate.speeds[r] / pending_->speeds[r])) <=
            std::max(width, std::log(1.05));
  }
  if (agree) {
    used_ = estimate.speeds;
    estimate.used = true;
  }
  pending_ = estimate;
  return used_;
}

namespace {

// One fit on all of `rounds` (validated by observations()): hats equally
// spaced over the elements, up to P + 1 of them (a density finer than the
// ranks' ranges is not seen by their loads), as many as the loads afford.
LearnedSpeeds fit(std::span<const BlockRound> rounds, const SpeedLearningOptions& options) {
  int distinct = 0;
  const std::vector<Observation> obs = observations(rounds, distinct);
  const int P = static_cast<int>(rounds.front().offsets.size()) - 1;
  const double N = static_cast<double>(rounds.front().offsets.back());
  std::vector<detail::SpeedObservation> loads;
  for (const Observation& o : obs) loads.push_back({o.rank, o.load});
  const auto basis = [&](int knots) {
    detail::SpeedBasis b;
    b.knots = knots;
    const auto K = static_cast<std::size_t>(knots);
    b.integrals.resize(obs.size() * K);
    for (std::size_t i = 0; i < obs.size(); ++i)
      detail::hat_integrals(0, N, knots, obs[i].a, obs[i].b,
                            std::span(b.integrals).subspan(i * K, K));
    return b;
  };
  return detail::fit_speeds_choosing_knots(loads, P, distinct, P + 1, basis, options);
}

}  // namespace

LearnedSpeeds learn_speeds(std::span<const BlockRound> rounds,
                           const SpeedLearningOptions& options) {
  options.validate();
  if (rounds.empty()) throw Error("learn_speeds: expected at least one round, got none");
  return detail::fit_dropping_oldest(rounds.size(), options, [&](std::size_t first) {
    return fit(rounds.subspan(first), options);
  });
}

}  // namespace isocost
