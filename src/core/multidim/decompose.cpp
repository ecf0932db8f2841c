// Multi-dimensional decompositions by recursive sectioning: each level is a
// 1-D partition of the marginal cost of a piece along one axis (Swartz §5).
#include "isocost/decompose.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <set>

#include "core/model/cut_internal.hpp"
#include "core/shared/decompose_internal.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/limits.hpp"
#include "isocost/metrics.hpp"

namespace isocost {

using detail::exact;

using detail::DoesNotFit;

namespace {}  // namespace

int ProcessGrid::ranks() const {
  int p = 1;
  for (int c : counts) p *= c;
  return p;
}

std::string ProcessGrid::name() const {
  if (counts.empty()) return "1 (whole box)";
  std::string s, along;
  for (std::size_t l = 0; l < counts.size(); ++l) {
    s += (l ? "x" : "") + std::to_string(counts[l]);
    along += std::string(l ? "," : "") +
             (axes[l] >= 0 && axes[l] < kMaxDims ? detail::axis_name(axes[l]) : "?");
  }
  return s + " along " + along;
}

void ProcessGrid::validate(int dims) const {
  if (counts.size() != axes.size())
    throw Error("process grid: " + std::to_string(counts.size()) + " counts but " +
                std::to_string(axes.size()) + " axes");
  if (static_cast<int>(counts.size()) > dims)
    throw Error("process grid: " + std::to_string(counts.size()) + " levels for a " +
                std::to_string(dims) + "-D density");
  std::set<int> seen;
  for (std::size_t l = 0; l < counts.size(); ++l) {
    if (counts[l] < 1)
      throw Error("process grid: level " + std::to_string(l) + " has " + std::to_string(counts[l]) +
                  " parts; expected >= 1");
    if (axes[l] < 0 || axes[l] >= dims)
      throw Error("process grid: axis " + std::to_string(axes[l]) + " does not exist in " +
                  std::to_string(dims) + "-D");
    if (!seen.insert(axes[l]).second)
      throw Error(std::string("process grid: axis ") + detail::axis_name(axes[l]) +
                  " is cut twice");
  }
  double p = 1;
  for (int c : counts) p *= c;
  if (p > std::numeric_limits<int>::max())
    throw Error(detail::expected_got(
        "process grid " + name(),
        "at most " + std::to_string(std::numeric_limits<int>::max()) + " ranks in all",
        (p < 9e18 ? std::to_string(static_cast<long long>(p)) : exact(p)) + " ranks"));
}

ProcessGrid parse_process_grid(const std::string& text, int dims) {
  if (text == "auto") return {};
  std::vector<int> per_axis;
  std::size_t start = 0;
  while (true) {
    const auto x = text.find('x', start);
    const std::string part = text.substr(start, x == std::string::npos ? x : x - start);
    double v = 0;
    if (!detail::parse_number(part, v) || v != std::floor(v) || v < 1 || v > 1e9)
      throw Error("--grid: expected counts like 4x2 (parts along x, y, z) or auto, got '" + text +
                  "'");
    per_axis.push_back(static_cast<int>(v));
    if (x == std::string::npos) break;
    start = x + 1;
  }
  if (static_cast<int>(per_axis.size()) != dims)
    throw Error("--grid: '" + text + "' has " + std::to_string(per_axis.size()) + " counts for a " +
                std::to_string(dims) + "-D domain");
  ProcessGrid g;
  for (int a = 0; a < dims; ++a)
    if (per_axis[a] > 1) {
      g.counts.push_back(per_axis[a]);
      g.axes.push_back(a);
    }
  g.validate(dims);
  return g;
}

std::string Decomposition::brief_report() const {
  return "process grid " + process_grid.name() + ", " + std::to_string(ranks()) +
         " parts, predicted L_E " + detail::fixed_digits(predicted_le, 8) + " %, heaviest part " +
         exact(max_time) + " (cost/speed), cut surface " + exact(cut_surface) +
         (on_grid_lines ? ", cuts on grid lines" : "") + (converged() ? "" : " (NOT converged)");
}

std::string Decomposition::full_report() const {
  std::string s = brief_report() + "\n";
  for (const auto& p : parts) {
    s += "rank " + std::to_string(p.rank) + ": [";
    for (int a = 0; a < p.box.dims; ++a)
      s += std::string(a ? " x " : "") + exact(p.box.lo[a]) + ", " + exact(p.box.hi[a]);
    s += "], cost " + exact(p.cost) + ", time " + exact(p.time) + ", surface " + exact(p.surface) +
         "\n";
  }
  return s;
}

int detail::ranks_per_slab(const ProcessGrid& grid, std::size_t level) {
  int q = 1;
  for (std::size_t l = level + 1; l < grid.counts.size(); ++l) q *= grid.counts[l];
  return q;
}

std::vector<double> detail::slab_capacities(const ProcessGrid& grid, std::size_t level,
                                            const Speeds& speeds, int first_rank) {
  const int m = grid.counts[level], q = ranks_per_slab(grid, level);
  std::vector<double> capacity(static_cast<std::size_t>(m), 0.0);
  for (int j = 0; j < m; ++j)
    for (int r = 0; r < q; ++r)
      capacity[static_cast<std::size_t>(j)] += speeds.speed(first_rank + j * q + r);
  return capacity;
}

std::vector<std::int64_t> detail::grid_slab_cuts(std::span<const double> prefix,
                                                 std::span<const double> capacity, double min_width,
                                                 double cell, int axis) {
  const auto n = static_cast<std::int64_t>(prefix.size()) - 1;
  // Widths are whole cells here: a part of k cells is k·cell wide.
  const auto min_cells = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::ceil(min_width / cell * (1 - 1e-12))));
  if (static_cast<std::int64_t>(capacity.size()) * min_cells > n)
    throw DoesNotFit(std::to_string(capacity.size()) + " parts of width >= " + exact(min_width) +
                     " along " + detail::axis_name(axis) + " do not fit in " + std::to_string(n) +
                     " cells of width " + exact(cell) + " (" +
                     exact(static_cast<double>(n) * cell) + " wide)");
  return bottleneck_cuts(prefix, capacity, min_cells);
}

