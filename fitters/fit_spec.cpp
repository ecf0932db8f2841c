// What fit() is asked for: fit specs ("sieve+q", "poly:3", "expr:…") and
// their parameters, the fit options, and the summary's report.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/fitters/expression.hpp"
#include "isocost/fitters/fit.hpp"

namespace isocost {

using detail::exact;
using detail::fixed_digits;

std::string FitSpec::name() const {
  switch (form) {
    case FitForm::sieve:
      return std::string("sieve") + (fit_c ? "+c" : "") + (fit_q ? "+q" : "");
    case FitForm::power:
      return "power";
    case FitForm::polynomial:
      return "poly:" + std::to_string(degree);
    case FitForm::exponential:
      return "exp";
    case FitForm::expression:
      return "expr:" + expression;
    case FitForm::pchip:
      return "pchip";
    case FitForm::makima:
      return "makima";
  }
  return "?";
}

FitSpec parse_fit_spec(const std::string& text) {
  FitSpec s;
  if (text == "sieve") return s;
  if (text == "sieve+c" || text == "sieve+q" || text == "sieve+c+q") {
    s.fit_c = text.find("+c") != std::string::npos;
    s.fit_q = text.find("+q") != std::string::npos;
    return s;
  }
  if (text == "power") {
    s.form = FitForm::power;
    return s;
  }
  if (text == "exp") {
    s.form = FitForm::exponential;
    return s;
  }
  if (text == "pchip" || text == "makima") {
    s.form = text == "pchip" ? FitForm::pchip : FitForm::makima;
    return s;
  }
  if (text.rfind("poly:", 0) == 0) {
    s.form = FitForm::polynomial;
    const std::string n = text.substr(5);
    double degree = 0;
    if (!detail::parse_number(n, degree) || degree != std::floor(degree) || degree < 1 ||
        degree > 10)
      throw Error("model '" + text + "': expected poly:N with N an integer in [1, 10]");
    s.degree = static_cast<int>(degree);
    return s;
  }
  if (text.rfind("expr:", 0) == 0) {
    s.form = FitForm::expression;
    s.expression = text.substr(5);
    if (s.expression.empty()) throw Error("model 'expr:' needs a formula, e.g. expr:A*x^p");
    return s;
  }
  throw Error(detail::expected_got("model",
                                   "sieve, sieve+c, sieve+q, sieve+c+q, power, poly:N, exp, "
                                   "expr:FORMULA, pchip or makima",
                                   detail::quote(text)));
}

FitLoss parse_fit_loss(const std::string& text) {
  if (text == "none") return FitLoss::none;
  if (text == "huber") return FitLoss::huber;
  if (text == "cauchy") return FitLoss::cauchy;
  throw Error(detail::expected_got("loss", "none, huber or cauchy", detail::quote(text)));
}

bool FitOptions::is_valid(std::string* why) const {
  if (!check_fields(*this, why)) return false;
  if (lo && hi && !(*lo < *hi)) {
    if (why) *why = "the domain needs lo < hi, got lo=" + exact(*lo) + ", hi=" + exact(*hi);
    return false;
  }
  return true;
}

std::string_view to_string(FitForm form) {
  switch (form) {
    case FitForm::sieve:
      return "sieve";
    case FitForm::power:
      return "power";
    case FitForm::polynomial:
      return "polynomial";
    case FitForm::exponential:
      return "exponential";
    case FitForm::expression:
      return "expression";
    case FitForm::pchip:
      return "pchip";
    case FitForm::makima:
      return "makima";
  }
  return "?";
}

std::string_view to_string(FitLoss loss) {
  switch (loss) {
    case FitLoss::none:
      return "none";
    case FitLoss::huber:
      return "huber";
    case FitLoss::cauchy:
      return "cauchy";
  }
  return "?";
}

std::string_view to_string(SelectBy criterion) {
  switch (criterion) {
    case SelectBy::aicc:
      return "aicc";
    case SelectBy::cross_validation:
      return "cv";
  }
  return "?";
}

double FitSummary::parameter(const std::string& name) const {
  for (const auto& p : parameters)
    if (p.name == name) return p.value;
  throw Error("fit of " + model + " has no parameter '" + name + "'");
}

std::string FitSummary::brief_report() const {
  std::ostringstream out;
  out << "fit " << model << ":";
  for (const auto& p : parameters) out << " " << p.name << "=" << fixed_digits(p.value, 6);
  out << ", R^2 " << fixed_digits(r_squared, 6);
  if (le_on_samples) out << ", L_E on the samples " << fixed_digits(*le_on_samples, 4) << " %";
  out << ", " << to_string(termination);
  if (!converged()) out << " (" << message << ")";
  if (const auto why = untrusted_reason(); converged() && !why.empty())
    out << "; NOT TRUSTED: " << why;
  return out.str();
}

// Thresholds of the verdict (fit.hpp: untrusted_reason()).
namespace {
constexpr double kMinRSquared = 0.9;
constexpr double kMissedSample = 0.1;  // R^2 is only a verdict if a sample is missed by more
constexpr double kTiePoints = 0.01;    // L_E points: rounding of the cuts, not a difference
constexpr double kGuaranteedLE = 90;   // an interpolant's cuts are trusted above this
constexpr double kCoarseShares = 2;    // ... or unless a cut splits an interval of more shares
constexpr double kHeldOutPoints = 10;  // held-out L_E this far below the claim is not trusted
}  // namespace

std::string FitSummary::untrusted_reason() const {
  if (!converged()) return "the fit did not converge: " + message;
  std::string why;
  // An interpolant costs its own cuts at 100 % (le_on_samples measures
  // nothing): its check is the held-out estimate against its claim.
  const bool interpolant = spec.form == FitForm::pchip || spec.form == FitForm::makima;
  if (!interpolant && le_on_samples && le_of_samples &&
      *le_on_samples < *le_of_samples + kTiePoints &&
      !(*le_on_samples > *le_of_samples - kTiePoints && *le_of_samples >= 100 - kTiePoints))
    why = "the model's partition, costed on the samples, reaches L_E " +
          fixed_digits(*le_on_samples, 4) + " %, not better than the samples' own " +
          fixed_digits(*le_of_samples, 4) + " %";
  if (interpolant && le_held_out && le_model_claim &&
      *le_held_out < *le_model_claim - kHeldOutPoints)
    why += (why.empty() ? "" : "; ") +
           std::string("cut without some of the samples' knots, it reaches L_E ") +
           fixed_digits(*le_held_out, 4) + " % on them (held out), not the " +
           fixed_digits(*le_model_claim, 4) +
           " % it claims: the samples are too coarse where cuts fall; time the parts these "
           "cuts make and fit on all the runs";
  if (r_squared < kMinRSquared && max_rel_error > kMissedSample)
    why += (why.empty() ? "" : "; ") + std::string("R^2 ") + fixed_digits(r_squared, 4) +
           " < 0.9 and a sample is missed by " + fixed_digits(100 * max_rel_error, 3) + " %";
  // An interpolant knows nothing inside an interval but its timing: where a
  // cut falls inside one that holds more than a part's share, the samples
  // cannot say whether the cut is good.
  if (interpolant && guaranteed && guaranteed->coarse_cuts > 0 &&
      guaranteed->coarse_shares > kCoarseShares && guaranteed->le_lo < kGuaranteedLE)
    why += (why.empty() ? "" : "; ") + std::string("the samples are too coarse for ") +
           std::to_string(options.ranks > 0 ? options.ranks : static_cast<int>(samples)) +
           " parts: " + std::to_string(guaranteed->coarse_cuts) +
           (guaranteed->coarse_cuts == 1 ? " cut falls" : " cuts fall") + " inside [" +
           fixed_digits(guaranteed->coarse_lo, 6) + ", " + fixed_digits(guaranteed->coarse_hi, 6) +
           "], which holds " + fixed_digits(guaranteed->coarse_shares, 3) +
           " parts' shares of the cost, and they guarantee only L_E >= " +
           fixed_digits(guaranteed->le_lo, 4) +
           " %; time the parts these cuts make and fit on all the runs";
  return why;
}

std::string FitSummary::full_report() const {
  std::ostringstream out;
  out << "model " << model << ": " << formula << "\n";
  for (const auto& p : parameters) {
    out << "  " << p.name << " = " << fixed_digits(p.value, 8);
    if (p.fixed)
      out << " (fixed)";
    else if (p.std_error)
      out << " +- " << fixed_digits(*p.std_error, 3);
    out << "\n";
  }
  out << "samples " << samples << ", RMSE " << fixed_digits(rmse, 4) << ", max relative error "
      << fixed_digits(max_rel_error, 4) << ", R^2 " << fixed_digits(r_squared, 8) << ", AICc "
      << fixed_digits(aicc, 6) << "\n";
  out << "solver: " << to_string(termination) << ": " << message << ", " << iterations
      << " iterations, " << fixed_digits(solve_seconds * 1e3, 3) << " ms\n";
  if (le_of_samples)
    out << "L_E of the measured partition " << fixed_digits(*le_of_samples, 6) << " %\n";
  if (le_on_samples)
    out << "L_E of the fitted partition, costed on the samples " << fixed_digits(*le_on_samples, 6)
        << " %\n";
  if (le_model_claim)
    out << "L_E the model predicts for its own partition (its own claim) "
        << fixed_digits(*le_model_claim, 6) << " %\n";
  if (guaranteed) out << guaranteed->brief_report() << "\n";
  if (const auto why = untrusted_reason(); !why.empty()) out << "NOT TRUSTED: " << why << "\n";
  return out.str();
}

std::vector<std::string> fit_parameter_names(const FitSpec& spec) {
  switch (spec.form) {
    case FitForm::sieve:
      return {"A", "p", "c", "q"};
    case FitForm::power:
      return {"A", "p"};
    case FitForm::exponential:
      return {"A", "b"};
    case FitForm::polynomial: {
      std::vector<std::string> names;
      for (int k = 1; k <= spec.degree; ++k) {
        std::string name = "c";  // not "c" + …: GCC 12 warns falsely (-Wrestrict)
        name += std::to_string(k);
        names.push_back(name);
      }
      return names;
    }
    case FitForm::expression:
      return Expression(spec.expression).parameters();
    case FitForm::pchip:
    case FitForm::makima:
      return {};
  }
  return {};
}

void validate_fit_spec(const FitSpec& spec) {
  if (spec.form == FitForm::polynomial && (spec.degree < 1 || spec.degree > 10))
    throw Error(detail::expected_got("polynomial degree", "an integer in [1, 10]",
                                     std::to_string(spec.degree)));
  const auto names = fit_parameter_names(spec);
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  for (const auto& [name, value] : spec.guess) {
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw Error(
          "guess: unknown parameter '" + name + "' for model " + spec.name() +
          (names.empty() ? std::string(", which has no parameters") : "; expected " + list));
    if (!std::isfinite(value))
      throw Error(detail::expected_got("guess: " + name, "a finite number", exact(value)));
  }
}

}  // namespace isocost
