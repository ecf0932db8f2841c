// c/decompose.cpp — gridded densities and their multi-dimensional partitions
// (isocost::decompose, choose_process_grid) through the C interface.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "c/density.hpp"
#include "c/status.hpp"
#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/metrics.hpp"

namespace {

using isocost::c::Failure;
using isocost::c::guard;
using isocost::c::require;
using isocost::c::require_at_least;

isocost::GridShape shape_of(int dims, const std::int64_t* cells) {
  if (dims < 1 || dims > isocost::kMaxDims)
    throw Failure{ISOCOST_ERROR_INVALID_ARGUMENT,
                  isocost::detail::expected_got("dims", "1, 2 or 3", std::to_string(dims))};
  isocost::GridShape shape;
  shape.dims = dims;
  std::int64_t count = 1;
  for (int a = 0; a < dims; ++a) {
    require_at_least<std::int64_t>(cells[a], 1, ("cells[" + std::to_string(a) + "]").c_str());
    if (count > std::numeric_limits<std::int64_t>::max() / cells[a] ||
        static_cast<std::uint64_t>(count * cells[a]) > std::vector<double>().max_size())
      throw Failure{ISOCOST_ERROR_NO_MEMORY, "the cells do not fit in memory"};
    count *= cells[a];
    shape.cells[static_cast<std::size_t>(a)] = cells[a];
  }
  return shape;
}

isocost::Speeds speeds_of(const double* speeds, int ranks) {
  return speeds == nullptr ? isocost::Speeds::uniform(ranks)
                           : isocost::Speeds::from_values(std::vector<double>(
                                 speeds, speeds + static_cast<std::size_t>(ranks)));
}

// Copies d into the caller's arrays; NOT_CONVERGED (written) if a cut did not
// converge (only continuous densities can, which C does not make yet).
void write(const isocost::Decomposition& d, const isocost::Speeds& speeds, isocost_part* parts,
           isocost_decomposition* info) {
  const int dims = d.parts.empty() ? 0 : d.parts[0].box.dims;
  for (std::size_t i = 0; i < d.parts.size(); ++i) {
    const isocost::Part& p = d.parts[i];
    isocost_part c{};
    for (int a = 0; a < dims; ++a) {
      const auto u = static_cast<std::size_t>(a);
      c.lo[a] = p.box.lo[u];
      c.hi[a] = p.box.hi[u];
      c.cell_lo[a] = p.cell_lo[u];
      c.cell_hi[a] = p.cell_hi[u];
    }
    c.cost = p.cost;
    c.time = p.time;
    c.volume = p.volume;
    c.surface = p.surface;
    parts[i] = c;
  }
  if (info != nullptr) {
    isocost_decomposition c{};
    c.ranks = d.ranks();
    c.levels = static_cast<int>(d.process_grid.counts.size());
    for (int l = 0; l < 3; ++l) {
      const auto u = static_cast<std::size_t>(l);
      c.counts[l] = l < c.levels ? d.process_grid.counts[u] : 0;
      c.axes[l] = l < c.levels ? d.process_grid.axes[u] : -1;
    }
    c.total_cost = d.total_cost;
    c.max_time = d.max_time;
    c.predicted_le = d.predicted_le;
    // The heaviest time over the ideal one, total/S (Pearce eq. 1 with speeds).
    c.imbalance = d.max_time / (d.total_cost / speeds.total()) - 1;
    c.cut_surface = d.cut_surface;
    *info = c;
  }
  if (!d.converged()) throw Failure{ISOCOST_ERROR_NOT_CONVERGED, d.brief_report()};
}

}  // namespace

extern "C" {

int isocost_density_grid(const double* weights, int dims, const std::int64_t* cells,
                         const double* lo, const double* hi, isocost_density** out) noexcept {
  if (out != nullptr) *out = nullptr;
  return guard("isocost_density_grid", [&] {
    require(weights, "weights");
    require(cells, "cells");
    require(out, "out");
    if ((lo == nullptr) != (hi == nullptr))
      throw Failure{ISOCOST_ERROR_INVALID_ARGUMENT,
                    std::string(lo == nullptr ? "lo" : "hi") +
                        " is NULL but the other corner is not; pass both or neither"};
    const isocost::GridShape shape = shape_of(dims, cells);
    std::vector<double> w(weights, weights + shape.count());
    if (lo == nullptr) {
      *out = new isocost_density{isocost::grid_density(std::move(w), shape)};
    } else {
      isocost::Box box;
      box.dims = dims;
      for (int a = 0; a < dims; ++a) {
        box.lo[static_cast<std::size_t>(a)] = lo[a];
        box.hi[static_cast<std::size_t>(a)] = hi[a];
      }
      *out = new isocost_density{isocost::grid_density(std::move(w), shape, box)};
    }
  });
}

void isocost_density_free(isocost_density* density) noexcept { delete density; }

int isocost_density_describe(const isocost_density* density, char* text, std::int64_t size,
                             std::int64_t* length) noexcept {
  return guard("isocost_density_describe", [&] {
    require(density, "density");
    isocost::c::copy_text(density->density.describe(), text, size, length);
  });
}

int isocost_density_info(const isocost_density* density, int* dims, double* total) noexcept {
  return guard("isocost_density_info", [&] {
    require(density, "density");
    if (dims != nullptr) *dims = density->density.dims();
    if (total != nullptr) *total = density->density.total();
  });
}

int isocost_decompose(const isocost_density* density, int levels, const int* counts,
                      const int* axes, const double* speeds, isocost_part* parts,
                      isocost_decomposition* info) noexcept {
  return guard("isocost_decompose", [&] {
    require(density, "density");
    require(counts, "counts");
    require(axes, "axes");
    require(parts, "parts");
    require_at_least(levels, 1, "levels");
    if (levels > density->density.dims())
      throw Failure{ISOCOST_ERROR_INVALID_ARGUMENT, "levels: expected at most the density's " +
                                                        std::to_string(density->density.dims()) +
                                                        " dimensions, got " +
                                                        std::to_string(levels)};
    isocost::ProcessGrid grid{std::vector<int>(counts, counts + levels),
                              std::vector<int>(axes, axes + levels)};
    grid.validate(density->density.dims());  // before ranks(): no overflow
    const isocost::Speeds s = speeds_of(speeds, grid.ranks());
    write(isocost::decompose(density->density, grid, s), s, parts, info);
  });
}

int isocost_decompose_auto(const isocost_density* density, int ranks, const double* speeds,
                           isocost_part* parts, isocost_decomposition* info) noexcept {
  return guard("isocost_decompose_auto", [&] {
    require(density, "density");
    require(parts, "parts");
    require_at_least(ranks, 1, "ranks");
    const isocost::Speeds s = speeds_of(speeds, ranks);
    write(isocost::choose_process_grid(density->density, s), s, parts, info);
  });
}

}  // extern "C"
