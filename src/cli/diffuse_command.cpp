// isocost diffuse: diffusive load balancing on a mesh or a process graph
// (Watts ch. 2, Eijkhout §2), Pearce's diffusion simulator (Alg. 2), and the
// transfers of a chain of ranks applied to a 1-D partition (shift.hpp).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <optional>

#include "cli.hpp"
#include "isocost/cost_model.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/diffusion.hpp"
#include "isocost/error.hpp"
#include "isocost/io.hpp"
#include "isocost/shift.hpp"
#include "isocost/tasks.hpp"

namespace isocost::cli {

namespace {

using json = nlohmann::ordered_json;

struct DiffuseArgs {
  std::string mesh;              // --mesh 8x8
  std::string graph;             // --graph FILE
  std::string loads;             // --loads FILE
  std::string alpha;             // --alpha (default 0.05)
  std::string scheme;            // --scheme (default cn)
  std::string max_steps;         // --max-steps
  std::string sweeps;            // --sweeps
  std::string gamma;             // --gamma (--simulate, --cuts)
  std::string elements;          // --elements FILE (--simulate)
  std::string cuts;              // --cuts FILE
  std::string min_width;         // --min-width (--cuts)
  std::string tasks;             // --tasks FILE
  std::string selection;         // --selection (--tasks)
  std::string exhaustive_limit;  // --exhaustive-limit (--tasks)
  std::string trim_epsilon;      // --trim-epsilon (--tasks)
  ModelArgs model;               // --model … (--cuts)
  std::string output;
  bool torus = false;
  bool simulate = false;
  bool json = false;
};

std::string num(double v, int digits = 10) { return detail::fixed_digits(v, digits); }

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

// The fields of one line of a small text table (commas, tabs or blanks
// separate; '#' starts a comment line). Empty for blank and comment lines.
std::vector<std::string> fields_of(std::string line) {
  for (char& c : line)
    if (c == ',' || c == '\t' || c == '\r') c = ' ';
  std::vector<std::string> fields;
  const auto first = line.find_first_not_of(' ');
  if (first == std::string::npos || line[first] == '#') return fields;
  for (std::size_t pos = first; pos != std::string::npos;) {
    const auto end = line.find(' ', pos);
    fields.push_back(line.substr(pos, end == std::string::npos ? end : end - pos));
    pos = end == std::string::npos ? end : line.find_first_not_of(' ', end);
  }
  return fields;
}

// A whole number in [0, limit), or ParseError naming `what`.
long long parse_index(const std::string& path, std::size_t line, const std::string& field,
                      const std::string& what, double limit) {
  double v = 0;
  if (!detail::parse_number(field, v) || v != std::floor(v) || v < 0 || v >= limit)
    throw ParseError(path, line, "expected " + what + " (an integer >= 0), got '" + field + "'");
  return static_cast<long long>(v);
}

// An edge list, "i j" per line (commas or blanks; '#' comments), over the
// `nodes` ranks the loads file gives (nodes < 0: as many as the edges name).
ProcessGraph read_graph(const std::string& path, int nodes) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open '" + path + "' for reading");
  std::vector<std::pair<int, int>> edges;
  std::string line;
  std::size_t number = 0;
  int highest = -1;
  while (std::getline(in, line)) {
    ++number;
    const auto fields = fields_of(line);
    if (fields.empty()) continue;
    if (fields.size() != 2)
      throw ParseError(path, number,
                       "expected an edge as two node numbers 'i j', got '" +
                           line.substr(line.find_first_not_of(" \t")) + "'");
    int ends[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      ends[k] = static_cast<int>(parse_index(path, number, fields[k], "a node number", 1e8));
      if (nodes >= 0 && ends[k] >= nodes)
        throw ParseError(path, number,
                         "node " + fields[k] + " does not exist: the loads give " +
                             std::to_string(nodes) + " ranks, nodes 0.." +
                             std::to_string(nodes - 1));
      highest = std::max(highest, ends[k]);
    }
    if (ends[0] == ends[1])
      throw ParseError(path, number, "self-loop at node " + std::to_string(ends[0]));
    edges.emplace_back(ends[0], ends[1]);
  }
  if (in.bad()) throw Error("cannot read '" + path + "'");
  if (nodes < 0) nodes = highest + 1;
  if (edges.empty() && nodes != 1)
    throw Error(path + ": no edges" +
                (nodes > 1 ? "; " + std::to_string(nodes) + " ranks need edges to exchange work"
                           : std::string()));
  try {
    return edge_graph(nodes, edges);
  } catch (const ParseError&) {
    throw;
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

// Tasks, "rank,id,load[,immobile]" per line (commas or blanks; '#' comments;
// an optional header line starting with "rank"); immobile is 0 or 1. One list
// per rank 0..R-1, R = the highest rank named + 1, in file order.
std::vector<std::vector<Task>> read_tasks(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open '" + path + "' for reading");
  std::vector<std::vector<Task>> tasks;
  std::map<std::int64_t, std::size_t> seen;  // id → line
  std::string line;
  std::size_t number = 0;
  bool any = false;
  while (std::getline(in, line)) {
    ++number;
    const auto f = fields_of(line);
    if (f.empty()) continue;
    if (!any && f[0] == "rank") {  // the header
      any = true;
      continue;
    }
    any = true;
    if (f.size() != 3 && f.size() != 4)
      throw ParseError(
          path, number,
          "expected 'rank,id,load[,immobile]', got " + std::to_string(f.size()) + " fields");
    const auto rank = parse_index(path, number, f[0], "a rank", 1e8);
    double id = 0;
    if (!detail::parse_number(f[1], id) || id != std::floor(id) || std::fabs(id) > 9e15)
      throw ParseError(path, number, "expected a task id (an integer), got '" + f[1] + "'");
    double load = 0;
    if (!detail::parse_number(f[2], load) || !std::isfinite(load) || load < 0)
      throw ParseError(
          path, number,
          "task " + f[1] + ": expected a load (a finite number >= 0), got '" + f[2] + "'");
    bool immobile = false;
    if (f.size() == 4) {
      if (f[3] != "0" && f[3] != "1")
        throw ParseError(path, number,
                         "task " + f[1] + ": expected immobile 0 or 1, got '" + f[3] + "'");
      immobile = f[3] == "1";
    }
    const auto key = static_cast<std::int64_t>(id);
    if (const auto it = seen.find(key); it != seen.end())
      throw ParseError(
          path, number,
          "task id " + f[1] + " given twice (first on line " + std::to_string(it->second) + ")");
    seen[key] = number;
    if (tasks.size() <= static_cast<std::size_t>(rank)) tasks.resize(rank + 1);
    tasks[rank].push_back({key, load, immobile});
  }
  if (in.bad()) throw Error("cannot read '" + path + "'");
  if (seen.empty()) throw Error(path + ": no tasks");
  return tasks;
}

std::string mesh_name(const std::vector<int>& dims) {
  std::string s;
  for (std::size_t a = 0; a < dims.size(); ++a) s += (a ? "x" : "") + std::to_string(dims[a]);
  return s;
}

json graph_json(const ProcessGraph& g, const std::string& file) {
  return {{"kind", g.mesh.empty() ? "edges" : "mesh"},
          {"file", file.empty() ? json(nullptr) : json(file)},
          {"mesh", g.mesh},
          {"torus", g.torus},
          {"nodes", g.nodes},
          {"edges", g.edges.size()},
          {"neighbours", g.max_degree()}};
}

std::string graph_line(const ProcessGraph& g, const std::string& file) {
  std::string s = g.mesh.empty()
                      ? "graph: " + file
                      : "graph: " + std::string(g.torus ? "torus " : "mesh ") + mesh_name(g.mesh);
  return s + " (" + std::to_string(g.nodes) + " ranks, " + std::to_string(g.edges.size()) +
         " edges, n = " + num(g.max_degree(), 6) + " neighbours per rank)\n";
}

double imbalance(const std::vector<double>& u) {
  const double total = std::accumulate(u.begin(), u.end(), 0.0);
  return *std::max_element(u.begin(), u.end()) / (total / static_cast<double>(u.size())) - 1;
}

std::string diffusion_line(const DiffusionSummary& d, double alpha) {
  std::string s = "scheme " + std::string(to_string(d.scheme)) + ", alpha " + num(alpha, 6) + ": ";
  if (d.scheme == DiffusionScheme::least_squares) {
    s += "one least-squares solve";
    if (d.jacobi_sweeps) s += " (" + std::to_string(d.jacobi_sweeps) + " CG iterations)";
  } else {
    s += std::to_string(d.steps) + " steps";
    if (d.sweeps_per_step)
      s += " x " + std::to_string(d.sweeps_per_step) + " Jacobi sweeps (" +
           std::to_string(d.jacobi_sweeps) + " sweeps in all)";
  }
  return s + (d.converged ? ", converged" : ", NOT converged") + "\n";
}

json diffusion_json(const DiffusionSummary& d) {
  return {{"steps", d.steps},
          {"sweeps_per_step", d.sweeps_per_step},
          {"jacobi_sweeps", d.jacobi_sweeps},
          {"converged", d.converged},
          {"initial_imbalance", d.initial_imbalance},
          {"final_imbalance", d.final_imbalance},
          {"transfer_volume", d.transfer_volume}};
}

// The options that only some modes take.
void reject(bool given, const std::string& option, const std::string& why) {
  if (given) throw Error(option + " " + why);
}

// --tasks: diffusion on the ranks' task loads, then task selection
// (tasks.hpp): which task moves from which rank to which.
void run_tasks(const DiffuseArgs& a, const DiffusionOptions& options,
               const std::optional<std::vector<int>>& dims) {
  TaskSelectionOptions so;
  if (!a.selection.empty()) {
    try {
      so.method = parse_task_selection_method(a.selection);
    } catch (const Error& e) {
      throw Error(std::string("--selection: ") + e.what());
    }
  }
  if (!a.exhaustive_limit.empty())
    so.exhaustive_limit = parse_int(a.exhaustive_limit, "--exhaustive-limit", 0);
  if (so.exhaustive_limit > 40)
    throw Error("--exhaustive-limit: expected an integer in [0, 40], got '" + a.exhaustive_limit +
                "'");
  if (!a.trim_epsilon.empty()) {
    so.trim_epsilon = parse_double(a.trim_epsilon, "--trim-epsilon");
    if (!(so.trim_epsilon > 0 && so.trim_epsilon <= 1))
      throw Error("--trim-epsilon: expected a number in (0, 1], got '" + a.trim_epsilon + "'");
  }
  std::vector<std::vector<Task>> tasks = read_tasks(a.tasks);
  ProcessGraph g;
  if (dims) {
    g = mesh_graph(*dims, a.torus);
    if (static_cast<int>(tasks.size()) > g.nodes)
      throw Error(a.tasks + ": tasks on rank " + std::to_string(tasks.size() - 1) + ", but the " +
                  mesh_name(*dims) + " mesh has ranks 0.." + std::to_string(g.nodes - 1));
  } else {
    g = read_graph(a.graph, -1);
    if (static_cast<int>(tasks.size()) > g.nodes)
      throw Error(a.tasks + ": tasks on rank " + std::to_string(tasks.size() - 1) + ", but " +
                  a.graph + " has nodes 0.." + std::to_string(g.nodes - 1));
  }
  tasks.resize(static_cast<std::size_t>(g.nodes));  // ranks without tasks
  const std::vector<double> loads = node_loads(tasks);
  const double total = std::accumulate(loads.begin(), loads.end(), 0.0);
  if (!(total > 0)) throw Error(a.tasks + ": every task's load is zero; nothing to balance");
  const double avg = total / static_cast<double>(g.nodes);
  const DiffusionSummary d = diffuse(g, loads, options);
  const TaskSelection s = select_tasks(g, tasks, d.transfers, so);
  const double after = *std::max_element(s.loads.begin(), s.loads.end()) / avg - 1;
  std::vector<int> count_before(static_cast<std::size_t>(g.nodes)), count_after;
  std::size_t immobile = 0, n_tasks = 0;
  for (int v = 0; v < g.nodes; ++v) {
    count_before[v] = static_cast<int>(tasks[v].size());
    n_tasks += tasks[v].size();
    for (const auto& t : tasks[v]) immobile += t.immobile ? 1 : 0;
  }
  count_after = count_before;
  for (const auto& mv : s.moves) {
    --count_after[mv.from];
    ++count_after[mv.to];
  }
  std::string text;
  if (a.json) {
    json moves = json::array(), rows = json::array();
    for (const auto& mv : s.moves)
      moves.push_back({{"id", mv.id}, {"from", mv.from}, {"to", mv.to}, {"load", mv.load}});
    for (int v = 0; v < g.nodes; ++v)
      rows.push_back({{"rank", v},
                      {"tasks_before", count_before[v]},
                      {"load_before", loads[v]},
                      {"diffused", d.loads[v]},
                      {"tasks_after", count_after[v]},
                      {"load_after", s.loads[v]}});
    const json j = {
        {"command", "diffuse"},
        {"mode", "tasks"},
        {"graph", graph_json(g, a.graph)},
        {"tasks", n_tasks},
        {"immobile", immobile},
        {"scheme", to_string(options.scheme)},
        {"alpha", options.alpha},
        {"diffusion", diffusion_json(d)},
        {"selection",
         {{"method", to_string(so.method)},
          {"exhaustive_limit", so.exhaustive_limit},
          {"passes", s.passes},
          {"exchanges", s.exchanges},
          {"exhaustive_searches", s.exhaustive_searches},
          {"approximate_searches", s.approximate_searches},
          {"marker_hops", s.marker_hops},
          {"requested_volume", s.requested_volume},
          {"achieved_volume", s.achieved_volume},
          {"error_volume", s.error_volume},
          {"max_edge_error", s.max_edge_error},
          {"max_task_load", s.max_task_load},
          {"terminated", s.terminated}}},
        {"total_load", total},
        {"average_load", avg},
        {"imbalance",
         {{"initial", d.initial_imbalance}, {"diffused", d.final_imbalance}, {"tasks", after}}},
        {"moves", moves},
        {"ranks", rows}};
    text = j.dump(2) + "\n";
  } else {
    text = graph_line(g, a.graph);
    text += "tasks: " + std::to_string(n_tasks) + " (" + std::to_string(immobile) +
            " immobile), total load " + num(total) + ", average " + num(avg) + "\n";
    text += diffusion_line(d, options.alpha);
    text += s.brief_report();
    text += "imbalance (max/avg - 1): " + num(d.initial_imbalance, 6) + " -> diffusion " +
            num(d.final_imbalance, 6) + " -> tasks " + num(after, 6) + "\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& mv : s.moves)
      rows.push_back(
          {std::to_string(mv.id), std::to_string(mv.from), std::to_string(mv.to), num(mv.load)});
    if (!rows.empty()) text += table({"task", "from", "to", "load"}, rows) + "\n";
    rows.clear();
    for (int v = 0; v < g.nodes; ++v)
      rows.push_back({std::to_string(v), std::to_string(count_before[v]), num(loads[v]),
                      num(d.loads[v]), std::to_string(count_after[v]), num(s.loads[v])});
    text += table({"rank", "tasks", "load", "diffused", "tasks after", "load after"}, rows);
  }
  emit(text, a.output);
  if (!d.converged)
    throw NotConverged("diffusion did not reach alpha within --max-steps " +
                       std::to_string(options.max_steps) + " (final imbalance " +
                       num(d.final_imbalance, 6) + ")");
  if (!s.terminated) throw NotConverged("task selection did not terminate within its pass limit");
}

void run(const DiffuseArgs& a) {
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
      reject(!a.gamma.empty(), "--gamma", "is for --simulate or --cuts");
      reject(!a.elements.empty(), "--elements", "is for --simulate");
    }
  }
  const double alpha = a.alpha.empty() ? 0.05 : parse_double(a.alpha, "--alpha");
  if (!(alpha > 0 && alpha < 1))
    throw Error("--alpha: expected a number in (0, 1), got '" + a.alpha + "'");
  DiffusionOptions options;
  options.alpha = alpha;
  if (!a.scheme.empty()) {
    try {
      options.scheme = parse_diffusion_scheme(a.scheme);
    } catch (const Error& e) {
      throw Error(std::string("--scheme: ") + e.what());
    }
  }
  if (!a.max_steps.empty()) options.max_steps = parse_int(a.max_steps, "--max-steps", 1);
  if (!a.sweeps.empty()) options.sweeps = parse_int(a.sweeps, "--sweeps", 0);
  // --simulate: a fraction of the flux, in (0, 1], default 1. --cuts: an
  // optional cap, any number > 0 (given or not: see the cuts block).
  double gamma = 1;
  if (!a.gamma.empty()) {
    gamma = parse_double(a.gamma, "--gamma");
    if (cuts_mode && !(gamma > 0))
      throw Error("--gamma: expected a number > 0, got '" + a.gamma + "'");
    if (!cuts_mode && !(gamma > 0 && gamma <= 1))
      throw Error("--gamma: expected a number in (0, 1], got '" + a.gamma + "'");
  }
  double min_width = 0;
  if (!a.min_width.empty()) {
    min_width = parse_double(a.min_width, "--min-width");
    if (min_width < 0)
      throw Error("--min-width: expected a number >= 0, got '" + a.min_width + "'");
  }
  std::optional<std::vector<int>> dims;
  if (!a.mesh.empty()) dims = parse_mesh(a.mesh);
  if (tasks_mode) return run_tasks(a, options, dims);
  std::optional<CostModel> model;
  if (cuts_mode) model = build_cost_model(m);

