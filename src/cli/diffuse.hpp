// Internal to `isocost diffuse`: the arguments, the report pieces the modes
// share, and the four modes (diffuse_*.cpp), each of which prints its result
// (or writes -o) and throws NotConverged when it did not converge.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "arguments.hpp"
#include "isocost/diffusion.hpp"
#include "isocost/shift.hpp"

namespace isocost::cli::diffuse {

using json = nlohmann::ordered_json;

struct Args {
  std::string mesh;              // --mesh 8x8
  std::string graph;             // --graph FILE
  std::string loads;             // --loads FILE
  std::string alpha;             // --alpha (default: DiffusionOptions)
  std::string scheme;            // --scheme (default: DiffusionOptions)
  std::string max_steps;         // --max-steps
  std::string sweeps;            // --sweeps
  std::string gamma;             // --gamma (--simulate)
  std::string max_move;          // --max-move (--cuts)
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

std::string num(double v, int digits = 10);
/// "8x8".
std::string mesh_name(const std::vector<int>& dims);
json graph_json(const ProcessGraph& g, const std::string& file);
std::string graph_line(const ProcessGraph& g, const std::string& file);
std::string diffusion_line(const DiffusionSummary& d, double alpha);
json diffusion_json(const DiffusionSummary& d);
/// The mesh (dims) or the --graph file, for `ranks` loads (ranks < 0: any).
ProcessGraph process_graph(const Args& a, const std::optional<std::vector<int>>& dims, int ranks);

/// --mesh/--graph with --loads: the transfers per edge.
void run_graph(const Args& a, const DiffusionOptions& options, const ProcessGraph& g,
               const std::vector<double>& loads);
/// --simulate: Pearce's diffusion simulator (Alg. 2).
void run_simulate(const Args& a, const SimulationOptions& options, const ProcessGraph& g,
                  const std::vector<double>& loads);
/// --cuts: diffusion on the chain of ranks and the shifted cuts of `model`.
void run_cuts(const Args& a, const DiffusionOptions& diffusion, const ShiftOptions& shift,
              const CostModel& model, const std::vector<double>& loads);
/// --tasks: diffusion on the ranks' task sums, then task selection.
void run_tasks(const Args& a, const DiffusionOptions& options,
               const std::optional<std::vector<int>>& dims);

}  // namespace isocost::cli::diffuse
