// What both balancers share (balancer.hpp's BalancerBase): measuring, the
// code's own costs, the comm model and the rebalances' costs, all through the
// pipeline (pipeline.hpp).
#include <cmath>
#include <string>

#include "isocost/detail/text.hpp"
#include "isocost/mpi/balancer.hpp"
#include "mpi/pipeline.hpp"

namespace isocost::mpi {

BalancerBase::BalancerBase(const BalancerOptions& options)
    : pipeline_(std::make_unique<detail::Pipeline>(options)) {}
BalancerBase::~BalancerBase() = default;

StepScope BalancerBase::step() { return StepScope(pipeline_->monitor()); }
PhaseId BalancerBase::add_phase(std::string_view name) {
  return pipeline_->monitor().add_phase(name);
}
PhaseScope BalancerBase::phase(PhaseId id) { return PhaseScope(pipeline_->monitor(), id); }
IdleScope BalancerBase::idle() { return IdleScope(pipeline_->monitor()); }
void BalancerBase::record_step(double seconds, std::span<const double> phase_seconds) {
  pipeline_->monitor().record_step(seconds, phase_seconds);
}
const LoadMonitor& BalancerBase::monitor() const noexcept { return pipeline_->monitor(); }
bool BalancerBase::next_decide_is_check() const { return pipeline_->checks_next(); }
const CommModel& BalancerBase::comm_model() const noexcept { return pipeline_->comm_model(); }
std::vector<double> BalancerBase::rebalance_seconds() const { return pipeline_->measured_costs(0); }
MPI_Comm BalancerBase::comm() const noexcept { return pipeline_->comm(); }
int BalancerBase::rank() const noexcept { return pipeline_->rank(); }
bool BalancerBase::verify() const noexcept { return pipeline_->options().verify; }

void BalancerBase::set_costs(std::span<const double> costs) {
  costs_.assign(costs.begin(), costs.end());
  have_costs_ = true;
}

void BalancerBase::clear_costs() noexcept {
  costs_.clear();
  have_costs_ = false;
}

std::string BalancerBase::check_costs(std::int64_t count, const char* unit) const {
  if (static_cast<std::int64_t>(costs_.size()) != count)
    return "set_costs() gave " + std::to_string(costs_.size()) + " costs for " +
           std::to_string(count) + " local " + unit + "s";
  for (std::size_t i = 0; i < costs_.size(); ++i)
    if (!(costs_[i] >= 0) || !std::isfinite(costs_[i]))
      return isocost::detail::expected_got(
          "cost of local " + std::string(unit) + " " + std::to_string(i), "a finite number >= 0",
          isocost::detail::exact(costs_[i]));
  return {};
}

}  // namespace isocost::mpi
