// isocost fit: a cost model from measured samples (Ceres fits, model
// selection, monotone tabulation), and the fitting options that `cut --fit`
// and `plot` share; the fit's output is fit_output.cpp's.
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
      throw Error("--loss " + std::string(to_string(options.loss)) + ": model " + spec.name() +
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
      learned->used = true;  // the fit is of speed-1 costs
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
