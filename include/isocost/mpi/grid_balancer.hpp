// isocost/mpi/grid_balancer.hpp — the balancing pipeline over a 2-D or 3-D
// grid of cells decomposed into one box per rank: rows or slabs, jagged px×py
// grids and 3-D recursive sections (mpi layer; the pipeline: balancer.hpp).
//
//   isocost::GridShape shape{2, {nx, ny, 1}};
//   auto start = isocost::decompose(isocost::grid_density(ones, shape), {{px, py}, {0, 1}},
//                                   isocost::Speeds::uniform(P));
//   isocost::mpi::GridBalancer b(MPI_COMM_WORLD, shape, start);
//   std::vector<double> u(b.local_count()), f(b.local_count());   // this box, x fastest
//   for (int step = 0; step < steps; ++step) {
//     { auto s = b.step(); compute(u, f); }
//     b.set_costs(particles_per_cell);   // optional: the code's own per-cell costs
//     b.maybe_rebalance(u, f);           // collective: moves both arrays when it pays
//   }
//
// The global plan re-decomposes with the same process grid, on the code's
// per-cell costs when it gave them (set_costs()), else on the piecewise-
// constant estimate from one load per rank (rebalance_grid_global()); the
// diffusive one shifts rows or jagged cuts (rebalance_grid_diffusive(); not
// for 3 levels, where Pearce's choice is between none and global). Call order
// as for BlockBalancer (block_balancer.hpp).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/forecast.hpp"
#include "isocost/learn_speeds.hpp"
#include "isocost/mpi/balancer.hpp"
#include "isocost/mpi/distribution.hpp"
#include "isocost/mpi/exchange.hpp"
#include "isocost/mpi/redistribute.hpp"
#include "isocost/rebalance_grid.hpp"

namespace isocost::mpi {

/// Settings for GridBalancer: the pipeline's and each plan's. Every field
/// must be the same on every rank (checked by the constructor).
struct GridBalancerOptions {
  BalancerOptions pipeline;
  /// The ranks' relative speeds (work per second); empty: all equal, or
  /// learned (learn_speeds).
  std::optional<Speeds> speeds;
  /// Learn the speeds from the run instead, as BlockBalancerOptions::
  /// learn_speeds: at every check that plans, the history's rounds and the
  /// current one are fitted with one speed per rank and a cost density
  /// smooth between the newest cut lines (learn_speeds() of a grid, with
  /// `learning`), and the plan uses the speeds learned; set_costs() costs
  /// are times on their rank, multiplied by its learned speed. A check that
  /// cannot learn (one round yet, or a cost sharper than the knots follow:
  /// learning.max_misfit, max_spread) keeps the last speeds learned, equal
  /// until then. Needs `speeds` empty and global.history >= 1.
  bool learn_speeds = false;
  SpeedLearningOptions learning;
  /// The global plan from per-rank loads (rebalance_grid_global()), with the
  /// history of earlier rounds that refines it: global.history rounds are
  /// kept (4 by default; 0 keeps none). Not used with `predict`.
  GridGlobalRebalanceOptions global;
  /// The global plan from per-cell costs (rebalance_grid_weights()).
  GridWeightsRebalanceOptions weights;
  /// The diffusive plan (rebalance_grid_diffusive(); with costs, on them).
  GridDiffusiveRebalanceOptions diffusive;
  /// Plans for a moving load, as BlockBalancerOptions::predict: >= 2 moves
  /// every cut of a global plan (from loads or from costs) along its trend
  /// through the plans of this many recent checks (forecast_decomposition(),
  /// weighed as the BlockBalancer's);
  /// 0 or 1: off. While the forecast moves the data, every check plans, even
  /// below the trigger (the window lags a moving load).
  int predict = 0;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("pipeline", self.pipeline);
    v("speeds", self.speeds, above(0));
    v("learn_speeds", self.learn_speeds);
    v("learning", self.learning);
    v("global", self.global);
    v("weights", self.weights);
    v("diffusive", self.diffusive);
    v("predict", self.predict, at_least(0));
  }
  /// The fields in range, and learn_speeds without given speeds and with a
  /// history.
  bool is_valid(std::string* why) const;
  /// Throws Error("grid balancer options: …") unless is_valid().
  void validate() const { validate_options(*this, "grid balancer options"); }
};

