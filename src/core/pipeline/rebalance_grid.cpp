// New multi-dimensional decompositions of a grid of cells from measured
// per-rank loads: global (a piecewise-constant cost estimate cut by
// decompose()) and diffusive (shift_jagged() on a uniform-cost grid).
#include "isocost/rebalance_grid.hpp"

#include "core/pipeline/grid_history.hpp"
#include "core/pipeline/newest.hpp"
#include "core/pipeline/rebalance_grid_internal.hpp"
#include "core/shared/decompose_internal.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <tuple>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/metrics.hpp"
#include "isocost/partition.hpp"

namespace isocost {

using detail::exact;

namespace detail::grid_rebalance {

using Cells = std::array<std::int64_t, kMaxDims>;

std::string cell_text(const Cells& c, int dims) {
  std::string s = "(";
  for (int a = 0; a < dims; ++a) s += (a ? ", " : "") + std::to_string(c[a]);
  return s + ")";
}

std::string range_text(const Part& p, int a) {
  return "[" + std::to_string(p.cell_lo[a]) + ", " + std::to_string(p.cell_hi[a]) + ")";
}

// Cells of a part along the first `dims` axes (ranges already checked).
std::int64_t part_cells(const Part& p, int dims) {
  std::int64_t n = 1;
  for (int a = 0; a < dims; ++a) n *= p.cell_hi[a] - p.cell_lo[a];
  return n;
}

std::int64_t shared_cells(const Part& a, const Part& b, int dims) {
  std::int64_t n = 1;
  for (int d = 0; d < dims; ++d)
    n *= std::max<std::int64_t>(
        0, std::min(a.cell_hi[d], b.cell_hi[d]) - std::max(a.cell_lo[d], b.cell_lo[d]));
  return n;
}

void check_grid_speeds(const Speeds& speeds, std::size_t P) {
  if (static_cast<std::size_t>(speeds.ranks()) != P)
    throw Error("rebalance_grid: " + std::to_string(speeds.ranks()) + " speeds for " +
                std::to_string(P) + " parts");
}

// Checks per-cell costs: one per cell, finite, >= 0, not all zero.
void check_cell_costs(std::span<const double> costs, const GridShape& shape) {
  if (static_cast<std::int64_t>(costs.size()) != shape.count())
    throw Error("rebalance_grid: " + std::to_string(costs.size()) + " cell costs for a grid of " +
                std::to_string(shape.count()) + " cells");
  check_loads(costs, "rebalance_grid", 0, "cell");
}

// The grid's box: the parts' bounding box when they carry a valid one, else
// cell units [0, cells[a]].
Box grid_box(const GridShape& shape, const Decomposition& dec) {
  const int dims = shape.dims;
  Box cells;
  cells.dims = dims;
  for (int a = 0; a < dims; ++a) cells.hi[a] = static_cast<double>(shape.cells[a]);
  Box bound;
  bound.dims = dims;
  bool valid = true;
  for (int a = 0; a < dims; ++a) {
    bound.lo[a] = dec.parts[0].box.lo[a];
    bound.hi[a] = dec.parts[0].box.hi[a];
  }
  for (const Part& p : dec.parts) {
    valid = valid && p.box.dims == dims;
    for (int a = 0; a < dims; ++a) {
      bound.lo[a] = std::min(bound.lo[a], p.box.lo[a]);
      bound.hi[a] = std::max(bound.hi[a], p.box.hi[a]);
    }
  }
  for (int a = 0; a < dims; ++a)
    valid = valid && std::isfinite(bound.lo[a]) && std::isfinite(bound.hi[a]) &&
            bound.lo[a] < bound.hi[a];
  return valid ? bound : cells;
}

void check_parts(const GridShape& shape, const Decomposition& dec) {
  const int dims = shape.dims;
  if (dims < 1 || dims > kMaxDims)
    throw Error(detail::expected_got("rebalance_grid: grid dims", "1 to 3", std::to_string(dims)));
  for (int a = 0; a < dims; ++a)
    if (shape.cells[a] < 1)
      throw Error(detail::expected_got(
          std::string("rebalance_grid: grid cells along ") + detail::axis_name(a), ">= 1",
          std::to_string(shape.cells[a])));
  dec.process_grid.validate(dims);
  const int P = dec.process_grid.ranks();
  if (dec.ranks() != P)
    throw Error("rebalance_grid: the decomposition has " + std::to_string(dec.ranks()) +
                " parts for the process grid " + dec.process_grid.name() + " of " +
                std::to_string(P) + " ranks");
  for (int r = 0; r < P; ++r) {
    const Part& p = dec.parts[static_cast<std::size_t>(r)];
    if (p.rank != r)
      throw Error("rebalance_grid: part " + std::to_string(r) + " has rank " +
                  std::to_string(p.rank) + "; expected the parts in rank order");
    for (int a = 0; a < dims; ++a)
      if (p.cell_lo[a] < 0 || p.cell_lo[a] > p.cell_hi[a] || p.cell_hi[a] > shape.cells[a])
        throw Error(detail::expected_got(
            "rebalance_grid: cells of part " + std::to_string(r) + " along " + detail::axis_name(a),
            "a range inside [0, " + std::to_string(shape.cells[a]) + ")", range_text(p, a)));
  }
}

Tiling check_tiling(const GridShape& shape, const Decomposition& dec) {
  check_parts(shape, dec);
  const int dims = shape.dims;
  const int P = dec.process_grid.ranks();
  const std::int64_t nx = shape.cells[0], ny = dims > 1 ? shape.cells[1] : 1;
  Tiling t;
  t.owner.assign(static_cast<std::size_t>(shape.count()), -1.0);
  for (int r = 0; r < P; ++r) {
    const Part& p = dec.parts[static_cast<std::size_t>(r)];
    if (part_cells(p, dims) == 0) continue;
    Cells c = p.cell_lo;
    for (int a = dims; a < kMaxDims; ++a) c[a] = 0;
    const std::int64_t zhi = dims > 2 ? p.cell_hi[2] : 1, yhi = dims > 1 ? p.cell_hi[1] : 1;
    for (c[2] = dims > 2 ? p.cell_lo[2] : 0; c[2] < zhi; ++c[2])
      for (c[1] = dims > 1 ? p.cell_lo[1] : 0; c[1] < yhi; ++c[1])
        for (c[0] = p.cell_lo[0]; c[0] < p.cell_hi[0]; ++c[0]) {
          double& o = t.owner[static_cast<std::size_t>(c[0] + nx * (c[1] + ny * c[2]))];
          if (o >= 0)
            throw Error("rebalance_grid: parts " + exact(o) + " and " + std::to_string(r) +
                        " both hold cell " + cell_text(c, dims) +
                        "; expected parts that tile the grid");
          o = r;
        }
  }
  for (std::size_t i = 0; i < t.owner.size(); ++i)
    if (t.owner[i] < 0) {
      const auto n = static_cast<std::int64_t>(i);
      const Cells c{n % nx, (n / nx) % ny, n / (nx * ny)};
      throw Error("rebalance_grid: cell " + cell_text(c, dims) +
                  " belongs to no part; expected parts that tile the grid");
    }
  t.box = grid_box(shape, dec);
  return t;
}

// The piecewise-constant estimate: what one cell of each part costs,
// loads[r]·speed[r]/cells(r) (speed 1 without `speeds`), 0 in empty parts and
// for every part the same if only empty parts measured anything.
std::vector<double> cost_per_cell(const Decomposition& dec, std::span<const double> loads,
                                  const Speeds* speeds, int dims) {
  const std::size_t P = dec.parts.size();
  std::vector<double> per_cell(P, 0.0);
  std::int64_t all = 0;
  double total = 0;
  bool any = false;
  for (std::size_t r = 0; r < P; ++r) {
    const std::int64_t n = part_cells(dec.parts[r], dims);
    const double cost = loads[r] * (speeds ? speeds->speed(static_cast<int>(r)) : 1.0);
    all += n;
    total += cost;
    if (n > 0 && cost > 0) {
      per_cell[r] = cost / static_cast<double>(n);
      any = true;
    }
  }
  if (!any)  // no shape to go by: the measured total spread evenly
    std::fill(per_cell.begin(), per_cell.end(), total / static_cast<double>(all));
  return per_cell;
}

// `dec` with the ranges along axes beyond the grid's dimensions cleared (as
// decompose() leaves them), for grid_cells_moved().
Decomposition within_dims(const Decomposition& dec, int dims) {
  Decomposition out = dec;
  for (Part& p : out.parts)
    for (int a = dims; a < kMaxDims; ++a) p.cell_lo[a] = p.cell_hi[a] = 0;
  return out;
}

// Fills a part's box, volume and surface from its cell ranges on the grid
// `shape` over `dom`, as decompose() does.
void set_geometry(Part& p, const Box& dom, const GridShape& shape) {
  const int dims = shape.dims;
  p.box = Box{};
  p.box.dims = dims;
  for (int a = 0; a < dims; ++a) {
    p.box.lo[a] = detail::grid_line(dom, shape.cells[a], a, p.cell_lo[a]);
    p.box.hi[a] = detail::grid_line(dom, shape.cells[a], a, p.cell_hi[a]);
  }
  p.volume = p.box.volume();
  if (dims > 1) {
    p.surface = p.box.surface();
    for (int a = 0; a < dims; ++a) {
      double face = 1;
      for (int b = 0; b < dims; ++b)
        if (b != a) face *= p.box.width(b);
      if (p.box.lo[a] <= dom.lo[a]) p.surface -= face;
      if (p.box.hi[a] >= dom.hi[a]) p.surface -= face;
    }
  } else {
    p.surface = (p.box.lo[0] > dom.lo[0] ? 1 : 0) + (p.box.hi[0] < dom.hi[0] ? 1 : 0);
  }
}

}  // namespace detail::grid_rebalance

using namespace detail::grid_rebalance;

PlanMethod GridRebalance::method() const noexcept {
  constexpr PlanMethod kByIndex[] = {PlanMethod::none, PlanMethod::global, PlanMethod::weights,
                                     PlanMethod::diffusion};
  return kByIndex[options.index()];
}

std::string GridRebalance::brief_report() const {
  std::ostringstream out;
  out << to_string(method()) << ": " << decomposition.ranks() << " ranks ("
      << decomposition.process_grid.name() << "), imbalance " << exact(measured_imbalance)
      << " measured -> " << exact(predicted_imbalance) << " predicted; " << elements_moved
      << " cells change owner (at most " << max_elements_received << " into one rank)"
      << (history_used > 0 ? "; " + std::to_string(history_used) + " earlier rounds fitted" : "")
      << (history_dropped > 0 ? "; " + std::to_string(history_dropped) + " drifted rounds left out"
                              : "")
      << (forecast ? "; parts forecast for the coming interval" : "")
      << (converged() ? "" : " (NOT converged)");
  return out.str();
}

std::pair<std::int64_t, std::int64_t> grid_cells_moved(const Decomposition& from,
                                                       const Decomposition& to) {
  if (from.parts.empty() || from.parts.size() != to.parts.size())
    throw Error("grid_cells_moved: " + std::to_string(from.parts.size()) + " parts before, " +
                std::to_string(to.parts.size()) + " after; expected the same number, >= 1");
  // Per decomposition: ranges with unused axes ([0, 0) in every part) as [0, 1).
  auto ranges = [](const Decomposition& d, const char* which) {
    std::vector<Part> parts = d.parts;
    for (int a = 0; a < kMaxDims; ++a) {
      const bool unused = std::all_of(parts.begin(), parts.end(), [&](const Part& p) {
        return p.cell_lo[a] == 0 && p.cell_hi[a] == 0;
      });
      if (unused)
        for (Part& p : parts) p.cell_hi[a] = 1;
    }
    Cells extent{0, 0, 0};
    std::int64_t cells = 0;
    for (std::size_t r = 0; r < parts.size(); ++r) {
      const Part& p = parts[r];
      for (int a = 0; a < kMaxDims; ++a) {
        if (p.cell_lo[a] < 0 || p.cell_hi[a] < p.cell_lo[a])
          throw Error(detail::expected_got("grid_cells_moved: cells of part " + std::to_string(r) +
                                               " " + which + " along " + detail::axis_name(a),
                                           "[lo, hi) with 0 <= lo <= hi", range_text(p, a)));
        extent[a] = std::max(extent[a], p.cell_hi[a]);
      }
      cells += part_cells(p, kMaxDims);
    }
    return std::make_tuple(std::move(parts), extent, cells);
  };
  const auto [a, ea, na] = ranges(from, "before");
  const auto [b, eb, nb] = ranges(to, "after");
  const auto grid_text = [](const Cells& e) {
    return std::to_string(e[0]) + "x" + std::to_string(e[1]) + "x" + std::to_string(e[2]);
  };
  if (ea != eb)
    throw Error("grid_cells_moved: the parts span a " + grid_text(ea) + " grid before and a " +
                grid_text(eb) + " grid after; expected the same grid");
  const std::int64_t total = ea[0] * ea[1] * ea[2];
  if (na != total || nb != total)
    throw Error(detail::expected_got(
        "grid_cells_moved: cells the parts hold before and after",
        std::to_string(total) + " each (the cells of the " + grid_text(ea) + " grid)",
        std::to_string(na) + " and " + std::to_string(nb)));
  std::int64_t moved = 0, most = 0;
  for (std::size_t r = 0; r < a.size(); ++r) {
    const std::int64_t kept = shared_cells(a[r], b[r], kMaxDims);
    const std::int64_t received = part_cells(b[r], kMaxDims) - kept;
    moved += received;  // every cell that changes owner is received once
    most = std::max(most, received);
  }
  return {moved, most};
}

namespace {

// `next` (new parts under the estimate whose current part times are `now`)
// unless its heaviest part is not lighter: then the current parts, described
// by the estimate, on the grid `shape` over `dom`.
GridRebalance keep_better(const GridShape& shape, const Decomposition& current, Decomposition next,
                          std::span<const double> now, const Speeds& speeds, const Box& dom) {
  const std::size_t P = current.parts.size();
  GridRebalance out;
  out.decomposition = std::move(next);
  const double now_max = *std::max_element(now.begin(), now.end());
  if (out.decomposition.max_time < now_max * (1 - 1e-12)) {
    for (const Part& p : out.decomposition.parts) out.predicted_time.push_back(p.time);
    out.termination = out.decomposition.termination;
  } else {
    // No better: keep the current parts, described by the estimate.
    Decomposition& d = out.decomposition;
    const Termination termination = d.termination;
    d.parts = within_dims(current, shape.dims).parts;
    double surface = 0;
    for (std::size_t r = 0; r < P; ++r) {
      Part& p = d.parts[r];
      set_geometry(p, dom, shape);
      p.time = now[r];
      p.cost = now[r] * speeds.speed(static_cast<int>(r));
      surface += p.surface;
    }
    const LoadStats s = load_stats(now);
    d.predicted_le = s.le;
    d.max_time = s.max;
    d.cut_surface = surface / 2;
    out.predicted_time.assign(now.begin(), now.end());
    out.termination = termination;
  }
  out.predicted_imbalance = imbalance(out.predicted_time);
  std::tie(out.elements_moved, out.max_elements_received) =
      grid_cells_moved(within_dims(current, shape.dims), out.decomposition);
  return out;
}

// decompose() of `density` with current's process grid, kept if better.
GridRebalance plan_on(const GridShape& shape, const Decomposition& current, const Density& density,
                      const std::vector<double>& now, const Speeds& speeds,
                      const DecomposeOptions& options) {
  return keep_better(shape, current, decompose(density, current.process_grid, speeds, options), now,
                     speeds, density.box());
}

}  // namespace

GridRebalance rebalance_grid_global(const GridShape& shape, const Decomposition& current,
                                    std::span<const double> loads, const Speeds& speeds,
                                    const GridGlobalRebalanceOptions& options,
                                    std::span<const GridRound> history) {
  options.validate();
  // The estimate lives on the atoms the parts' boundaries cut the grid into
  // (grid_history.hpp): O(atoms), not O(cells), in time and memory.
  check_parts(shape, current);
  const auto used = detail::newest(history, options.history);
  detail::GridAtoms atoms = detail::grid_atoms(shape, current, used);
  const std::size_t P = current.parts.size();
  check_loads(loads, "rebalance_grid", P, "part");
  check_grid_speeds(speeds, P);
  const int dims = shape.dims;

  // Speed-1 cost per cell of each part, and the part's estimated time.
  const std::vector<double> per_cell = cost_per_cell(current, loads, &speeds, dims);
  std::vector<double> now(P);
  for (std::size_t r = 0; r < P; ++r)
    now[r] = per_cell[r] * static_cast<double>(part_cells(current.parts[r], dims)) /
             speeds.speed(static_cast<int>(r));
  for (std::size_t k = 0; k < history.size(); ++k) {
    if (history[k].parts.parts.size() != P || history[k].loads.size() != P)
      throw Error(
          detail::expected_got("rebalance_grid: history round " + std::to_string(k),
                               std::to_string(P) + " parts and " + std::to_string(P) + " loads",
                               std::to_string(history[k].parts.parts.size()) + " parts and " +
                                   std::to_string(history[k].loads.size()) + " loads"));
    check_loads(history[k].loads, "rebalance_grid: history round " + std::to_string(k), P, "part");
  }
  const detail::GridHistoryUse use = detail::refine_with_history(
      shape, current, loads, speeds, used, options.history_tolerance, per_cell, atoms);
  const Density density = detail::atom_density(shape, grid_box(shape, current), atoms.grid);
  GridRebalance out = plan_on(shape, current, density, now, speeds, options.decompose);
  out.options = options;
  out.measured_imbalance = imbalance(loads);
  out.history_used = use.rounds_used;
  out.history_dropped = use.rounds_dropped;
  return out;
}

GridRebalance rebalance_grid_weights(const GridShape& shape, const Decomposition& current,
                                     std::span<const double> cell_costs, const Speeds& speeds,
                                     const GridWeightsRebalanceOptions& options) {
  options.validate();
  Tiling t = check_tiling(shape, current);
  const std::size_t P = current.parts.size();
  check_grid_speeds(speeds, P);
  check_cell_costs(cell_costs, shape);
  // The current parts' times under the given costs.
  std::vector<double> now(P, 0.0);
  for (std::size_t c = 0; c < cell_costs.size(); ++c)
    now[static_cast<std::size_t>(t.owner[c])] += cell_costs[c];
  for (std::size_t r = 0; r < P; ++r) now[r] /= speeds.speed(static_cast<int>(r));
  const Density density =
      grid_density(std::vector<double>(cell_costs.begin(), cell_costs.end()), shape, t.box);
  GridRebalance out = plan_on(shape, current, density, now, speeds, options.decompose);
  out.options = options;
  out.measured_imbalance = imbalance(now);
  return out;
}

GridRebalance rebalance_grid_with(const GridShape& shape, const Decomposition& current,
                                  Decomposition next, std::span<const double> now,
                                  const Speeds& speeds,
                                  const GridWeightsRebalanceOptions& options) {
  options.validate();
  const std::size_t P = current.parts.size();
  check_grid_speeds(speeds, P);
  if (next.parts.size() != P || now.size() != P)
    throw Error("rebalance_grid: " + std::to_string(next.parts.size()) + " new parts and " +
                std::to_string(now.size()) + " current times for " + std::to_string(P) +
                " parts; expected one each");
  // The new parts in the current decomposition's box units (decompose_grid()
  // cuts in cell units); costs, times and cut cells stay.
  const Box dom = grid_box(shape, current);
  double surface = 0;
  for (Part& p : next.parts) {
    set_geometry(p, dom, shape);
    surface += p.surface;
  }
  next.cut_surface = surface / 2;
  GridRebalance out = keep_better(shape, current, std::move(next), now, speeds, dom);
  out.options = options;
  out.measured_imbalance = imbalance(now);
  return out;
}

}  // namespace isocost
