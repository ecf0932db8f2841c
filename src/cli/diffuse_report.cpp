// The report pieces the modes of `isocost diffuse` share (diffuse.hpp).
#include "cli.hpp"
#include "diffuse.hpp"

#include "isocost/detail/text.hpp"
#include "isocost/io.hpp"

namespace isocost::cli::diffuse {

std::string num(double v, int digits) { return detail::fixed_digits(v, digits); }

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
  return s + (d.converged() ? ", converged" : ", NOT converged") + "\n";
}

json diffusion_json(const DiffusionSummary& d) {
  return {{"steps", d.steps},
          {"sweeps_per_step", d.sweeps_per_step},
          {"jacobi_sweeps", d.jacobi_sweeps},
          {"converged", d.converged()},
          {"initial_imbalance", d.initial_imbalance},
          {"final_imbalance", d.final_imbalance},
          {"transfer_volume", d.transfer_volume}};
}

ProcessGraph process_graph(const Args& a, const std::optional<std::vector<int>>& dims, int ranks) {
  if (!dims) return read_graph(a.graph, ranks);
  ProcessGraph g = mesh_graph(*dims, a.torus);
  if (ranks >= 0 && ranks != g.nodes)
    throw Error(a.loads + ": " + std::to_string(ranks) + " loads for the " + mesh_name(*dims) +
                " mesh of " + std::to_string(g.nodes) + " ranks");
  return g;
}

}  // namespace isocost::cli::diffuse
