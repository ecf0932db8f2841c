// isocost cut: one-dimensional partition of a cost model over P ranks.
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "cli.hpp"
#include "distributed.hpp"
#include "fit_args.hpp"
#include "isocost/cost_model.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/io.hpp"
#include "isocost/metrics.hpp"
#include "isocost/partition.hpp"
#include "json_stream.hpp"
#include "mpi_world.hpp"
#include "output.hpp"

namespace isocost::cli {

namespace {

// The solver's defaults are the library's (PartitionOptions), as text: the
// help shows them and run() parses them like given values.
const CutOptions kCutDefaults = PartitionOptions{}.cut;

struct CutArgs {
  std::string model = "sieve";
  std::string params;
  std::string domain;
  std::string ranks;
  std::string speeds;
  std::string node_types;
  std::string method{to_string(kCutDefaults.method)};
  std::string samples;
  std::string weights;
  std::string output;
  std::string cost_tolerance = default_text(kCutDefaults.cost_tolerance);
  std::string x_tolerance = default_text(kCutDefaults.x_tolerance);
  std::string max_iterations = std::to_string(kCutDefaults.max_iterations);
  std::vector<std::string> fit_files;  // --fit FILE...: fit --model to these samples first
  FitArgs fit;
  bool integer = false;
  bool optimal = false;  // --optimal: the chains-on-chains optimum of the weights
  bool json = false;
};

double parse_nonnegative(const std::string& text, const std::string& what) {
  const double v = parse_double(text, what);
  if (v < 0) throw Error(what + ": expected a number >= 0, got '" + text + "'");
  return v;
}

CostModel build_model(const CutArgs& a) {
  return build_cost_model({a.model, a.params, a.domain, a.samples, a.weights});
}

Speeds build_speeds(const CutArgs& a) {
  const std::optional<Speeds> s = parse_speeds(a.speeds, a.node_types);
  if (s) {
    if (!a.ranks.empty() && parse_count(a.ranks, "--ranks", "parts") != s->ranks())
      throw Error("--ranks " + a.ranks + " does not match the " + std::to_string(s->ranks()) +
                  " ranks given by " + (a.speeds.empty() ? "--node-types" : "--speeds"));
    return *s;
  }
  if (a.ranks.empty()) throw Error("--ranks is required (or give --speeds / --node-types)");
  return Speeds::uniform(parse_count(a.ranks, "--ranks", "parts"));
}

int converged_cuts(const Partition& part) {
  int n = 0;
  for (const auto& s : part.summaries) n += s.converged() ? 1 : 0;
  return n;
}

std::string format_x(double x, bool integer) {
  return integer ? detail::fixed_digits(x, 17) : detail::fixed_digits(x, 12);
}

// What the output says of the model: the model's own words, or, for the
// distributed form, those of the discrete model no rank holds whole.
struct ModelInfo {
  std::string kind, description;
  double lo = 0, hi = 0, total = 0;
};

ModelInfo info_of(const CostModel& m) {
  return {m.kind(), m.describe(), m.lo(), m.hi(), m.total()};
}

// --fit FILE: the model is fitted (or selected, or tabulated) from samples;
// `ranks` for its balance lines (0: as `isocost fit` without --ranks).
Fitted fit_model(const CutArgs& a, int ranks) {
  if (!a.params.empty())
    throw Error("--param sets the parameters of a given model; with --fit use --param-guess");
  if (!a.samples.empty()) throw Error("--samples and --fit both given; use --fit FILE");
  if (!a.weights.empty()) throw Error("--weights is for --model discrete, not with --fit");
  FitOptions options;
  if (!a.domain.empty()) {
    const auto [lo, hi] = parse_domain(a.domain);
    options.lo = lo;
    options.hi = hi;
  }
  options.ranks = ranks;
  return fit_samples(a.fit_files, a.model, a.fit, options);
}

// --fit samples with a rank column and neither --speeds nor --node-types:
// the speeds learned from their runs are the ranks'; otherwise --ranks
// ranks of speed 1.
Speeds speeds_of_fit(const CutArgs& a, const Fitted& f) {
  if (f.learned && f.learned->identifiable) {
    const int P = static_cast<int>(f.learned->speeds.size());
    if (!a.ranks.empty() && parse_count(a.ranks, "--ranks", "parts") != P)
      throw Error("--ranks " + a.ranks + " does not match the " + std::to_string(P) +
                  " ranks whose speeds were learned from the rank column of the --fit samples; "
                  "drop --ranks, or give --speeds / --node-types");
    return Speeds::from_values(f.learned->speeds);
  }
  if (a.ranks.empty())
    throw Error(
        "--ranks is required (or give --speeds / --node-types, or --fit samples of several runs "
        "with a rank column)");
  return Speeds::uniform(parse_count(a.ranks, "--ranks", "parts"));
}

void reject_fit_options(const CutArgs& a) {
  const auto& f = a.fit;
  const char* given = !f.param_guess.empty()  ? "--param-guess"
                      : !f.loss.empty()       ? "--loss"
                      : !f.select.empty()     ? "--select"
                      : !f.iterations.empty() ? "--fit-iterations"
                      : f.absolute            ? "--absolute"
                      : f.repair              ? "--repair"
                      : !f.noise.empty()      ? "--noise"
                                              : nullptr;
  if (given) throw Error(std::string(given) + " is for fitting: use it with --fit FILE");
}

void write_result(const CutArgs& a, const ModelInfo& model, const Fitted* fitted,
                  const Partition& part, const Speeds& speeds, const PartitionOptions& options) {
  const int P = part.ranks();
  const bool show_speed = !speeds.is_uniform();

  if (a.json) {
    // Streamed: the per-part arrays are written one element at a time.
    const auto time_stats = load_stats(part.time);
    // The parts' times in the LoadStats form, with the makespan and speedup.
    nlohmann::ordered_json predicted = time_stats;
    predicted["makespan"] = time_stats.max;
    predicted["speedup"] = part.total_cost / time_stats.max;
    const auto write = [&](std::ostream& out) {
      JsonStream j(out);
      j.member("command", "cut");
      j.member("model", {{"kind", model.kind},
                         {"description", model.description},
                         {"lo", model.lo},
                         {"hi", model.hi},
                         {"total_cost", model.total}});
      if (fitted) j.member("fit", fit_json(*fitted));  // "fit" goes right after "model"
      j.member("ranks", P);
      j.member("method", to_string(options.cut.method));
      j.member("integer", part.integer);
      j.member("optimal", a.optimal);
      // One element object, refilled per part: its keys are allocated once.
      nlohmann::ordered_json e = {{"rank", 0},   {"lo", 0.0},    {"hi", 0.0},   {"speed", 0.0},
                                  {"cost", 0.0}, {"share", 0.0}, {"time", 0.0}, {"iterations", 0}};
      j.array("parts", static_cast<std::size_t>(P),
              [&](std::size_t i) -> const nlohmann::ordered_json& {
                e["rank"] = i;
                e["lo"] = part.cuts[i];
                e["hi"] = part.cuts[i + 1];
                e["speed"] = speeds.speed(static_cast<int>(i));
                e["cost"] = part.cost[i];
                e["share"] = part.cost[i] / part.total_cost;
                e["time"] = part.time[i];
                e["iterations"] = part.summaries[i + 1].iterations;
                return e;
              });
      e = {{"index", 0},           {"x", 0.0},         {"solved_x", 0.0},
           {"target", 0.0},        {"residual", 0.0},  {"iterations", 0},
           {"evaluations", 0},     {"method", ""},     {"fallback", ""},
           {"bisection_steps", 0}, {"termination", ""}};
      j.array("cuts", static_cast<std::size_t>(P) + 1,
              [&](std::size_t i) -> const nlohmann::ordered_json& {
                const auto& s = part.summaries[i];
                e["index"] = i;
                e["x"] = part.cuts[i];
                e["solved_x"] = s.x;
                e["target"] = s.target;
                e["residual"] = s.residual;
                e["iterations"] = s.iterations;
                e["evaluations"] = s.evaluations;
                e["method"] = to_string(s.used);
                e["fallback"] = to_string(s.fallback);
                e["bisection_steps"] = s.bisection_steps;
                e["termination"] = to_string(s.termination);
                return e;
              });
      j.member("predicted", predicted);
      j.member("solver", {{"max_iterations", part.max_iterations},
                          {"max_abs_residual", part.max_abs_residual},
                          {"fallbacks", part.fallbacks},
                          {"converged", part.converged()}});
      j.finish();
    };
    emit_to(a.output, write);
  } else {
    std::vector<std::string> header{"rank", "lo", "hi"};
    if (show_speed) header.push_back("speed");
    header.insert(header.end(), {"cost", "share %"});
    if (show_speed) header.push_back("time");
    header.push_back("iters");
    auto row = [&](std::size_t r) {
      const int i = static_cast<int>(r);
      std::vector<std::string> cells{std::to_string(i), format_x(part.cuts[i], part.integer),
                                     format_x(part.cuts[i + 1], part.integer)};
      if (show_speed) cells.push_back(detail::fixed_digits(speeds.speed(i), 6));
      cells.push_back(detail::fixed_digits(part.cost[i], 8));
      cells.push_back(detail::fixed_digits(100 * part.cost[i] / part.total_cost, 6));
      if (show_speed) cells.push_back(detail::fixed_digits(part.time[i], 8));
      cells.push_back(std::to_string(part.summaries[i + 1].iterations));
      return cells;
    };
    std::string head = fitted ? fit_line(*fitted) : std::string();
    head += "model: " + model.description + " on [" + format_x(model.lo, false) + ", " +
            format_x(model.hi, false) + "]\n";
    head += std::to_string(P) + " ranks, method " + std::string(to_string(options.cut.method)) +
            (part.integer ? ", integer ranges [lo, hi)" : "") +
            (a.optimal ? ", optimal (the least possible heaviest part)" : "") +
            ", total cost TT = " + detail::fixed_digits(part.total_cost, 10) + "\n\n";
    const auto time_stats = load_stats(part.time);
    std::string tail =
        "\n" + model_claim_label(fitted) + " = " + detail::fixed_digits(time_stats.le, 10) +
        " %, speedup = " + detail::fixed_digits(part.total_cost / time_stats.max, 8) + "\n";
    tail += "solver: max |t(x_i) - target_i| = " +
            detail::fixed_digits(part.max_abs_residual / part.total_cost, 3) +
            " TT, max iterations " + std::to_string(part.max_iterations) + ", fallbacks " +
            std::to_string(part.fallbacks) +
            (part.converged() ? ", all cuts converged" : ", NOT ALL CUTS CONVERGED") + "\n";
    // The table is streamed (one row at a time), as the JSON is.
    emit_to(a.output, [&](std::ostream& out) {
      out << head;
      write_table(out, header, static_cast<std::size_t>(P), row);
      out << tail;
    });
  }
  if (fitted && !fitted->result.converged())
    throw NotConverged("the fit of " + fitted->result.summary.model +
                       " did not converge: " + fitted->result.summary.message);
  if (!part.converged())
    throw NotConverged(std::to_string(part.ranks() + 1 - converged_cuts(part)) +
                       " cut(s) did not reach the tolerance within --max-iterations " +
                       a.max_iterations + "; see \"termination\" in --json");
  if (fitted) check_fit_trusted(*fitted);
}

// Under mpiexec, discrete weights are read and cut on every rank
// (distributed.hpp); the output is the serial form's.
void run_distributed(const CutArgs& a, PartitionOptions options) {
  reject_fit_options(a);
  check_model_args({a.model, a.params, a.domain, a.samples, a.weights});
  const Speeds speeds = build_speeds(a);
  const DistributedCut d = distributed_cut(a.weights, speeds, a.optimal);
  options.integer = true;
  const ModelInfo info{"discrete", detail::discrete_description(d.cells), 0,
                       static_cast<double>(d.cells), d.part.total_cost};
  write_result(a, info, nullptr, d.part, speeds, options);
}

void run(const CutArgs& a) {
  // Under mpiexec discrete weights are cut on every rank, every other model
  // on rank 0 alone.
  const bool distributed = launched_by_mpi() && a.model == "discrete" && a.fit_files.empty();
  if (!distributed) serial_section();
  // Validate and compute everything before the first byte of output.
  PartitionOptions options;
  options.cut.method = parse_cut_method(a.method);
  options.cut.cost_tolerance = parse_nonnegative(a.cost_tolerance, "--cost-tolerance");
  options.cut.x_tolerance = parse_nonnegative(a.x_tolerance, "--x-tolerance");
  options.cut.max_iterations = parse_int(a.max_iterations, "--max-iterations", 1);
  options.cut.validate();
  options.integer = a.integer;
  if (distributed) return run_distributed(a, options);
  std::optional<CostModel> given;
  if (a.fit_files.empty()) {
    reject_fit_options(a);
    given = build_model(a);
  }
  // Speeds given, or none needed, are checked before any file is read;
  // those of --fit samples are known only after them.
  const bool speeds_from_fit = !a.fit_files.empty() && a.speeds.empty() && a.node_types.empty();
  std::optional<Fitted> fitted;
  const Speeds speeds = [&] {
    if (!speeds_from_fit) {
      Speeds given_speeds = build_speeds(a);
      if (!a.fit_files.empty()) fitted = fit_model(a, given_speeds.ranks());
      return given_speeds;
    }
    fitted = fit_model(a, a.ranks.empty() ? 0 : parse_count(a.ranks, "--ranks", "parts"));
    return speeds_of_fit(a, *fitted);
  }();
  if (fitted && !fitted->result.model)  // nothing to cut: the request cannot be met
    throw Error("the fit of " + fitted->result.summary.model +
                " failed: " + fitted->result.summary.message);
  const CostModel model = fitted ? *fitted->result.model : *given;
  if (a.optimal && !model.is_discrete())
    throw Error("--optimal needs per-cell weights (--model discrete --weights FILE), got --model " +
                model.kind());
  const Partition part = [&] {
    try {
      // --optimal: the least possible heaviest part in place of the
      // nearest-target cuts.
      return a.optimal ? partition_optimal(model, speeds, options)
                       : partition(model, speeds, options);
    } catch (const std::bad_alloc&) {
      throw Error("out of memory for a partition into " + std::to_string(speeds.ranks()) +
                  " parts (--ranks/--speeds/--node-types)");
    }
  }();
  write_result(a, info_of(model), fitted ? &*fitted : nullptr, part, speeds, options);
}

}  // namespace

void add_cut_command(CLI::App& app) {
  auto args = std::make_shared<CutArgs>();
  auto* cmd = app.add_subcommand(
      "cut", "Cut a 1-D domain so that every rank gets the same cost (Swartz eq. 1)");
  cmd->add_option("--model", args->model,
                  "sieve | power | polynomial | pchip | makima | linear | discrete; with --fit: "
                  "sieve | sieve+c | power | poly:N | exp | expr:FORMULA | pchip | makima | auto")
      ->capture_default_str();
  cmd->add_option("--fit", args->fit_files,
                  "fit --model to these samples (x,t or lo,hi,dt; CSV or JSON) and cut the "
                  "fitted model; the domain defaults to the samples' span. Several files "
                  "(runs, the newest last) are fitted together; pchip/makima merge them");
  add_fit_options(cmd, args->fit);
  const SieveParams sieve;  // Swartz eq. 4, the library's default
  cmd->add_option("--param", args->params,
                  "model parameters NAME=VALUE,…: sieve A,p,c,q (A*x^p/(ln x - c)^q; default "
                  "Swartz eq. 4: A=" +
                      default_text(sieve.A) + ",p=" + default_text(sieve.p) +
                      ",c=" + default_text(sieve.c) + ",q=" + default_text(sieve.q) +
                      "); power A,p,B; polynomial c0,c1,…");
  cmd->add_option("--domain", args->domain,
                  "domain LO:HI (sieve, power, polynomial; with --fit: overrides the samples' "
                  "span)");
  cmd->add_option("--samples", args->samples, "cumulative samples x,t (pchip, makima, linear)");
  cmd->add_option("--weights", args->weights, "per-cell weights, one per line (discrete)");
  cmd->add_option("--ranks", args->ranks, "number of ranks P");
  cmd->add_option("--speeds", args->speeds, "relative speed per rank, e.g. 1,1,3");
  cmd->add_option("--node-types", args->node_types,
                  "Swartz §4 node types COUNTxR,… (R = time on type 1 / time on this type)");
  cmd->add_option("--method", args->method, "newton | secant | bisection | toms748")
      ->capture_default_str();
  cmd->add_flag("--integer", args->integer, "integer domain: ranks own integer ranges [lo, hi)");
  cmd->add_flag("--optimal", args->optimal,
                "discrete weights: the least possible heaviest part per speed (chains-on-chains), "
                "every part non-empty when ranks <= cells, instead of the nearest-target cuts");
  cmd->add_option("--cost-tolerance", args->cost_tolerance,
                  "stop when |t(x) - target| <= this * (cost of the smaller part next to the cut)")
      ->capture_default_str();
  cmd->add_option("--x-tolerance", args->x_tolerance,
                  "stop when the root is bracketed this tightly")
      ->capture_default_str();
  cmd->add_option("--max-iterations", args->max_iterations, "iteration budget per cut")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "print JSON instead of a table");
  add_output_and_run(
      cmd, args->output, [args] { run(*args); }, true);
}

}  // namespace isocost::cli
