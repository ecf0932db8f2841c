#include "particles_run.hpp"

#include <algorithm>
#include <bit>
#include <initializer_list>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "example_support.hpp"
#include "isocost/metrics.hpp"
#include "isocost/mpi/block_balancer.hpp"
#include "isocost/mpi/exchange.hpp"
#include "isocost/mpi/pieces.hpp"
#include "isocost/trigger.hpp"

namespace particles {
namespace {

using isocost::mpi::BlockBalancer;
using isocost::mpi::BlockDistribution;

std::unique_ptr<BlockBalancer> make_balancer(const RunOptions& ro, const BlockDistribution& d,
                                             std::optional<isocost::CommModel> comm_model,
                                             MPI_Comm comm) {
  isocost::mpi::BlockBalancerOptions o;
  o.pipeline.monitor.clock = isocost::MonitorClock::cpu;  // 4 ranks share 2 cores
  o.pipeline.monitor.window = ro.every;
  o.pipeline.trigger.every = ro.every;
  // Watts's mineff (§3.2.3). With balance_phases the trigger also applies it
  // to the phase-synchronised efficiency, which a total-balanced PIC run
  // leaves low (§4.2).
  o.pipeline.trigger.min_efficiency = ro.mineff;
  o.pipeline.trigger.drift_threshold = std::nullopt;
  o.pipeline.profit_trigger = false;  // mineff alone: it is what the runs compare
  o.balance_phases = ro.scheme == Scheme::phases || ro.scheme == Scheme::vector;
  o.pipeline.policy = isocost::mpi::BalancePolicy::global;
  o.pipeline.comm = comm_model;  // measured once, by the run's first balancer
  o.learn_speeds = ro.learn_speeds;
  return std::make_unique<BlockBalancer>(comm, d, o);
}

// XOR over records of a SplitMix64 chain of their fields: order-free.
std::uint64_t hash_of(std::int64_t key, std::initializer_list<double> values) {
  std::uint64_t h = examples::mix64(static_cast<std::uint64_t>(key));
  for (const double v : values) h = examples::mix64(h ^ std::bit_cast<std::uint64_t>(v));
  return h;
}

// Moves the cells to the owners of their elements in `order` on distribution
// `d`, in element order. Returns the cells that changed owner, all ranks.
// Collective over `comm`.
long long move_cells(const CellOrder& order, const BlockDistribution& d,
                     std::vector<std::int64_t>& cell_key, std::vector<double>& value,
                     MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<std::int64_t> ekey(cell_key.size());
  long long moved = 0;
  for (std::size_t c = 0; c < cell_key.size(); ++c) {
    ekey[c] = order.element_of(cell_key[c]);
    moved += d.owner(ekey[c]) != rank ? 1 : 0;
  }
  isocost::mpi::exchange(comm, d, ekey, cell_key, value);
  std::vector<std::int64_t> sorted_key(cell_key.size());
  std::vector<double> sorted_value(value.size());
  for (std::size_t c = 0; c < ekey.size(); ++c) {
    const auto at = static_cast<std::size_t>(ekey[c] - d.begin(rank));
    sorted_key[at] = cell_key[c];
    sorted_value[at] = value[c];
  }
  cell_key.swap(sorted_key);
  value.swap(sorted_value);
  MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_LONG_LONG, MPI_SUM, comm);
  return moved;
}

}  // namespace

std::string name_of(Scheme scheme) {
  switch (scheme) {
    case Scheme::none:
      return "no balancing";
    case Scheme::costs:
      return "per-cell costs";
    case Scheme::total:
      return "total (push+field)";
    case Scheme::phases:
      return "balance_phases";
    case Scheme::vector:
      return "vector (plan_pieces)";
  }
  return "?";
}

double mean_from(const std::vector<double>& v, int from) {
  double s = 0;
  int n = 0;
  for (std::size_t k = static_cast<std::size_t>(std::max(from, 0)); k < v.size(); ++k, ++n)
    s += v[k];
  return n > 0 ? s / n : 0;
}

