// isocost fit: a cost model from measured samples (Ceres fits, model
// selection, monotone tabulation), and the fitting options that `cut --fit`
// and `plot` share.
#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include "arguments.hpp"
#include "cli.hpp"
#include "fit_args.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/fitters/expression.hpp"
#include "isocost/fitters/fit.hpp"
#include "isocost/learn_speeds.hpp"
#include "isocost/samples.hpp"
#include "json_stream.hpp"
#include "output.hpp"

namespace isocost::cli {

namespace {

const char* kModels =
    "sieve, sieve+c, sieve+q, sieve+c+q, power, poly:N, exp, expr:FORMULA, pchip, makima or auto";

FitLoss parse_loss(const std::string& text) {
  try {
    return parse_fit_loss(text);
  } catch (const Error& e) {
    throw Error("--" + std::string(e.what()));  // its message starts "loss: …"
  }
}

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

// "A=1e-7,p=1.4" → {A: 1e-7, p: 1.4}; names are checked against the model by fit().
std::map<std::string, double> parse_guess(const std::string& text) {
  std::map<std::string, double> out;
  if (text.empty()) return out;
  for (const auto& item : split(text, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error("--param-guess: expected NAME=VALUE, got '" + item + "'");
    const std::string name = item.substr(0, eq);
    if (out.count(name)) throw Error("--param-guess: parameter '" + name + "' given twice");
    out[name] = parse_double(item.substr(eq + 1), "--param-guess " + name);
  }
  return out;
}

bool tabulated(const FitSpec& spec) {
  return spec.form == FitForm::pchip || spec.form == FitForm::makima;
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

nlohmann::ordered_json learned_json(const LearnedSpeeds& l) {
  nlohmann::ordered_json speeds = nlohmann::ordered_json::array();
  nlohmann::ordered_json spread = nlohmann::ordered_json::array();
  for (const double v : l.speeds) speeds.push_back(number(v));
  for (const double v : l.spread)
    spread.push_back(std::isfinite(v) ? number(v) : nlohmann::ordered_json(nullptr));
  return {{"identifiable", l.identifiable},
          {"speeds", speeds},
          {"spread", spread},
          {"rounds", l.rounds},
          {"rounds_dropped", l.rounds_dropped},
          {"misfit", number(l.misfit)},
          {"message", l.message}};
}

std::optional<int> balance_ranks(const Fitted& f) {
  if (!f.result.summary.le_on_samples) return std::nullopt;
  return f.result.summary.balance_ranks;
}

struct FitCommandArgs {
  std::vector<std::string> files;
  std::string model;
  std::string ranks;
  std::string output;
  FitArgs fit;
  bool json = false;
};

void run(const FitCommandArgs& a) {
  FitOptions options;
  if (!a.ranks.empty()) options.ranks = parse_count(a.ranks, "--ranks", "parts");
  const Fitted f = fit_samples(a.files, a.model, a.fit, options);
  std::string text;
  if (a.json) {
    nlohmann::ordered_json j = {{"command", "fit"}};
    const auto body = fit_json(f);
    for (const auto& [key, value] : body.items()) j[key] = value;
    text = json_text(j) + "\n";
  } else {
    text = fit_report(f);
  }
  emit(text, a.output);
  if (!f.result.converged())
    throw NotConverged("the fit of " + f.result.summary.model +
                       " did not converge: " + f.result.summary.message);
  check_fit_trusted(f);
}

}  // namespace

void add_fit_options(CLI::App* cmd, FitArgs& args) {
  cmd->add_option(
      "--param-guess", args.param_guess,
      "starting values NAME=VALUE,… (sieve A,p,c, and q to fix it; power A,p; exp A,b; poly:N "
      "c1..cN; expr: the formula's parameters)");
  // The defaults shown are the library's (FitOptions, SelectOptions).
  const FitOptions fit_defaults;
  const SelectOptions select_defaults;
  cmd->add_option(
      "--loss", args.loss,
      "robust loss: " + choices_text({"none", "huber", "cauchy"}, to_string(fit_defaults.loss)));
  cmd->add_flag("--absolute", args.absolute,
                "absolute residuals (in units of the mean dt) instead of relative ones");
  cmd->add_flag("--repair", args.repair,
                "repair decreasing cumulative samples by isotonic regression instead of failing");
  cmd->add_option("--fit-iterations", args.iterations,
                  "Ceres iteration budget of each fit (default " +
                      std::to_string(fit_defaults.max_iterations) + ")");
  cmd->add_option("--noise", args.noise,
                  "how far each timing may be off, a fraction in [0, 1), for the balance the "
                  "samples guarantee (default 0: exact timings)");
  cmd->add_flag("--no-learn-speeds", args.no_learn_speeds,
                "samples with a rank column: fit the times as they are, without learning the "
                "ranks' speeds from the runs first");
  const auto criterion = [&](SelectBy c, const std::string& what) {
    return std::string(to_string(c)) + " (" + (c == select_defaults.criterion ? "default: " : "") +
           what + ")";
  };
  cmd->add_option("--select", args.select,
                  "how --model auto ranks candidates: " +
                      criterion(SelectBy::cross_validation,
                                std::to_string(select_defaults.folds) +
                                    "-fold cross-validation of how each merged pair of samples "
                                    "splits; pchip and makima compete") +
                      " or " +
                      criterion(SelectBy::aicc,
                                "parametric forms by AICc, the winner then meets pchip and "
                                "makima"));
}

Fitted fit_samples(const std::vector<std::string>& files, const std::string& model,
                   const FitArgs& args, FitOptions options) {
  // Everything on the command line is checked before the file is read.
  const bool automatic = model == "auto";
  FitSpec spec;
  if (!automatic) {
    try {
      spec = parse_fit_spec(model);
    } catch (const Error& e) {
      // An unknown name: the option also takes auto. Other messages name the model.
      const std::string what = e.what();
      if (what.rfind("model: expected ", 0) == 0)
        throw Error(detail::expected_got("--model", kModels, detail::quote(model)));
      throw Error("--model: " + what + " (or auto)");
    }
    if (spec.form == FitForm::expression) {
      try {
        Expression check(spec.expression);
      } catch (const Error& e) {
        throw Error("--model expr: " + std::string(e.what()));
      }
    }
  }
  spec.guess = parse_guess(args.param_guess);
  if (!spec.guess.empty()) {
    if (automatic)
      throw Error(
          "--param-guess: not used with --model auto (each candidate starts from its own "
          "documented values)");
    try {
      validate_fit_spec(spec);  // its messages start "guess: …"
    } catch (const Error& e) {
      throw Error("--param-" + std::string(e.what()));
    }
  }
  if (!args.loss.empty()) options.loss = parse_loss(args.loss);
  if (!args.iterations.empty())
    options.max_iterations = parse_int(args.iterations, "--fit-iterations", 1);
  if (!args.noise.empty()) {
    options.noise = parse_double(args.noise, "--noise");
    if (!(options.noise >= 0 && options.noise < 1))
      throw Error(detail::expected_got("--noise", "a fraction in [0, 1)", args.noise));
  }
  options.relative = !args.absolute;
  SelectBy criterion = SelectOptions{}.criterion;
  if (!args.select.empty()) {
    if (!automatic)
      throw Error("--select " + args.select + ": only used with --model auto, not " + model);
    if (args.select == "aicc")
      criterion = SelectBy::aicc;
    else if (args.select != "cv")
      throw Error(detail::expected_got("--select", "aicc or cv", detail::quote(args.select)));
  }
  if (!automatic && tabulated(spec)) {
    if (options.lo || options.hi)
      throw Error("--domain: model " + spec.name() +
                  " interpolates the samples and lives on their span; drop --domain");
    if (options.loss != FitLoss::none)
      throw Error("--loss " + loss_name(options.loss) + ": model " + spec.name() +
                  " interpolates the samples; there is no fit to make robust");
  }
  options.validate();

  std::string file;
  Samples samples;
  std::vector<Samples> runs;
  for (const std::string& name : files) {
    Samples one = read_samples(name, args.repair);
    if (samples.size() > 0 && one.ranked() != samples.ranked())
      throw Error(name + ": " +
                  (one.ranked() ? "has a rank column, but " : "has no rank column, but ") +
                  files.front() + (one.ranked() ? " has none" : " has one") +
                  ": give every file a rank column or none");
    for (Samples& run : split_runs(one)) runs.push_back(std::move(run));
    samples = samples.merged(one);
    file += (file.empty() ? "" : ", ") + name;
  }
  // Times measured on ranks of unknown speeds: the speeds from the runs,
  // then the times as the costs a rank of speed 1 would have measured.
  std::optional<LearnedSpeeds> learned;
  if (samples.ranked() && !args.no_learn_speeds) {
    learned = learn_speeds(runs);
    if (learned->identifiable) {
      samples = at_unit_speed(samples, learned->speeds);
      for (Samples& run : runs) run = at_unit_speed(run, learned->speeds);
    }
  }
  std::vector<Candidate> candidates;
  std::string selection_reason;
  auto in_file = [&](const Error& e) {
    const std::string what = e.what();
    for (const std::string& name : files)
      if (what.rfind(name, 0) == 0) return what;
    return file + ": " + what;
  };
  if (automatic) {
    SelectOptions select;
    select.criterion = criterion;
    Selection sel = [&] {
      try {
        return select_model(samples, select, options);
      } catch (const ParseError&) {
        throw;
      } catch (const Error& e) {
        throw Error(in_file(e));
      }
    }();
    candidates = std::move(sel.candidates);
    // The winner first (the margin rule may choose an interpolant over a form
    // with a lower score), then by score; rows without a score (interpolants
    // under AICc) after those with one; failures last.
    const std::string winner = sel.best.summary.model;
    auto rank = [&](const Candidate& c) {
      return !c.ok ? 3 : c.model == winner ? 0 : std::isfinite(c.score) ? 1 : 2;
    };
    std::stable_sort(candidates.begin(), candidates.end(), [&](const auto& x, const auto& y) {
      if (rank(x) != rank(y)) return rank(x) < rank(y);
      return rank(x) == 1 && x.score < y.score;
    });
    selection_reason = sel.reason;
    return Fitted{file,
                  std::move(samples),
                  std::move(runs),
                  true,
                  criterion,
                  options,
                  args.repair,
                  std::move(sel.best),
                  std::move(candidates),
                  std::move(selection_reason),
                  std::move(learned)};
  }
  FitResult result = [&] {
    try {
      return fit(runs, spec, options);
    } catch (const ParseError&) {
      throw;
    } catch (const Error& e) {
      throw Error(in_file(e));
    }
  }();
  return Fitted{file,        std::move(samples), std::move(runs),
                false,       criterion,          options,
                args.repair, std::move(result),  {},
                {},          std::move(learned)};
}

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
  if (f.learned) j["learned_speeds"] = learned_json(*f.learned);  // only for ranked samples
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

void add_fit_command(CLI::App& app) {
  auto args = std::make_shared<FitCommandArgs>();
  auto* cmd = app.add_subcommand(
      "fit", "Fit a cost model t(x) to measured samples (x,t or lo,hi,dt rows; CSV or JSON)");
  cmd->add_option("file", args->files,
                  "samples files: several runs (the newest last) are fitted together; "
                  "pchip/makima merge them (docs/cli.md)")
      ->required();
  cmd->add_option("--model", args->model, kModels)->required();
  add_fit_options(cmd, args->fit);
  cmd->add_option("--ranks", args->ranks,
                  "ranks for the L_E of the fitted partition on the samples (default: one per "
                  "sample when they tile the domain)");
  cmd->add_flag("--json", args->json, "print JSON instead of a report");
  add_output_and_run(cmd, args->output, [args] { run(*args); });
}

}  // namespace isocost::cli
