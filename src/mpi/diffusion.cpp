// Distributed diffusion on an MPI Cartesian communicator: one mesh node per
// rank, neighbour exchanges only, one MPI_Allreduce per convergence check.
//
// Bit-for-bit agreement with the serial diffuse() (src/core/diffusion.cpp)
// rests on three things:
//  - the same order of additions: each rank builds a one-node copy of the
//    serial stencil (its neighbours sorted by rank, edges of a periodic axis
//    of length 2 merged into one of weight 2, then the (n − deg)·u padding)
//    and calls the serial detail::node_degree_sum and detail::edge_flux on it;
//  - the same state: the step's loads u ← u − Σ flux, neighbours in increasing
//    order, and the test max u <= (1 + α)·avg with the average summed in rank
//    order from one MPI_Allgather;
//  - transfers kept from this rank's side: the flux seen from the higher-
//    numbered end is the exact negation of the one seen from the lower end,
//    and rounding is symmetric, so the accumulated sum is exactly −t_e there.
// The final loads are accumulated in the serial graph's edge order (the order
// mesh_graph() generates edges in), so they too match exactly.
//
// Error agreement: each rank checks its own input, one MPI_Allreduce tells
// every rank whether any input was bad, and then all of them throw the same
// Error (the same scheme as samples.cpp). Checks whose data every rank shares
// (the topology, the gathered loads, α against the stability limit) throw on
// every rank alike without communication.
#include "isocost/mpi/diffusion.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "core/shared/diffusion_internal.hpp"
#include "core/shared/scaling.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "mpi/agreement.hpp"

namespace isocost::mpi {

namespace {

using detail::check_comm;
using isocost::detail::exact;

std::string dims_text(const std::vector<int>& dims) {
  std::string s;
  for (std::size_t a = 0; a < dims.size(); ++a) s += (a ? "x" : "") + std::to_string(dims[a]);
  return s.empty() ? "(none)" : s;
}

void agree(MPI_Comm comm, const std::string& what, const std::string& problem,
           long long& allreduces, const char* kind = "invalid input on",
           std::span<const detail::Same> same = {}) {
  detail::agree(comm, what, problem, same, kind, &allreduces);
}

// This rank's node of the mesh: its neighbours as the serial stencil orders
// them, and where each one's value lands in a neighbour exchange.
struct Node {
  int rank = 0, size = 0;
  std::vector<int> dims, coords;
  bool torus = false;
  double n = 0;  // ProcessGraph::max_degree(): 2 per axis longer than 1

