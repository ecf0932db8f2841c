// isocost/mpi/block_balancer.hpp — the balancing pipeline over a 1-D block
// distribution of N elements (mpi layer; the pipeline: balancer.hpp).
//
//   isocost::mpi::BlockBalancer b(MPI_COMM_WORLD, isocost::mpi::BlockDistribution::uniform(N, P));
//   std::vector<double> x(b.local_count()), v(b.local_count());   // struct of arrays
//   for (int step = 0; step < steps; ++step) {
//     {
//       auto s = b.step();             // times this rank's work in the step
//       compute(x, v);
//     }
//     b.maybe_rebalance(x, v);         // collective: moves both arrays when it pays
//   }
//
// The same in two calls, for codes that want to look at the plan first or
// move data the balancer does not hold:
//     const auto plan = b.decide();        // collective on check steps
//     if (plan.moves()) b.apply(plan, x, v);
//
// Call order: one step() scope (or record_step()) per time step on every
// rank, then decide() or maybe_rebalance() on every rank, outside any step
// scope. apply() with the plan of the latest decide(), on every rank.
// Elements that move on their own (particles) go to their owners with
// exchange().
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "isocost/forecast.hpp"
#include "isocost/learn_speeds.hpp"
#include "isocost/mpi/balancer.hpp"
#include "isocost/mpi/distribution.hpp"
#include "isocost/mpi/exchange.hpp"
#include "isocost/mpi/migrate.hpp"
#include "isocost/mpi/redistribute.hpp"
#include "isocost/rebalance.hpp"

namespace isocost::mpi {

/// Settings for BlockBalancer: the pipeline's and each plan's. Every field
/// must be the same on every rank (checked by the constructor).
struct BlockBalancerOptions {
  BalancerOptions pipeline;
  /// The ranks' relative speeds (work per second); empty: all equal, or
  /// learned (learn_speeds).
  std::optional<Speeds> speeds;
  /// Learn the speeds from the run instead (learn_speeds(), with
  /// `learning`): at every check, the history's rounds and the current one
  /// are fitted with one speed per rank and a smooth cost density, and the
  /// plan uses the speeds learned. The per-element costs of set_costs() are
  /// then times measured on their rank: each is multiplied by its rank's
  /// learned speed before the plan merges them. Until two rounds cut the elements differently
  /// (after the first rebalance) they are taken as equal; a check that cannot learn keeps the last
  /// ones. Rounds from before a change of speed are left out as the fit misses them
  /// (learning.max_misfit). Needs `speeds` empty and global.history >= 1; BlockPlan::learned has
  /// each check's estimate.
  bool learn_speeds = false;
  SpeedLearningOptions learning;
  /// The global plan from per-rank loads (rebalance_global()), with the
  /// history of earlier rounds it merges: global.history rounds are kept
  /// (4 by default; 0 keeps none), global.history_tolerance drops drifted
  /// ones, global.edges locates the density's edges among their points.
  /// Stale points mislead a load that moves: use `predict` there, which
  /// plans without the history.
  GlobalRebalanceOptions global;
  /// Plans for a moving load (Eijkhout §4): > 0 forecasts each cut by the
  /// linear trend through the plans of this many recent checks, each made
  /// from its own window's loads alone, to the middle of the coming check
  /// interval (forecast_offsets(), a plan weighing half as much as one
  /// predict/2 checks newer), instead of balancing the last window.
  /// 0 or 1: off (a trend needs two plans); 8 is a good start. While the
  /// forecast moves the data, every check plans, even below the trigger: a
  /// good plan leaves the last window nearly balanced, yet the load has moved
  /// on since. On the moving bell checked every 2 steps (tests/mpi/
  /// test_mpi_block_balancer_convergence.cpp) it lifts the mean efficiency
  /// from 0.78 to 0.94 on 4 ranks, from 0.68 to 0.92 on 8, 0.82 to 0.94 on
  /// 3; on 2 ranks, where one cut sits inside the bell and moves unevenly,
  /// it lowers it (0.87 with the history, 0.84 with the forecast).
  int predict = 0;
  /// Phase-synchronised balance (Watts ch. 4): with phases registered, the
  /// global plan minimises Σ_phases max_ranks T (rebalance_phases()), and
  /// the trigger and the profitability test also look at the synchronised
  /// times (Decision::phase_check; one more MPI_Allreduce per check). One
  /// block per rank cannot always balance every phase (Watts Fig. 4.12);
  /// plan_pieces() (mpi/pieces.hpp) gives each rank several pieces, as
  /// examples/particles does. Per-element costs given with set_costs() take
  /// precedence: the plan is then rebalance_weights() of them.
  bool balance_phases = false;
  PhaseRebalanceOptions phases;
  /// The global plan from per-element costs given with set_costs()
  /// (rebalance_weights()).
  WeightsRebalanceOptions weights;
  /// The diffusive plan (rebalance_diffusive(); with costs, shifted on them).
  DiffusiveRebalanceOptions diffusive;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("pipeline", self.pipeline);
    v("speeds", self.speeds, above(0));
    v("learn_speeds", self.learn_speeds);
    v("learning", self.learning);
    v("global", self.global);
    v("predict", self.predict, at_least(0));
    v("balance_phases", self.balance_phases);
    v("phases", self.phases);
    v("weights", self.weights);
    v("diffusive", self.diffusive);
  }
  /// The fields in range, and learn_speeds without given speeds and with a
  /// history.
  bool is_valid(std::string* why) const;
  /// Throws Error("block balancer options: …") unless is_valid().
  void validate() const { validate_options(*this, "block balancer options"); }
};

