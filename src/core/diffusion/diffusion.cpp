// Diffusion schemes on a process graph (Watts ch. 2, Eijkhout §2) and
// Pearce's diffusion simulator (Alg. 2).
#include "isocost/diffusion.hpp"

#include <Eigen/SparseCholesky>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <sstream>

#include "core/common/eigen_real.hpp"
#include "core/shared/diffusion_internal.hpp"
#include "core/shared/scaling.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/metrics.hpp"

namespace isocost {

using detail::exact;

// ---------------------------------------------------------------------------
// Graphs

double ProcessGraph::max_degree() const {
  if (!mesh.empty()) {
    double n = 0;
    for (int m : mesh) n += m > 1 ? 2 : 0;
    return n;
  }
  std::vector<double> degree(static_cast<std::size_t>(nodes), 0.0);
  for (const auto& e : edges) {
    degree[e.i] += e.weight;
    degree[e.j] += e.weight;
  }
  return degree.empty() ? 0 : *std::max_element(degree.begin(), degree.end());
}

void ProcessGraph::validate() const {
  if (nodes < 1)
    throw Error("process graph: expected at least one node, got " + std::to_string(nodes));
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const auto& e = edges[k];
    if (e.i < 0 || e.j < 0 || e.i >= nodes || e.j >= nodes)
      throw Error("process graph: edge " + std::to_string(k) + " (" + std::to_string(e.i) + ", " +
                  std::to_string(e.j) + ") has an endpoint outside [0, " + std::to_string(nodes) +
                  ")");
    if (e.i == e.j)
      throw Error("process graph: edge " + std::to_string(k) + " is a self-loop at node " +
                  std::to_string(e.i));
    if (!(e.weight > 0) || !std::isfinite(e.weight))
      throw Error(detail::expected_got("process graph: weight of edge " + std::to_string(k),
                                       "a finite number > 0", exact(e.weight)));
  }
  // Connected components by union–find.
  std::vector<int> parent(static_cast<std::size_t>(nodes));
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const auto& e : edges) parent[find(e.i)] = find(e.j);
  // Count the components; list the first few nodes of the first four only
  // (a graph of 10^7 nodes and one edge has 10^7 components).
  std::size_t count = 0;
  std::vector<std::vector<int>> shown;  // the first four components, up to 7 nodes each
  std::vector<int> index(static_cast<std::size_t>(nodes), -1);
  for (int v = 0; v < nodes; ++v) {
    const int r = find(v);
    if (index[r] < 0) index[r] = static_cast<int>(count++);
    if (index[r] < 4) {
      if (shown.size() <= static_cast<std::size_t>(index[r])) shown.resize(index[r] + 1);
      if (shown[index[r]].size() < 7) shown[index[r]].push_back(v);
    }
  }
  if (count > 1) {
    std::string list;
    for (std::size_t c = 0; c < shown.size(); ++c) {
      list += c ? ", {" : "{";
      for (std::size_t k = 0; k < shown[c].size() && k < 6; ++k)
        list += (k ? ", " : "") + std::to_string(shown[c][k]);
      if (shown[c].size() > 6) list += ", …";
      list += "}";
    }
    if (count > 4) list += ", …";
    throw Error("process graph is disconnected: " + std::to_string(count) + " components " + list +
                "; diffusion cannot move work between them");
  }
}