  // Unique neighbours in increasing rank order (the serial stencil's order).
  std::vector<int> nb_rank;
  std::vector<double> nb_weight;
  std::vector<int> nb_slot;  // index in the MPI_Neighbor_allgather buffer
  // Per direction (2a: −1 along axis a, 2a + 1: +1): index into nb_*, or −1.
  std::vector<int> dir_nb;
  // The neighbours in the order mesh_graph() lists their edges.
  std::vector<int> edge_order;
  // The serial stencil restricted to this node: node 0 is this rank, node
  // 1 + k its k-th neighbour, so node_degree_sum(stencil, buf, 0) adds in the
  // serial order when buf = {own value, neighbour values in rank order}.
  isocost::detail::DiffusionStencil stencil;
};

Node read_topology(MPI_Comm cart, const char* what) {
  check_comm(cart, what);
  int status = MPI_UNDEFINED;
  MPI_Topo_test(cart, &status);
  if (status != MPI_CART)
    throw Error(std::string(what) +
                ": expected a Cartesian communicator (MPI_Cart_create, e.g. "
                "mesh_communicator()), got one without a Cartesian topology");
  Node node;
  MPI_Comm_rank(cart, &node.rank);
  MPI_Comm_size(cart, &node.size);
  int d = 0;
  MPI_Cartdim_get(cart, &d);
  if (d < 1 || d > 3)
    throw Error(std::string(what) +
                ": expected a Cartesian communicator of 1 to 3 dimensions, got " +
                std::to_string(d));
  node.dims.assign(static_cast<std::size_t>(d), 0);
  node.coords.assign(static_cast<std::size_t>(d), 0);
  std::vector<int> periods(static_cast<std::size_t>(d), 0);
  MPI_Cart_get(cart, d, node.dims.data(), periods.data(), node.coords.data());
  node.torus = periods[0] != 0;
  for (int a = 1; a < d; ++a)
    if ((periods[static_cast<std::size_t>(a)] != 0) != node.torus)
      throw Error(std::string(what) + ": the " + dims_text(node.dims) +
                  " Cartesian communicator has mixed periods; expected all periodic (a torus) "
                  "or none (a mesh)");

  struct Link {
    int rank;
    double weight;
    int slot;
    int axis;
    int generator;  // the node whose loop iteration in mesh_graph() emits the edge
    int dir_minus, dir_plus;
  };
  std::vector<Link> links;
  for (int a = 0; a < d; ++a) {
    const int M = node.dims[static_cast<std::size_t>(a)];
    if (M <= 1) continue;
    node.n += 2;
    int minus = MPI_PROC_NULL, plus = MPI_PROC_NULL;
    MPI_Cart_shift(cart, a, 1, &minus, &plus);
    if (node.torus && M == 2) {
      // Both directions reach the same node: one edge of weight 2, emitted by
      // the node at coordinate 0.
      const int gen = node.coords[static_cast<std::size_t>(a)] == 0 ? node.rank : plus;
      links.push_back({plus, 2.0, 2 * a + 1, a, gen, 2 * a, 2 * a + 1});
      continue;
    }
    // mesh_graph() emits the edge to the +1 neighbour (or the wrap-around edge
    // from coordinate M − 1 to 0) from the node itself, so the edge to the −1
    // neighbour is emitted by that neighbour.
    if (minus != MPI_PROC_NULL) links.push_back({minus, 1.0, 2 * a, a, minus, 2 * a, -1});
    if (plus != MPI_PROC_NULL) links.push_back({plus, 1.0, 2 * a + 1, a, node.rank, -1, 2 * a + 1});
  }
  std::sort(links.begin(), links.end(),
            [](const Link& x, const Link& y) { return x.rank < y.rank; });

  const auto k = links.size();
  node.dir_nb.assign(2 * static_cast<std::size_t>(d), -1);
  auto& s = node.stencil;
  s.n = node.n;
  s.offset = {0, static_cast<int>(k)};
  s.degree = {0.0};
  for (std::size_t i = 0; i < k; ++i) {
    node.nb_rank.push_back(links[i].rank);
    node.nb_weight.push_back(links[i].weight);
    node.nb_slot.push_back(links[i].slot);
    if (links[i].dir_minus >= 0)
      node.dir_nb[static_cast<std::size_t>(links[i].dir_minus)] = static_cast<int>(i);
    if (links[i].dir_plus >= 0)
      node.dir_nb[static_cast<std::size_t>(links[i].dir_plus)] = static_cast<int>(i);
    s.neighbour.push_back(static_cast<int>(i) + 1);
    s.weight.push_back(links[i].weight);
    s.degree[0] += links[i].weight;
  }
  node.edge_order.resize(k);
  std::iota(node.edge_order.begin(), node.edge_order.end(), 0);
  std::sort(node.edge_order.begin(), node.edge_order.end(), [&](int x, int y) {
    const auto& lx = links[static_cast<std::size_t>(x)];
    const auto& ly = links[static_cast<std::size_t>(y)];
    return lx.generator != ly.generator ? lx.generator < ly.generator : lx.axis < ly.axis;
  });
  return node;
}

// One value from every neighbour: buf[0] = mine, buf[1 + k] = neighbour k's.
class Exchange {
 public:
  Exchange(MPI_Comm cart, const Node& node)
      : cart_(cart), node_(node), recv_(2 * node.dims.size(), 0.0), buf_(1 + node.nb_rank.size()) {}
  const std::vector<double>& operator()(double mine) {
    MPI_Neighbor_allgather(&mine, 1, MPI_DOUBLE, recv_.data(), 1, MPI_DOUBLE, cart_);
    ++count;
    buf_[0] = mine;
    for (std::size_t k = 0; k < node_.nb_slot.size(); ++k)
      buf_[k + 1] = recv_[static_cast<std::size_t>(node_.nb_slot[k])];
    return buf_;
  }
  long long count = 0;

