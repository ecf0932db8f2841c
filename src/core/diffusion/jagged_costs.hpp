// core/diffusion/jagged_costs.hpp — where shift_jagged() reads the costs it
// cuts (internal): a density, uniform cells, or costs spread over ranks (the
// GridBalancer's diffusive plan, src/mpi/grid_diffusive.cpp).
#pragma once

#include <cstdint>
#include <span>

#include "isocost/cost_model.hpp"
#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/diffusion.hpp"
#include "isocost/shift.hpp"

namespace isocost::detail {

/// The costs of a jagged decomposition's domain as shift_jagged() needs
/// them: the old parts' costs and the marginals of slabs that span a range
/// along the first level's axis a0 and everything along the others.
class JaggedCosts {
 public:
  virtual ~JaggedCosts() = default;
  /// The domain's box; on a grid, its cells along each axis (nullptr: a
  /// continuous density, cuts in box coordinates).
  virtual const Box& box() const = 0;
  virtual const GridShape* grid() const = 0;
  /// The cost of an old part.
  virtual double part_cost(const Part& part) const = 0;
  /// The cost along `axis` of the slab [lo, hi) along `a0` (cell indices on
  /// a grid: a discrete model over the cells along `axis`).
  virtual CostModel slab_model(int a0, double lo, double hi, int axis) = 0;
  /// The cost of the slab [lo, hi) along `a0` and [lo1, hi1) along `a1`
  /// (a1 < 0: everything along the other axes). With a1 >= 0 the slab along
  /// a0 is one that slab_model() was asked for along a1.
  virtual double slab_cost(int a0, double lo, double hi, int a1, double lo1, double hi1) = 0;
  /// Called once with the new first-level cuts before slab_model() is asked
  /// for their slabs (a distributed source reduces every slab's marginal in
  /// one call).
  virtual void prepare_slabs(int /*a0*/, std::span<const double> /*cuts*/, int /*axis*/) {}
};

/// A density as a cost source: the summed-area table's masses on a grid, the
/// marginal models otherwise (what shift_jagged(const Density&, …) uses).
class DensityCosts final : public JaggedCosts {
 public:
  explicit DensityCosts(const Density& d);
  const Box& box() const override { return d_.box(); }
  const GridShape* grid() const override { return d_.grid() ? &shape_ : nullptr; }
  double part_cost(const Part& p) const override;
  CostModel slab_model(int a0, double lo, double hi, int axis) override;
  double slab_cost(int a0, double lo, double hi, int a1, double lo1, double hi1) override;

 private:
  struct Slab;
  Slab slab(int a0, double lo, double hi, int a1, double lo1, double hi1) const;
  const Density& d_;
  GridShape shape_;
};

/// shift_jagged() on any cost source (shift.hpp has the algorithm). Every
/// slab_model() is asked for in the same order on every caller, so a
/// distributed source may reduce inside it.
Decomposition shift_jagged(JaggedCosts& costs, const Decomposition& dec,
                           std::span<const double> loads, const DiffusionOptions& dopt,
                           const ShiftOptions& sopt);

}  // namespace isocost::detail