ProcessGraph mesh_graph(const std::vector<int>& dims, bool torus) {
  if (dims.empty() || dims.size() > 3)
    throw Error(detail::expected_got("mesh", "1 to 3 dimensions", std::to_string(dims.size())));
  long long n = 1;
  for (std::size_t a = 0; a < dims.size(); ++a) {
    if (dims[a] < 1)
      throw Error(detail::expected_got("mesh: dimension " + std::to_string(a), "an integer >= 1",
                                       std::to_string(dims[a])));
    n *= dims[a];
    if (n > 100000000) throw Error("mesh: more than 10^8 nodes");
  }
  ProcessGraph g;
  g.nodes = static_cast<int>(n);
  g.mesh = dims;
  g.torus = torus;
  const int d = static_cast<int>(dims.size());
  // Strides of C order, the last index fastest.
  std::vector<long long> stride(static_cast<std::size_t>(d), 1);
  for (int a = d - 2; a >= 0; --a) stride[a] = stride[a + 1] * dims[a + 1];
  for (long long v = 0; v < n; ++v) {
    for (int a = 0; a < d; ++a) {
      const long long coord = (v / stride[a]) % dims[a];
      if (coord + 1 < dims[a]) {
        // On a wrapped axis of length 2 both neighbours are the same node:
        // the direct edge is also the wrap-around edge, so it counts twice.
        const double weight = torus && dims[a] == 2 ? 2.0 : 1.0;
        g.edges.push_back({static_cast<int>(v), static_cast<int>(v + stride[a]), weight});
      } else if (torus && dims[a] > 2) {
        // The wrap-around edge back to coordinate 0.
        const long long w = v - coord * stride[a];
        g.edges.push_back(
            {static_cast<int>(std::min(v, w)), static_cast<int>(std::max(v, w)), 1.0});
      }
    }
  }
  g.validate();
  return g;
}

ProcessGraph edge_graph(int nodes, const std::vector<std::pair<int, int>>& edges) {
  ProcessGraph g;
  g.nodes = nodes;
  std::vector<ProcessGraph::Edge> list;
  for (std::size_t k = 0; k < edges.size(); ++k) {
    auto [i, j] = edges[k];
    if (i == j)
      throw Error("process graph: edge " + std::to_string(k) + " is a self-loop at node " +
                  std::to_string(i));
    list.push_back({std::min(i, j), std::max(i, j), 1.0});
  }
  std::sort(list.begin(), list.end(),
            [](const auto& a, const auto& b) { return a.i != b.i ? a.i < b.i : a.j < b.j; });
  for (const auto& e : list) {
    if (!g.edges.empty() && g.edges.back().i == e.i && g.edges.back().j == e.j)
      g.edges.back().weight += 1;  // a repeated edge doubles the coupling
    else
      g.edges.push_back(e);
  }
  g.validate();
  return g;
}

// ---------------------------------------------------------------------------
std::string_view to_string(DiffusionScheme scheme) {
  switch (scheme) {
    case DiffusionScheme::explicit_euler:
      return "explicit";
    case DiffusionScheme::implicit:
      return "implicit";
    case DiffusionScheme::crank_nicolson:
      return "cn";
    case DiffusionScheme::least_squares:
      return "lsq";
  }
  return "?";
}

DiffusionScheme parse_diffusion_scheme(std::string_view name) {
  for (auto s : {DiffusionScheme::explicit_euler, DiffusionScheme::implicit,
                 DiffusionScheme::crank_nicolson, DiffusionScheme::least_squares})
    if (name == to_string(s)) return s;
  throw Error(detail::expected_got("scheme", "cn, implicit, explicit or lsq", detail::quote(name)));
}

std::string DiffusionSummary::brief_report() const {
  std::ostringstream out;
  out << "scheme " << to_string(scheme) << ": " << steps << " steps";
  if (sweeps_per_step) out << " x " << sweeps_per_step << " Jacobi sweeps";
  out << " (" << jacobi_sweeps << " sweeps in all), transfer volume " << exact(transfer_volume)
      << ", imbalance " << detail::fixed_digits(initial_imbalance, 6) << " -> "
      << detail::fixed_digits(final_imbalance, 6) << (converged() ? "" : " (NOT converged)");
  return out.str();
}

// ---------------------------------------------------------------------------
// The arithmetic shared with the distributed version.