/// decide()'s value: the decision and, when it moves data, the new
/// distribution. Identical on every rank.
struct BlockPlan : Decision {
  BlockDistribution from;    ///< the distribution the plan was made on
  BlockDistribution to;      ///< the new one (== from when nothing moves)
  BlockRebalance rebalance;  ///< the computed plan (method none when none was)
  bool used_costs = false;   ///< per-element costs (set_costs()) shaped the plan
  /// With learn_speeds: what this check learned (its speeds were used when
  /// identifiable, else the last ones learned).
  std::optional<LearnedSpeeds> learned;

  /// The plan's root finds and diffusion converged (true with no plan).
  bool converged() const noexcept { return rebalance.converged(); }
  /// One line: the decision and, when computed, the plan's imbalance and moves.
  std::string brief_report() const;
  /// Several lines: the check, the choice, the profitability and the plan.
  std::string full_report() const;
};

/// What maybe_rebalance() did: the plan and, when it moved data, the
/// migration (this rank's view) and the rebalance's cost. The observer and
/// the log get one per check.
struct BlockEvent : BlockPlan {
  std::optional<RedistributeSummary> migration = {};  ///< when data moved
  double seconds = 0;  ///< max over ranks: decision + migration (0 when nothing moved)

  /// One JSON object on one line (the log's format).
  std::string to_json() const;
};

// Compiled once, in the library (src/mpi/layout_balancer.cpp).
extern template class LayoutBalancer<BlockPlan, BlockEvent, BlockBalancerOptions>;

/// The balancing pipeline over 1-D blocks (see the file comment). Not
/// copyable; one per communicator.
class BlockBalancer final : public LayoutBalancer<BlockPlan, BlockEvent, BlockBalancerOptions> {
 public:
  /// N elements in blocks, rank r owning [o_r, o_{r+1}). Collective over
  /// `comm` (duplicated; freed by the destructor): agrees on the options and
  /// the distribution, measures the comm model unless options give it. Throws
  /// the same Error on every rank for an invalid or differing distribution or
  /// options (naming the fields that differ), or a distribution without one
  /// part per rank.
  BlockBalancer(MPI_Comm comm, BlockDistribution distribution, BlockBalancerOptions options = {});
  /// Collective: frees the duplicated communicator (and completes a posted
  /// overlapped check). Every rank must destroy its balancer, at the same
  /// point, before MPI_Finalize; after MPI_Finalize nothing is freed.
  ~BlockBalancer();
  BlockBalancer(const BlockBalancer&) = delete;
  BlockBalancer& operator=(const BlockBalancer&) = delete;

