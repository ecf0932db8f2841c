// python/tests/reference.cpp — the C++ side of the Python tests: runs the C++
// API on fixed inputs and prints the inputs and results as JSON (doubles
// round-trip exactly), so test_reference.py can call the module on the same
// inputs and compare bit for bit.
#include <cmath>
#include <cstdint>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "isocost/cost_model.hpp"
#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/fitters/fit.hpp"
#include "isocost/metrics.hpp"
#include "isocost/partition.hpp"
#include "isocost/samples.hpp"

using json = nlohmann::json;

namespace {
json model_case(const isocost::CostModel& t, json args) {
  json x = json::array(), cost = json::array(), density = json::array();
  for (int k = 0; k <= 8; ++k) {
    const double v = t.lo() + (t.hi() - t.lo()) * k / 8.0;
    x.push_back(v);
    cost.push_back(t.cost(v));
    density.push_back(t.density(v));
  }
  return {{"args", args},       {"x", x},
          {"cost", cost},       {"density", density},
          {"total", t.total()}, {"describe", t.describe()}};
}

json partition_case(const isocost::CostModel& t, int model, int ranks, std::vector<double> speeds,
                    bool integer) {
  const auto s =
      speeds.empty() ? isocost::Speeds::uniform(ranks) : isocost::Speeds::from_values(speeds);
  isocost::PartitionOptions options;
  options.integer = integer;
  const auto p = isocost::partition(t, s, options);
  return {{"model", model},
          {"ranks", ranks},
          {"speeds", speeds},
          {"integer", integer},
          {"cuts", p.cuts},
          {"time", p.time},
          {"predicted_le", p.predicted_le}};
}

json decompose_case(int nx, int ny, std::vector<int> counts, std::vector<int> axes) {
  std::vector<double> w;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) w.push_back(1 + i + 2 * j + (i * j) % 5);  // x fastest
  const isocost::GridShape shape{2, {nx, ny, 1}};
  const auto d =
      isocost::decompose(isocost::grid_density(w, shape), {counts, axes},
                         isocost::Speeds::uniform(isocost::ProcessGrid{counts, axes}.ranks()));
  json lo = json::array(), hi = json::array(), cost = json::array();
  for (const auto& p : d.parts) {
    lo.push_back({p.cell_lo[0], p.cell_lo[1]});
    hi.push_back({p.cell_hi[0], p.cell_hi[1]});
    cost.push_back(p.cost);
  }
  return {{"nx", nx},      {"ny", ny},      {"weights", w}, {"counts", counts},     {"axes", axes},
          {"cell_lo", lo}, {"cell_hi", hi}, {"cost", cost}, {"total", d.total_cost}};
}
}  // namespace

int main() {
  json out;
  const isocost::SieveParams sp;
  const std::vector<isocost::CostModel> models{
      isocost::sieve_model(sp, 6, 1e6), isocost::power_model(2.5, 1.5, 0, 0, 10),
      isocost::polynomial_model({0, 1, 0.5, 0.25}, 0, 4),
      isocost::tabulated_model({0, 1, 2, 4, 8}, {0, 1, 3, 4, 10}),
      isocost::discrete_model({5, 5, 9, 6, 3, 8, 2, 2})};
  const std::vector<json> args{
      {{"lo", 6}, {"hi", 1e6}, {"A", sp.A}, {"p", sp.p}, {"c", sp.c}, {"q", sp.q}},
      {{"A", 2.5}, {"p", 1.5}, {"lo", 0}, {"hi", 10}},
      {{"coefficients", {0, 1, 0.5, 0.25}}, {"lo", 0}, {"hi", 4}},
      {{"x", {0, 1, 2, 4, 8}}, {"t", {0, 1, 3, 4, 10}}},
      {{"weights", {5, 5, 9, 6, 3, 8, 2, 2}}}};
  const char* factories[] = {"sieve_model", "power_model", "polynomial_model", "tabulated_model",
                             "discrete_model"};
  for (std::size_t k = 0; k < models.size(); ++k) {
    json c = model_case(models[k], args[k]);
    c["factory"] = factories[k];
    out["models"].push_back(c);
  }
  out["partitions"] = {partition_case(models[0], 0, 16, {}, false),
                       partition_case(models[0], 0, 4, {1, 2, 3, 4}, true),
                       partition_case(models[1], 1, 5, {}, false),
                       partition_case(models[2], 2, 3, {2, 1, 1}, false),
                       partition_case(models[3], 3, 4, {}, false),
                       partition_case(models[4], 4, 3, {}, false)};

  const std::vector<double> times{3, 1, 4, 1, 5, 9, 2, 6};
  const auto s = isocost::load_stats(times);
  out["load_stats"] = {{"times", times},
                       {"le", s.le},
                       {"li", s.li},
                       {"efficiency", s.efficiency},
                       {"sigma", s.sigma},
                       {"skewness", *s.skewness},
                       {"kurtosis", *s.kurtosis}};

  // Exact sieve timings on 12 intervals tiling [100, 1e6] geometrically.
  std::vector<isocost::IntervalSample> intervals;
  for (int k = 0; k < 12; ++k) {
    const double a = 100 * std::pow(1e4, k / 12.0), b = 100 * std::pow(1e4, (k + 1) / 12.0);
    intervals.push_back({a, b, models[0].cost(a, b)});
  }
  const auto fit = isocost::fit(isocost::Samples(intervals), isocost::parse_fit_spec("sieve+c"));
  json lo = json::array(), hi = json::array(), dt = json::array(), params = json::object();
  for (const auto& i : intervals) {
    lo.push_back(i.lo);
    hi.push_back(i.hi);
    dt.push_back(i.dt);
  }
  for (const auto& p : fit.summary.parameters) params[p.name] = p.value;
  out["fit"] = {{"lo", lo},
                {"hi", hi},
                {"seconds", dt},
                {"spec", "sieve+c"},
                {"parameters", params},
                {"rmse", fit.summary.rmse},
                {"r_squared", fit.summary.r_squared},
                {"converged", fit.converged()}};

  out["decompose"] = {decompose_case(8, 6, {2, 2}, {0, 1}), decompose_case(8, 6, {3}, {1}),
                      decompose_case(9, 7, {2, 3}, {1, 0})};
  std::cout << out.dump(1) << "\n";
}
