// isocost fit's output: the fit as JSON, the human report, the one-line
// summary `cut --fit` prints, and the trusted check that sets the exit code
// (fit_args.hpp).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "arguments.hpp"
#include "cli.hpp"
#include "fit_args.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/learn_speeds.hpp"
#include "json_stream.hpp"
#include "output.hpp"

namespace isocost::cli {

namespace {

std::string loss_name(FitLoss loss) { return std::string(to_string(loss)); }

// What the samples guarantee about the fitted partition (guarantee.hpp).
nlohmann::ordered_json guaranteed_json(const BalanceGuarantee& g) {
  nlohmann::ordered_json limiting = nlohmann::ordered_json::array();
  for (const auto& [a, b] : g.limiting) limiting.push_back({number(a), number(b)});
  nlohmann::ordered_json coarse = nullptr;
  if (g.coarse_cuts > 0)
    coarse = {{"lo", number(g.coarse_lo)},
              {"hi", number(g.coarse_hi)},
              {"shares", number(g.coarse_shares)},
              {"cuts", g.coarse_cuts}};
  return {{"le_lo", g.covered ? number(g.le_lo) : nlohmann::ordered_json(nullptr)},
          {"le_hi", number(g.le_hi)},
          {"t_max_lo", number(g.t_max_lo)},
          {"t_max_hi", number(g.t_max_hi)},
          {"noise", number(g.noise)},
          {"limiting_part", g.limiting_part},
          {"limiting", limiting},
          {"coarse", coarse},
          {"covered", g.covered}};
}

// Parameters the user may guess for a built-in form (expressions name their own).
nlohmann::ordered_json parameters_json(const FitSummary& s) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& p : s.parameters)
    list.push_back({{"name", p.name},
                    {"value", number(p.value)},
                    {"std_error", p.std_error ? number(*p.std_error) : nullptr},
                    {"fixed", p.fixed}});
  return list;
}

// A fit without a model was never scored: its quality is null, not 0 (which
// would read as a perfect fit).
nlohmann::ordered_json quality_json(const FitSummary& s, bool scored) {
  const auto value = [scored](double v) {
    return scored ? number(v) : nlohmann::ordered_json(nullptr);
  };
  return {{"rmse", value(s.rmse)},
          {"max_rel_error", value(s.max_rel_error)},
          {"r_squared", value(s.r_squared)},
          {"aicc", value(s.aicc)}};
}

int free_parameters(const FitSummary& s) {
  int k = 0;
  for (const auto& p : s.parameters) k += p.fixed ? 0 : 1;
  return k;
}

std::string parameters_inline(const FitSummary& s) {
  std::string out;
  for (const auto& p : s.parameters) {
    out += (out.empty() ? "" : ", ") + p.name + "=" + g(p.value, 8);
    if (p.fixed)
      out += " (fixed)";
    else if (p.std_error)
      out += " +- " + g(*p.std_error, 3);
  }
  return out;
}

std::string samples_line(const Fitted& f) {
  const auto& s = f.samples;
  return "samples: " + f.file + ", " + std::to_string(s.size()) + " interval" +
         (s.size() == 1 ? "" : "s") + " on [" + g(s.lo(), 12) + ", " + g(s.hi(), 12) + "]" +
         (s.cumulative() ? " (cumulative)"
          : s.tiles()    ? " (one run: they tile the domain)"
                         : " (" + std::to_string(f.runs.size()) + " runs)") +
         (f.repair ? ", repaired by isotonic regression where needed" : "") + "\n";
}

std::string verdict_line(const FitSummary& s) {
  const std::string why = s.untrusted_reason();
  if (!why.empty()) return "verdict: NOT TRUSTED: " + why + "\n";
  return s.le_held_out ? "verdict: trusted (the held-out balance and the guarantee)\n"
                       : "verdict: trusted (R^2 and the balance on the samples)\n";
}

// For an interpolant, "costed on the samples" is its own 100 %: its line
// says what was held out instead.
std::string balance_phrase(const FitSummary& s) {
  if (s.le_held_out)
    return "held-out L_E of its partition " + g(*s.le_held_out, 6) +
           " % (cut without a fifth of the knots, costed on all)";
  return "L_E of its partition costed on the samples " + g(*s.le_on_samples, 6) + " %";
}

std::string merged_line(const FitSummary& s) {
  return s.merged ? s.merged->brief_report() + "\n" : std::string();
}

// What became of the times of ranked samples: the speeds learned, and
// whether the fit is of speed-1 costs or of the times as they were.
std::string learned_line(const Fitted& f) {
  if (!f.learned) return {};
  return f.learned->brief_report() +
         (f.learned->identifiable ? "; fitted: each time x its rank's speed (speed-1 costs)\n"
                                  : "; fitted: the times as they are\n");
}

std::optional<int> balance_ranks(const Fitted& f) {
  if (!f.result.summary.le_on_samples) return std::nullopt;
  return f.result.summary.balance_ranks;
}

}  // namespace