namespace detail {

double node_degree_sum(const DiffusionStencil& s, std::span<const double> u, int v) {
  // Neighbour loads in the stencil's fixed order, then the padding copies of
  // the node's own load: the same order of additions everywhere.
  double sum = 0;
  for (int k = s.offset[v]; k < s.offset[v + 1]; ++k) sum += s.weight[k] * u[s.neighbour[k]];
  return sum + (s.n - s.degree[v]) * u[v];
}

DiffusionStencil make_stencil(const ProcessGraph& g) {
  DiffusionStencil s;
  s.n = g.max_degree();
  const auto N = static_cast<std::size_t>(g.nodes);
  std::vector<std::vector<std::pair<int, double>>> adj(N);
  for (const auto& e : g.edges) {
    adj[e.i].push_back({e.j, e.weight});
    adj[e.j].push_back({e.i, e.weight});
  }
  s.offset.assign(N + 1, 0);
  s.degree.assign(N, 0.0);
  for (std::size_t v = 0; v < N; ++v) {
    std::sort(adj[v].begin(), adj[v].end());
    s.offset[v + 1] = s.offset[v] + static_cast<int>(adj[v].size());
    for (const auto& [w, weight] : adj[v]) {
      s.neighbour.push_back(w);
      s.weight.push_back(weight);
      s.degree[v] += weight;
    }
  }
  return s;
}

Termination diffusion_termination(double final_imbalance, const DiffusionOptions& o, int steps) {
  if (final_imbalance <= o.alpha * (1 + 1e-9)) return Termination::converged;
  return o.scheme != DiffusionScheme::least_squares && steps >= o.max_steps
             ? Termination::iteration_limit
             : Termination::failed;
}

int watts_sweeps(DiffusionScheme scheme, double alpha, double n) {
  // ν = ⌈ln α / ln ρ⌉ (Watts eq. 2.10), ρ the Jacobi spectral radius bound.
  double rho = 0;
  if (scheme == DiffusionScheme::implicit) rho = n * alpha / (1 + n * alpha);
  if (scheme == DiffusionScheme::crank_nicolson) {
    const double a = std::sqrt(alpha);
    rho = (n / 2) * a / (1 + (n / 2) * a);
  }
  if (!(rho > 0)) return 0;
  return std::max(1, static_cast<int>(std::ceil(std::log(alpha) / std::log(rho))));
}

}  // namespace detail

namespace {

// Loads after applying transfers: u0 − Σ_out t + Σ_in t (antisymmetric, so
// the total is conserved to rounding).
std::vector<double> applied(const ProcessGraph& g, std::span<const double> u0,
                            const std::vector<double>& t) {
  std::vector<double> u(u0.begin(), u0.end());
  for (std::size_t k = 0; k < g.edges.size(); ++k) {
    u[g.edges[k].i] -= t[k];
    u[g.edges[k].j] += t[k];
  }
  return u;
}

// The Laplacian L = A·Aᵀ (weighted) grounded at node 0, node v >= 1 as row
// and column v − 1, assembled once for either solver: the diagonal (the
// weighted degrees) apart, the off-diagonal −w of row r in compressed rows,
// [start[r], start[r + 1]) of column and value.
struct GroundedLaplacian {
  std::vector<double> diagonal;
  std::vector<std::size_t> start;
  std::vector<int> column;
  std::vector<double> value;

  explicit GroundedLaplacian(const ProcessGraph& g)
      : diagonal(static_cast<std::size_t>(g.nodes - 1), 0.0),
        start(static_cast<std::size_t>(g.nodes), 0) {
    for (const auto& e : g.edges) {
      if (e.i > 0) diagonal[e.i - 1] += e.weight;
      if (e.j > 0) diagonal[e.j - 1] += e.weight;
      if (e.i > 0 && e.j > 0) {  // row r counted at r + 1
        ++start[e.i];
        ++start[e.j];
      }
    }
    std::partial_sum(start.begin(), start.end(), start.begin());
    column.resize(start.back());
    value.resize(start.back());
    std::vector<std::size_t> next(start.begin(), start.end() - 1);
    auto put = [&](int row, int col, double w) {
      column[next[row]] = col;
      value[next[row]++] = -w;
    };
    for (const auto& e : g.edges) {
      if (e.i > 0 && e.j > 0) {
        put(e.i - 1, e.j - 1, e.weight);
        put(e.j - 1, e.i - 1, e.weight);
      }
    }
  }