 private:
  MPI_Comm cart_;
  const Node& node_;
  std::vector<double> recv_, buf_;
};

// One reduction for the summary: max of element 0, sum of element 1.
void max_and_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const double*>(in);
  auto* b = static_cast<double*>(inout);
  for (int i = 0; i < *len; ++i) {
    b[2 * i] = std::max(a[2 * i], b[2 * i]);
    b[2 * i + 1] = a[2 * i + 1] + b[2 * i + 1];
  }
}

std::array<double, 2> allreduce_max_and_sum(MPI_Comm comm, std::array<double, 2> mine) {
  MPI_Datatype pair = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
  MPI_Type_commit(&pair);
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(&max_and_sum, /*commute=*/1, &op);
  std::array<double, 2> out{};
  MPI_Allreduce(mine.data(), out.data(), 1, pair, op, comm);
  MPI_Op_free(&op);
  MPI_Type_free(&pair);
  return out;
}

// Rank 0's options, as doubles (the integers are small enough to be exact).
// Least squares: rank 0 solves with the serial code; each rank receives its
// transfers oriented from its side, in increasing neighbour order.
void least_squares(MPI_Comm cart, const Node& node, const std::vector<double>& loads,
                   const DiffusionOptions& o, std::vector<double>& T, RankDiffusionSummary& out) {
  std::vector<double> send;
  std::vector<int> counts, displs;
  long long info[2] = {0, 0};  // steps, jacobi_sweeps
  std::string problem;
  if (node.rank == 0) {
    try {
      const auto g = mesh_graph(node.dims, node.torus);
      const auto s = isocost::diffuse(g, loads, o);
      std::vector<std::vector<std::pair<int, double>>> adj(static_cast<std::size_t>(g.nodes));
      for (std::size_t e = 0; e < g.edges.size(); ++e) {
        adj[static_cast<std::size_t>(g.edges[e].i)].push_back({g.edges[e].j, s.transfers[e]});
        adj[static_cast<std::size_t>(g.edges[e].j)].push_back({g.edges[e].i, -s.transfers[e]});
      }
      for (auto& list : adj) {
        std::sort(list.begin(), list.end());
        displs.push_back(static_cast<int>(send.size()));
        counts.push_back(static_cast<int>(list.size()));
        for (const auto& entry : list) send.push_back(entry.second);
      }
      info[0] = s.steps;
      info[1] = s.jacobi_sweeps;
    } catch (const std::exception& e) {
      problem = e.what();
    }
  }
  agree(cart, "diffuse (least squares, solved on rank 0)", problem, out.allreduces, "failed on");
  T.assign(node.nb_rank.size(), 0.0);
  MPI_Scatterv(send.data(), counts.data(), displs.data(), MPI_DOUBLE, T.data(),
               static_cast<int>(T.size()), MPI_DOUBLE, 0, cart);
  MPI_Bcast(info, 2, MPI_LONG_LONG, 0, cart);
  out.steps = static_cast<int>(info[0]);
  out.jacobi_sweeps = info[1];
}

}  // namespace

std::string RankDiffusionSummary::brief_report() const {
  std::ostringstream s;
  s << "rank " << rank << " of mesh " << dims_text(dims) << (torus ? " (torus)" : "") << ", scheme "
    << to_string(scheme) << ": " << steps << " steps";
  if (sweeps_per_step) s << " x " << sweeps_per_step << " Jacobi sweeps";
  s << " (" << jacobi_sweeps << " sweeps in all), load " << exact(initial_load) << " -> "
    << exact(load) << ", imbalance " << isocost::detail::fixed_digits(initial_imbalance, 6)
    << " -> " << isocost::detail::fixed_digits(final_imbalance, 6)
    << (converged() ? "" : " (NOT converged)");
  return s.str();
}

ProcessGraph cart_graph(MPI_Comm cart) {
  const Node node = read_topology(cart, "cart_graph");
  return mesh_graph(node.dims, node.torus);
}

