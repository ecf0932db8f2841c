// c/mpi/balancer.cpp — isocost_balancer of the C interface (isocost_mpi.h):
// a BlockBalancer, its step timing and checks, and the migration of any
// number of caller-allocated arrays, packed into one record per element and
// moved in one redistribution (detail::redistribute_bytes), so that C and
// Fortran codes, which cannot hand over std::vectors, move all their arrays
// in a single exchange.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "c/mpi/agree.hpp"
#include "isocost/isocost_mpi.h"
#include "isocost/mpi/block_balancer.hpp"

using isocost::c::Failure;
using isocost::c::guard;
using isocost::c::require;
using isocost::c::require_at_least;
using isocost::c::mpi::agree_arguments;
using isocost::c::mpi::Problems;
using isocost::c::mpi::require_comm;
using isocost::mpi::BlockBalancer;
using isocost::mpi::BlockPlan;

namespace {
// BalancerBase::step() returns a StepScope, which cannot move: this holds it
// between isocost_balancer_begin_step() and _end_step().
struct OpenStep {
  isocost::StepScope scope;
  explicit OpenStep(BlockBalancer& b) : scope(b.step()) {}
};
}  // namespace

struct isocost_balancer {
  MPI_Comm comm = MPI_COMM_NULL;  // a duplicate: the arguments' agreement, the migration
  int rank = 0;
  std::unique_ptr<BlockBalancer> balancer;
  bool verify = false;
  std::optional<BlockPlan> pending;  // the latest check's plan, while it moves data
  isocost_balancer_decision last{};
  alignas(OpenStep) unsigned char step_storage[sizeof(OpenStep)];
  bool step_open = false;

