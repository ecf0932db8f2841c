// c/fit_density.cpp — fitting a cost density to box timings through the C
// interface (isocost::fit_density, select_density; built with the fitters).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "c/density.hpp"
#include "c/status.hpp"
#include "isocost/fitters/fit_density.hpp"

using isocost::c::Failure;
using isocost::c::guard;
using isocost::c::require;
using isocost::c::require_at_least;

extern "C" int isocost_fit_density(const double* lo, const double* hi, const double* costs,
                                   std::int64_t count, int dims, const char* form,
                                   isocost_density** out, isocost_fit_summary* summary) noexcept {
  if (out != nullptr) *out = nullptr;
  return guard("isocost_fit_density", [&] {
    require(lo, "lo");
    require(hi, "hi");
    require(costs, "costs");
    require(form, "form");
    require(out, "out");
    require_at_least<std::int64_t>(count, 1, "count");
    if (dims < 1 || dims > isocost::kMaxDims)
      throw Failure{ISOCOST_ERROR_INVALID_ARGUMENT,
                    isocost::detail::expected_got("dims", "1, 2 or 3", std::to_string(dims))};
    const bool automatic = std::string(form) == "auto";
    const isocost::DensityFitOptions options =
        automatic ? isocost::DensityFitOptions{} : isocost::parse_density_form(form);
    std::vector<isocost::BoxSample> samples(static_cast<std::size_t>(count));
    for (std::size_t k = 0; k < samples.size(); ++k) {
      samples[k].box.dims = dims;
      for (int a = 0; a < dims; ++a) {
        const std::size_t i = k * static_cast<std::size_t>(dims) + static_cast<std::size_t>(a);
        samples[k].box.lo[static_cast<std::size_t>(a)] = lo[i];
        samples[k].box.hi[static_cast<std::size_t>(a)] = hi[i];
      }
      samples[k].cost = costs[k];
    }
    isocost::DensityFitResult r = automatic ? isocost::select_density(samples, options).best
                                            : isocost::fit_density(samples, options);
    if (summary != nullptr) {
      isocost_fit_summary c{};
      c.rmse = r.summary.rmse;
      c.max_rel_error = r.summary.max_rel_error;
      c.r_squared = r.summary.r_squared;
      c.iterations = r.summary.iterations;
      c.converged = r.summary.converged() ? 1 : 0;
      *summary = c;
    }
    *out = new isocost_density{std::move(r.density)};
    if (!r.summary.converged())
      throw Failure{ISOCOST_ERROR_NOT_CONVERGED, r.summary.brief_report()};
  });
}
