// core/shared/: shared with the mpi layer — the core's internals other layers use, not users.
// Internal: the diffusion arithmetic shared by the serial diffuse() and the
// distributed version (src/mpi/diffusion.cpp), which must produce the same
// transfers bit for bit: neighbours are summed in increasing node order, then
// the padding copies of the node's own load (see ProcessGraph::max_degree).
#pragma once

#include <span>
#include <vector>

#include "isocost/diffusion.hpp"

namespace isocost::detail {

/// Compressed neighbour lists, sorted by node.
struct DiffusionStencil {
  double n = 0;             ///< max_degree(): the uniform neighbour count
  std::vector<int> offset;  ///< node v's neighbours are [offset[v], offset[v+1])
  std::vector<int> neighbour;
  std::vector<double> weight;
  std::vector<double> degree;  ///< weighted degree of each node
};

DiffusionStencil make_stencil(const ProcessGraph& g);

/// Σ_j w_vj·u_j + (n − deg_v)·u_v, in the fixed order.
double node_degree_sum(const DiffusionStencil& s, std::span<const double> u, int v);

/// The flux on an edge seen from node i: c·w·(u_i − u_j), plus c·w·(v_i − v_j)
/// when v (the implicit iterate) is given. Seen from j it is the exact negation.
double edge_flux(double c, double w, double ui, double uj, const double* vi, const double* vj);

/// Watts's ν for a scheme (0 for explicit and least squares).
int watts_sweeps(DiffusionScheme scheme, double alpha, double n);

/// The termination a diffusion reports, judged on the loads its transfers
/// actually produce: converged within α (with a 1e-9 relative slack),
/// iteration_limit when an iterative scheme used its step budget, else failed.
/// Serial and distributed diffusion share it, so both claim the same.
Termination diffusion_termination(double final_imbalance, const DiffusionOptions& o, int steps);

/// The state of an iterative scheme: loads u and accumulated transfers t.
class DiffusionState {
 public:
  DiffusionState(const ProcessGraph& g, std::span<const double> loads, const DiffusionOptions& o);
  /// u_max <= (1 + α)·avg (Watts's loop condition).
  bool balanced(double avg) const;
  /// One step of the scheme (with its ν sweeps).
  void step();
  const std::vector<double>& transfers() const { return t_; }
  const std::vector<double>& loads() const { return u_; }
  int sweeps_per_step() const { return nu_; }

 private:
  const ProcessGraph& g_;
  DiffusionStencil s_;
  const DiffusionOptions& o_;
  std::vector<double> u_, t_;
  int nu_ = 0;
};

}  // namespace isocost::detail
