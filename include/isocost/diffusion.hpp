// isocost/diffusion.hpp — diffusive load balancing on a process graph: each
// rank exchanges work only with its neighbours (Watts ch. 2; Eijkhout §2).
//
// The result is a transfer vector: t_e > 0 on edge e = (i, j) means i sends
// t_e units of work to j. Applying it changes loads to u_i − Σ_out t + Σ_in t,
// which conserves the total exactly. Each step's flux follows Watts's figures
// (the implicit half from ν Jacobi sweeps), but the state the next step and
// the test u_max <= (1 + α)·u_avg see is the loads the transfers imply, so the
// test judges what will actually be applied. Applying transfers to cuts or
// tasks is in shift.hpp and tasks.hpp.
//
//   auto g = isocost::mesh_graph({8, 8}, /*torus=*/false);
//   isocost::DiffusionOptions o;                // Crank–Nicolson, α = 0.05
//   auto r = isocost::diffuse(g, loads, o);     // r.transfers[e], r.loads
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "isocost/options.hpp"
#include "isocost/result.hpp"

namespace isocost {

/// An undirected process graph. Edges are stored once, i < j, with a weight
/// (1, or 2 for the doubled wrap-around edge of a torus axis of length 2).
struct ProcessGraph {
  struct Edge {
    int i = 0, j = 0;     ///< endpoints, i < j
    double weight = 1.0;  ///< parallel edges merged: the Laplacian weight
  };
  int nodes = 0;
  std::vector<Edge> edges;
  /// Mesh dimensions M_0 × … (empty for a general graph), and whether it wraps.
  std::vector<int> mesh;
  bool torus = false;

  /// n: the number of neighbours the schemes use for every node. On a mesh,
  /// 2 for each dimension longer than 1 (2d: the "6" of Watts's 3-D figures,
  /// his "d"), a missing neighbour on a non-wrapping boundary
  /// counting as one that carries the node's own load (Neumann). On a general
  /// graph, the largest weighted degree; lower-degree nodes are padded the
  /// same way, which solves the same equations and keeps each sweep
  /// conservative.
  double max_degree() const;
  /// Throws Error on self-loops, endpoints out of range, non-positive
  /// weights, or a disconnected graph (naming the components).
  void validate() const;
};

/// A d-dimensional mesh M_0 × … × M_{d−1}, optionally wrapped in every
/// dimension. Ranks are numbered in C order, the last index fastest
/// (rank = (i_0·M_1 + i_1)·M_2 + i_2), as MPI_Cart_create numbers them.
ProcessGraph mesh_graph(const std::vector<int>& dims, bool torus);
/// A general undirected graph from edges (i, j); duplicates merge into one
/// edge of summed weight. Validated.
ProcessGraph edge_graph(int nodes, const std::vector<std::pair<int, int>>& edges);

/// The diffusion schemes.
enum class DiffusionScheme {
  explicit_euler,  ///< Cybenko: u ← u − α·L·u; stable only for α <= 1/n
  implicit,        ///< first-order implicit with ν Jacobi sweeps (Watts Fig. 2.2)
  crank_nicolson,  ///< second order, ᾱ = √α, ν sweeps (Watts Fig. 2.3)
  least_squares,   ///< one shot, T = Aᵀ(AAᵀ)⁻¹L̄ (Eijkhout §2), Eigen
};
/// "explicit", "implicit", "cn", "lsq".
std::string_view to_string(DiffusionScheme scheme);
DiffusionScheme parse_diffusion_scheme(std::string_view name);

/// Settings for diffuse().
struct DiffusionOptions {
  DiffusionScheme scheme = DiffusionScheme::crank_nicolson;
  /// Time step and accuracy, in (0, 1): iterate until u_max <= (1 + α)·u_avg
  /// (Watts). The explicit scheme needs α <= 1/n (n: max_degree()).
  double alpha = 0.05;
  /// Step budget; running out is reported (termination iteration_limit), not
  /// an error.
  int max_steps = 100000;
  /// Jacobi sweeps per step for the implicit schemes; 0: Watts's
  /// ν = ⌈ln α / ln ρ⌉ with ρ = nα/(1 + nα) (first order) or
  /// ρ = (n/2)ᾱ/(1 + (n/2)ᾱ) (Crank–Nicolson).
  int sweeps = 0;
  /// Least squares: sparse Cholesky (SimplicialLDLT) up to this many nodes,
  /// conjugate gradients above.
  int direct_limit = 20000;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("scheme", self.scheme);
    v("alpha", self.alpha, open(0, 1));
    v("max_steps", self.max_steps, at_least(1));
    v("sweeps", self.sweeps, at_least(0));
    v("direct_limit", self.direct_limit, at_least(0));
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("diffusion: …") unless is_valid().
  void validate() const { validate_options(*this, "diffusion"); }
};

/// What diffuse() did.
struct DiffusionSummary {
  DiffusionScheme scheme = DiffusionScheme::crank_nicolson;
  std::vector<double> transfers;  ///< per edge of the graph, i → j when > 0
  std::vector<double> loads;      ///< u_i after applying the transfers (exactly conservative)
  int steps = 0;                  ///< diffusion steps (1 for least squares)
  int sweeps_per_step = 0;        ///< ν (0 for explicit and least squares)
  long long jacobi_sweeps = 0;    ///< total Jacobi sweeps (or CG iterations)
  double transfer_volume = 0;     ///< Σ_e |t_e|
  double initial_imbalance = 0;   ///< u_max/u_avg − 1 before
  double final_imbalance = 0;     ///< u_max/u_avg − 1 of `loads`
  DiffusionOptions options;       ///< the options given (sweeps_per_step: ν used)
  /// converged: final_imbalance <= α (or the least-squares solve converged);
  /// iteration_limit: max_steps ran out first.
  Termination termination = Termination::converged;
  bool converged() const noexcept { return termination == Termination::converged; }