  // y = L·x; returns x·y.
  double apply(const std::vector<double>& x, std::vector<double>& y) const {
    double xy = 0;
    for (std::size_t r = 0; r < diagonal.size(); ++r) {
      double sum = diagonal[r] * x[r];
      for (std::size_t k = start[r]; k < start[r + 1]; ++k) sum += value[k] * x[column[k]];
      y[r] = sum;
      xy += x[r] * sum;
    }
    return xy;
  }
};

struct CgOutcome {
  long long iterations = 0;  // products by L
  double error = 0;          // ‖r‖/‖b‖ at the end
};

// L·x = b by conjugate gradients from x = 0 with the Jacobi preconditioner
// M = diag(L) (Saad, Iterative Methods for Sparse Linear Systems, 2nd ed.,
// Alg. 9.1, preconditioned CG). Written out, not Eigen's ConjugateGradient:
// on double, Eigen's keeps its work vectors in VectorXd, whose code Ceres's
// static library also carries (issue #23), and on the core's own scalar
// (common/eigen_real.hpp) Eigen does not vectorise it, which made it twice
// as slow. Stops as Eigen's did: once ‖r‖² < max(tol²·‖b‖², DBL_MIN), or
// after max_iterations; b = 0 gives x = 0 at once. Three passes over the
// vectors per iteration, where Eigen's made eight. The iterations counted
// are the products by L (Eigen's count left out the last one when it
// converged).
CgOutcome conjugate_gradients(const GroundedLaplacian& L, const std::vector<double>& b, double tol,
                              long long max_iterations, std::vector<double>& x) {
  const std::size_t n = b.size();
  x.assign(n, 0.0);
  CgOutcome out;
  double bb = 0;
  for (double v : b) bb += v * v;
  if (bb == 0) return out;
  const double threshold = std::max(tol * tol * bb, std::numeric_limits<double>::min());
  std::vector<double> inverse(n), r(b), p(n), q(n);
  double rz = 0;  // rᵀM⁻¹r
  for (std::size_t k = 0; k < n; ++k) {
    inverse[k] = 1 / L.diagonal[k];
    p[k] = inverse[k] * r[k];
    rz += r[k] * p[k];
  }
  double rr = bb;
  while (rr >= threshold && out.iterations < max_iterations) {
    const double alpha = rz / L.apply(p, q);
    double rz_next = 0;
    rr = 0;
    for (std::size_t k = 0; k < n; ++k) {
      x[k] += alpha * p[k];
      r[k] -= alpha * q[k];
      rr += r[k] * r[k];
      rz_next += r[k] * inverse[k] * r[k];
    }
    ++out.iterations;
    if (rr < threshold) break;
    const double beta = rz_next / rz;
    rz = rz_next;
    for (std::size_t k = 0; k < n; ++k) p[k] = inverse[k] * r[k] + beta * p[k];
  }
  out.error = std::sqrt(rr / bb);
  return out;
}

void least_squares(const ProcessGraph& g, std::span<const double> u0, double avg,
                   const DiffusionOptions& o, DiffusionSummary& out) {
  // Laplacian L = A·Aᵀ (weighted) grounded at node 0, which makes it positive
  // definite on a connected graph; T = Aᵀφ is then the minimum-norm solution
  // of A·T = L̄ (Eijkhout §2).
  const int N = g.nodes;
  out.transfers.assign(g.edges.size(), 0.0);
  if (N == 1) return;
  const GroundedLaplacian L(g);
  std::vector<double> rhs(static_cast<std::size_t>(N - 1)), phi(rhs.size());
  for (int v = 1; v < N; ++v) rhs[v - 1] = u0[v] - avg;
  if (N - 1 <= o.direct_limit) {
    // Eigen on the core's own scalar and index types, not double and int:
    // Ceres's static library carries copies of these templates on those,
    // built with other allocation settings, and the linker keeps one copy of
    // each (issue #23; common/eigen_real.hpp). Eigen's Cholesky internals
    // hold vectors of the plain scalar (Matrix<Scalar, Dynamic, 1>), so a
    // double with other vector or index types would still share those.
    using detail::Real;
    using Sparse = Eigen::SparseMatrix<Real, Eigen::ColMajor, std::ptrdiff_t>;
    using Vector = Eigen::Matrix<Real, Eigen::Dynamic, 1>;
    std::vector<Eigen::Triplet<Real, std::ptrdiff_t>> entries;
    entries.reserve(L.diagonal.size() + L.value.size());
    for (std::size_t r = 0; r < L.diagonal.size(); ++r) {
      const auto row = static_cast<std::ptrdiff_t>(r);
      entries.emplace_back(row, row, L.diagonal[r]);
      for (std::size_t k = L.start[r]; k < L.start[r + 1]; ++k)
        entries.emplace_back(row, L.column[k], L.value[k]);
    }
    Sparse A(N - 1, N - 1);
    A.setFromTriplets(entries.begin(), entries.end());
    Vector b(N - 1);
    for (std::size_t r = 0; r < rhs.size(); ++r) b[static_cast<Eigen::Index>(r)] = rhs[r];
    Eigen::SimplicialLDLT<Sparse> solver(A);
    if (solver.info() != Eigen::Success)
      throw Error("least squares: Cholesky factorisation failed");
    const Vector solution = solver.solve(b);
    for (std::size_t r = 0; r < phi.size(); ++r)
      phi[r] = double(solution[static_cast<Eigen::Index>(r)]);
  } else {
    const double tol = 1e-13;
    const auto cg = conjugate_gradients(L, rhs, tol, std::max(1000LL, 10LL * N), phi);
    out.jacobi_sweeps = cg.iterations;
    if (!(cg.error <= tol))
      throw Error("least squares: conjugate gradients did not converge in " +
                  std::to_string(cg.iterations) + " iterations (error " + exact(cg.error) + ")");
  }
  auto potential = [&](int v) { return v == 0 ? 0.0 : phi[v - 1]; };
  for (std::size_t k = 0; k < g.edges.size(); ++k) {
    const auto& e = g.edges[k];
    out.transfers[k] = e.weight * (potential(e.i) - potential(e.j));
  }
  out.steps = 1;
}

}  // namespace