/// decide()'s value: the decision and, when it moves data, the new
/// decomposition and boxes. Identical on every rank.
struct GridPlan : Decision {
  BoxDistribution from;         ///< the boxes the plan was made on
  BoxDistribution to;           ///< the new ones (== from when nothing moves)
  Decomposition decomposition;  ///< the new decomposition (the current one when nothing moves)
  GridRebalance rebalance;      ///< the computed plan (method none when none was)
  bool used_costs = false;      ///< per-cell costs (set_costs()) shaped the plan
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

/// What maybe_rebalance() did (see BlockEvent).
struct GridEvent : GridPlan {
  std::optional<RedistributeSummary> migration = {};  ///< when data moved
  double seconds = 0;  ///< max over ranks: decision + migration (0 when nothing moved)

  /// One JSON object on one line (the log's format).
  std::string to_json() const;
};

// Compiled once, in the library (src/mpi/layout_balancer.cpp).
extern template class LayoutBalancer<GridPlan, GridEvent, GridBalancerOptions>;

/// The balancing pipeline over boxes of a grid of cells (see the file
/// comment). Not copyable; one per communicator.
class GridBalancer final : public LayoutBalancer<GridPlan, GridEvent, GridBalancerOptions> {
 public:
  /// A decomposition on grid lines of `shape` cells (e.g. decompose() of a
  /// grid_density), parts in rank order; rank r's data are its box's cells,
  /// x fastest (BoxDistribution). Collective over `comm` (duplicated; freed
  /// by the destructor). Throws the same Error on every rank for an invalid
  /// or differing decomposition or options, or one without a part per rank.
  GridBalancer(MPI_Comm comm, const GridShape& shape, Decomposition decomposition,
               GridBalancerOptions options = {});
  /// Collective (see ~BlockBalancer).
  ~GridBalancer();
  GridBalancer(const GridBalancer&) = delete;
  GridBalancer& operator=(const GridBalancer&) = delete;

  // Measuring (step(), phase(), idle(), record_step(), monitor()) and the
  // code's own per-cell costs, x fastest over this rank's box (set_costs()):
  // BalancerBase. With costs the next check that fires re-decomposes on them
  // (rebalance_grid_weights(), or the diffusive shifts on them).

  // -- Deciding and moving (see BlockBalancer) ---------------------------

  /// Collective on check steps. Errors as BlockBalancer::decide().
  GridPlan decide(double bytes_per_cell = 8);

  /// Every array holds this rank's from-box cells (x fastest) and is
  /// replaced by its to-box's, all moved together; with no arrays the
  /// balancer only adopts the plan. Collective and all or nothing as
  /// BlockBalancer::apply(); errors as it.
  template <class... T>
  RedistributeSummary apply(const GridPlan& plan, std::vector<T>&... arrays) {
    if (!check_plan(plan)) return {};
    double seconds = 0;
    const RedistributeSummary s = move_arrays(plan.from, plan.to, seconds, arrays...);
    applied(plan, s, seconds);
    return s;
  }

  /// decide(Σ sizeof(T)), then apply() if it moves data.
  template <class... T>
  GridEvent maybe_rebalance(std::vector<T>&... arrays) {
    const std::array<std::size_t, sizeof...(T)> sizes{arrays.size()...};
    const GridPlan plan = decide_data(static_cast<double>((sizeof(T) + ... + 0)), sizes);
    if (plan.moves()) apply(plan, arrays...);
    return last_event();
  }