  std::string brief_report() const;
};

/// Balances `loads` (one per node, finite, >= 0, not all zero) over `graph`.
/// Serial; mpi/diffusion.hpp runs the same arithmetic distributed and gets the
/// same transfers.
DiffusionSummary diffuse(const ProcessGraph& graph, std::span<const double> loads,
                         const DiffusionOptions& options = {});

/// One row of simulate_diffusion(): the state after a step.
struct SimulatedStep {
  double max_load = 0;            ///< L_max after the step
  double max_elements_moved = 0;  ///< largest number of elements received by a rank
};

/// Pearce's diffusion simulator (Alg. 2): predicts how diffusion would evolve
/// without moving anything. Each step moves a fraction γ of the explicit flux,
/// L_i ← L_i − γ·α_s·Σ_j w_ij (L_i − L_j) with α_s = 1/(n + 1) (stable for any
/// γ <= 1; Alg. 2 as printed adds the flux with the wrong sign), and elements
/// move in proportion (elements per unit load of the sender). Stops when
/// L_max <= (1 + threshold)·L_avg or after max_steps.
struct SimulationOptions {
  double gamma = 1.0;       ///< Pearce's γ in (0, 1]
  double threshold = 0.05;  ///< the lowest attainable imbalance, finite, >= 0
  int max_steps = 10000;    ///< >= 1

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("gamma", self.gamma, left_open(0, 1));
    v("threshold", self.threshold, at_least(0));
    v("max_steps", self.max_steps, at_least(1));
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("simulation: …") unless is_valid().
  void validate() const { validate_options(*this, "simulation"); }
};
struct Simulation {
  int convergence_steps = 0;  ///< steps until the threshold (max_steps if never)
  /// converged: the threshold was reached; iteration_limit: max_steps first.
  Termination termination = Termination::converged;
  bool converged() const noexcept { return termination == Termination::converged; }
  SimulationOptions options;  ///< the options given
  std::vector<SimulatedStep> steps;
};
Simulation simulate_diffusion(const ProcessGraph& graph, std::span<const double> loads,
                              std::span<const double> elements,
                              const SimulationOptions& options = {});

}  // namespace isocost