DiffusionSummary diffuse(const ProcessGraph& graph, std::span<const double> loads,
                         const DiffusionOptions& options) {
  options.validate();
  graph.validate();
  check_loads(loads, "diffusion", static_cast<std::size_t>(graph.nodes), "node");
  // Work on the loads scaled by a power of two that brings the largest into
  // [1, 2): exact, so ordinary loads give the same transfers bit for bit (as the
  // distributed version), while loads near the double limit no longer sum to
  // inf (which made every imbalance −1) and tiny ones no longer go subnormal.
  const int k = detail::unit_exponent(loads);
  std::vector<double> scaled(loads.size());
  for (std::size_t v = 0; v < loads.size(); ++v) scaled[v] = std::ldexp(loads[v], k);
  const std::span<const double> u0(scaled);
  const double avg = std::accumulate(scaled.begin(), scaled.end(), 0.0) / graph.nodes;
  DiffusionSummary out;
  out.options = options;
  out.scheme = options.scheme;
  out.initial_imbalance = imbalance(u0, avg);
  const double n = graph.max_degree();
  if (options.scheme == DiffusionScheme::explicit_euler && n > 0 && options.alpha > 1 / n)
    throw Error("explicit diffusion: alpha=" + exact(options.alpha) +
                " exceeds its stability limit 1/n = " + exact(1 / n) + " (n = " + exact(n) +
                " neighbours; Watts's footnote gives the stricter 2^-d); use a smaller alpha or "
                "an implicit scheme");

  // Balanced already (within alpha; exactly, for least squares, which
  // equalises): nothing moves, so neither a stencil nor a solve is built.
  const double u_max = *std::max_element(u0.begin(), u0.end());
  const bool lsq = options.scheme == DiffusionScheme::least_squares;
  if (lsq ? u_max == *std::min_element(u0.begin(), u0.end()) : u_max <= (1 + options.alpha) * avg) {
    out.transfers.assign(graph.edges.size(), 0.0);
    if (!lsq && options.scheme != DiffusionScheme::explicit_euler)  // what a step would use
      out.sweeps_per_step = options.sweeps > 0
                                ? options.sweeps
                                : detail::watts_sweeps(options.scheme, options.alpha, n);
  } else if (lsq) {
    least_squares(graph, u0, avg, options, out);
  } else {
    detail::DiffusionState state(graph, u0, options);
    while (!state.balanced(avg) && out.steps < options.max_steps) {
      state.step();
      ++out.steps;
    }
    out.transfers = state.transfers();
    out.sweeps_per_step = state.sweeps_per_step();
    out.jacobi_sweeps = static_cast<long long>(out.steps) * out.sweeps_per_step;
  }
  const std::vector<double> u = applied(graph, u0, out.transfers);
  // The claim is judged on the loads the transfers actually produce.
  out.final_imbalance = imbalance(u, avg);
  out.termination = detail::diffusion_termination(out.final_imbalance, options, out.steps);
  double volume = 0;
  for (double t : out.transfers) volume += std::abs(t);
  out.transfer_volume = std::ldexp(volume, -k);
  for (double& t : out.transfers) t = std::ldexp(t, -k);
  out.loads.resize(u.size());
  for (std::size_t v = 0; v < u.size(); ++v) out.loads[v] = std::ldexp(u[v], -k);
  if (!std::isfinite(out.transfer_volume))
    throw Error("diffusion: the transfer volume " + exact(out.transfer_volume) +
                " exceeds the double range; scale the loads down");
  return out;
}

