// isocost/density.hpp — cost densities rho(x, y[, z]) >= 0 over a box (Swartz §5).
//
// A Density is the multi-dimensional counterpart of CostModel: the cost of a
// region is the integral of rho over it. Decompositions (decompose.hpp) reduce
// it to one unknown at a time through marginals: the cost of the part of a
// box below x along one axis, whose derivative is the cross-section integral.
//
//   // Swartz §5: rho = C·(x + y) on [0,20]² (C = 1), masses by quadrature
//   auto rho = isocost::analytic_density(
//       [](std::span<const double> p) { return p[0] + p[1]; },
//       isocost::Box::of({0, 0}, {20, 20}));
//   auto g = isocost::grid_density(weights, {512, 512});   // per-cell weights
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "isocost/cost_model.hpp"
#include "isocost/options.hpp"

namespace isocost {

/// Largest number of dimensions a density may have.
inline constexpr int kMaxDims = 3;

/// An axis-aligned box in 1, 2 or 3 dimensions: [lo_0, hi_0] × … .
struct Box {
  int dims = 2;
  std::array<double, kMaxDims> lo{0, 0, 0};
  std::array<double, kMaxDims> hi{0, 0, 0};

  /// A box from corner lists of equal length 1..3.
  static Box of(std::initializer_list<double> lo, std::initializer_list<double> hi);
  /// Extent along an axis.
  double width(int axis) const { return hi[axis] - lo[axis]; }
  /// Product of the widths.
  double volume() const;
  /// Total area of the boundary (perimeter in 2-D, 2 in 1-D).
  double surface() const;
  /// Throws Error unless every lo < hi is finite (named `what` in the message).
  void validate(const std::string& what) const;

  /// The field list (options.hpp), for options that hold a box.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("dims", self.dims, closed(1, kMaxDims));
    v("lo", self.lo);
    v("hi", self.hi);
  }
};

/// Geometry of a gridded density: shape[a] cells along axis a, each cell
/// covering an equal slice of the box.
struct GridShape {
  int dims = 2;
  std::array<std::int64_t, kMaxDims> cells{1, 1, 1};
  /// Total number of cells.
  std::int64_t count() const;
};

/// How an analytic density integrates.
enum class Quadrature {
  gauss_kronrod,  ///< nested adaptive Gauss–Kronrod (15-point), Boost.Math
  tanh_sinh,      ///< nested tanh-sinh, Boost.Math (endpoint singularities)
};
/// "gauss_kronrod", "tanh_sinh" ("?" for other values).
std::string_view to_string(Quadrature quadrature);

/// The smallest relative quadrature tolerance DensityOptions accepts (≈ 450ε;
/// measured: 2·10^-14 already ran past 20 s on smooth 2-D densities).
inline constexpr double kMinQuadratureTolerance = 1e-13;

/// Settings for analytic densities.
struct DensityOptions {
  Quadrature quadrature = Quadrature::gauss_kronrod;
  /// Relative tolerance of each one-dimensional integral, in
  /// [kMinQuadratureTolerance, 1): nested integrals carry the rounding of the
  /// inner ones as noise, so below ~1e-13 the error estimate never gets there
  /// and every integral refines to max_depth (minutes, not an answer).
  double tolerance = 1e-10;
  /// Refinement depth of each adaptive integral (Gauss–Kronrod: bisections;
  /// tanh-sinh: levels), in [0, 20].
  int max_depth = 15;
  /// Budget of rho evaluations for one mass or cross-section, >= 1000; past it
  /// the call is an Error. Where rho jumps along a curve, the inner integrals
  /// carry errors above the tolerance as noise, and the outer one refines to
  /// max_depth everywhere: about 10^8 evaluations per mass in 2-D (the fuzz
  /// finding "x/y >= 5 && y != 1" ran past 120 s), so the default stops such a
  /// call after a few seconds instead of minutes.
  std::int64_t max_evaluations = 100'000'000;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("quadrature", self.quadrature);
    v("tolerance", self.tolerance, right_open(kMinQuadratureTolerance, 1));
    // Beyond 20 a tanh-sinh row alone needs gigabytes.
    v("max_depth", self.max_depth, closed(0, 20));
    v("max_evaluations", self.max_evaluations, at_least(1000));
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("analytic density: …") unless is_valid().
  void validate() const { validate_options(*this, "analytic density"); }
};

namespace detail {
/// What a density implements. Boxes given to it lie inside its box.
class DensityImpl {
 public:
  virtual ~DensityImpl() = default;
  /// ∫_b rho.
  virtual double mass(const Box& b) const = 0;
  /// ∫ rho over the cross-section of `b` at coordinate x of `axis` (the
  /// derivative of the marginal). Grids: exact for the cell-constant rho; on a
  /// grid line the cell above, at b's upper end the cell below.
  virtual double cross_section(const Box& b, int axis, double x) const = 0;
  virtual std::string describe() const = 0;
  /// Gridded densities: the mass of whole cells [c0, c1) (O(1)); others throw.
  virtual double cell_mass(const std::array<std::int64_t, kMaxDims>& c0,
                           const std::array<std::int64_t, kMaxDims>& c1) const;
};
}  // namespace detail