  /// maybe_rebalance(cells…) and then exchange() of the residents (e.g.
  /// particles, residents(keys, x, v)) to the owners of their cells, in the
  /// distribution that results: one call per step moves the cells when it
  /// pays and every resident that left its cell's owner, moved or not.
  /// decide()'s bytes per cell count the residents at their global
  /// average (known from the previous call's exchange; 0 before it).
  /// When the plan moves cells, the residents travel in the cells' own
  /// collective (one MPI_Alltoallw carries both; last_exchange().with_rebalance).
  /// Collective. last_exchange() has the residents' exchange.
  template <class Key, class... R, class... T>
  GridEvent maybe_rebalance(Residents<Key, R...> residents, std::vector<T>&... cells) {
    const std::array<std::size_t, sizeof...(T)> sizes{cells.size()...};
    const double bytes = static_cast<double>((sizeof(T) + ... + 0)) +
                         residents_per_element() * static_cast<double>(residents.bytes);
    const GridPlan plan = decide_data(bytes, sizes);
    move_with_residents(plan, boxes(), residents, cells...);
    return last_event();
  }

  /// Sends every element (particle) to the rank whose box holds its cell,
  /// the key being the cell's linear index i + nx·(j + ny·k). Collective.
  template <class... T>
  ExchangeSummary exchange(std::vector<std::int64_t>& keys, std::vector<T>&... arrays) {
    return mpi::exchange(comm(), boxes(), keys, arrays...);
  }
  /// As above with element i's cell computed by `key(i)`: no key array is
  /// kept or sent. Collective; see exchange.hpp.
  template <class Key, class... T>
  requires std::is_invocable_r_v<std::int64_t, Key&, std::size_t> ExchangeSummary
  exchange(Key&& key, std::vector<T>&... arrays) {
    return mpi::exchange(comm(), boxes(), key, arrays...);
  }

  // -- State (the same on every rank) ------------------------------------
  const GridShape& shape() const noexcept { return shape_; }
  const Decomposition& decomposition() const noexcept { return decomposition_; }
  const BoxDistribution& boxes() const noexcept { return boxes_; }
  std::int64_t local_count() const;
  // last_event(), options(), set_observer(): LayoutBalancer.

 private:
  // The layout's part of the pipeline (LayoutBalancer).
  const char* unit() const override { return "cell"; }
  int parts() const override { return boxes_.parts(); }
  std::int64_t part_count(int rank) const override { return boxes_.count(rank); }
  std::int64_t total_count() const override { return boxes_.size(); }
  GridPlan current_plan() const override;
  ProcessGraph process_graph() const override;
  bool can_diffuse() const override { return decomposition_.process_grid.counts.size() <= 2; }
  // Both plans read the costs where they are: the global one cuts reduced
  // marginals level by level (mpi::decompose_grid()), the diffusive one
  // shifts on them (grid_diffusive.hpp).
  bool gathers_costs(Strategy) const override { return false; }
  void make_plan(GridPlan& plan, const Inputs& in) override;
  std::optional<Speeds> plan_speeds(GridPlan& plan, const std::vector<double>& loads) override;
  void normalise_costs(Inputs& in) const override;
  /// This rank's set_costs() costs as the plan cuts them: times the learned
  /// speed when speeds are learned (then in `scaled`; normalise_costs()
  /// scales the sums), else costs_ itself.
  const std::vector<double>& plan_costs(std::vector<double>& scaled) const;
  void remember(const std::vector<double>& loads) override;
  void take_plan(GridPlan& plan) const override;
  bool is_current(const GridPlan& plan) const override { return plan.from.hash() == boxes_.hash(); }
  void adopt(const GridPlan& plan) override;
  /// options_.predict: records a global plan and replaces its cell ranges by
  /// the forecast for the coming interval.
  void forecast(GridPlan& plan);
  /// The constructor's checks of the decomposition (builds boxes_).
  std::string check_layout();

  GridShape shape_;
  Decomposition decomposition_;
  BoxDistribution boxes_;
  std::vector<PlannedParts> planned_;  // the last options_.predict plans, oldest first
  std::vector<GridRound> history_;     // the last options_.global.history rounds, oldest first
  std::optional<Speeds> learned_;      // the last speeds learned (learn_speeds)
  SpeedTracker tracker_;               // which estimates are used (learn_speeds)
};

}  // namespace isocost::mpi
