// c/mpi/partitioners.cpp — the distributed partitioners of the C interface
// (isocost_mpi.h): partition_weights, partition_points and decompose_grid
// over MPI_Comm and, for Fortran, MPI_Fint.
#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "c/mpi/agree.hpp"
#include "isocost/isocost_mpi.h"
#include "isocost/mpi/decompose_grid.hpp"
#include "isocost/mpi/partition_points.hpp"
#include "isocost/mpi/partition_weights.hpp"

using isocost::c::guard;
using isocost::c::mpi::agree_arguments;
using isocost::c::mpi::Problems;
using isocost::c::mpi::require_comm;
using isocost::c::mpi::speeds_of;

namespace {

std::size_t size_of(std::int64_t n) {
  return static_cast<std::size_t>(std::max<std::int64_t>(n, 0));
}

int weights_impl(const char* function, MPI_Comm comm, const double* weights, std::int64_t count,
                 int parts, const double* speeds, int optimal, std::int64_t* cuts,
                 double* max_time) {
  return guard(function, [&] {
    require_comm(comm);
    Problems p;
    p.at_least(count, 0, "count");
    p.need(weights, "weights", count > 0);
    p.need(cuts, "cuts");
    const auto s = speeds_of(parts, speeds, p);
    agree_arguments(comm, p);
    isocost::mpi::WeightsPartitionOptions o;
    o.optimal = optimal != 0;
    const auto w = isocost::mpi::partition_weights(
        comm, std::span<const double>(weights, size_of(count)), *s, o);
    std::copy(w.cuts.begin(), w.cuts.end(), cuts);
    if (max_time != nullptr) *max_time = w.max_time;
  });
}

int points_impl(const char* function, MPI_Comm comm, int dims, const double* coords,
                const double* weights, std::int64_t count, int parts, const double* speeds,
                int* part, double* max_time) {
  return guard(function, [&] {
    require_comm(comm);
    Problems p;
    p.at_least(count, 0, "count");
    if (dims < 1 || dims > 3)
      p.add(isocost::detail::expected_got("dims", "1, 2 or 3", std::to_string(dims)));
    p.need(coords, "coords", count > 0);
    p.need(weights, "weights", count > 0);
    p.need(part, "part", count > 0);
    const auto s = speeds_of(parts, speeds, p);
    agree_arguments(comm, p);
    const std::size_t n = size_of(count);
    const auto r = isocost::mpi::partition_points(
        comm, dims, std::span<const double>(coords, n * static_cast<std::size_t>(dims)),
        std::span<const double>(weights, n), *s);
    std::copy(r.part.begin(), r.part.end(), part);
    if (max_time != nullptr) *max_time = r.max_time;
  });
}

int grid_impl(const char* function, MPI_Comm comm, int dims, const std::int64_t* cells,
              const std::int64_t* lo, const std::int64_t* hi, const double* weights, int levels,
              const int* counts, const int* axes, const double* speeds, std::int64_t* part_lo,
              std::int64_t* part_hi, double* max_time) {
  return guard(function, [&] {
    require_comm(comm);
    Problems p;
    const bool dims_ok = dims >= 1 && dims <= isocost::kMaxDims;
    if (!dims_ok) p.add(isocost::detail::expected_got("dims", "1, 2 or 3", std::to_string(dims)));
    p.need(cells, "cells");
    p.need(lo, "lo");
    p.need(hi, "hi");
    p.need(counts, "counts");
    p.need(axes, "axes");
    p.need(part_lo, "part_lo");
    p.need(part_hi, "part_hi");
    if (dims_ok && (levels < 1 || levels > dims))
      p.add("levels: expected an integer in [1, " + std::to_string(dims) + "], got " +
            std::to_string(levels));
    isocost::GridShape shape;
    std::array<std::int64_t, isocost::kMaxDims> box_lo{0, 0, 0}, box_hi{1, 1, 1};
    std::int64_t local = 1;
    isocost::ProcessGrid grid;
    int ranks = 0;
    if (p.text.empty()) {
      shape.dims = dims;
      for (int a = 0; a < dims; ++a) {
        shape.cells[static_cast<std::size_t>(a)] = cells[a];
        box_lo[static_cast<std::size_t>(a)] = lo[a];
        box_hi[static_cast<std::size_t>(a)] = hi[a];
        local *= std::max<std::int64_t>(hi[a] - lo[a], 0);
      }
      p.need(weights, "weights", local > 0);
      grid.counts.assign(counts, counts + levels);
      grid.axes.assign(axes, axes + levels);
      ranks = 1;
      for (int c : grid.counts) {
        if (c < 1) {
          p.add(isocost::detail::expected_got("counts", "integers >= 1", std::to_string(c)));
          break;
        }
        // Capped: speeds_of() rejects more than kMaxParts parts.
        ranks =
            ranks > isocost::kMaxParts / c ? static_cast<int>(isocost::kMaxParts + 1) : ranks * c;
      }
    }
    const auto s = p.text.empty() ? speeds_of(ranks, speeds, p) : std::nullopt;
    agree_arguments(comm, p);
    const isocost::Decomposition d = isocost::mpi::decompose_grid(
        comm, shape, box_lo, box_hi, std::span<const double>(weights, size_of(local)), grid, *s);
    for (std::size_t r = 0; r < d.parts.size(); ++r)
      for (std::size_t a = 0; a < 3; ++a) {
        part_lo[r * 3 + a] = d.parts[r].cell_lo[a];
        part_hi[r * 3 + a] = d.parts[r].cell_hi[a];
      }
    if (max_time != nullptr) *max_time = d.max_time;
  });
}

}  // namespace

