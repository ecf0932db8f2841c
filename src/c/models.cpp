// c/models.cpp — cost model constructors and queries of the C interface.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "c/model.hpp"
#include "c/status.hpp"
#include "isocost/cost_model.hpp"

namespace {

using isocost::c::guard;
using isocost::c::require;
using isocost::c::require_at_least;

// Copies `count` >= 0 values from p (already checked for NULL).
std::vector<double> copy(const double* p, std::int64_t count) {
  if (static_cast<std::uint64_t>(count) > std::vector<double>().max_size())
    throw isocost::c::Failure{ISOCOST_ERROR_NO_MEMORY,
                              std::to_string(count) + " values do not fit in memory"};
  return std::vector<double>(p, p + count);
}

// Runs make() under guard(), storing the new model in *out (NULL on failure).
template <class Make>
int construct(const char* function, isocost_model** out, Make&& make) noexcept {
  if (out != nullptr) *out = nullptr;
  return guard(function, [&] {
    require(out, "out");
    *out = new isocost_model{make()};
  });
}

}  // namespace

extern "C" {

int isocost_model_sieve(double A, double p, double c, double lo, double hi,
                        isocost_model** out) noexcept {
  return construct("isocost_model_sieve", out, [&] {
    return isocost::sieve_model({.A = A, .p = p, .c = c, .q = 1.0}, lo, hi);
  });
}

int isocost_model_power(double A, double p, double B, double lo, double hi,
                        isocost_model** out) noexcept {
  return construct("isocost_model_power", out,
                   [&] { return isocost::power_model(A, p, B, lo, hi); });
}

int isocost_model_polynomial(const double* coefficients, std::int64_t count, double lo, double hi,
                             isocost_model** out) noexcept {
  return construct("isocost_model_polynomial", out, [&] {
    require(coefficients, "coefficients");
    require_at_least<std::int64_t>(count, 2, "count");
    return isocost::polynomial_model(copy(coefficients, count), lo, hi);
  });
}

int isocost_model_tabulated(const double* x, const double* t, std::int64_t count, int interpolation,
                            isocost_model** out) noexcept {
  return construct("isocost_model_tabulated", out, [&] {
    require(x, "x");
    require(t, "t");
    require_at_least<std::int64_t>(count, 2, "count");
    isocost::Interpolation how;
    switch (interpolation) {
      case ISOCOST_INTERPOLATION_PCHIP:
        how = isocost::Interpolation::pchip;
        break;
      case ISOCOST_INTERPOLATION_MAKIMA:
        how = isocost::Interpolation::makima;
        break;
      case ISOCOST_INTERPOLATION_LINEAR:
        how = isocost::Interpolation::linear;
        break;
      default:
        throw isocost::c::Failure{ISOCOST_ERROR_INVALID_ARGUMENT,
                                  "interpolation: expected ISOCOST_INTERPOLATION_PCHIP (0), "
                                  "_MAKIMA (1) or _LINEAR (2), got " +
                                      std::to_string(interpolation)};
    }
    return isocost::tabulated_model(copy(x, count), copy(t, count), how);
  });
}

int isocost_model_discrete(const double* weights, std::int64_t n, isocost_model** out) noexcept {
  return construct("isocost_model_discrete", out, [&] {
    require(weights, "weights");
    require_at_least<std::int64_t>(n, 1, "n");
    return isocost::discrete_model(copy(weights, n));
  });
}

void isocost_model_free(isocost_model* model) noexcept { delete model; }

int isocost_model_cost(const isocost_model* model, double x, double* cost) noexcept {
  return guard("isocost_model_cost", [&] {
    require(model, "model");
    require(cost, "cost");
    *cost = model->model.cost(x);
  });
}

int isocost_model_density(const isocost_model* model, double x, double* density) noexcept {
  return guard("isocost_model_density", [&] {
    require(model, "model");
    require(density, "density");
    *density = model->model.density(x);
  });
}

int isocost_model_domain(const isocost_model* model, double* lo, double* hi) noexcept {
  return guard("isocost_model_domain", [&] {
    require(model, "model");
    require(lo, "lo");
    require(hi, "hi");
    *lo = model->model.lo();
    *hi = model->model.hi();
  });
}

int isocost_model_total(const isocost_model* model, double* total) noexcept {
  return guard("isocost_model_total", [&] {
    require(model, "model");
    require(total, "total");
    *total = model->model.total();
  });
}

int isocost_model_describe(const isocost_model* model, char* text, std::int64_t size,
                           std::int64_t* length) noexcept {
  return guard("isocost_model_describe", [&] {
    require(model, "model");
    isocost::c::copy_text(model->model.describe(), text, size, length);
  });
}

}  // extern "C"
