// c/partition.cpp — 1-D partitions and load statistics of the C interface.
#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "c/error.hpp"
#include "c/model.hpp"
#include "isocost/metrics.hpp"
#include "isocost/partition.hpp"

using isocost::c::guard;
using isocost::c::require;
using isocost::c::require_at_least;

extern "C" {

int isocost_partition(const isocost_model* model, int ranks, const double* speeds, int integer,
                      double* cuts) noexcept {
  return guard("isocost_partition", [&] {
    require(model, "model");
    require(cuts, "cuts");
    require_at_least(ranks, 1, "ranks");
    const auto s = speeds == nullptr ? isocost::Speeds::uniform(ranks)
                                     : isocost::Speeds::from_values(std::vector<double>(
                                           speeds, speeds + static_cast<std::size_t>(ranks)));
    isocost::PartitionOptions options;
    options.integer = integer != 0;
    const isocost::Partition part = isocost::partition(model->model, s, options);
    std::copy(part.cuts.begin(), part.cuts.end(), cuts);
    if (!part.converged())
      throw isocost::c::Failure{ISOCOST_ERROR_NOT_CONVERGED, part.brief_report()};
  });
}

int isocost_load_stats(const double* times, int n, struct isocost_load_stats* out) noexcept {
  return guard("isocost_load_stats", [&] {
    require(times, "times");
    require(out, "out");
    require_at_least(n, 1, "n");
    const isocost::LoadStats s =
        isocost::load_stats(std::span<const double>(times, static_cast<std::size_t>(n)));
    *out = {.t_min = s.min,
            .t_max = s.max,
            .t_avg = s.mean,
            .l_i = s.li,
            .l_e = s.le,
            .efficiency = s.efficiency};
  });
}

}  // extern "C"