MPI_Comm mesh_communicator(MPI_Comm comm, const std::vector<int>& dims, bool torus) {
  const char* what = "mesh_communicator";
  check_comm(comm, what);
  int size = 0;
  MPI_Comm_size(comm, &size);
  // Rank 0's request, to check that every rank asks for the same mesh.
  std::array<int, 5> root{static_cast<int>(dims.size()), torus ? 1 : 0, -1, -1, -1};
  for (std::size_t a = 0; a < dims.size() && a < 3; ++a) root[a + 2] = dims[a];
  const auto mine = root;
  MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_INT, 0, comm);

  std::string problem;
  long long product = 1;
  bool zeros = false;
  if (dims.empty() || dims.size() > 3) {
    problem = "dims " + dims_text(dims) + ": expected 1 to 3 dimensions";
  } else {
    for (int m : dims) {
      if (m < 0) problem = "dims " + dims_text(dims) + ": expected sizes >= 0 (0: any)";
      if (m == 0) zeros = true;
      if (m > 0) product *= m;
    }
    if (problem.empty() && !zeros && product != size)
      problem = isocost::detail::expected_got(
          "dims " + dims_text(dims), std::to_string(size) + " nodes (the communicator size)",
          std::to_string(product) + " nodes");
    if (problem.empty() && zeros && size % product != 0)
      problem = "dims " + dims_text(dims) + ": the fixed sizes' product " +
                std::to_string(product) + " does not divide the communicator size " +
                std::to_string(size);
  }
  if (problem.empty() && mine != root)
    problem =
        "dims " + dims_text(dims) + (torus ? " torus" : " mesh") + " differ from rank 0's " +
        dims_text(std::vector<int>(root.begin() + 2, root.begin() + 2 + std::min(root[0], 3))) +
        (root[1] ? " torus" : " mesh");
  long long allreduces = 0;
  agree(comm, what, problem, allreduces);

  std::vector<int> d = dims;
  MPI_Dims_create(size, static_cast<int>(d.size()), d.data());
  const std::vector<int> periods(d.size(), torus ? 1 : 0);
  MPI_Comm cart = MPI_COMM_NULL;
  MPI_Cart_create(comm, static_cast<int>(d.size()), d.data(), periods.data(), /*reorder=*/0, &cart);
  return cart;
}