/// A validated, immutable density over a box (a cheap value type).
class Density {
 public:
  /// Wraps an implementation; used by the factories.
  Density(std::shared_ptr<const detail::DensityImpl> impl, Box box,
          std::shared_ptr<const GridShape> grid = nullptr);

  /// Number of dimensions, 1..3.
  int dims() const noexcept { return box_.dims; }
  /// The domain.
  const Box& box() const noexcept { return box_; }
  /// ∫ rho over the whole box (> 0).
  double total() const noexcept { return total_; }
  /// ∫ rho over `b`; throws Error unless `b` lies inside the box.
  double mass(const Box& b) const;
  /// The cost of `within` below x along `axis`: mass of `within` with
  /// hi[axis] = x. Nondecreasing in x.
  double marginal(const Box& within, int axis, double x) const;
  /// d/dx of marginal(): the integral over the cross-section at x.
  double cross_section(const Box& within, int axis, double x) const;
  /// marginal() along `axis` of `within` as a 1-D cost model on
  /// [within.lo[axis], within.hi[axis]], with cross_section() as its density:
  /// each level of decompose() and shift_jagged() cuts this model. Throws
  /// Error for a bad axis, a box outside the domain or a piece of zero mass.
  CostModel marginal_model(const Box& within, int axis) const;
  /// One line: the kind, formula or grid shape, and the box.
  std::string describe() const { return impl_->describe(); }

  /// The grid, for gridded densities (cuts then fall on grid lines); else null.
  const GridShape* grid() const noexcept { return grid_.get(); }
  /// For gridded densities: the coordinate of grid line k along `axis`.
  double grid_line(int axis, std::int64_t k) const;
  /// For gridded densities: the mass of whole cells [c0, c1) along each axis
  /// (O(1) from the summed-area table).
  double cell_mass(const std::array<std::int64_t, kMaxDims>& c0,
                   const std::array<std::int64_t, kMaxDims>& c1) const;

  /// The implementation, unchecked.
  const detail::DensityImpl& impl() const noexcept { return *impl_; }

 private:
  std::shared_ptr<const detail::DensityImpl> impl_;
  std::shared_ptr<const GridShape> grid_;
  Box box_;
  double total_;
};

/// rho from a callable over `box` (its argument has dims() coordinates). Box
/// masses by nested Boost.Math quadrature. With `antiderivative` F (F(p) = ∫ rho
/// over [box.lo, p]), masses come from its 2^d-corner inclusion–exclusion instead
/// and cross-sections from quadrature of rho. rho is checked at the corners,
/// the centre and a 5^d lattice, and at every point quadrature evaluates: a
/// negative or non-finite value is an Error naming the point. The total must be
/// > 0. An antiderivative is checked against quadrature on the box and on the
/// half-box [lo, centre]. rho and F are called from whichever thread uses the
/// density: they must be thread-safe if it is shared. The tolerance applies to
/// each 1-D integral; it is not reported back.
Density analytic_density(std::function<double(std::span<const double>)> rho, const Box& box,
                         const DensityOptions& options = {},
                         std::function<double(std::span<const double>)> antiderivative = {});

/// Per-cell weights >= 0 on an nx × ny (× nz) grid, x fastest: weight of cell
/// (i, j, k) at index i + nx·(j + ny·k). The cells tile `box` (default: cell
/// units, [0, nx] × [0, ny] × …). Builds a summed-area table in place (the
/// weights' memory is reused), so any box mass is O(1); rho is constant inside
/// each cell, so a box cutting through cells gets their proportional share.
/// Throws Error for a size that does not match the shape, a negative or
/// non-finite weight (naming its cell), or an all-zero grid.
Density grid_density(std::vector<double> weights, const GridShape& shape);
/// As above, on a given box.
Density grid_density(std::vector<double> weights, const GridShape& shape, const Box& box);

/// Reads per-cell weights for `shape`: CSV/whitespace text (one row of nx
/// values per line, rows in y then z order; '#' comments) or, when the file
/// starts with the 8 bytes "ISOCOSTW", raw little-endian float64 after a small
/// header (magic, uint32 dims, int64 cells per axis). Errors carry file and
/// line (text) or byte offset (raw); a size that does not match the shape is
/// an Error saying both.
Density read_grid_density(const std::string& path, const GridShape& shape);

/// Writes weights in the raw format read_grid_density accepts.
void write_grid_weights(const std::string& path, const std::vector<double>& weights,
                        const GridShape& shape);

}  // namespace isocost