nlohmann::ordered_json fit_json(const Fitted& f) {
  const auto& s = f.result.summary;
  nlohmann::ordered_json j;
  j["file"] = f.file;
  j["samples"] = {{"count", f.samples.size()},
                  {"lo", f.samples.lo()},
                  {"hi", f.samples.hi()},
                  {"tiles", f.samples.tiles()},
                  {"cumulative", f.samples.cumulative()},
                  {"repair", f.repair}};
  if (f.learned) j["learned_speeds"] = *f.learned;  // only for ranked samples
  if (const auto& m = f.result.model)
    j["model"] = {{"name", s.model},         {"kind", m->kind()},
                  {"formula", s.formula},    {"description", m->describe()},
                  {"lo", m->lo()},           {"hi", m->hi()},
                  {"total_cost", m->total()}};
  else  // the fit failed: no model
    j["model"] = {{"name", s.model}, {"formula", s.formula}, {"lo", s.lo_used}, {"hi", s.hi_used}};
  j["options"] = {{"relative", f.options.relative},
                  {"loss", loss_name(f.options.loss)},
                  {"loss_scale", f.options.loss_scale}};
  j["parameters"] = parameters_json(s);
  const bool scored = f.result.model.has_value();
  j["quality"] = quality_json(s, scored);
  j["solver"] = {{"iterations", s.iterations},
                 {"solve_seconds", s.solve_seconds},
                 // "termination" keeps its meaning (Ceres' own words); the
                 // status is the library's Termination (result.hpp).
                 {"termination", s.message},
                 {"status", to_string(s.termination)},
                 {"converged", s.converged()}};
  const auto ranks = balance_ranks(f);
  auto optional = [](const std::optional<double>& v) {
    return v ? number(*v) : nlohmann::ordered_json(nullptr);
  };
  j["balance"] = {
      {"ranks", ranks ? nlohmann::ordered_json(*ranks) : nlohmann::ordered_json(nullptr)},
      {"le_of_samples", optional(s.le_of_samples)},
      {"le_on_samples", optional(s.le_on_samples)},
      {"le_model_claim", optional(s.le_model_claim)},
      {"le_held_out", optional(s.le_held_out)},
      {"guaranteed",
       s.guaranteed ? guaranteed_json(*s.guaranteed) : nlohmann::ordered_json(nullptr)}};
  // The verdict and the measurements it rests on (FitSummary::untrusted_reason()).
  j["verdict"] = {{"trusted", s.trusted()},
                  {"reason", s.untrusted_reason()},
                  {"r_squared", j["quality"]["r_squared"]},
                  {"le_on_samples", optional(s.le_on_samples)},
                  {"le_of_samples", optional(s.le_of_samples)},
                  {"le_held_out", optional(s.le_held_out)}};
  if (s.merged) {
    nlohmann::ordered_json misfit = nlohmann::ordered_json::array();
    for (const double m : s.merged->run_misfit)
      misfit.push_back(std::isnan(m) ? nlohmann::ordered_json(nullptr) : number(m));
    j["merged"] = {{"runs_used", s.merged->runs_used},
                   {"atoms", s.merged->x.size() - 1},
                   {"sweeps", s.merged->sweeps},
                   {"status", to_string(s.merged->termination)},
                   {"run_misfit", misfit}};
  } else {
    j["merged"] = nullptr;
  }
  if (f.automatic) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& c : f.candidates) {
      nlohmann::ordered_json row = {{"model", c.model},
                                    {"ok", c.ok},
                                    {"winner", c.ok && c.model == s.model},
                                    {"score", c.ok ? number(c.score) : nullptr},
                                    {"cv_error", c.cv_error ? number(*c.cv_error) : nullptr},
                                    {"note", c.note}};
      if (c.summary) {
        row["parameters"] = parameters_json(*c.summary);
        row["quality"] = quality_json(*c.summary, c.ok);
      }
      row["error"] = c.error;
      list.push_back(row);
    }
    j["selection"] = {{"criterion", to_string(f.criterion)},
                      {"winner", s.model},
                      {"reason", f.selection_reason},
                      {"candidates", list}};
  }
  return j;
}