  OpenStep* step() { return std::launder(reinterpret_cast<OpenStep*>(step_storage)); }
  ~isocost_balancer() {
    if (step_open) {
      step_open = false;
      try {
        step()->~OpenStep();
      } catch (...) {  // the step's time is lost with the balancer
      }
    }
    balancer.reset();  // collective
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

namespace {

isocost::mpi::BlockBalancerOptions translate(const isocost_balancer_options& c, Problems& p) {
  isocost::mpi::BlockBalancerOptions o;
  auto& q = o.pipeline;
  q.trigger.every = c.check_every;
  q.trigger.drift_threshold =
      c.drift_threshold < 0 ? std::nullopt : std::optional<double>(c.drift_threshold);
  q.trigger.min_efficiency =
      c.min_efficiency == 0 ? std::nullopt : std::optional<double>(c.min_efficiency);
  q.monitor.window = c.window;
  q.monitor.clock = c.cpu_clock != 0 ? isocost::MonitorClock::cpu : isocost::MonitorClock::wall;
  q.steps_ahead = c.steps_ahead;
  switch (c.policy) {
    case ISOCOST_POLICY_CHOOSE:
      q.policy = isocost::mpi::BalancePolicy::choose;
      break;
    case ISOCOST_POLICY_GLOBAL:
      q.policy = isocost::mpi::BalancePolicy::global;
      break;
    case ISOCOST_POLICY_DIFFUSION:
      q.policy = isocost::mpi::BalancePolicy::diffusion;
      break;
    default:
      p.add(
          "options->policy: expected ISOCOST_POLICY_CHOOSE (0), _GLOBAL (1) or _DIFFUSION (2), "
          "got " +
          std::to_string(c.policy));
  }
  if (c.decision_seconds >= 0) q.decision_seconds = c.decision_seconds;
  if (c.comm_latency >= 0 && c.comm_per_byte >= 0)
    q.comm = isocost::CommModel{.latency = c.comm_latency, .per_byte = c.comm_per_byte};
  q.verify = c.verify != 0;
  if (c.log_path != nullptr) q.log_path = c.log_path;
  q.profit_trigger = c.profit_trigger != 0;
  o.global.edges = c.edges != 0;
  return o;
}

int create(const char* function, MPI_Comm comm, std::int64_t n, const std::int64_t* offsets,
           const isocost_balancer_options* options, isocost_balancer** out) {
  if (out != nullptr) *out = nullptr;
  return guard(function, [&] {
    require_comm(comm);
    int size = 0, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    Problems p;
    p.need(out, "out");
    p.at_least(n, 0, "n");
    isocost_balancer_options defaults;
    isocost_balancer_options_init(&defaults);
    const auto o = translate(options != nullptr ? *options : defaults, p);
    isocost::mpi::BlockDistribution d;
    if (offsets != nullptr) {
      d.offsets.assign(offsets, offsets + size + 1);
      if (d.offsets.back() != n)
        p.add("offsets[" + std::to_string(size) + "]: expected n = " + std::to_string(n) +
              ", got " + std::to_string(d.offsets.back()));
    } else if (n >= 0) {
      d = isocost::mpi::BlockDistribution::uniform(n, size);
    }
    const isocost::mpi::detail::Same same[] = {
        isocost::mpi::detail::same_text("n", std::to_string(n))};
    agree_arguments(comm, p, same);
    auto h = std::make_unique<isocost_balancer>();
    MPI_Comm_dup(comm, &h->comm);
    h->rank = rank;
    h->verify = o.pipeline.verify;
    h->balancer = std::make_unique<BlockBalancer>(comm, std::move(d), o);  // agrees on both
    *out = h.release();
  });
}

isocost_balancer_decision decision_of(const BlockPlan& plan, int rank) {
  isocost_balancer_decision d{};
  d.step = plan.step;
  d.checked = plan.checked;
  d.fired = plan.check.fired;
  d.drift_fired = plan.check.drift_fired;
  d.efficiency_fired = plan.check.efficiency_fired;
  d.t_min = plan.check.t_min;
  d.t_avg = plan.check.t_avg;
  d.t_max = plan.check.t_max;
  d.drift = plan.check.drift;
  d.efficiency = plan.check.efficiency;
  d.action = plan.action == isocost::Strategy::global      ? ISOCOST_ACTION_GLOBAL
             : plan.action == isocost::Strategy::diffusion ? ISOCOST_ACTION_DIFFUSION
                                                           : ISOCOST_ACTION_NONE;
  d.decision_seconds = plan.decision_seconds;
  const auto& to = plan.moves() ? plan.to : plan.from;
  d.new_local_begin = to.begin(rank);
  d.new_local_count = to.count(rank);
  const std::size_t n = std::min(plan.reason.size(), sizeof d.reason - 1);
  std::memcpy(d.reason, plan.reason.data(), n);
  d.reason[n] = '\0';
  return d;
}

// The migration's checks on this rank (narrays and element sizes agree through
// `same`); returns the record size Σ element_bytes.
std::size_t check_arrays(Problems& p, int narrays, const void* const* old_arrays,
                         void* const* new_arrays, const size_t* element_bytes,
                         std::int64_t old_count, std::int64_t new_count, std::string& layout) {
  layout = std::to_string(narrays);
  if (narrays < 0) {
    p.at_least(narrays, 0, "narrays");
    return 0;
  }
  if (narrays == 0) return 0;
  p.need(old_arrays, "old_arrays");
  p.need(new_arrays, "new_arrays");
  p.need(element_bytes, "element_bytes");
  if (old_arrays == nullptr || new_arrays == nullptr || element_bytes == nullptr) return 0;
  std::size_t record = 0;
  for (int k = 0; k < narrays; ++k) {
    const std::string i = "[" + std::to_string(k) + "]";
    const std::size_t e = element_bytes[k];
    layout += " " + std::to_string(e);
    if (e == 0) p.add("element_bytes" + i + ": expected >= 1, got 0");
    if (old_count > 0 && old_arrays[k] == nullptr) p.add("old_arrays" + i + " is NULL");
    if (new_count > 0 && new_arrays[k] == nullptr) p.add("new_arrays" + i + " is NULL");
    if (old_count > 0 && new_count > 0 && old_arrays[k] != nullptr && new_arrays[k] != nullptr) {
      const auto* a = static_cast<const std::byte*>(old_arrays[k]);
      const auto* b = static_cast<const std::byte*>(new_arrays[k]);
      const auto ua = reinterpret_cast<std::uintptr_t>(a), ub = reinterpret_cast<std::uintptr_t>(b);
      if (ua < ub + static_cast<std::size_t>(new_count) * e &&
          ub < ua + static_cast<std::size_t>(old_count) * e)
        p.add("new_arrays" + i + " overlaps old_arrays" + i);
    }
    if (e > SIZE_MAX / 2 - record) {
      p.add("element_bytes: the sum overflows");
      return 0;
    }
    record += e;
  }
  return record;
}

void migrate(isocost_balancer& h, int narrays, const void* const* old_arrays,
             void* const* new_arrays, const size_t* element_bytes) {
  if (!h.pending)
    throw Failure{ISOCOST_ERROR_INVALID_ARGUMENT,
                  "no migration pending: the latest isocost_balancer_check() decided "
                  "ISOCOST_ACTION_NONE"};
  const BlockPlan& plan = *h.pending;
  const std::int64_t old_count = plan.from.count(h.rank), new_count = plan.to.count(h.rank);
  Problems p;
  std::string layout;
  check_arrays(p, narrays, old_arrays, new_arrays, element_bytes, old_count, new_count, layout);
  const isocost::mpi::detail::Same same[] = {
      isocost::mpi::detail::same_text("narrays and element_bytes", layout)};
  agree_arguments(h.comm, p, same);
  if (narrays > 0) {
    // Element i of every array, in order, travels as record i.
    std::vector<isocost::mpi::detail::RowArray> rows;
    for (int k = 0; k < narrays; ++k)
      rows.push_back({old_arrays[k], new_arrays[k], element_bytes[k]});
    isocost::mpi::RedistributeOptions ro;
    ro.verify = h.verify;
    isocost::mpi::detail::redistribute_rows(h.comm, plan.from, plan.to, rows, ro);
  }
  h.balancer->apply(plan);  // adopts plan.to; collective
  h.pending.reset();
}

}  // namespace

extern "C" {

int isocost_balancer_options_init(isocost_balancer_options* options) noexcept {
  return guard("isocost_balancer_options_init", [&] {
    require(options, "options");
    *options = {.check_every = 10,
                .drift_threshold = 0.10,
                .min_efficiency = 0,
                .window = 10,
                .cpu_clock = 0,
                .steps_ahead = 100,
                .policy = ISOCOST_POLICY_CHOOSE,
                .decision_seconds = -1,
                .comm_latency = -1,
                .comm_per_byte = -1,
                .verify = 0,
                .log_path = nullptr,
                .profit_trigger = 1,
                .edges = 1};
  });
}

int isocost_balancer_create(MPI_Comm comm, int64_t n, const int64_t* offsets,
                            const isocost_balancer_options* options,
                            isocost_balancer** out) noexcept {
  return create("isocost_balancer_create", comm, n, offsets, options, out);
}

int isocost_balancer_create_f(MPI_Fint comm, int64_t n, const int64_t* offsets,
                              const isocost_balancer_options* options,
                              isocost_balancer** out) noexcept {
  return create("isocost_balancer_create_f", MPI_Comm_f2c(comm), n, offsets, options, out);
}

void isocost_balancer_free(isocost_balancer* balancer) noexcept { delete balancer; }

int isocost_balancer_begin_step(isocost_balancer* balancer) noexcept {
  return guard("isocost_balancer_begin_step", [&] {
    require(balancer, "balancer");
    if (balancer->step_open)
      throw Failure{ISOCOST_ERROR_INVALID_ARGUMENT, "a step is already open"};
    ::new (balancer->step_storage) OpenStep(*balancer->balancer);
    balancer->step_open = true;
  });
}

int isocost_balancer_end_step(isocost_balancer* balancer) noexcept {
  return guard("isocost_balancer_end_step", [&] {
    require(balancer, "balancer");
    if (!balancer->step_open)
      throw Failure{ISOCOST_ERROR_INVALID_ARGUMENT,
                    "no step is open (call isocost_balancer_begin_step() first)"};
    balancer->step_open = false;
    balancer->step()->~OpenStep();
  });
}

int isocost_balancer_record_step(isocost_balancer* balancer, double seconds) noexcept {
  return guard("isocost_balancer_record_step", [&] {
    require(balancer, "balancer");
    if (balancer->step_open)
      throw Failure{ISOCOST_ERROR_INVALID_ARGUMENT,
                    "a step is open (isocost_balancer_begin_step() without _end_step())"};
    balancer->balancer->record_step(seconds);
  });
}

int isocost_balancer_set_costs(isocost_balancer* balancer, const double* costs,
                               int64_t count) noexcept {
  return guard("isocost_balancer_set_costs", [&] {
    require(balancer, "balancer");
    require_at_least<int64_t>(count, 0, "count");
    if (count == 0 && costs == nullptr) {
      balancer->balancer->clear_costs();
      return;
    }
    require(costs, "costs");
    balancer->balancer->set_costs(std::span<const double>(costs, static_cast<std::size_t>(count)));
  });
}

int isocost_balancer_check(isocost_balancer* balancer, double bytes_per_element,
                           isocost_balancer_decision* out) noexcept {
  return guard("isocost_balancer_check", [&] {
    require(balancer, "balancer");
    if (balancer->step_open)
      throw Failure{ISOCOST_ERROR_INVALID_ARGUMENT,
                    "a step is open (isocost_balancer_begin_step() without _end_step())"};
    BlockPlan plan = balancer->balancer->decide(bytes_per_element);
    balancer->last = decision_of(plan, balancer->rank);
    if (plan.moves())
      balancer->pending = std::move(plan);
    else
      balancer->pending.reset();
    if (out != nullptr) *out = balancer->last;
  });
}

int isocost_balancer_last_decision(const isocost_balancer* balancer,
                                   isocost_balancer_decision* out) noexcept {
  return guard("isocost_balancer_last_decision", [&] {
    require(balancer, "balancer");
    require(out, "out");
    *out = balancer->last;
  });
}

int isocost_balancer_migrate(isocost_balancer* balancer, int narrays, const void* const* old_arrays,
                             void* const* new_arrays, const size_t* element_bytes) noexcept {
  return guard("isocost_balancer_migrate", [&] {
    require(balancer, "balancer");
    migrate(*balancer, narrays, old_arrays, new_arrays, element_bytes);
  });
}

int isocost_balancer_local(const isocost_balancer* balancer, int64_t* begin,
                           int64_t* count) noexcept {
  return guard("isocost_balancer_local", [&] {
    require(balancer, "balancer");
    if (begin != nullptr) *begin = balancer->balancer->local_begin();
    if (count != nullptr) *count = balancer->balancer->local_count();
  });
}

int isocost_balancer_offsets(const isocost_balancer* balancer, int64_t* offsets) noexcept {
  return guard("isocost_balancer_offsets", [&] {
    require(balancer, "balancer");
    require(offsets, "offsets");
    const auto& o = balancer->balancer->distribution().offsets;
    std::copy(o.begin(), o.end(), offsets);
  });
}

}  // extern "C"