  const std::vector<double> loads = read_load_file(a.loads).times;
  std::string text;
  bool converged = true;
  std::string not_converged;

  if (cuts_mode) {
    const std::vector<double> cuts = read_column(a.cuts, "cut", false);
    if (cuts.size() < 2)
      throw Error(a.cuts + ": expected at least 2 cuts (one rank), got " +
                  std::to_string(cuts.size()));
    const int P = static_cast<int>(cuts.size()) - 1;
    if (static_cast<int>(loads.size()) != P)
      throw Error(a.loads + ": " + std::to_string(loads.size()) + " loads for the " +
                  std::to_string(P) + " ranks of " + a.cuts + " (" + std::to_string(cuts.size()) +
                  " cuts)");
    // Check the cuts against the model before diffusing.
    for (int k = 0; k <= P; ++k)
      if (cuts[k] < model->lo() || cuts[k] > model->hi() || (k > 0 && cuts[k] < cuts[k - 1]))
        throw Error(a.cuts + ": cut " + std::to_string(k) + " = " + detail::exact(cuts[k]) +
                    (k > 0 && cuts[k] < cuts[k - 1]
                         ? " is below the cut before it; cuts must be nondecreasing"
                         : " lies outside the model's domain [" + detail::exact(model->lo()) +
                               ", " + detail::exact(model->hi()) + "]"));
    const ProcessGraph chain = mesh_graph({P}, false);
    const DiffusionSummary d = diffuse(chain, loads, options);
    std::vector<double> transfers(static_cast<std::size_t>(P) - 1, 0.0);
    for (std::size_t e = 0; e < chain.edges.size(); ++e)
      transfers[chain.edges[e].i] = d.transfers[e];  // chain edges are (i, i + 1)
    ShiftOptions so;
    const bool capped_gamma = !a.gamma.empty();  // otherwise no cap (the default)
    if (capped_gamma) so.gamma = gamma;
    so.min_width = min_width;
    const ShiftResult s = shift_cuts(*model, cuts, transfers, loads, so);
    std::vector<double> before(static_cast<std::size_t>(P));
    for (int i = 0; i < P; ++i) before[i] = model->cost(cuts[i], cuts[i + 1]);
    // The predicted loads come from the measured-load-corrected model, which
    // converts ground taken from another old range with that range's ratio.
    const double imbalance_after = imbalance(s.predicted_load);
    converged = d.converged && s.converged;
    if (!d.converged)
      not_converged =
          "diffusion did not reach alpha within --max-steps " + std::to_string(options.max_steps);
    else if (!s.converged)
      not_converged = "a boundary's root find did not reach its tolerance";
    if (a.json) {
      json boundaries = json::array(), parts = json::array();
      for (int b = 0; b + 1 < P; ++b)
        boundaries.push_back({{"index", b + 1},
                              {"left_rank", b},
                              {"right_rank", b + 1},
                              {"x_old", cuts[b + 1]},
                              {"x_new", s.cuts[b + 1]},
                              {"transfer", s.requested[b]},
                              {"load_moved", s.applied[b]},
                              {"cost_moved", s.cost_moved[b]},
                              {"capped", static_cast<bool>(s.capped[b])},
                              {"conflict", static_cast<bool>(s.conflict[b])},
                              {"iterations", s.iterations[b]}});
      for (int i = 0; i < P; ++i)
        parts.push_back({{"rank", i},
                         {"lo", s.cuts[i]},
                         {"hi", s.cuts[i + 1]},
                         {"load", loads[i]},
                         {"ratio", s.ratio[i]},
                         {"cost_before", before[i]},
                         {"cost_after", s.cost[i]},
                         {"predicted_load", s.predicted_load[i]}});
      const json j = {
          {"command", "diffuse"},
          {"mode", "cuts"},
          {"model",
           {{"kind", model->kind()},
            {"description", model->describe()},
            {"lo", model->lo()},
            {"hi", model->hi()},
            {"total_cost", model->total()}}},
          {"ranks", P},
          {"scheme", to_string(options.scheme)},
          {"alpha", alpha},
          {"gamma", capped_gamma ? json(gamma) : json(nullptr)},
          {"min_width", min_width},
          {"diffusion", diffusion_json(d)},
          {"boundaries", boundaries},
          {"parts", parts},
          {"cuts", s.cuts},
          {"predicted",
           {{"imbalance_before", d.initial_imbalance}, {"imbalance_after", imbalance_after}}},
          {"solver",
           {{"max_abs_residual", s.max_abs_residual},
            {"capped", s.capped_count()},
            {"conflicts", s.conflict_count()},
            {"converged", s.converged}}}};
      text = j.dump(2) + "\n";
    } else {
      text = "model: " + model->describe() + " on [" + num(model->lo(), 12) + ", " +
             num(model->hi(), 12) + "]\n";
      text += std::to_string(P) + " ranks in a chain; diffusion " + diffusion_line(d, alpha);
      text += "shift: gamma " + (capped_gamma ? num(gamma, 6) : std::string("none")) +
              ", min width " + num(min_width, 6) + "; " + s.brief_report();
      text +=
          "(transfer and load moved in load units, > 0: the left rank sends, the boundary "
          "moves left; cost moved in model units)\n\n";
      std::vector<std::vector<std::string>> rows;
      for (int b = 0; b + 1 < P; ++b) {
        std::string note = s.conflict[b] ? "conflict" : s.capped[b] ? "capped" : "";
        rows.push_back({std::to_string(b + 1), std::to_string(b) + "-" + std::to_string(b + 1),
                        num(cuts[b + 1], 12), num(s.cuts[b + 1], 12), num(s.requested[b]),
                        num(s.applied[b]), num(s.cost_moved[b]), note});
      }
      if (P > 1)
        text += table({"cut", "ranks", "x old", "x new", "transfer", "load moved", "cost moved",
                       "note"},
                      rows) +
                "\n";
      rows.clear();
      for (int i = 0; i < P; ++i)
        rows.push_back({std::to_string(i), num(s.cuts[i], 12), num(s.cuts[i + 1], 12),
                        num(loads[i]), num(s.ratio[i]), num(s.cost[i]), num(s.predicted_load[i])});
      text += table({"rank", "lo", "hi", "load", "ratio", "cost", "predicted load"}, rows) + "\n";
      text += "predicted imbalance (max/avg - 1): " + num(d.initial_imbalance, 6) + " -> " +
              num(imbalance_after, 6) + "\n";
    }
  } else {
    ProcessGraph g;
    if (dims) {
      g = mesh_graph(*dims, a.torus);
      if (static_cast<int>(loads.size()) != g.nodes)
        throw Error(a.loads + ": " + std::to_string(loads.size()) + " loads for the " +
                    mesh_name(*dims) + " mesh of " + std::to_string(g.nodes) + " ranks");
    } else {
      g = read_graph(a.graph, static_cast<int>(loads.size()));
    }
    const double total = std::accumulate(loads.begin(), loads.end(), 0.0);
    const double avg = total / static_cast<double>(loads.size());
    if (a.simulate) {
      std::vector<double> elements = loads;
      if (!a.elements.empty()) {
        elements = read_column(a.elements, "element count", true);
        if (elements.size() != loads.size())
          throw Error(a.elements + ": " + std::to_string(elements.size()) + " element counts for " +
                      std::to_string(loads.size()) + " ranks (" + a.loads + ")");
      }
      SimulationOptions so;
      so.gamma = gamma;
      so.threshold = alpha;
      if (!a.max_steps.empty()) so.max_steps = options.max_steps;
      const Simulation sim = simulate_diffusion(g, loads, elements, so);
      const double initial_max = *std::max_element(loads.begin(), loads.end());
      if (a.json) {
        json steps = json::array();
        for (std::size_t k = 0; k < sim.steps.size(); ++k)
          steps.push_back({{"step", k + 1},
                           {"max_load", sim.steps[k].max_load},
                           {"max_elements_moved", sim.steps[k].max_elements_moved}});
        const json j = {{"command", "diffuse"},
                        {"mode", "simulate"},
                        {"graph", graph_json(g, a.graph)},
                        {"gamma", gamma},
                        {"threshold", alpha},
                        {"total_load", total},
                        {"average_load", avg},
                        {"initial_max_load", initial_max},
                        {"initial_imbalance", initial_max / avg - 1},
                        {"convergence_steps", sim.convergence_steps},
                        {"converged", sim.converged},
                        {"steps", steps}};
        text = j.dump(2) + "\n";
      } else {
        text = graph_line(g, a.graph);
        text += "Pearce's diffusion simulator (Alg. 2): gamma " + num(gamma, 6) + ", threshold " +
                num(alpha, 6) + " (stop when L_max <= (1 + threshold) L_avg)\n";
        text += "L_avg " + num(avg) + ", L_max " + num(initial_max) + " (imbalance " +
                num(initial_max / avg - 1, 6) + ")\n";
        text += (sim.converged ? "predicted convergence in " : "NOT converged after ") +
                std::to_string(sim.convergence_steps) + " steps\n";
        if (!sim.steps.empty()) {
          std::vector<std::vector<std::string>> rows;
          for (std::size_t k = 0; k < sim.steps.size(); ++k)
            rows.push_back({std::to_string(k + 1), num(sim.steps[k].max_load),
                            num(sim.steps[k].max_elements_moved)});
          text += "\n" + table({"step", "L_max", "max elements moved"}, rows);
        }
      }
    } else {
      const DiffusionSummary d = diffuse(g, loads, options);
      converged = d.converged;
      if (!d.converged)
        not_converged = "diffusion did not reach alpha within --max-steps " +
                        std::to_string(options.max_steps) + " (final imbalance " +
                        num(d.final_imbalance, 6) + ")";
      if (a.json) {
        json transfers = json::array(), rows = json::array();
        for (std::size_t e = 0; e < g.edges.size(); ++e)
          transfers.push_back({{"edge", e},
                               {"i", g.edges[e].i},
                               {"j", g.edges[e].j},
                               {"weight", g.edges[e].weight},
                               {"transfer", d.transfers[e]}});
        for (std::size_t i = 0; i < loads.size(); ++i)
          rows.push_back({{"rank", i}, {"initial", loads[i]}, {"final", d.loads[i]}});
        json j = {{"command", "diffuse"},
                  {"mode", "diffuse"},
                  {"graph", graph_json(g, a.graph)},
                  {"scheme", to_string(options.scheme)},
                  {"alpha", alpha}};
        j["diffusion"] = diffusion_json(d);
        j["total_load"] = total;
        j["average_load"] = avg;
        j["transfers"] = transfers;
        j["loads"] = rows;
        text = j.dump(2) + "\n";
      } else {
        text = graph_line(g, a.graph);
        text += diffusion_line(d, alpha);
        text += "loads: total " + num(total) + ", average " + num(avg) +
                "; imbalance (max/avg - 1) " + num(d.initial_imbalance, 6) + " -> " +
                num(d.final_imbalance, 6) + "\n";
        text += "total transfer volume: " + num(d.transfer_volume) + "\n\n";
        std::vector<std::vector<std::string>> rows;
        for (std::size_t e = 0; e < g.edges.size(); ++e)
          rows.push_back({std::to_string(e),
                          std::to_string(g.edges[e].i) + "-" + std::to_string(g.edges[e].j),
                          num(d.transfers[e])});
        text += "transfers (> 0: the first rank sends to the second)\n";
        text += table({"edge", "i-j", "transfer"}, rows) + "\n";
        rows.clear();
        for (std::size_t i = 0; i < loads.size(); ++i)
          rows.push_back({std::to_string(i), num(loads[i]), num(d.loads[i])});
        text += table({"rank", "load", "final"}, rows);
      }
    }
  }
  emit(text, a.output);
  if (!converged) throw NotConverged(not_converged);
}

}  // namespace