void detail::finish_part(Part& p, const Box& dom, double speed) {
  p.time = p.cost / speed;
  p.volume = p.box.volume();
  p.surface = p.box.surface();
  if (p.box.dims > 1) {
    for (int a = 0; a < p.box.dims; ++a) {
      double face = 1;
      for (int b = 0; b < p.box.dims; ++b)
        if (b != a) face *= p.box.width(b);
      if (p.box.lo[a] <= dom.lo[a]) p.surface -= face;
      if (p.box.hi[a] >= dom.hi[a]) p.surface -= face;
    }
  } else {
    p.surface = (p.box.lo[0] > dom.lo[0] ? 1 : 0) + (p.box.hi[0] < dom.hi[0] ? 1 : 0);
  }
}

void detail::summarise(Decomposition& d) {
  std::vector<double> times;
  double surface = 0;
  for (const auto& p : d.parts) {
    times.push_back(p.time);
    surface += p.surface;
  }
  const auto stats = load_stats(times);
  d.predicted_le = stats.le;
  d.max_time = stats.max;
  d.cut_surface = surface / 2;  // every internal face belongs to two parts
}

// ---------------------------------------------------------------------------
namespace {

struct Piece {
  Box box;
  std::array<std::int64_t, kMaxDims> c0{0, 0, 0}, c1{0, 0, 0};
  int first_rank = 0;
};

class Decomposer {
 public:
  Decomposer(const Density& d, const ProcessGrid& g, const Speeds& s, const DecomposeOptions& o)
      : d_(d), g_(g), speeds_(s), o_(o) {}

  /// Whether every continuous cut reached its tolerance.
  bool converged() const { return converged_; }

  std::vector<Part> run() {
    Piece whole{d_.box(), {0, 0, 0}, {0, 0, 0}, 0};
    if (d_.grid())
      for (int a = 0; a < d_.dims(); ++a) whole.c1[a] = d_.grid()->cells[a];
    parts_.clear();
    split(whole, 0);
    return std::move(parts_);
  }

 private:
  void split(const Piece& piece, std::size_t level) {
    if (level == g_.counts.size()) {
      leaf(piece);
      return;
    }
    const int m = g_.counts[level], axis = g_.axes[level], q = detail::ranks_per_slab(g_, level);
    const std::vector<double> capacity =
        detail::slab_capacities(g_, level, speeds_, piece.first_rank);
    const std::vector<double> cuts =
        d_.grid() ? grid_cuts(piece, axis, capacity) : continuous_cuts(piece, axis, capacity);
    for (int j = 0; j < m; ++j) {
      Piece slab = piece;
      slab.first_rank = piece.first_rank + j * q;
      if (d_.grid()) {
        slab.c0[axis] = static_cast<std::int64_t>(cuts[j]);
        slab.c1[axis] = static_cast<std::int64_t>(cuts[j + 1]);
        slab.box.lo[axis] = d_.grid_line(axis, slab.c0[axis]);
        slab.box.hi[axis] = d_.grid_line(axis, slab.c1[axis]);
      } else {
        slab.box.lo[axis] = cuts[j];
        slab.box.hi[axis] = cuts[j + 1];
      }
      split(slab, level + 1);
    }
  }

  // Grid-line cuts (cell indices) minimising the heaviest slab.
  std::vector<double> grid_cuts(const Piece& piece, int axis, const std::vector<double>& capacity) {
    const std::int64_t n = piece.c1[axis] - piece.c0[axis];
    std::vector<double> prefix(static_cast<std::size_t>(n) + 1, 0.0);
    auto c1 = piece.c1;
    for (std::int64_t k = 1; k <= n; ++k) {
      c1[axis] = piece.c0[axis] + k;
      prefix[k] = d_.cell_mass(piece.c0, c1);
    }
    const double cell = d_.box().width(axis) / static_cast<double>(d_.grid()->cells[axis]);
    const auto b = detail::grid_slab_cuts(prefix, capacity, o_.min_width[axis], cell, axis);
    std::vector<double> cuts;
    for (auto k : b) cuts.push_back(static_cast<double>(piece.c0[axis] + k));
    return cuts;
  }

