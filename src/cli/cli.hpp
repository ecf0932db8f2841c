// Internal to the isocost command: subcommand registration and shared output.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/fitters/fit.hpp"
#include "isocost/metrics.hpp"
#include "isocost/partition.hpp"
#include "isocost/samples.hpp"

namespace isocost::cli {

/// The result was written, but not every cut reached its tolerance: exit code 3.
struct NotConverged : Error {
  using Error::Error;
};
/// Standard output could not be written: exit code 1.
struct OutputFailed : Error {
  using Error::Error;
};

/// The isocost command: builds the app, parses argv, runs the chosen command
/// and returns the process exit code (app.cpp; main() only calls it).
int run(int argc, char** argv);

/// Adds `isocost cut` to the app; the callback runs the command.
void add_cut_command(CLI::App& app);
/// Adds `isocost metrics` to the app.
void add_metrics_command(CLI::App& app);
/// Adds `isocost fit` to the app.
void add_fit_command(CLI::App& app);
/// Adds `isocost plot` to the app.
void add_plot_command(CLI::App& app);
/// Adds `isocost partition` to the app.
void add_partition_command(CLI::App& app);
/// Adds `isocost diffuse` to the app.
void add_diffuse_command(CLI::App& app);

/// A density and its partition as typed on the command line, shared by
/// `partition` and the heat-map mode of `plot` (all fields are raw text).
struct DensityArgs {
  std::string formula;     ///< --density FORMULA
  std::string box;         ///< --box LO:HI,LO:HI[,LO:HI]
  std::string weights;     ///< --weights FILE
  std::string shape;       ///< --shape NXxNY[xNZ]
  std::string quadrature;  ///< --quadrature gauss_kronrod|tanh_sinh
  std::string tolerance;   ///< --tolerance T
  std::string grid;        ///< --grid PXxPY[xPZ]|auto
  std::string order;       ///< --order xy|yx|xyz|…
  std::string ranks;       ///< --ranks P
  std::string speeds;      ///< --speeds S,…
  std::string node_types;  ///< --node-types NxR,…
  std::string min_width;   ///< --min-width W[,W[,W]]
  std::string method;      ///< --method newton|secant|bisection|toms748
};
/// Adds the options of DensityArgs to `cmd`; `ranks_help` describes --ranks.
void add_density_options(CLI::App* cmd, DensityArgs& args, const std::string& ranks_help);
/// True if --density or --weights was given.
bool density_given(const DensityArgs& args);

/// DensityArgs checked and parsed; nothing has been read or computed yet.
struct DensityRequest {
  int dims = 2;
  bool gridded = false;  ///< --weights (else --density)
  Box box;               ///< --density: the domain
  GridShape shape;       ///< --weights: the cells
  DensityOptions density_options;
  bool partition = false;        ///< a partition was asked for (--grid, --ranks or speeds)
  bool automatic = false;        ///< --grid auto (or no --grid): choose_process_grid()
  ProcessGrid grid;              ///< the given grid, levels in --order
  std::optional<Speeds> speeds;  ///< set whenever `partition` is
  DecomposeOptions options;
};
/// Checks every field of `args` (an Error names the first bad value). With
/// `need_partition`, a missing --grid/--ranks/--speeds is an Error; otherwise
/// it just means "no partition".
DensityRequest parse_density_request(const DensityArgs& args, bool need_partition);
/// Builds the density: expression_density for --density, read_grid_density
/// for --weights.
Density build_density(const DensityArgs& args, const DensityRequest& request);
/// decompose() for a given grid, choose_process_grid() for --grid auto.
Decomposition partition_density(const Density& density, const DensityRequest& request);

/// Fitting options shared by `fit`, `cut --fit` and `plot` (the model and the
/// samples file are options of each command).
struct FitArgs {
  std::string param_guess;  ///< --param-guess NAME=V,…
  std::string loss;         ///< --loss none|huber|cauchy (empty: none)
  std::string select;       ///< --select aicc|cv (empty: aicc; only with --model auto)
  std::string iterations;   ///< --fit-iterations N (empty: FitOptions' default)
  bool absolute = false;    ///< --absolute
  bool repair = false;      ///< --repair
};
/// Adds --param-guess, --loss, --absolute, --repair, --select and
/// --fit-iterations to `cmd`.
void add_fit_options(CLI::App* cmd, FitArgs& args);

/// A fitted (or selected, or tabulated) model and how it came about.
struct Fitted {
  std::string file;
  Samples samples;
  bool automatic = false;  ///< --model auto
  SelectBy criterion = SelectBy::aicc;
  FitOptions options;
  bool repair = false;
  FitResult result;
  std::vector<Candidate> candidates;  ///< the table of --model auto, the winner first
  std::string selection_reason;       ///< --model auto: why the winner won
};

/// Checks the model and fit options (before any file is read), reads the
/// samples, and fits `model` ("auto" selects). `options` carries the domain and
/// ranks (a domain is an Error for pchip/makima, which live on the samples'
/// span); the rest comes from `args`. Throws Error naming any bad value.
Fitted fit_samples(const std::string& file, const std::string& model, const FitArgs& args,
                   FitOptions options);

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

/// Parses an integer >= min from a whole command-line field; throws Error
/// naming `what` otherwise.
int parse_int(const std::string& text, const std::string& what, int min);
/// Parses a count of parts or ranks, an integer in [1, kMaxParts] (limits.hpp);
/// above the limit the Error names the value, the limit and `unit`.
int parse_count(const std::string& text, const std::string& what, const std::string& unit);

/// Adds -o/--output (bound to `output`) and sets the command's callback to
/// `run`, rejecting an empty file name first. Under mpiexec `run` runs on
/// rank 0 alone (serial_section()) unless `distributed`: then on every rank,
/// and it calls serial_section() itself for its forms that are not.
void add_output_and_run(CLI::App* cmd, std::string& output, std::function<void()> run,
                        bool distributed = false);

/// Right-aligned text table with a header row.
std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows);
/// The same table streamed to `out`, row r's cells given by `row(r)` for
/// r < n (called twice per row: widths, then output), so that its memory is
/// O(1) per row.
void write_table(std::ostream& out, const std::vector<std::string>& header, std::size_t n,
                 const std::function<std::vector<std::string>(std::size_t)>& row);

