// Choosing a density form by AICc (select_density) and parsing a form's text
// (fit_density.hpp).
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/fitters/fit_density.hpp"

namespace isocost {

DensityFitOptions parse_density_form(const std::string& text, DensityFitOptions options) {
  const std::string expected = "'separable:N' (N 0..10) or 'poly:N' (N 0..6)";
  const auto colon = text.find(':');
  const std::string name = text.substr(0, colon);
  if (name == "separable")
    options.form = DensityForm::separable;
  else if (name == "poly")
    options.form = DensityForm::polynomial;
  else
    throw Error("density form: expected " + expected + ", got '" + text + "'");
  if (colon == std::string::npos) {
    if (options.form == DensityForm::polynomial)
      throw Error("density form: 'poly' needs a degree, e.g. 'poly:2', got '" + text + "'");
    options.degree = 3;
    return options;
  }
  const char* first = text.data() + colon + 1;
  const char* last = text.data() + text.size();
  int degree = -1;
  const auto [end, ec] = std::from_chars(first, last, degree);
  if (ec != std::errc{} || end != last || first == last || degree < 0)
    throw Error("density form: expected " + expected + ", got '" + text + "'");
  options.degree = degree;
  std::string why;
  if (!options.is_valid(&why)) throw Error("density form '" + text + "': " + why);
  return options;
}

DensitySelection select_density(const std::vector<BoxSample>& samples,
                                const DensityFitOptions& options) {
  options.validate();
  // Degrees up to 4: beyond, a density fitted to per-rank boxes is mostly
  // fitting noise, and the polynomial's coefficients grow as (4 + d choose d).
  constexpr int kMaxDegree = 4;
  std::optional<DensityFitResult> best;
  std::vector<DensityCandidate> candidates;
  for (const DensityForm form : {DensityForm::separable, DensityForm::polynomial}) {
    for (int n = 0; n <= kMaxDegree; ++n) {
      DensityFitOptions o = options;
      o.form = form;
      o.degree = n;
      DensityCandidate c;
      c.model =
          std::string(form == DensityForm::separable ? "separable:" : "poly:") + std::to_string(n);
      try {
        DensityFitResult r = fit_density(samples, o);
        c.aicc = r.summary.aicc;
        // AICc is undefined with as many samples as parameters + 1.
        c.ok = std::isfinite(c.aicc) && r.summary.converged();
        if (!c.ok)
          c.error = std::isfinite(c.aicc) ? "did not converge: " + r.summary.message
                                          : "AICc undefined (samples = parameters + 1)";
        if (c.ok && (!best || c.aicc < best->summary.aicc)) best = std::move(r);
      } catch (const Error& e) {
        c.error = e.what();
      }
      candidates.push_back(std::move(c));
    }
  }
  if (!best) {
    std::string why;
    for (const auto& c : candidates) why += "\n  " + c.model + ": " + c.error;
    throw Error("select_density: no form could be fitted to the " + std::to_string(samples.size()) +
                " samples:" + why);
  }
  return {std::move(*best), std::move(candidates)};
}

}  // namespace isocost