extern "C" {

int isocost_partition_weights(MPI_Comm comm, const double* weights, int64_t count, int parts,
                              const double* speeds, int optimal, int64_t* cuts,
                              double* max_time) noexcept {
  return weights_impl("isocost_partition_weights", comm, weights, count, parts, speeds, optimal,
                      cuts, max_time);
}

int isocost_partition_weights_f(MPI_Fint comm, const double* weights, int64_t count, int parts,
                                const double* speeds, int optimal, int64_t* cuts,
                                double* max_time) noexcept {
  return weights_impl("isocost_partition_weights_f", MPI_Comm_f2c(comm), weights, count, parts,
                      speeds, optimal, cuts, max_time);
}

int isocost_partition_points(MPI_Comm comm, int dims, const double* coords, const double* weights,
                             int64_t count, int parts, const double* speeds, int* part,
                             double* max_time) noexcept {
  return points_impl("isocost_partition_points", comm, dims, coords, weights, count, parts, speeds,
                     part, max_time);
}

int isocost_partition_points_f(MPI_Fint comm, int dims, const double* coords, const double* weights,
                               int64_t count, int parts, const double* speeds, int* part,
                               double* max_time) noexcept {
  return points_impl("isocost_partition_points_f", MPI_Comm_f2c(comm), dims, coords, weights, count,
                     parts, speeds, part, max_time);
}

int isocost_decompose_grid(MPI_Comm comm, int dims, const int64_t* cells, const int64_t* lo,
                           const int64_t* hi, const double* weights, int levels, const int* counts,
                           const int* axes, const double* speeds, int64_t* part_lo,
                           int64_t* part_hi, double* max_time) noexcept {
  return grid_impl("isocost_decompose_grid", comm, dims, cells, lo, hi, weights, levels, counts,
                   axes, speeds, part_lo, part_hi, max_time);
}

int isocost_decompose_grid_f(MPI_Fint comm, int dims, const int64_t* cells, const int64_t* lo,
                             const int64_t* hi, const double* weights, int levels,
                             const int* counts, const int* axes, const double* speeds,
                             int64_t* part_lo, int64_t* part_hi, double* max_time) noexcept {
  return grid_impl("isocost_decompose_grid_f", MPI_Comm_f2c(comm), dims, cells, lo, hi, weights,
                   levels, counts, axes, speeds, part_lo, part_hi, max_time);
}

}  // extern "C"