/// Writes the finished result: to stdout when `path` is empty or "-",
/// otherwise with detail::write_atomically() (a temporary renamed over a
/// regular file; devices, FIFOs and /dev/stdout written directly; symbolic
/// links kept), so a failure never leaves a partial file behind.
void emit(const std::string& text, const std::string& path);
/// As emit(), but the result is streamed by `write` (large JSON and tables
/// never exist whole in memory).
void emit_to(const std::string& path, const std::function<void(std::ostream&)>& write);

/// A double for JSON: null when not finite.
nlohmann::ordered_json number(double value);

/// Parses a finite double from a whole command-line field; throws Error naming
/// `what` otherwise.
double parse_double(const std::string& text, const std::string& what);
/// Speeds from --speeds S,… or --node-types NxR,… (Swartz §4); empty when
/// neither is given; Error when both are, or for a bad entry.
std::optional<Speeds> parse_speeds(const std::string& speeds, const std::string& node_types);

/// A 1-D cost model as typed on the command line (`isocost cut`'s model
/// options; all fields raw text).
struct ModelArgs {
  std::string model;    ///< --model sieve|power|polynomial|pchip|makima|linear|discrete
  std::string params;   ///< --param NAME=VALUE,…
  std::string domain;   ///< --domain LO:HI
  std::string samples;  ///< --samples FILE (pchip, makima, linear)
  std::string weights;  ///< --weights FILE (discrete: one per line, or raw ISOCOSTW)
};
/// Builds the model, rejecting options that do not fit it; Error names the
/// first bad value.
CostModel build_cost_model(const ModelArgs& args);
/// build_cost_model()'s checks of the options alone: nothing is read.
void check_model_args(const ModelArgs& args);
/// Parses --domain LO:HI.
std::pair<double, double> parse_domain(const std::string& text);

/// Splits "a,b,c" on commas.
std::vector<std::string> split(const std::string& text, char separator);

/// A number of the commands' output: `v` with `digits` significant digits,
/// %g style (detail::fixed_digits); g8 and g10 the two usual precisions.
inline std::string g(double v, int digits) { return detail::fixed_digits(v, digits); }
inline std::string g8(double v) { return g(v, 8); }
inline std::string g10(double v) { return g(v, 10); }

}  // namespace isocost::cli
