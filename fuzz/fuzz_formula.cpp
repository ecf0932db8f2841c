// The muParser formula path: Expression (t(x; parameters)), expression_model
// and expression_density on the formula text.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "fuzz_support.hpp"
#include "isocost/fitters/expression.hpp"

using isocost::fuzz::accepts;
using isocost::fuzz::check;

namespace {

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 256) return -1;  // formulas are short; long ones only slow the search
  const std::string formula = isocost::fuzz::text(data, size);

  std::optional<isocost::Expression> e;
  if (accepts([&] { e.emplace(formula); })) {
    const auto& names = e->parameters();
    check(std::is_sorted(names.begin(), names.end()), "parameters not sorted");
    check(std::adjacent_find(names.begin(), names.end()) == names.end(), "parameter twice");
    check(std::find(names.begin(), names.end(), "x") == names.end(), "x listed as a parameter");
    const std::vector<double> values(names.size(), 1.5);
    const isocost::Expression copy(*e);  // its own parser: the same numbers
    for (double x : {0.0, 1.0, -2.5, 1e6}) {
      double a = 0, b = 0;
      const bool ok_a = accepts([&] { a = e->evaluate(x, values); });
      const bool ok_b = accepts([&] { b = copy.evaluate(x, values); });
      check(ok_a == ok_b && (!ok_a || same(a, b)), "a copy evaluates differently");
    }
    // A wrong number of values is an Error, never a read past the slots.
    const std::vector<double> more(names.size() + 1, 1.0);
    check(!accepts([&] { e->evaluate(1.0, more); }), "evaluate took too many values");

    std::map<std::string, double> params;
    for (const auto& n : names) params[n] = 1.5;
    std::optional<isocost::CostModel> m;
    if (accepts([&] { m.emplace(isocost::expression_model(formula, params, 1.0, 100.0)); })) {
      check(m->cost(1.0) == 0, "model: t(lo) != 0");
      check(std::isfinite(m->total()) && m->total() > 0, "model: total not finite and > 0");
      double mid = 0;
      check(accepts([&] { mid = m->cost(50.0); }), "model: cost inside refused");
      check(std::isfinite(mid), "model: cost not finite");
    }
  }

  // The same text as a 1-D and a 2-D density (x, or x and y).
  for (int dims : {1, 2}) {
    const isocost::Box box =
        dims == 1 ? isocost::Box::of({0}, {2}) : isocost::Box::of({0, 0}, {2, 3});
    std::optional<isocost::Density> d;
    // A small budget of evaluations: a discontinuous rho would otherwise run
    // for seconds per integral (10^8 evaluations by default) under ASan.
    isocost::DensityOptions options;
    options.max_evaluations = 200000;
    if (!accepts([&] { d.emplace(isocost::expression_density(formula, box, options)); })) continue;
    check(std::isfinite(d->total()) && d->total() > 0, "density: total not finite and > 0");
    isocost::Box half = box;
    half.hi[0] = 1;
    double m = 0;
    if (accepts([&] { m = d->mass(half); }))
      check(std::isfinite(m) && m >= 0 && m <= d->total() * (1 + 1e-3),
            "density: half-box mass outside [0, total]");
  }
  return 0;
}