  // Continuous cuts: Swartz eq. (1) on the piece's marginal, then, if a slab
  // is narrower than the minimum width, the bottleneck-optimal cuts under it.
  std::vector<double> continuous_cuts(const Piece& piece, int axis,
                                      const std::vector<double>& capacity) {
    const double lo = piece.box.lo[axis], hi = piece.box.hi[axis], w = o_.min_width[axis];
    const int m = static_cast<int>(capacity.size());
    if (m * w > (hi - lo) * (1 + 1e-12))
      throw DoesNotFit(std::to_string(m) + " parts of width >= " + exact(w) + " along " +
                       detail::axis_name(axis) + " do not fit in [" + exact(lo) + ", " + exact(hi) +
                       "]");
    std::vector<double> cuts(static_cast<std::size_t>(m) + 1);
    if (d_.mass(piece.box) <= 0) {  // nothing to balance: split by width
      for (int j = 0; j <= m; ++j) cuts[j] = j == m ? hi : lo + (hi - lo) * j / m;
      return cuts;
    }
    const CostModel t = d_.marginal_model(piece.box, axis);
    PartitionOptions po;
    po.cut = o_.cut;
    const Partition p = partition(t, Speeds::from_values(capacity), po);
    converged_ = converged_ && p.converged();
    cuts = p.cuts;
    bool narrow = false;
    for (int j = 0; j < m; ++j) narrow = narrow || cuts[j + 1] - cuts[j] < w;
    if (narrow) cuts = constrained_cuts(t, capacity, w);
    return cuts;
  }

  // The smallest bottleneck B with every slab at least w wide: bisection on B,
  // each probe placing slabs greedily by root finding on t.
  std::vector<double> constrained_cuts(const CostModel& t, const std::vector<double>& s, double w) {
    const int m = static_cast<int>(s.size());
    const double lo = t.lo(), hi = t.hi(), TT = t.total();
    std::vector<double> cuts(static_cast<std::size_t>(m) + 1), best;
    auto feasible = [&](double B) {
      double x = lo, tx = 0;
      cuts[0] = lo;
      for (int j = 0; j < m; ++j) {
        if (j == m - 1) {
          cuts[m] = hi;
          return TT - tx <= B * s[j] && hi - x >= w * (1 - 1e-12);
        }
        const double cap = hi - w * (m - 1 - j);  // room for the later slabs
        const double target = tx + B * s[j];
        double next = cap;
        if (target < t.cost(cap))
          next = detail::solve_cut_known(t, target, x, tx - target, cap, t.cost(cap) - target,
                                         o_.cut, TT)
                     .x;
        if (next - x < w * (1 - 1e-12)) return false;
        x = next;
        tx = t.cost(x);
        cuts[j + 1] = x;
      }
      return true;
    };
    double Blo = 0, Bhi = TT / *std::min_element(s.begin(), s.end()) * (1 + 1e-12);
    if (!feasible(Bhi)) throw Error("no split with the minimum width exists");
    best = cuts;
    for (int it = 0; it < 100 && (Bhi - Blo) > 1e-13 * Bhi; ++it) {
      const double mid = 0.5 * (Blo + Bhi);
      if (feasible(mid)) {
        Bhi = mid;
        best = cuts;
      } else {
        Blo = mid;
      }
    }
    return best;
  }

  void leaf(const Piece& piece) {
    Part p;
    p.rank = piece.first_rank;
    p.box = piece.box;
    p.cell_lo = piece.c0;
    p.cell_hi = piece.c1;
    p.cost = d_.grid() ? d_.cell_mass(piece.c0, piece.c1) : d_.mass(piece.box);
    detail::finish_part(p, d_.box(), speeds_.speed(p.rank));
    parts_.push_back(p);
  }

  const Density& d_;
  const ProcessGrid& g_;
  const Speeds& speeds_;
  const DecomposeOptions& o_;
  std::vector<Part> parts_;
  bool converged_ = true;
};

}  // namespace

Decomposition decompose(const Density& density, const ProcessGrid& process_grid,
                        const Speeds& speeds, const DecomposeOptions& options) {
  process_grid.validate(density.dims());
  options.validate();
  if (process_grid.ranks() > kMaxParts)
    throw Error("decompose: " + above_limit(process_grid.ranks(), kMaxParts, "parts"));
  if (speeds.ranks() != process_grid.ranks())
    throw Error("the process grid " + process_grid.name() + " has " +
                std::to_string(process_grid.ranks()) + " ranks but " +
                std::to_string(speeds.ranks()) + " speeds were given");
  Decomposition out;
  out.process_grid = process_grid;
  out.on_grid_lines = density.grid() != nullptr;
  Decomposer decomposer(density, process_grid, speeds, options);
  out.parts = decomposer.run();
  out.options = options;
  out.termination = decomposer.converged() ? Termination::converged : Termination::iteration_limit;
  out.total_cost = density.total();
  detail::summarise(out);
  return out;
}

}  // namespace isocost
