// Vector balancing by several pieces per rank (pieces.hpp, Watts §4.2).
#include "isocost/pieces.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>
#include <sstream>

#include "core/pipeline/phase_weightings.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/rebalance.hpp"

namespace isocost {

using detail::exact;

std::string PiecePlan::brief_report() const {
  std::ostringstream out;
  out << "pieces: " << offsets.size() - 1 << " ranks, " << order.size() << " chunks, " << phases
      << " phases; synchronised efficiency " << exact(synchronised_efficiency)
      << " (one block per rank " << exact(block_synchronised_efficiency) << "), at most "
      << max_pieces << " pieces per rank" << (converged() ? "" : " (NOT converged)");
  return out.str();
}

namespace {

// Chunk costs as rows of F, checked.
struct Costs {
  std::span<const double> c;
  std::size_t G = 0, F = 0;
  std::vector<double> total;  // per phase
  double at(std::size_t g, std::size_t p) const { return c[g * F + p]; }
};

Costs check(std::span<const double> chunk_costs, std::size_t F) {
  if (F == 0) throw Error("plan_pieces: 0 phases; expected at least 1");
  if (chunk_costs.empty() || chunk_costs.size() % F != 0)
    throw Error("plan_pieces: " + std::to_string(chunk_costs.size()) + " costs for " +
                std::to_string(F) + " phases; expected a positive multiple of the phases");
  Costs k{chunk_costs, chunk_costs.size() / F, F, std::vector<double>(F, 0.0)};
  for (std::size_t g = 0; g < k.G; ++g)
    for (std::size_t p = 0; p < F; ++p) {
      const double v = k.at(g, p);
      if (!(v >= 0) || !std::isfinite(v))
        throw Error(detail::expected_got(
            "plan_pieces: cost of chunk " + std::to_string(g) + " in phase " + std::to_string(p),
            "a finite number >= 0", exact(v)));
      k.total[p] += v;
    }
  if (!(std::accumulate(k.total.begin(), k.total.end(), 0.0) > 0))
    throw Error("plan_pieces: every cost is 0; expected some work to balance");
  return k;
}

// Greedy phase mixing. u_g: chunk g's share of each phase (of the phases that
// cost anything) minus its mean share; the running sum D of u over the order
// is how far a prefix's shares lie apart. Each next chunk is the head of the
// kind queue that keeps |D| least. Returns the order and max_k |D_k|∞.
std::pair<std::vector<std::int64_t>, double> mix(const Costs& k) {
  const std::size_t G = k.G, F = k.F;
  std::size_t active = 0;
  for (const double t : k.total) active += t > 0 ? 1 : 0;
  std::vector<double> u(G * F, 0.0);
  std::vector<std::deque<std::int64_t>> kind(F);
  for (std::size_t g = 0; g < G; ++g) {
    double mean = 0;
    for (std::size_t p = 0; p < F; ++p)
      if (k.total[p] > 0) mean += k.at(g, p) / k.total[p] / static_cast<double>(active);
    std::size_t richest = 0;
    for (std::size_t p = 0; p < F; ++p) {
      if (k.total[p] > 0) u[g * F + p] = k.at(g, p) / k.total[p] - mean;
      if (u[g * F + p] > u[g * F + richest]) richest = p;
    }
    kind[richest].push_back(static_cast<std::int64_t>(g));
  }
  std::vector<double> D(F, 0.0);
  std::vector<std::int64_t> order;
  order.reserve(G);
  double deviation = 0;
  for (std::size_t n = 0; n < G; ++n) {
    std::size_t pick = F;
    double best = 0;
    for (std::size_t q = 0; q < F; ++q) {
      if (kind[q].empty()) continue;
      const auto g = static_cast<std::size_t>(kind[q].front());
      double norm = 0;
      for (std::size_t p = 0; p < F; ++p) {
        const double d = D[p] + u[g * F + p];
        norm += d * d;
      }
      if (pick == F || norm < best) pick = q, best = norm;
    }
    const std::int64_t g = kind[pick].front();
    kind[pick].pop_front();
    order.push_back(g);
    for (std::size_t p = 0; p < F; ++p) {
      D[p] += u[static_cast<std::size_t>(g) * F + p];
      deviation = std::max(deviation, std::abs(D[p]));
    }
  }
  return {std::move(order), deviation};
}

// One block cut of `order` and what it predicts.
struct Cut {
  std::vector<std::int64_t> offsets;
  std::vector<double> part_costs;  // P × F per speed
  double synchronised_max = 0;     // Σ_p max_r
};

Cut evaluate(const Costs& k, std::span<const std::int64_t> order, std::vector<std::int64_t> offsets,
             const Speeds& speeds) {
  const std::size_t P = offsets.size() - 1, F = k.F;
  Cut c{std::move(offsets), std::vector<double>(P * F, 0.0), 0};
  for (std::size_t r = 0; r < P; ++r) {
    for (auto i = c.offsets[r]; i < c.offsets[r + 1]; ++i)
      for (std::size_t p = 0; p < F; ++p)
        c.part_costs[r * F + p] +=
            k.at(static_cast<std::size_t>(order[static_cast<std::size_t>(i)]), p);
    for (std::size_t p = 0; p < F; ++p)
      c.part_costs[r * F + p] /= speeds.speed(static_cast<int>(r));
  }
  for (std::size_t p = 0; p < F; ++p) {
    double worst = 0;
    for (std::size_t r = 0; r < P; ++r) worst = std::max(worst, c.part_costs[r * F + p]);
    c.synchronised_max += worst;
  }
  return c;
}

// The best of rebalance_phases()'s weightings (the total, every phase's
// share, each phase alone) for cutting `order` into blocks by speed.
Cut best_cut(const Costs& k, std::span<const std::int64_t> order, const Speeds& speeds) {
  const std::size_t F = k.F, G = k.G;
  const std::vector<std::vector<double>> weights = detail::phase_weightings(k.total);
  const int P = speeds.ranks();
  std::vector<std::int64_t> even(static_cast<std::size_t>(P) + 1);
  for (int r = 0; r <= P; ++r)
    even[static_cast<std::size_t>(r)] = static_cast<std::int64_t>(G) * r / P;
  Cut best;
  bool have = false;
  std::vector<double> x(G);
  for (const auto& w : weights) {
    for (std::size_t i = 0; i < G; ++i) {
      x[i] = 0;
      for (std::size_t p = 0; p < F; ++p)
        x[i] += w[p] * k.at(static_cast<std::size_t>(order[i]), p);
    }
    if (!(std::accumulate(x.begin(), x.end(), 0.0) > 0)) continue;
    Cut c = evaluate(k, order, rebalance_weights(even, x, speeds).offsets, speeds);
    if (!have || c.synchronised_max < best.synchronised_max) best = std::move(c), have = true;
  }
  return best;
}

// Runs of consecutive chunk numbers one rank owns, the most over the ranks.
std::int64_t most_pieces(std::span<const std::int64_t> order,
                         std::span<const std::int64_t> offsets) {
  std::int64_t most = 0;
  for (std::size_t r = 0; r + 1 < offsets.size(); ++r) {
    std::vector<std::int64_t> mine(order.begin() + offsets[r], order.begin() + offsets[r + 1]);
    std::sort(mine.begin(), mine.end());
    std::int64_t runs = mine.empty() ? 0 : 1;
    for (std::size_t i = 1; i < mine.size(); ++i) runs += mine[i] != mine[i - 1] + 1 ? 1 : 0;
    most = std::max(most, runs);
  }
  return most;
}

}  // namespace

PiecePlan plan_pieces(std::span<const double> chunk_costs, std::size_t phases, const Speeds& speeds,
                      const PiecesOptions& options) {
  options.validate();
  const Costs k = check(chunk_costs, phases);
  const std::size_t G = k.G, F = k.F, P = static_cast<std::size_t>(speeds.ranks());
  double S = speeds.total();

  std::vector<std::int64_t> given(G);
  std::iota(given.begin(), given.end(), std::int64_t{0});
  const Cut block = best_cut(k, given, speeds);
  double ideal = 0;  // Σ_p T_p / S: every phase perfectly balanced
  for (const double t : k.total) ideal += t / S;

  PiecePlan plan;
  plan.phases = F;
  plan.options = options;
  plan.block_synchronised_efficiency = ideal / block.synchronised_max;
  plan.order = given;
  Cut chosen = block;
  if (options.mix) {
    auto [order, deviation] = mix(k);
    Cut mixed = best_cut(k, order, speeds);
    plan.max_prefix_deviation = deviation;
    // Mixing that does not beat one block per rank only scatters the chunks.
    if (mixed.synchronised_max < block.synchronised_max) {
      plan.order = std::move(order);
      chosen = std::move(mixed);
    }
  }
  plan.offsets = chosen.offsets;
  plan.part_costs = chosen.part_costs;
  plan.synchronised_efficiency = ideal / chosen.synchronised_max;
  plan.owner.assign(G, 0);
  for (std::size_t r = 0; r < P; ++r)
    for (auto i = plan.offsets[r]; i < plan.offsets[r + 1]; ++i)
      plan.owner[static_cast<std::size_t>(plan.order[static_cast<std::size_t>(i)])] =
          static_cast<int>(r);
  plan.max_pieces = most_pieces(plan.order, plan.offsets);

  // Converged: every phase within two of its heaviest chunks (one for the
  // mixing, one for the cut) of its ideal T_p / S, on the slowest rank.
  const std::vector<double> s = speeds.values();
  const double slowest = *std::min_element(s.begin(), s.end());
  plan.phase_efficiency.assign(F, 1.0);
  for (std::size_t p = 0; p < F; ++p) {
    double worst = 0, heaviest = 0;
    for (std::size_t r = 0; r < P; ++r) worst = std::max(worst, plan.part_costs[r * F + p]);
    for (std::size_t g = 0; g < G; ++g) heaviest = std::max(heaviest, k.at(g, p));
    if (worst > 0) plan.phase_efficiency[p] = k.total[p] / S / worst;
    if (worst > k.total[p] / S + 2 * heaviest / slowest)
      plan.termination = Termination::iteration_limit;
  }
  return plan;
}

}  // namespace isocost
