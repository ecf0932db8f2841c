// `isocost diffuse --mesh/--graph`: the transfers per edge (Watts ch. 2,
// Eijkhout §2); and `--simulate`: Pearce's diffusion simulator (Alg. 2).
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <numeric>
#include <sstream>

#include "cli.hpp"
#include "diffuse.hpp"
#include "isocost/io.hpp"
#include "json_stream.hpp"

#include "output.hpp"

namespace isocost::cli::diffuse {

namespace {

// The loads' total and average, summed in long double: loads near the double
// limit (which diffuse() scales) have a total beyond it, but their average is
// a double. `text`: the total as the report prints it; `total`: null beyond a
// double.
struct LoadTotals {
  double average = 0;
  std::string text;
  json total;
};

LoadTotals load_totals(const std::vector<double>& loads) {
  const long double sum = std::accumulate(loads.begin(), loads.end(), 0.0L);
  const double total = static_cast<double>(sum);  // +inf beyond the double range
  LoadTotals t;
  t.average = static_cast<double>(sum / static_cast<long double>(loads.size()));
  if (std::isfinite(total)) {
    t.text = num(total);
    t.total = total;
  } else {
    std::ostringstream out;
    out << std::setprecision(10) << sum << " (beyond a double)";
    t.text = out.str();
  }
  return t;
}

}  // namespace

void run_graph(const Args& a, const DiffusionOptions& options, const ProcessGraph& g,
               const std::vector<double>& loads) {
  const double alpha = options.alpha;
  const LoadTotals t = load_totals(loads);
  const double avg = t.average;
  const DiffusionSummary d = isocost::diffuse(g, loads, options);
  if (a.json) {
    // Streamed: the per-edge and per-rank arrays are written one element at a time.
    emit_to(a.output, [&](std::ostream& out) {
      JsonStream j(out);
      j.member("command", "diffuse");
      j.member("mode", "diffuse");
      j.member("graph", graph_json(g, a.graph));
      j.member("scheme", to_string(options.scheme));
      j.member("alpha", alpha);
      j.member("diffusion", diffusion_json(d));
      j.member("total_load", t.total);
      j.member("average_load", avg);
      j.array("transfers", g.edges.size(), [&](std::size_t e) {
        return json{{"edge", e},
                    {"i", g.edges[e].i},
                    {"j", g.edges[e].j},
                    {"weight", g.edges[e].weight},
                    {"transfer", d.transfers[e]}};
      });
      j.array("loads", loads.size(), [&](std::size_t i) {
        return json{{"rank", i}, {"initial", loads[i]}, {"final", d.loads[i]}};
      });
      j.finish();
    });
  } else {
    // Streamed as the JSON is: a 10^7-rank mesh's 2·10^7 rows are formatted
    // one at a time, never held whole.
    emit_to(a.output, [&](std::ostream& out) {
      out << graph_line(g, a.graph) << diffusion_line(d, alpha) << "loads: total " << t.text
          << ", average " << num(avg) << "; imbalance (max/avg - 1) " << num(d.initial_imbalance, 6)
          << " -> " << num(d.final_imbalance, 6) << "\n"
          << "total transfer volume: " << num(d.transfer_volume) << "\n\n"
          << "transfers (> 0: the first rank sends to the second)\n";
      write_table(out, {"edge", "i-j", "transfer"}, g.edges.size(), [&](std::size_t e) {
        return std::vector<std::string>{
            std::to_string(e), std::to_string(g.edges[e].i) + "-" + std::to_string(g.edges[e].j),
            num(d.transfers[e])};
      });
      out << "\n";
      write_table(out, {"rank", "load", "final"}, loads.size(), [&](std::size_t i) {
        return std::vector<std::string>{std::to_string(i), num(loads[i]), num(d.loads[i])};
      });
    });
  }
  if (!d.converged())
    throw NotConverged("diffusion did not reach alpha within --max-steps " +
                       std::to_string(options.max_steps) + " (final imbalance " +
                       num(d.final_imbalance, 6) + ")");
}

void run_simulate(const Args& a, const SimulationOptions& options, const ProcessGraph& g,
                  const std::vector<double>& loads) {
  const LoadTotals t = load_totals(loads);
  const double avg = t.average;
  std::vector<double> elements = loads;
  if (!a.elements.empty()) {
    elements = read_column(a.elements, "element count", true);
    if (elements.size() != loads.size())
      throw Error(a.elements + ": " + std::to_string(elements.size()) + " element counts for " +
                  std::to_string(loads.size()) + " ranks (" + a.loads + ")");
  }
  const Simulation sim = simulate_diffusion(g, loads, elements, options);
  const double initial_max = *std::max_element(loads.begin(), loads.end());
  emit_to(a.output, [&](std::ostream& out) {  // streamed: one step at a time
    if (a.json) {
      JsonStream j(out);
      j.member("command", "diffuse");
      j.member("mode", "simulate");
      j.member("graph", graph_json(g, a.graph));
      j.member("gamma", options.gamma);
      j.member("threshold", options.threshold);
      j.member("total_load", t.total);
      j.member("average_load", avg);
      j.member("initial_max_load", initial_max);
      j.member("initial_imbalance", initial_max / avg - 1);
      j.member("convergence_steps", sim.convergence_steps);
      j.member("converged", sim.converged());
      j.array("steps", sim.steps.size(), [&](std::size_t k) {
        return json{{"step", k + 1},
                    {"max_load", sim.steps[k].max_load},
                    {"max_elements_moved", sim.steps[k].max_elements_moved}};
      });
      j.finish();
      return;
    }
    out << graph_line(g, a.graph) << "Pearce's diffusion simulator (Alg. 2): gamma "
        << num(options.gamma, 6) << ", threshold " << num(options.threshold, 6)
        << " (stop when L_max <= (1 + threshold) L_avg)\n"
        << "L_avg " << num(avg) << ", L_max " << num(initial_max) << " (imbalance "
        << num(initial_max / avg - 1, 6) << ")\n"
        << (sim.converged() ? "predicted convergence in " : "NOT converged after ")
        << sim.convergence_steps << " steps\n";
    if (!sim.steps.empty()) {
      out << "\n";
      write_table(
          out, {"step", "L_max", "max elements moved"}, sim.steps.size(), [&](std::size_t k) {
            return std::vector<std::string>{std::to_string(k + 1), num(sim.steps[k].max_load),
                                            num(sim.steps[k].max_elements_moved)};
          });
    }
  });
  if (!sim.converged())
    throw NotConverged("the simulation did not reach the threshold within --max-steps " +
                       std::to_string(options.max_steps));
}

}  // namespace isocost::cli::diffuse