// ---------------------------------------------------------------------------
namespace detail {

DiffusionState::DiffusionState(const ProcessGraph& g, std::span<const double> loads,
                               const DiffusionOptions& o)
    : g_(g), s_(make_stencil(g)), o_(o), u_(loads.begin(), loads.end()), t_(g.edges.size(), 0.0) {
  nu_ = o.scheme == DiffusionScheme::explicit_euler
            ? 0
            : (o.sweeps > 0 ? o.sweeps : watts_sweeps(o.scheme, o.alpha, s_.n));
}

bool DiffusionState::balanced(double avg) const {
  return *std::max_element(u_.begin(), u_.end()) <= (1 + o_.alpha) * avg;
}

double edge_flux(double c, double w, double ui, double uj, const double* vi, const double* vj) {
  // c·w·(u_i − u_j) [+ c·w·(v_i − v_j)]: one rounding sequence for both ends,
  // so the flux seen from j is exactly the negation of the flux from i.
  const double f = c * w * (ui - uj);
  return vi ? f + c * w * (*vi - *vj) : f;
}

void DiffusionState::step() {
  const int N = g_.nodes;
  const double n = s_.n, a = o_.alpha;
  // The state is always the loads the accumulated transfers imply, so the
  // convergence test judges what will actually be applied. The Jacobi iterate
  // only supplies the implicit half of the flux (Watts Fig. 2.2 and 2.3).
  std::vector<double> v;  // the implicit solution estimate
  double c = a;
  if (o_.scheme != DiffusionScheme::explicit_euler) {
    const bool cn = o_.scheme == DiffusionScheme::crank_nicolson;
    c = cn ? std::sqrt(a) / 2 : a;  // ᾱ/2 for Crank–Nicolson
    std::vector<double> b(u_.size());
    for (int x = 0; x < N; ++x)
      b[x] = cn ? u_[x] + c * (node_degree_sum(s_, u_, x) - n * u_[x]) : u_[x];
    v = b;
    std::vector<double> next(u_.size());
    const double diag = 1 + c * n;
    for (int k = 0; k < nu_; ++k) {
      for (int x = 0; x < N; ++x) next[x] = (b[x] + c * node_degree_sum(s_, v, x)) / diag;
      v.swap(next);
    }
  }
  const bool cn = o_.scheme == DiffusionScheme::crank_nicolson;
  const bool implicit = o_.scheme == DiffusionScheme::implicit;
  auto flux = [&](int x, int y, double w) {
    if (implicit) return edge_flux(c, w, v[x], v[y], nullptr, nullptr);
    return edge_flux(c, w, u_[x], u_[y], cn ? &v[x] : nullptr, cn ? &v[y] : nullptr);
  };
  for (std::size_t k = 0; k < g_.edges.size(); ++k)
    t_[k] += flux(g_.edges[k].i, g_.edges[k].j, g_.edges[k].weight);
  std::vector<double> next(u_.size());
  for (int x = 0; x < N; ++x) {
    double out = 0;  // net outflow, neighbours in increasing order
    for (int k = s_.offset[x]; k < s_.offset[x + 1]; ++k)
      out += flux(x, s_.neighbour[k], s_.weight[k]);
    next[x] = u_[x] - out;
  }
  u_.swap(next);
}

}  // namespace detail