RankDiffusionSummary diffuse(MPI_Comm cart, double my_load, const DiffusionOptions& options) {
  const char* what = "diffuse";
  const Node node = read_topology(cart, what);
  RankDiffusionSummary out;
  out.options = options;
  out.scheme = options.scheme;
  out.rank = node.rank;
  out.dims = node.dims;
  out.torus = node.torus;
  out.coords = node.coords;
  out.initial_load = my_load;

  // Input checks and agreement: every rank's options must be valid and equal
  // to rank 0's (else the ranks would leave the step loop at different times).
  std::string problem;
  if (std::string e; !options.is_valid(&e)) problem = e;
  if (!std::isfinite(my_load) || my_load < 0)
    problem += (problem.empty() ? "" : "; ") +
               isocost::detail::expected_got("load", "a finite number >= 0", exact(my_load));
  const detail::Same same[] = {detail::same_options(options)};
  agree(cart, what, problem, out.allreduces, "invalid input on", same);

  // The average exactly as the serial code sums it: in node (= rank) order,
  // on the loads scaled by the power of two that brings the largest into
  // [1, 2) (exact, as serial diffuse(): loads near the double limit no longer
  // sum to inf, tiny ones no longer go subnormal).
  std::vector<double> loads(static_cast<std::size_t>(node.size));
  MPI_Allgather(&my_load, 1, MPI_DOUBLE, loads.data(), 1, MPI_DOUBLE, cart);
  const double largest = *std::max_element(loads.begin(), loads.end());
  if (!(largest > 0)) throw Error("diffuse: all loads are zero; nothing to balance");
  const int scale = isocost::detail::unit_exponent(loads);
  for (double& l : loads) l = std::ldexp(l, scale);
  double total = 0;
  for (double l : loads) total += l;
  const double avg = total / node.size;
  const double initial_max = *std::max_element(loads.begin(), loads.end());
  out.initial_imbalance = initial_max / avg - 1;
  const double n = node.n;
  if (options.scheme == DiffusionScheme::explicit_euler && n > 0 && options.alpha > 1 / n)
    throw Error("explicit diffusion: alpha=" + exact(options.alpha) +
                " exceeds its stability limit 1/n = " + exact(1 / n) + " (n = " + exact(n) +
                " neighbours; Watts's footnote gives the stricter 2^-d); use a smaller alpha or "
                "an implicit scheme");

  const std::size_t k = node.nb_rank.size();
  std::vector<double> T(k, 0.0);  // accumulated transfers from this rank's side
  Exchange exchange(cart, node);
  if (options.scheme == DiffusionScheme::least_squares) {
    least_squares(cart, node, loads, options, T, out);
  } else {
    loads = {};  // only the least-squares solve needs them
    const double a = options.alpha;
    const bool cn = options.scheme == DiffusionScheme::crank_nicolson;
    const bool implicit = options.scheme == DiffusionScheme::implicit;
    const int nu = options.scheme == DiffusionScheme::explicit_euler
                       ? 0
                       : (options.sweeps > 0 ? options.sweeps
                                             : isocost::detail::watts_sweeps(options.scheme, a, n));
    double u = std::ldexp(my_load, scale);
    double umax = initial_max;  // the first test needs no reduction: the gathered loads
    std::vector<double> ubuf;   // Crank–Nicolson: the neighbours' u, kept through the sweeps
    while (!(umax <= (1 + a) * avg) && out.steps < options.max_steps) {
      // One step of DiffusionState::step(), seen from this node.
      double c = a, v = 0;
      const std::vector<double>* uu = nullptr;  // neighbours' u (explicit, CN)
      const std::vector<double>* vv = nullptr;  // neighbours' final iterate (implicit, CN)
      if (options.scheme == DiffusionScheme::explicit_euler) {
        uu = &exchange(u);
      } else {
        c = cn ? std::sqrt(a) / 2 : a;  // ᾱ/2 for Crank–Nicolson
        double b = u;
        if (cn) {
          ubuf = exchange(u);
          uu = &ubuf;
          b = u + c * (isocost::detail::node_degree_sum(node.stencil, ubuf, 0) - n * u);
        }
        v = b;
        const double diag = 1 + c * n;
        for (int s = 0; s < nu; ++s)
          v = (b + c * isocost::detail::node_degree_sum(node.stencil, exchange(v), 0)) / diag;
        vv = &exchange(v);
      }
      double outflow = 0;  // net outflow, neighbours in increasing order
      for (std::size_t j = 0; j < k; ++j) {
        const double w = node.nb_weight[j];
        const double f = implicit
                             ? isocost::detail::edge_flux(c, w, v, (*vv)[j + 1], nullptr, nullptr)
                             : isocost::detail::edge_flux(c, w, u, (*uu)[j + 1], cn ? &v : nullptr,
                                                          cn ? &(*vv)[j + 1] : nullptr);
        T[j] += f;
        outflow += f;
      }
      u = u - outflow;
      ++out.steps;
      MPI_Allreduce(&u, &umax, 1, MPI_DOUBLE, MPI_MAX, cart);
      ++out.allreduces;
    }
    out.sweeps_per_step = nu;
    out.jacobi_sweeps = static_cast<long long>(out.steps) * nu;
  }

  // The loads the transfers imply, in the serial graph's edge order; the
  // transfer volume counts each edge once, from its lower-numbered end.
  double load = std::ldexp(my_load, scale), volume = 0;
  for (int j : node.edge_order) load -= T[static_cast<std::size_t>(j)];
  for (std::size_t j = 0; j < k; ++j)
    if (node.nb_rank[j] > node.rank) volume += std::abs(T[j]);
  const auto [final_max, total_volume] = allreduce_max_and_sum(cart, {load, volume});
  ++out.allreduces;
  // The claim is judged on the loads the transfers actually produce, as in
  // serial diffuse().
  out.final_imbalance = final_max / avg - 1;
  out.termination = isocost::detail::diffusion_termination(out.final_imbalance, options, out.steps);
  out.load = std::ldexp(load, -scale);
  out.transfer_volume = std::ldexp(total_volume, -scale);
  if (!std::isfinite(out.transfer_volume))  // the same sum on every rank: the same Error
    throw Error("diffuse: the transfer volume " + exact(out.transfer_volume) +
                " exceeds the double range; scale the loads down");
  for (double& t : T) t = std::ldexp(t, -scale);

  for (std::size_t j = 0; j < k; ++j)
    out.neighbours.push_back({node.nb_rank[j], node.nb_weight[j], T[j]});
  for (int idx : node.dir_nb) {
    if (idx < 0) {
      out.direction_ranks.push_back(MPI_PROC_NULL);
      out.direction_transfers.push_back(0.0);
      continue;
    }
    const auto j = static_cast<std::size_t>(idx);
    out.direction_ranks.push_back(node.nb_rank[j]);
    out.direction_transfers.push_back(node.nb_weight[j] == 2 ? T[j] / 2 : T[j]);
  }
  out.neighbour_exchanges = exchange.count;
  return out;
}

}  // namespace isocost::mpi
