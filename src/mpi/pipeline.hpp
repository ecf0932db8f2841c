// Internal to the balancers (block_balancer.cpp, grid_balancer.cpp): the
// pipeline they share — the load monitor, the check (blocking or overlapped),
// Pearce's choice, profitability, the measured costs and gains, the log.
// What is specific to a distribution (plans, migration) stays with its
// balancer.
#pragma once

#include <mpi.h>

#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "isocost/mpi/balancer.hpp"
#include "mpi/agreement.hpp"

namespace isocost::mpi::detail {

/// One check's reduced numbers and this rank's share of them.
struct CheckNumbers {
  bool decided = false;  ///< a check is decided in this call
  long long step = 0;    ///< the step its loads were taken at
  double t_min = 0, t_avg = 0, t_max = 0;
  double my_load = 0;
  std::vector<double> my_phases;
  double phases_min = 0, phases_max = 0;  ///< registered phase counts over ranks
};

class Pipeline {
 public:
  explicit Pipeline(const BalancerOptions& options);
  /// Collective (see the balancers' destructors).
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  /// Collective over `comm`: agrees on `problem` and `same` (the caller's
  /// options and distribution), then duplicates the communicator, opens the
  /// log on rank 0 and measures the comm model unless given. Throws the
  /// agreed Error.
  void start(MPI_Comm comm, const char* who, std::string problem, std::span<const Same> same);

  /// The next check() decides: a check step, or (overlap) a posted check.
  /// Inside a step, the next decide() comes after it ends: one step later.
  bool checks_next() const {
    const long long steps = monitor_.steps() + (monitor_.step_open() ? 1 : 0);
    // Overlapped: the next decide() completes the check an earlier one posted.
    return options_.overlap ? request_ != MPI_REQUEST_NULL
                            : is_check_step(steps, options_.trigger.every);
  }
  LoadMonitor& monitor() noexcept { return monitor_; }
  const LoadMonitor& monitor() const noexcept { return monitor_; }
  MPI_Comm comm() const noexcept { return comm_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  const CommModel& comm_model() const noexcept { return comm_model_; }
  /// The measured costs of the earlier rebalances as a plan receiving
  /// `bytes` would have had them: each one's decision time, plus the comm
  /// model's latency, plus the rest of its migration time scaled by bytes
  /// over the bytes it moved (Pearce eq. 6). bytes 0 (not yet known): as
  /// measured.
  std::vector<double> measured_costs(double bytes) const;
  const BalancerOptions& options() const noexcept { return options_; }

  /// The check of one decide(): on a check step one MPI_Allreduce of the
  /// loads, this rank's problem flag, its phase count and bytes_per_element
  /// (blocking), or the completion of the check posted at the last call
  /// (overlap). Throws the agreed Error if any rank has a problem or the
  /// bytes differ.
  CheckNumbers check(const char* who, long long step, const std::string& problem, double bytes);
  /// With overlap: posts this step's check for the next call, unless this
  /// call moved data (the window is cleared and holds nothing yet).
  void post(long long step, bool moved, const std::string& problem, double bytes);

  /// The decision's check and the last rebalance's measured gain.
  void begin(Decision& d, const CheckNumbers& c);
  /// After begin(), with phases registered alike on every rank: one more
  /// MPI_Allreduce of each phase's (min, max, sum), the trigger on their
  /// sums into d.phase_check, and d.check.fired when it fires. Collective.
  void check_phases(Decision& d, const CheckNumbers& c);
  /// profit_trigger: whether a check the trigger did not fire plans anyway,
  /// its saving exceeding the mean measured cost of the rebalances so far
  /// (before the first: a message's latency and the decision time). On the
  /// synchronised times with d.phase_check.
  bool pays(const Decision& d) const;
  /// Pearce's choice for the gathered loads and element counts (policy
  /// choose), or the forced action. `can_diffuse` false (3-level grids):
  /// diffusion becomes the better of none and global.
  Strategy choose(Decision& d, const ProcessGraph& graph, std::span<const double> loads,
                  std::span<const double> elements, double bytes, bool can_diffuse);
  /// The decision time (max over ranks, one MPI_Allreduce): every rank since
  /// `t0`. Collective.
  void decided(Decision& d, double t0);
  /// Whether moving `received_bytes` into the busiest rank pays (d.profit),
  /// on the synchronised times when d.phase_check is set.
  bool profitable(Decision& d, double received_bytes);
  /// Whether a plan predicted to leave T_max at `predicted_t_max` pays for
  /// moving `received_bytes`: profitable() on that gain rather than on
  /// T_max − T_avg (the same costs and horizon).
  bool gains(const Decision& d, double predicted_t_max, double received_bytes) const;
  /// After a migration of `seconds` on this rank: the rebalance's cost (max
  /// over ranks, one MPI_Allreduce, plus the decision time) is recorded, the
  /// window cleared and the gain remembered for the next check. Collective.
  double rebalanced(const Decision& d, double seconds, double predicted_t_max);
  /// One line to the log (rank 0).
  void log(const std::string& json);

 private:
  void calibrate();
  /// The horizon, the comm model in use and the decision cost: given, or
  /// `measured_decision_seconds`.
  RebalanceCostOptions cost(double measured_decision_seconds) const;
  /// One rebalance as measured: its decision, its migration (max over ranks)
  /// and the most bytes its plan moved into one rank.
  struct Spent {
    double decision = 0, migration = 0, bytes = 0;
  };

  BalancerOptions options_;
  LoadMonitor monitor_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Op op_ = MPI_OP_NULL;  // the check's (min, max, sum, max) reduction
  int rank_ = 0, size_ = 1;
  CommModel comm_model_;
  std::vector<Spent> spent_;  // every rebalance so far
  std::optional<double> last_decision_seconds_;
  std::optional<Decision::Gain> pending_gain_;
  std::ofstream log_;
  // The posted nonblocking check (overlap): its request, buffers, and the
  // loads this rank had when it was posted.
  MPI_Request request_ = MPI_REQUEST_NULL;
  static constexpr int kNumbers = 12;
  double sent_[kNumbers] = {}, received_[kNumbers] = {};
  long long posted_step_ = -1;
  double posted_load_ = 0;
  std::vector<double> posted_phases_;
  std::string posted_problem_;
};

}  // namespace isocost::mpi::detail