// ---------------------------------------------------------------------------
Simulation simulate_diffusion(const ProcessGraph& graph, std::span<const double> loads,
                              std::span<const double> elements, const SimulationOptions& o) {
  graph.validate();
  check_loads(loads, "diffusion", static_cast<std::size_t>(graph.nodes), "node");
  if (elements.size() != loads.size())
    throw Error("simulation: " + std::to_string(elements.size()) + " element counts for " +
                std::to_string(loads.size()) + " loads");
  for (std::size_t i = 0; i < elements.size(); ++i)
    if (!std::isfinite(elements[i]) || elements[i] < 0)
      throw Error(detail::expected_got("simulation: element count of node " + std::to_string(i),
                                       "a finite number >= 0", exact(elements[i])));
  o.validate();
  // Loads scaled by a power of two as in diffuse(), so totals near the double
  // limit do not overflow; elements per unit load are scale-free.
  const int k = detail::unit_exponent(loads);
  std::vector<double> L(loads.size()), E(elements.begin(), elements.end());
  for (std::size_t v = 0; v < L.size(); ++v) L[v] = std::ldexp(loads[v], k);
  const double avg = std::accumulate(L.begin(), L.end(), 0.0) / graph.nodes;
  const double rate = o.gamma / (graph.max_degree() + 1);
  Simulation out;
  out.options = o;
  out.termination = Termination::iteration_limit;  // until the threshold is reached
  while (out.steps.size() < static_cast<std::size_t>(o.max_steps)) {
    if (*std::max_element(L.begin(), L.end()) <= (1 + o.threshold) * avg) {
      out.termination = Termination::converged;
      break;
    }
    std::vector<double> dL(L.size(), 0.0), in(L.size(), 0.0), dE(L.size(), 0.0);
    for (const auto& e : graph.edges) {
      const double flow = rate * e.weight * (L[e.i] - L[e.j]);  // i → j when > 0
      const int from = flow > 0 ? e.i : e.j, to = flow > 0 ? e.j : e.i;
      const double amount = std::abs(flow);
      const double moved = L[from] > 0 ? amount * E[from] / L[from] : 0;  // elements per load
      dL[from] -= amount;
      dL[to] += amount;
      dE[from] -= moved;
      dE[to] += moved;
      in[to] += moved;
    }
    for (std::size_t v = 0; v < L.size(); ++v) {
      L[v] += dL[v];
      E[v] += dE[v];
    }
    out.steps.push_back({std::ldexp(*std::max_element(L.begin(), L.end()), -k),
                         *std::max_element(in.begin(), in.end())});
  }
  out.convergence_steps = static_cast<int>(out.steps.size());
  return out;
}

}  // namespace isocost