  // Measuring (step(), phase(), idle(), record_step(), monitor()) and the
  // code's own per-element costs (set_costs()): BalancerBase. The last event,
  // the options and the observer (last_event(), options(), set_observer()):
  // LayoutBalancer.

  // -- Deciding and moving -----------------------------------------------

  /// Decides whether and how to rebalance (the pipeline: balancer.hpp) and
  /// returns the plan, the same on every rank. Collective over the
  /// communicator on check steps (with `overlap`, the step after); no
  /// communication otherwise. `bytes_per_element` is what moving one element
  /// costs in bytes (Pearce eq. 6's elementsize; the same on every rank).
  /// Throws the same Error on every rank, nothing decided, if a rank has a
  /// step open, a load that is negative or not finite, costs of the wrong
  /// count or value, or a different bytes_per_element.
  BlockPlan decide(double bytes_per_element = 8);

  /// Carries out `plan` (from the latest decide()): every array holds this
  /// rank's elements of plan.from and is replaced by those of plan.to, all
  /// moved together in one exchange (redistribute_arrays()). Any number of
  /// std::vector arrays of trivially copyable types, of equal lengths; with
  /// none, the balancer adopts plan.to and the code moves its data itself
  /// (e.g. particles with exchange()). Collective when the latest decide()
  /// moved data: one MPI_Allreduce agrees that every rank applies that plan
  /// (no communication when none is pending). Throws the same Error on every
  /// rank, nothing moved, for arrays of the wrong or unequal lengths, a plan
  /// that is not the latest decide()'s on the current distribution (on any
  /// one rank), or an allocation that fails on any rank: all or nothing —
  /// every rank's arrays and the distribution are then unchanged and the
  /// plan stays pending, so the same apply() may be retried.
  template <class... T>
  RedistributeSummary apply(const BlockPlan& plan, std::vector<T>&... arrays) {
    if (!check_plan(plan)) return {};
    double seconds = 0;
    const RedistributeSummary s = move_arrays(plan.from, plan.to, seconds, arrays...);
    applied(plan, s, seconds);
    return s;
  }

  /// Carries out `plan` for elements that are not trivially copyable: every
  /// element whose owner changes moves with `callbacks` (migrate()), its id
  /// being its global index. The application keeps its elements in index
  /// order itself. Collective as apply(plan, arrays...). Errors as
  /// migrate(). All or nothing (a block distribution cannot leave an element
  /// behind): if any element's size, pack or unpack fails on any rank, every
  /// receiver calls `free` on the copies it unpacked (the one call of `free`
  /// on a receiver), no sender frees anything, and every rank throws the same
  /// Error; the elements, the distribution and the pending plan are as
  /// before.
  MigrateSummary apply(const BlockPlan& plan, const MigrationCallbacks& callbacks);

  /// decide(Σ sizeof(T)), then apply() if it moves data: the one-line form.
  /// Collective on check steps. Returns what happened (also logged and
  /// passed to the observer).
  template <class... T>
  BlockEvent maybe_rebalance(std::vector<T>&... arrays) {
    const std::array<std::size_t, sizeof...(T)> sizes{arrays.size()...};
    const BlockPlan plan = decide_data(static_cast<double>((sizeof(T) + ... + 0)), sizes);
    if (plan.moves()) apply(plan, arrays...);
    return last_event();
  }