std::string fit_report(const Fitted& f) {
  const auto& s = f.result.summary;
  const bool interpolated = s.model == "pchip" || s.model == "makima";
  std::string text = samples_line(f) + learned_line(f) + merged_line(f.result.summary);
  text += "model: " + s.model + (f.automatic ? " (chosen by --model auto)" : "") + " on [" +
          g(s.lo_used, 12) + ", " + g(s.hi_used, 12) +
          "]: " + (f.result.model ? f.result.model->describe() : s.formula + " (no valid model)") +
          "\n";
  if (!interpolated)
    text += std::string("residuals: ") +
            (f.options.relative ? "relative (t(hi) - t(lo) - dt)/dt"
                                : "absolute, in units of the mean dt") +
            ", loss " + loss_name(f.options.loss) + "\n";
  text += "\n";
  if (!s.parameters.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& p : s.parameters) {
      std::string err = p.fixed ? "(fixed)" : p.std_error ? g(*p.std_error, 4) : "n/a";
      std::string rel = !p.fixed && p.std_error && p.value != 0
                            ? g(100 * *p.std_error / std::abs(p.value), 3) + " %"
                            : "";
      rows.push_back({p.name, g(p.value, 10), err, rel});
    }
    text += table({"parameter", "value", "std error", "relative"}, rows) + "\n";
  }
  text += "RMSE " + g(s.rmse, 4) + (f.options.relative ? " (relative)" : " (in mean dt)") +
          ", max relative error " + g(100 * s.max_rel_error, 4) + " %, R^2 " + g(s.r_squared, 10) +
          ", AICc " + g(s.aicc, 6) + "\n";
  if (interpolated)
    text += "solver: " + s.message + "\n";
  else
    text += "solver: " + std::to_string(s.iterations) + " iterations, " +
            g(s.solve_seconds * 1e3, 3) + " ms, " + std::string(to_string(s.termination)) + ": " +
            s.message + "\n";
  if (!s.converged()) text += "NOT CONVERGED: the fit stopped short of its tolerance\n";
  if (const auto ranks = balance_ranks(f)) {
    std::string over = " over " + std::to_string(*ranks) + " ranks";
    if (f.options.ranks > *ranks)
      over += " (the samples' " + std::to_string(*ranks) +
              " intervals resolve no finer parts than " + "that; --ranks " +
              std::to_string(f.options.ranks) + " is for the guarantee below)";
    text += "L_E of the samples' own partition" + over + ": " + g(*s.le_of_samples, 6) + " %\n";
    if (s.le_held_out)
      text +=
          "L_E of the fitted model's partition" + over +
          ", held out (cut without a fifth of the knots, costed on all): " + g(*s.le_held_out, 6) +
          " %\n";
    else
      text += "L_E of the fitted model's partition" + over +
              ", costed on the samples: " + g(*s.le_on_samples, 6) + " %\n";
    if (s.le_model_claim)
      text += "model-predicted L_E of that partition (the model's own claim, not a measurement): " +
              g(*s.le_model_claim, 6) + " %\n";
    if (s.guaranteed) text += s.guaranteed->brief_report() + "\n";
  } else {
    text +=
        "L_E on the samples: not measured (the samples are not one run that tiles the "
        "domain)\n";
  }
  text += verdict_line(s);
  if (f.automatic) {
    std::vector<std::vector<std::string>> rows;
    std::string failed;
    for (const auto& c : f.candidates) {
      const std::string mark = c.ok && c.model == s.model ? "*" : "";
      const std::string score = std::isfinite(c.score) ? g(c.score, 8) : "-";
      const std::string cv = c.cv_error ? g(*c.cv_error, 4) : "-";
      if (c.ok && c.summary)
        rows.push_back({mark, c.model, score, cv, std::to_string(free_parameters(*c.summary)),
                        g(c.summary->rmse, 4), g(100 * c.summary->max_rel_error, 4),
                        g(c.summary->r_squared, 8), c.note});
      else if (c.ok)
        rows.push_back({mark, c.model, score, cv, "", "", "", "", c.note});
      else
        failed += "  " + c.model + ": " + c.error + "\n";
    }
    text += std::string("\ncandidates by ") +
            (f.criterion == SelectBy::aicc ? "AICc" : "5-fold cross-validation (held-out error)") +
            ", lower is better (* = chosen); held-out error: how each merged pair's cost splits:\n";
    text += table({"", "model", "score", "held-out", "k", "RMSE", "max rel %", "R^2", "why"}, rows);
    text += "chosen: " + f.selection_reason + "\n";
    if (!failed.empty()) text += "failed candidates:\n" + failed;
  }
  return text;
}

std::string fit_line(const Fitted& f) {
  const auto& s = f.result.summary;
  std::string text = "fit: " + s.model;
  if (f.automatic)
    text += " (chosen by --model auto, " +
            std::string(f.criterion == SelectBy::aicc ? "AICc" : "cross-validation") + ")";
  text += " to " + std::to_string(f.samples.size()) + " samples from " + f.file;
  if (!s.parameters.empty()) text += ": " + parameters_inline(s);
  text += "; RMSE " + g(s.rmse, 4) + ", max relative error " + g(100 * s.max_rel_error, 4) +
          " %, R^2 " + g(s.r_squared, 6);
  if (s.le_on_samples && s.le_of_samples)
    text += ", " + balance_phrase(s) + " (the samples' own: " + g(*s.le_of_samples, 6) + " %)";
  text += "\n" + learned_line(f) + merged_line(s);
  if (s.guaranteed) text += s.guaranteed->brief_report() + "\n";
  if (s.converged() && !s.trusted()) text += verdict_line(s);
  return text;
}

std::string model_claim_label(const Fitted* f) {
  return f ? "model-predicted L_E (the model's own claim, not a measurement)" : "predicted L_E";
}

void check_fit_trusted(const Fitted& f) {
  const auto& s = f.result.summary;
  if (s.converged() && !s.trusted())
    throw NotConverged("the fitted model " + s.model +
                       " is not trustworthy: " + s.untrusted_reason());
}

}  // namespace isocost::cli
