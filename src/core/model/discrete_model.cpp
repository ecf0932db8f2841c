// The discrete model (cost_model.hpp, discrete_model()): compensated prefix
// sums of per-cell weights (detail::compensated_prefix), built in one pass
// into an array that is never zeroed.
#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>

#include "core/shared/compensated_sum.hpp"
#include "core/shared/double_array.hpp"
#include "isocost/cost_model.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

using detail::DoubleArray;
using detail::exact;

namespace {

class DiscreteImpl final : public detail::CostModelImpl {
 public:
  DiscreteImpl(std::vector<double> w, DoubleArray prefix, double first)
      : w_(std::move(w)), prefix_(std::move(prefix)), first_(first) {}
  CostPoint evaluate(double x) const override {
    const double u = x - first_;
    const auto k = static_cast<std::size_t>(u);
    // x == hi: exactly the total, which a last fraction 1 of w would only round to.
    if (k >= w_.size()) return {prefix_.back(), w_.back()};
    return {prefix_[k] + (u - static_cast<double>(k)) * w_[k], w_[k]};
  }
  double cost(double x) const override { return evaluate(x).cost; }
  std::string kind() const override { return "discrete"; }
  std::string describe() const override {
    return detail::discrete_description(static_cast<std::int64_t>(w_.size()));
  }
  std::span<const double> prefix_sums() const override { return prefix_.span(); }

 private:
  std::vector<double> w_;
  DoubleArray prefix_;
  double first_;
};

}  // namespace

std::string detail::discrete_description(std::int64_t cells) {
  return "discrete prefix sums of " + std::to_string(cells) + " cell weights";
}

CostModel discrete_model(std::vector<double> weights, std::int64_t first) {
  if (weights.empty()) throw Error("discrete model: the weight list is empty");
  const std::size_t n = weights.size();
  DoubleArray prefix(n + 1);
  double* const out = prefix.data();
  out[0] = 0;
  detail::CompensatedSum run;
  if (const std::size_t bad = detail::compensated_prefix(weights, run, out + 1); bad < n)
    throw Error(detail::expected_got("discrete model: weight " + std::to_string(bad),
                                     "a finite value >= 0", exact(weights[bad])));
  const double total = run.value();
  if (!std::isfinite(total))
    throw Error("discrete model: total cost is not finite: the weights sum to " + exact(total) +
                " (beyond the double range)");
  if (!(total > 0)) throw Error("discrete model: all weights are zero; the total must be > 0");
  const double lo = static_cast<double>(first);
  const double hi = lo + static_cast<double>(weights.size());
  return CostModel(std::make_shared<DiscreteImpl>(std::move(weights), std::move(prefix), lo), lo,
                   hi);
}

}  // namespace isocost