  /// maybe_rebalance(cells…) and then exchange() of the residents (e.g.
  /// particles, residents(keys, x, v)) to the owners of their cells, in the
  /// distribution that results: one call per step moves the cells when it
  /// pays and every resident that left its cell's owner, moved or not.
  /// decide()'s bytes per element count the residents at their global
  /// average (known from the previous call's exchange; 0 before it).
  /// When the plan moves cells, the residents travel in the cells' own
  /// collective (one MPI_Alltoallw carries both; last_exchange().with_rebalance).
  /// Collective. last_exchange() has the residents' exchange.
  template <class Key, class... R, class... T>
  BlockEvent maybe_rebalance(Residents<Key, R...> residents, std::vector<T>&... cells) {
    const std::array<std::size_t, sizeof...(T)> sizes{cells.size()...};
    const double bytes = static_cast<double>((sizeof(T) + ... + 0)) +
                         residents_per_element() * static_cast<double>(residents.bytes);
    const BlockPlan plan = decide_data(bytes, sizes);
    move_with_residents(plan, distribution(), residents, cells...);
    return last_event();
  }

  /// Sends every element to the rank whose range holds its key (a global
  /// index in [0, N)): particles that left their owner's range. `keys` travels
  /// with the arrays. Collective; see exchange.hpp.
  template <class... T>
  ExchangeSummary exchange(std::vector<std::int64_t>& keys, std::vector<T>&... arrays) {
    return mpi::exchange(comm(), distribution(), keys, arrays...);
  }
  /// As above with element i's key computed by `key(i)` (e.g. from its
  /// coordinate): no key array is kept or sent. Collective; see exchange.hpp.
  template <class Key, class... T>
  requires std::is_invocable_r_v<std::int64_t, Key&, std::size_t> ExchangeSummary
  exchange(Key&& key, std::vector<T>&... arrays) {
    return mpi::exchange(comm(), distribution(), key, arrays...);
  }

  // -- State (the same on every rank) ------------------------------------

  /// The current distribution.
  const BlockDistribution& distribution() const noexcept { return distribution_; }
  /// This rank's element count in it.
  std::int64_t local_count() const;
  /// The global index of this rank's first element in it.
  std::int64_t local_begin() const;

 private:
  // The layout's part of the pipeline (LayoutBalancer).
  const char* unit() const override { return "element"; }
  int parts() const override { return distribution_.parts(); }
  std::int64_t part_count(int rank) const override { return distribution_.count(rank); }
  std::int64_t total_count() const override { return distribution_.size(); }
  BlockPlan current_plan() const override;
  bool balance_phases() const override { return options_.balance_phases; }
  // rebalance_weights() and rebalance_diffusive() read every element's cost.
  bool gathers_costs(Strategy) const override { return true; }
  ProcessGraph process_graph() const override;
  void make_plan(BlockPlan& plan, const Inputs& in) override;
  void remember(const std::vector<double>& loads) override;
  void take_plan(BlockPlan& plan) const override { plan.to.offsets = plan.rebalance.offsets; }
  bool is_current(const BlockPlan& plan) const override {
    return plan.from.offsets == distribution_.offsets;
  }
  void adopt(const BlockPlan& plan) override { distribution_ = plan.to; }
  /// options_.predict: records the plan and replaces its offsets by the
  /// forecast for the coming interval.
  void forecast(BlockPlan& plan);
  std::optional<Speeds> plan_speeds(BlockPlan& plan, const std::vector<double>& loads) override;
  void normalise_costs(Inputs& in) const override;

  BlockDistribution distribution_;
  std::vector<BlockRound> history_;   // the last options_.global.history rounds, oldest first
  std::vector<PlannedCuts> planned_;  // the last options_.predict plans, oldest first
  std::optional<Speeds> learned_;     // the last speeds learned (learn_speeds)
  SpeedTracker tracker_;              // which estimates are used (learn_speeds)
};

}  // namespace isocost::mpi
