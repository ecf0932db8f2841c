// c/partition.cpp — 1-D partitions and load metrics of the C interface.
#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "c/model.hpp"
#include "c/status.hpp"
#include "isocost/metrics.hpp"
#include "isocost/partition.hpp"

using isocost::c::guard;
using isocost::c::require;
using isocost::c::require_at_least;

namespace {

struct isocost_load_stats to_c(const isocost::LoadStats& s) {
  return {.t_min = s.min,
          .t_max = s.max,
          .t_avg = s.mean,
          .l_i = s.li,
          .l_e = s.le,
          .efficiency = s.efficiency};
}

}  // namespace

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
    *out = to_c(isocost::load_stats(std::span<const double>(times, static_cast<std::size_t>(n))));
  });
}

int isocost_imbalance(const double* loads, int n, double* out) noexcept {
  return guard("isocost_imbalance", [&] {
    require(loads, "loads");
    require(out, "out");
    require_at_least(n, 1, "n");
    const std::span<const double> l(loads, static_cast<std::size_t>(n));
    isocost::check_loads(l, "loads");
    *out = isocost::imbalance(l);
  });
}

int isocost_phase_stats(const double* times, int ranks, int phases,
                        struct isocost_load_stats* per_phase, struct isocost_load_stats* total,
                        double* synchronised_time, double* synchronised_efficiency) noexcept {
  return guard("isocost_phase_stats", [&] {
    require(times, "times");
    require(total, "total");
    require_at_least(ranks, 1, "ranks");
    require_at_least(phases, 1, "phases");
    isocost::PhaseLoads loads;
    loads.ranks = static_cast<std::size_t>(ranks);
    for (int f = 0; f < phases; ++f) loads.phases.push_back(std::to_string(f));
    loads.times.assign(times, times + loads.ranks * loads.phases.size());
    const isocost::PhaseStats s = isocost::phase_stats(loads);
    if (per_phase != nullptr)
      std::transform(s.per_phase.begin(), s.per_phase.end(), per_phase, to_c);
    *total = to_c(s.total);
    if (synchronised_time != nullptr) *synchronised_time = s.synchronised_time;
    if (synchronised_efficiency != nullptr) *synchronised_efficiency = s.synchronised_efficiency;
  });
}

}  // extern "C"
