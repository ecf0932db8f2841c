// isocost diffuse: diffusive load balancing on a mesh or a process graph
// (Watts ch. 2, Eijkhout §2), Pearce's diffusion simulator (Alg. 2), the
// transfers of a chain of ranks applied to a 1-D partition (shift.hpp), and
// task selection (tasks.hpp). This file checks which options go together and
// dispatches; each mode is its own diffuse_*.cpp (diffuse.hpp).
#include <cmath>
#include <memory>

#include "arguments.hpp"
#include "cli.hpp"
#include "diffuse.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/io.hpp"
#include "isocost/metrics.hpp"
#include "isocost/tasks.hpp"
#include "output.hpp"

namespace isocost::cli {

namespace diffuse {

namespace {

// "8x8" → {8, 8}.
std::vector<int> parse_mesh(const std::string& text) {
  std::vector<int> dims;
  for (const auto& part : split(text, 'x')) {
    double v = 0;
    if (!detail::parse_number(part, v) || v != std::floor(v) || v < 1 || v > 1e8)
      throw Error("--mesh: expected dimensions like 8x8 or 4x4x4 (each >= 1), got '" + text + "'");
    dims.push_back(static_cast<int>(v));
  }
  if (dims.size() > 3)
    throw Error("--mesh: expected 1 to 3 dimensions, got " + std::to_string(dims.size()) + " in '" +
                text + "'");
  return dims;
}

// The options that only some modes take.
void reject(bool given, const std::string& option, const std::string& why) {
  if (given) throw Error(option + " " + why);
}

void run(const Args& a) {
  const bool cuts_mode = !a.cuts.empty();
  const ModelArgs& m = a.model;
  const bool model_given = !m.model.empty() || !m.params.empty() || !m.domain.empty() ||
                           !m.samples.empty() || !m.weights.empty();
  // Which options go together, before any file is read.
  const bool tasks_mode = !a.tasks.empty();
  if (tasks_mode) {
    reject(!a.loads.empty(), "--loads",
           "does not apply with --tasks (the loads are the tasks' sums)");
    reject(cuts_mode, "--cuts", "does not apply with --tasks");
    reject(a.simulate, "--simulate", "does not apply with --tasks");
  } else {
    if (a.loads.empty())
      throw Error("--loads FILE is required (one load per rank), or --tasks FILE");
    reject(!a.selection.empty(), "--selection", "is for --tasks FILE");
    reject(!a.exhaustive_limit.empty(), "--exhaustive-limit", "is for --tasks FILE");
    reject(!a.trim_epsilon.empty(), "--trim-epsilon", "is for --tasks FILE");
  }
  if (cuts_mode) {
    reject(!a.mesh.empty(), "--mesh", "does not apply with --cuts (the ranks form a chain)");
    reject(!a.graph.empty(), "--graph", "does not apply with --cuts (the ranks form a chain)");
    reject(a.torus, "--torus", "does not apply with --cuts (the ranks form a chain)");
    reject(a.simulate, "--simulate", "does not apply with --cuts");
    reject(!a.elements.empty(), "--elements", "is for --simulate");
    reject(!a.gamma.empty(), "--gamma", "is for --simulate (--max-move caps the cuts' moves)");
    if (m.model.empty())
      throw Error(
          "--cuts needs --model (sieve, power, polynomial, pchip, makima, linear or "
          "discrete) and its options");
  } else {
    reject(model_given,
           !m.model.empty()     ? "--model"
           : !m.params.empty()  ? "--param"
           : !m.domain.empty()  ? "--domain"
           : !m.samples.empty() ? "--samples"
                                : "--weights",
           "is for --cuts FILE (a 1-D partition)");
    reject(!a.min_width.empty(), "--min-width", "is for --cuts FILE (a 1-D partition)");
    reject(!a.max_move.empty(), "--max-move", "is for --cuts FILE (a 1-D partition)");
    if (a.mesh.empty() == a.graph.empty())
      throw Error(a.mesh.empty() ? "give the ranks' neighbours: --mesh DIMS, --graph FILE or "
                                   "--cuts FILE"
                                 : "--mesh and --graph both given; use one");
    reject(a.torus && a.mesh.empty(), "--torus", "needs --mesh");
    if (a.simulate) {
      reject(!a.scheme.empty(), "--scheme",
             "does not apply to --simulate (Pearce's simulator has one explicit rule)");
      reject(!a.sweeps.empty(), "--sweeps", "does not apply to --simulate");
    } else {
      reject(!a.gamma.empty(), "--gamma", "is for --simulate");
      reject(!a.elements.empty(), "--elements", "is for --simulate");
    }
  }
  const double alpha =
      a.alpha.empty() ? DiffusionOptions{}.alpha : parse_double(a.alpha, "--alpha");
  if (!(alpha > 0 && alpha < 1))
    throw Error("--alpha: expected a number in (0, 1), got '" + a.alpha + "'");
  DiffusionOptions options;
  options.alpha = alpha;
  if (!a.scheme.empty()) {
    try {
      options.scheme = parse_diffusion_scheme(a.scheme);
    } catch (const Error& e) {
      throw Error("--" + std::string(e.what()));  // its message starts "scheme: …"
    }
  }
  if (!a.max_steps.empty()) options.max_steps = parse_int(a.max_steps, "--max-steps", 1);
  if (!a.sweeps.empty()) options.sweeps = parse_int(a.sweeps, "--sweeps", 0);
  // --simulate: Pearce's gamma, a fraction of the flux in (0, 1], default 1.
  SimulationOptions simulation;
  simulation.threshold = alpha;
  if (!a.max_steps.empty()) simulation.max_steps = options.max_steps;
  if (!a.gamma.empty()) {
    simulation.gamma = parse_double(a.gamma, "--gamma");
    if (!(simulation.gamma > 0 && simulation.gamma <= 1))
      throw Error("--gamma: expected a number in (0, 1], got '" + a.gamma + "'");
  }
  // --cuts: an optional cap on the boundaries' moves, any number > 0.
  ShiftOptions shift;
  if (!a.max_move.empty()) {
    shift.max_move = parse_double(a.max_move, "--max-move");
    if (!(shift.max_move > 0))
      throw Error("--max-move: expected a number > 0, got '" + a.max_move + "'");
  }
  if (!a.min_width.empty()) {
    shift.min_width = parse_double(a.min_width, "--min-width");
    if (shift.min_width < 0)
      throw Error("--min-width: expected a number >= 0, got '" + a.min_width + "'");
  }
  std::optional<std::vector<int>> dims;
  if (!a.mesh.empty()) dims = parse_mesh(a.mesh);
  if (tasks_mode) return run_tasks(a, options, dims);
  // The library's load checks, named by the file as `metrics` names them (the
  // diffusion's own message cannot know the file).
  auto read_loads = [&] {
    auto times = read_load_file(a.loads).times;
    try {
      check_loads(times, "load");
    } catch (const Error& e) {
      throw Error(a.loads + ": " + e.what());
    }
    return times;
  };
  if (cuts_mode) {
    const CostModel model = build_cost_model(m);
    return run_cuts(a, options, shift, model, read_loads());
  }
  const std::vector<double> loads = read_loads();
  const ProcessGraph g = process_graph(a, dims, static_cast<int>(loads.size()));
  if (a.simulate) return run_simulate(a, simulation, g, loads);
  run_graph(a, options, g, loads);
}

}  // namespace

}  // namespace diffuse

void add_diffuse_command(CLI::App& app) {
  auto args = std::make_shared<diffuse::Args>();
  auto* cmd = app.add_subcommand(
      "diffuse",
      "Diffusive load balancing: per-edge transfers on a mesh or process graph (Watts ch. 2, "
      "Eijkhout), Pearce's simulator, or a 1-D partition's shifted cuts");
  cmd->add_option("--loads", args->loads,
                  "measured load per rank, one per line (or rank,phase,time rows: summed)");
  cmd->add_option("--mesh", args->mesh, "process mesh M0xM1[xM2], ranks in C order (last fastest)");
  cmd->add_flag("--torus", args->torus, "wrap the mesh around in every dimension");
  cmd->add_option("--graph", args->graph,
                  "process graph: an edge list 'i j' per line (# comments), nodes 0..P-1 for "
                  "the P loads");
  // The defaults in [] are the library's (the options structs).
  const DiffusionOptions diffusion;
  const SimulationOptions simulation;
  const ShiftOptions shift;
  const TaskSelectionOptions selection;
  cmd->add_option("--alpha", args->alpha,
                  "time step and accuracy in (0, 1): stop when u_max <= (1 + alpha) u_avg [" +
                      default_text(diffusion.alpha) + "]");
  cmd->add_option("--scheme", args->scheme,
                  "cn (Crank-Nicolson) | implicit | explicit | lsq (least squares) [" +
                      std::string(to_string(diffusion.scheme)) + "]");
  cmd->add_option("--max-steps", args->max_steps,
                  "step budget [" + std::to_string(diffusion.max_steps) + "; " +
                      std::to_string(simulation.max_steps) + " for --simulate]");
  cmd->add_option("--sweeps", args->sweeps,
                  "Jacobi sweeps per step for cn/implicit [" +
                      (diffusion.sweeps == 0 ? std::string("0: Watts's nu")
                                             : std::to_string(diffusion.sweeps)) +
                      "]");
  cmd->add_flag("--simulate", args->simulate,
                "run Pearce's diffusion simulator (Alg. 2) instead: steps to converge, L_max and "
                "elements moved per step");
  cmd->add_option("--gamma", args->gamma,
                  "--simulate: Pearce's gamma, the fraction of the flux moved per step, in "
                  "(0, 1] [" +
                      default_text(simulation.gamma) + "]");
  cmd->add_option("--elements", args->elements,
                  "--simulate: elements per rank, one per line [one per unit of load]");
  cmd->add_option("--cuts", args->cuts,
                  "a 1-D partition's P+1 cuts, one per line: diffuse on the chain of ranks and "
                  "shift the cuts on --model");
  cmd->add_option("--model", args->model.model,
                  "--cuts: sieve | power | polynomial | pchip | makima | linear | discrete");
  cmd->add_option("--param", args->model.params,
                  "--cuts: model parameters NAME=VALUE,… (as for isocost cut)");
  cmd->add_option("--domain", args->model.domain, "--cuts: the model's domain LO:HI");
  cmd->add_option("--samples", args->model.samples,
                  "--cuts: cumulative samples x,t (pchip, makima, linear)");
  cmd->add_option("--weights", args->model.weights,
                  "--cuts: per-cell weights, one per line (discrete)");
  cmd->add_option(
      "--max-move", args->max_move,
      "--cuts: cap how far a boundary may move, as a fraction of the old width of "
      "the range it moves into, > 0 [" +
          (std::isinf(shift.max_move) ? std::string("no cap") : default_text(shift.max_move)) +
          "]");
  cmd->add_option("--min-width", args->min_width,
                  "--cuts: smallest width of a new range (a range already narrower keeps "
                  "its width) [" +
                      default_text(shift.min_width) + "]");
  cmd->add_option("--tasks", args->tasks,
                  "tasks instead of --loads: 'rank,id,load[,immobile]' rows; diffuse the ranks' "
                  "sums on --mesh/--graph and choose the tasks that move");
  cmd->add_option("--selection", args->selection,
                  "--tasks: first-fit | trimming, for edges with at least "
                  "--exhaustive-limit tasks [" +
                      std::string(to_string(selection.method)) + "]");
  cmd->add_option("--exhaustive-limit", args->exhaustive_limit,
                  "--tasks: exhaustive exchange search below this many tasks on an edge, "
                  "0..40 [" +
                      std::to_string(selection.exhaustive_limit) + "]");
  cmd->add_option("--trim-epsilon", args->trim_epsilon,
                  "--tasks: the trimming method's epsilon in (0, 1] [" +
                      default_text(selection.trim_epsilon) + "]");
  cmd->add_flag("--json", args->json, "print JSON instead of tables");
  add_output_and_run(cmd, args->output, [args] { diffuse::run(*args); });
}

}  // namespace isocost::cli
