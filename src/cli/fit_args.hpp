// Internal to the isocost command: the fitting options and the fitted model
// shared by `fit`, `cut --fit` and `plot`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "isocost/fitters/fit.hpp"
#include "isocost/learn_speeds.hpp"
#include "isocost/samples.hpp"

namespace isocost::cli {

/// Fitting options shared by `fit`, `cut --fit` and `plot` (the model and the
/// samples file are options of each command).
struct FitArgs {
  std::string param_guess;       ///< --param-guess NAME=V,…
  std::string loss;              ///< --loss none|huber|cauchy (empty: none)
  std::string select;            ///< --select aicc|cv (empty: aicc; only with --model auto)
  std::string iterations;        ///< --fit-iterations N (empty: FitOptions' default)
  std::string noise;             ///< --noise F (empty: FitOptions' default, 0)
  bool absolute = false;         ///< --absolute
  bool repair = false;           ///< --repair
  bool no_learn_speeds = false;  ///< --no-learn-speeds
};
/// Adds --param-guess, --loss, --absolute, --repair, --select,
/// --fit-iterations, --noise and --no-learn-speeds to `cmd`.
void add_fit_options(CLI::App* cmd, FitArgs& args);

/// A fitted (or selected, or tabulated) model and how it came about.
struct Fitted {
  std::string file;           ///< the samples' files, ", "-separated
  Samples samples;            ///< every file's samples together (as fitted: see `learned`)
  std::vector<Samples> runs;  ///< the runs in them, oldest first (split_runs() of each file)
  bool automatic = false;     ///< --model auto
  SelectBy criterion = SelectBy::aicc;
  FitOptions options;
  bool repair = false;
  FitResult result;
  std::vector<Candidate> candidates;  ///< the table of --model auto, the winner first
  std::string selection_reason;       ///< --model auto: why the winner won
  /// Samples with a rank column (unless --no-learn-speeds): the ranks'
  /// speeds learned from the runs (learn_speeds()). When identifiable,
  /// `samples` and `runs` hold each time multiplied by its rank's speed
  /// (at_unit_speed(): speed-1 costs), which is what was fitted; otherwise
  /// the times as they were.
  std::optional<LearnedSpeeds> learned;
};

/// Checks the model and fit options (before any file is read), reads the
/// samples of every file (several runs: in the order given, the last the
/// newest; every file with a rank column or none), learns the ranks' speeds
/// when they have one (Fitted::learned), and fits `model` ("auto" selects).
/// `options` carries the domain and ranks (a domain is an Error for
/// pchip/makima, which live on the samples' span); the rest comes from
/// `args`. Throws Error naming any bad value.
Fitted fit_samples(const std::vector<std::string>& files, const std::string& model,
                   const FitArgs& args, FitOptions options);

/// The fit as a JSON object (the stable "fit" shape in the README).
nlohmann::ordered_json fit_json(const Fitted& f);
/// The full human report of `isocost fit`.
std::string fit_report(const Fitted& f);
/// One line naming the fitted model, its parameters and its quality on the
/// samples, and a second with the verdict when it is not trusted (for `cut --fit`).
std::string fit_line(const Fitted& f);
/// The label of the model's predicted L_E in `cut`'s text: with a fitted
/// model (`f` not null) it says that this is the model's own claim.
std::string model_claim_label(const Fitted* f);
/// Throws NotConverged (exit 3, after the result was written) when the
/// converged fit is not trusted (FitSummary::untrusted_reason()).
void check_fit_trusted(const Fitted& f);

}  // namespace isocost::cli