void add_diffuse_command(CLI::App& app) {
  auto args = std::make_shared<DiffuseArgs>();
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
  cmd->add_option("--alpha", args->alpha,
                  "time step and accuracy in (0, 1): stop when u_max <= (1 + alpha) u_avg "
                  "[0.05]");
  cmd->add_option("--scheme", args->scheme,
                  "cn (Crank-Nicolson) | implicit | explicit | lsq (least squares) [cn]");
  cmd->add_option("--max-steps", args->max_steps, "step budget [100000; 10000 for --simulate]");
  cmd->add_option("--sweeps", args->sweeps,
                  "Jacobi sweeps per step for cn/implicit [0: Watts's nu]");
  cmd->add_flag("--simulate", args->simulate,
                "run Pearce's diffusion simulator (Alg. 2) instead: steps to converge, L_max and "
                "elements moved per step");
  cmd->add_option("--gamma", args->gamma,
                  "Pearce's gamma: --simulate: the fraction of the flux moved per step, in (0, 1] "
                  "[1]; --cuts: cap how far a boundary may move, as a fraction of the old width "
                  "of the range it moves into [no cap]");
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
      "--min-width", args->min_width,
      "--cuts: smallest width of a new range (a range already narrower keeps its width) [0]");
  cmd->add_option("--tasks", args->tasks,
                  "tasks instead of --loads: 'rank,id,load[,immobile]' rows; diffuse the ranks' "
                  "sums on --mesh/--graph and choose the tasks that move");
  cmd->add_option("--selection", args->selection,
                  "--tasks: first-fit | trimming, for edges with at least --exhaustive-limit "
                  "tasks [first-fit]");
  cmd->add_option("--exhaustive-limit", args->exhaustive_limit,
                  "--tasks: exhaustive exchange search below this many tasks on an edge, 0..40 "
                  "[20]");
  cmd->add_option("--trim-epsilon", args->trim_epsilon,
                  "--tasks: the trimming method's epsilon in (0, 1] [0.01]");
  cmd->add_flag("--json", args->json, "print JSON instead of tables");
  add_output_and_run(cmd, args->output, [args] { run(*args); });
}

}  // namespace isocost::cli