Outcome run(const Model& m, const RunOptions& ro, MPI_Comm comm) {
  int rank = 0, P = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  const std::int64_t N = m.cells(), Np = m.particles();
  CellOrder order = CellOrder::morton(N, ro.chunk);
  auto b = make_balancer(ro, BlockDistribution::uniform(N, P), std::nullopt, comm);
  const auto add_phases = [&] {
    return ro.pic ? std::make_pair(b->add_phase("push"), b->add_phase("field"))
                  : std::make_pair(isocost::PhaseId{}, isocost::PhaseId{});
  };
  isocost::PhaseId push_id, field_id;
  std::tie(push_id, field_id) = add_phases();

  // The cells this rank owns, in element order: their Morton keys and their
  // state (DSMC: the sampled particle count; PIC: the field).
  std::vector<std::int64_t> cell_key, pkey;
  std::vector<double> value;
  for (std::int64_t e = b->local_begin(); e < b->local_begin() + b->local_count(); ++e)
    cell_key.push_back(order.cell_at(e));
  value.assign(cell_key.size(), 0.5);
  std::vector<Particle> parts = initial_particles(m, rank, P);
  const auto key_particles = [&] {
    pkey.resize(parts.size());
    for (std::size_t i = 0; i < parts.size(); ++i)
      pkey[i] = order.element_of(cell_of(m, parts[i].x, parts[i].y));
  };
  key_particles();
  b->exchange(pkey, parts);

  Outcome out;
  out.scheme = ro.scheme;
  out.pic = ro.pic;
  std::vector<std::int64_t> count;
  std::vector<double> costs;
  const double bytes = 16 + static_cast<double>(sizeof(Particle) + 8) * Np / N;
  for (int step = 0; step < ro.steps; ++step) {
    const std::int64_t lo = b->local_begin();
    // PIC push (Watts Fig. 4.6): each particle's work reads the field of its
    // cell, then it moves; DSMC (Fig. 4.1) only moves here.
    const auto push = [&] {
      for (std::size_t i = 0; i < parts.size(); ++i) {
        Particle& p = parts[i];
        if (ro.pic) p.w = work(p.w, value[static_cast<std::size_t>(pkey[i] - lo)], m.push_units);
        move(m, p);
        pkey[i] = order.element_of(cell_of(m, p.x, p.y));
      }
    };
    // The cells' part: count the arrivals; PIC solves the field of every
    // cell, empty or not; DSMC collides each particle with its cell's others
    // (the work ∝ particles) and samples the cell.
    const auto cells = [&] {
      count.assign(cell_key.size(), 0);
      for (const std::int64_t k : pkey) ++count[static_cast<std::size_t>(k - lo)];
      if (ro.pic) {
        for (std::size_t c = 0; c < value.size(); ++c)
          value[c] = work(value[c], static_cast<double>(count[c]), m.field_units);
        return;
      }
      for (std::size_t i = 0; i < parts.size(); ++i)
        parts[i].w =
            work(parts[i].w, static_cast<double>(count[static_cast<std::size_t>(pkey[i] - lo)]),
                 m.collide_units);
      for (std::size_t c = 0; c < value.size(); ++c) value[c] += static_cast<double>(count[c]);
    };
    {
      auto s = b->step();
      if (ro.pic) {
        auto ph = b->phase(push_id);
        push();
      } else {
        push();
      }
      {
        auto idle = b->idle();  // communication, not load (Watts §3.2.2)
        b->exchange(pkey, parts);
      }
      if (ro.pic) {
        auto ph = b->phase(field_id);
        cells();
      } else {
        cells();
      }
    }

    // Every rank's (total, push, field) busy CPU time of this step.
    const auto& mon = b->monitor();
    double mine[3] = {mon.last_step(), 0, 0};
    if (ro.pic) {
      const auto ph = mon.last_phases();
      mine[1] = ph[push_id.index];
      mine[2] = ph[field_id.index];
    }
    std::vector<double> all(3 * static_cast<std::size_t>(P));
    MPI_Allgather(mine, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, comm);
    if (ro.pic) {
      isocost::PhaseLoads pl{{"push", "field"}, static_cast<std::size_t>(P), {}};
      for (int r = 0; r < P; ++r) pl.times.insert(pl.times.end(), {all[3 * r + 1], all[3 * r + 2]});
      const isocost::PhaseStats st = isocost::phase_stats(pl);
      out.efficiency.push_back(st.total.efficiency);
      out.push.push_back(st.per_phase[0].efficiency);
      out.field.push_back(st.per_phase[1].efficiency);
      out.synchronised.push_back(st.synchronised_efficiency);
      out.time += st.synchronised_time;
    } else {
      std::vector<double> t(static_cast<std::size_t>(P));
      for (int r = 0; r < P; ++r) t[static_cast<std::size_t>(r)] = all[3 * r];
      const isocost::LoadStats st = isocost::load_stats(t);
      out.efficiency.push_back(st.efficiency);
      out.time += st.max;
    }
    if (ro.scheme == Scheme::none) continue;

    // Balancing, timed as CPU time on every rank; the slowest rank's counts.
    bool moved = false;
    const double spent = examples::slowest_cpu_seconds(comm, [&] {
      const bool check = isocost::is_check_step(mon.steps(), ro.every);
      const int window = std::min<int>(ro.every, static_cast<int>(out.synchronised.size()));
      if (ro.scheme == Scheme::vector && check &&
          mean_from(out.synchronised, static_cast<int>(out.synchronised.size()) - window) <
              ro.mineff) {
        // Watts §4.2: several pieces per rank, planned by the library from
        // each chunk's cost per phase — this rank's measured seconds per
        // particle (push) and per cell (field) times the chunk's particles
        // and cells here (a chunk split between ranks sums its parts).
        const std::vector<double> ph = mon.phase_means();
        const double alpha =
            parts.empty() ? 0 : ph[push_id.index] / static_cast<double>(parts.size());
        const double beta =
            count.empty() ? 0 : ph[field_id.index] / static_cast<double>(count.size());
        std::vector<std::int64_t> ids;
        std::vector<double> chunk_costs;
        for (std::size_t c = 0; c < count.size(); ++c) {
          const std::int64_t g = cell_key[c] / order.chunk;
          if (ids.empty() || ids.back() != g) {
            ids.push_back(g);
            chunk_costs.insert(chunk_costs.end(), {0.0, 0.0});
          }
          chunk_costs[chunk_costs.size() - 2] += alpha * static_cast<double>(count[c]);
          chunk_costs.back() += beta;
        }
        const isocost::PiecePlan plan =
            isocost::mpi::plan_pieces(comm, static_cast<std::int64_t>(order.at.size()), ids,
                                      chunk_costs, 2, isocost::Speeds::uniform(P));
        order = CellOrder::from(plan.order, order.chunk);
        // The cells move to the plan's ranges of the new order; the balancer
        // starts afresh on it (its window was measured on the old one).
        std::vector<std::int64_t> counts(static_cast<std::size_t>(P));
        for (int r = 0; r < P; ++r)
          counts[static_cast<std::size_t>(r)] = (plan.offsets[static_cast<std::size_t>(r) + 1] -
                                                 plan.offsets[static_cast<std::size_t>(r)]) *
                                                order.chunk;
        const BlockDistribution d = BlockDistribution::from_counts(counts);
        out.planned_synchronised = plan.synchronised_efficiency;
        out.planned_block_synchronised = plan.block_synchronised_efficiency;
        out.cells_moved += move_cells(order, d, cell_key, value, comm);
        const isocost::CommModel cm = b->comm_model();
        b.reset();
        b = make_balancer(ro, d, cm, comm);
        std::tie(push_id, field_id) = add_phases();
        key_particles();
        b->exchange(pkey, parts);
        ++out.reorders;
        moved = true;
      } else if (ro.scheme != Scheme::vector || out.reorders > 0) {
        if (check && (ro.scheme == Scheme::costs || ro.scheme == Scheme::total)) {
          // Per-cell costs (BalancerBase::set_costs): this rank's measured time
          // (Watts §3.2.2: the window's mean), spread over its cells in
          // proportion to their particles — DSMC's work is particles per cell,
          // and the measurement catches what the count misses (an orbiting
          // particle's move costs more than a free one's). PIC's total is
          // α·particles + β, α and β this rank's measured seconds per particle
          // in the push and per cell in the field solve.
          const double n = static_cast<double>(parts.size());
          const double n_cells = static_cast<double>(count.size());
          double alpha = 0, beta = 0;
          if (ro.scheme == Scheme::costs) {
            alpha = n > 0 ? mon.mean_busy() / n : 0;
          } else {
            const std::vector<double> ph = mon.phase_means();
            alpha = n > 0 ? ph[push_id.index] / n : 0;
            beta = n_cells > 0 ? ph[field_id.index] / n_cells : 0;
          }
          costs.resize(count.size());
          for (std::size_t c = 0; c < count.size(); ++c)
            costs[c] = alpha * static_cast<double>(count[c]) + beta;
          b->set_costs(costs);
        }
        const isocost::mpi::BlockPlan plan = b->decide(bytes);
        if (plan.moves()) {
          b->apply(plan, cell_key, value);
          b->exchange(pkey, parts);  // the particles follow their cells
          ++out.rebalances;
          out.cells_moved += plan.rebalance.elements_moved;
          moved = true;
        }
      }
    });
    out.balancing += spent;
    out.time += spent;
    if (moved && out.balanced_from < 0) out.balanced_from = step + 1;
  }

  // The checks: cells in place and unchanged, every particle once, on the
  // owner of its cell, with the state the unbalanced run gives it.
  const std::int64_t lo = b->local_begin(), n_local = b->local_count();
  int ok[2] = {static_cast<std::int64_t>(cell_key.size()) == n_local, 1};
  std::uint64_t h[3] = {0, 0, 0};  // cells, particles, ids
  for (std::size_t c = 0; c < cell_key.size(); ++c) {
    ok[0] = ok[0] && cell_key[c] == order.cell_at(lo + static_cast<std::int64_t>(c));
    h[0] ^= hash_of(cell_key[c], {value[c]});
  }
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const Particle& p = parts[i];
    ok[1] = ok[1] && pkey[i] == order.element_of(cell_of(m, p.x, p.y)) && pkey[i] >= lo &&
            pkey[i] < lo + n_local;
    h[1] ^= hash_of(p.id, {p.x, p.y, p.a, p.b, p.w});
    h[2] ^= examples::mix64(static_cast<std::uint64_t>(p.id));
  }
  long long held = static_cast<long long>(parts.size());
  MPI_Allreduce(MPI_IN_PLACE, ok, 2, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, h, 3, MPI_UINT64_T, MPI_BXOR, comm);
  MPI_Allreduce(&held, &out.particles, 1, MPI_LONG_LONG, MPI_SUM, comm);
  std::uint64_t expected = 0;
  for (std::int64_t id = 0; id < Np; ++id)
    expected ^= examples::mix64(static_cast<std::uint64_t>(id));
  out.cells_ok = ok[0] == 1;
  out.placed_ok = ok[1] == 1;
  out.cell_hash = h[0];
  out.particle_hash = h[1];
  out.ids_ok = h[2] == expected && out.particles == Np;
  return out;
}

}  // namespace particles
