// The Balancer against a code's own glue (issue #24): one drifting particle
// problem run three ways on the same ranks, and what each costs in all.
//   mpiexec -n 4 build/examples/glue/glue_particles [--repeat 5] [--json out.json]
//
// N cells on [0, 1) in 1-D blocks; every rank starts with its share of the
// particles spread evenly over its cells; two in five particles are drawn to
// an attractor that moves from x = 0.2 to 0.8 during the run, so a dense
// cluster drifts across the ranks. A step pushes every particle (`work`
// rounds of arithmetic each: the code's real work) and deposits them on
// their cells. Then:
//  - `balancer`: BlockBalancer with default options, the particle count of
//    each cell as its cost at checks (next_decide_is_check()), and
//    maybe_rebalance(residents(cell_of, x, v, id), density): one call moves
//    the cells when it pays and every particle to its cell's owner;
//  - `glue`: what a code writes itself in ~60 lines: every `every` steps an
//    MPI_Allreduce of the per-cell counts, equal-count cuts by a prefix sum,
//    a move when max/avg > 1.1 (cells by one MPI_Alltoallv), and every step
//    a hand-written particle exchange (owner test, MPI_Alltoall of counts,
//    packed records, MPI_Alltoallv);
//  - `none`: the hand-written exchange on the first blocks, never balanced.
// Efficiency is the mean over steps of avg/max of the particles pushed per
// rank (the work, exactly); times are per run: the slowest rank's wall time
// and each rank's CPU time (CLOCK_THREAD_CPUTIME_ID, OpenMPI yielding when
// idle). Every run must conserve its particles (count, Σ id, a hash of ids),
// leave each on the owner of its cell and each rank exactly its cells, or
// the program exits 1; timings never fail it.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "example_main.hpp"
#include "example_support.hpp"
#include "glue_runs.hpp"
#include "isocost/mpi/block_balancer.hpp"

namespace {

using i64 = std::int64_t;
using isocost::mpi::BlockDistribution;

struct Settings {
  i64 cells = 4096;
  i64 particles = 50000;  // per rank at the start
  int steps = 200;
  int every = 10;  // the glue's check interval (the Balancer's default too)
  int work = 60;   // arithmetic rounds per particle and step
  int repeat = 1;
  std::string json, log, ways;
};

struct Particles {
  std::vector<double> x, v;
  std::vector<i64> id;
};

i64 cell_of(double x, i64 n) {
  return std::clamp(static_cast<i64>(x * static_cast<double>(n)), i64{0}, n - 1);
}

Particles start(const Settings& s, const BlockDistribution& d, int rank) {
  Particles p;
  const double lo = static_cast<double>(d.begin(rank)) / static_cast<double>(s.cells);
  const double w = static_cast<double>(d.count(rank)) / static_cast<double>(s.cells);
  for (i64 k = 0; k < s.particles; ++k) {
    p.x.push_back(lo + w * (static_cast<double>(k) + 0.5) / static_cast<double>(s.particles));
    p.v.push_back(0);
    p.id.push_back(static_cast<i64>(rank) * s.particles + k);
  }
  return p;
}

// One step of the code: push every particle (the attracted ones towards the
// moving attractor), deposit them on the local cells. Returns a value that
// depends on the arithmetic, so it is not optimised away.
double step(const Settings& s, int t, Particles& p, std::vector<double>& density, i64 first) {
  const double a = 0.2 + 0.6 * t / s.steps, dt = 0.05;
  double sink = 0;
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    double f = p.x[i];
    for (int r = 0; r < s.work; ++r) f = f * 0.999 + 1e-3 * std::sqrt(f + 1.0);
    sink += f;
    if (p.id[i] % 5 < 2) p.v[i] = 0.8 * p.v[i] + dt * (a - p.x[i]);
    p.x[i] = std::clamp(p.x[i] + dt * p.v[i], 0.0, std::nextafter(1.0, 0.0));
  }
  std::fill(density.begin(), density.end(), 0.0);
  for (const double x : p.x) {
    const i64 c = cell_of(x, s.cells) - first;
    if (c >= 0 && c < static_cast<i64>(density.size())) density[static_cast<std::size_t>(c)] += 1;
  }
  return sink;
}

// ---- The code's own glue -------------------------------------------------

int owner(const std::vector<i64>& offsets, i64 c) {
  return static_cast<int>(std::upper_bound(offsets.begin(), offsets.end(), c) - offsets.begin()) -
         1;
}

// Every particle to the owner of its cell: owner test, counts, one
// MPI_Alltoall, packed records, one MPI_Alltoallv, compaction.
void glue_exchange(MPI_Comm comm, const Settings& s, const std::vector<i64>& offsets, int rank,
                   Particles& p) {
  struct Record {
    double x, v;
    i64 id;
  };
  const int P = static_cast<int>(offsets.size()) - 1;
  std::vector<int> sc(static_cast<std::size_t>(P), 0), rc(sc.size()), sd(sc.size()), rd(sc.size());
  std::vector<std::size_t> leave;
  std::vector<int> to;
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    const i64 c = cell_of(p.x[i], s.cells);
    if (c >= offsets[static_cast<std::size_t>(rank)] &&
        c < offsets[static_cast<std::size_t>(rank) + 1])
      continue;
    leave.push_back(i);
    to.push_back(owner(offsets, c));
    ++sc[static_cast<std::size_t>(to.back())];
  }
  MPI_Alltoall(sc.data(), 1, MPI_INT, rc.data(), 1, MPI_INT, comm);
  for (std::size_t q = 1; q < sc.size(); ++q) {
    sd[q] = sd[q - 1] + sc[q - 1];
    rd[q] = rd[q - 1] + rc[q - 1];
  }
  std::vector<Record> send(leave.size()), recv(static_cast<std::size_t>(rd.back() + rc.back()));
  std::vector<int> next(sd);
  for (std::size_t j = 0; j < leave.size(); ++j) {
    const std::size_t i = leave[j];
    send[static_cast<std::size_t>(next[static_cast<std::size_t>(to[j])]++)] = {p.x[i], p.v[i],
                                                                               p.id[i]};
  }
  MPI_Datatype record;
  MPI_Type_contiguous(sizeof(Record), MPI_BYTE, &record);
  MPI_Type_commit(&record);
  MPI_Alltoallv(send.data(), sc.data(), sd.data(), record, recv.data(), rc.data(), rd.data(),
                record, comm);
  MPI_Type_free(&record);
  std::size_t w = 0, j = 0;
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    if (j < leave.size() && leave[j] == i) {
      ++j;
      continue;
    }
    p.x[w] = p.x[i];
    p.v[w] = p.v[i];
    p.id[w] = p.id[i];
    ++w;
  }
  p.x.resize(w);
  p.v.resize(w);
  p.id.resize(w);
  for (const Record& r : recv) {
    p.x.push_back(r.x);
    p.v.push_back(r.v);
    p.id.push_back(r.id);
  }
}

// Every `every` steps: equal-count cuts of the global per-cell counts; the
// cells move (one MPI_Alltoallv of the overlaps) when max/avg > 1.1.
void glue_rebalance(MPI_Comm comm, const Settings& s, std::vector<i64>& offsets, int rank,
                    std::vector<double>& density) {
  const int P = static_cast<int>(offsets.size()) - 1;
  const auto me = static_cast<std::size_t>(rank);
  std::vector<double> all(static_cast<std::size_t>(s.cells), 0.0);
  std::copy(density.begin(), density.end(), all.begin() + offsets[me]);
  MPI_Allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM, comm);
  std::vector<double> prefix(all.size() + 1, 0.0);
  std::partial_sum(all.begin(), all.end(), prefix.begin() + 1);
  double most = 0;
  for (int q = 0; q < P; ++q)
    most =
        std::max(most, prefix[static_cast<std::size_t>(offsets[static_cast<std::size_t>(q) + 1])] -
                           prefix[static_cast<std::size_t>(offsets[static_cast<std::size_t>(q)])]);
  if (most <= 1.1 * prefix.back() / P) return;
  std::vector<i64> cuts(offsets.size());
  cuts.back() = s.cells;
  for (int q = 1; q < P; ++q) {
    const double target = prefix.back() * q / P;
    cuts[static_cast<std::size_t>(q)] = std::max(
        cuts[static_cast<std::size_t>(q) - 1],
        static_cast<i64>(std::lower_bound(prefix.begin(), prefix.end(), target) - prefix.begin()));
  }
  std::vector<int> sc(static_cast<std::size_t>(P), 0), sd(sc), rc(sc), rd(sc);
  for (std::size_t q = 0; q < sc.size(); ++q) {
    const i64 slo = std::max(offsets[me], cuts[q]), shi = std::min(offsets[me + 1], cuts[q + 1]);
    const i64 rlo = std::max(offsets[q], cuts[me]), rhi = std::min(offsets[q + 1], cuts[me + 1]);
    if (shi > slo) {
      sc[q] = static_cast<int>(shi - slo);
      sd[q] = static_cast<int>(slo - offsets[me]);
    }
    if (rhi > rlo) {
      rc[q] = static_cast<int>(rhi - rlo);
      rd[q] = static_cast<int>(rlo - cuts[me]);
    }
  }
  std::vector<double> moved(static_cast<std::size_t>(cuts[me + 1] - cuts[me]));
  MPI_Alltoallv(density.data(), sc.data(), sd.data(), MPI_DOUBLE, moved.data(), rc.data(),
                rd.data(), MPI_DOUBLE, comm);
  density = std::move(moved);
  offsets = std::move(cuts);
}

// ---- The runs --------------------------------------------------------------

// Collective: conservation, owners and cells, against the start's census.
bool correct(MPI_Comm comm, const Settings& s, const Particles& p, const std::vector<i64>& offsets,
             int rank, std::size_t cells_held) {
  std::uint64_t mine[4] = {p.id.size(), 0, 0, 0}, all[4] = {};
  for (const i64 id : p.id) {
    mine[1] += static_cast<std::uint64_t>(id);
    mine[2] ^= examples::mix64(static_cast<std::uint64_t>(id));
  }
  for (const double x : p.x) mine[3] += owner(offsets, cell_of(x, s.cells)) != rank ? 1 : 0;
  if (static_cast<i64>(cells_held) !=
      offsets[static_cast<std::size_t>(rank) + 1] - offsets[static_cast<std::size_t>(rank)])
    mine[3] += 1;
  MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, comm);
  MPI_Allreduce(&mine[2], &all[2], 1, MPI_UINT64_T, MPI_BXOR, comm);
  MPI_Allreduce(&mine[3], &all[3], 1, MPI_UINT64_T, MPI_SUM, comm);
  int P = 0;
  MPI_Comm_size(comm, &P);
  const auto n = static_cast<std::uint64_t>(P) * static_cast<std::uint64_t>(s.particles);
  std::uint64_t hash = 0;
  for (std::uint64_t id = 0; id < n; ++id) hash ^= examples::mix64(id);
  return all[0] == n && all[1] == n * (n - 1) / 2 && all[2] == hash && all[3] == 0;
}

// BlockBalancer with default options, the particles as the cells' residents;
// `cpu` gets the CPU time of its calls.
bool with_balancer(MPI_Comm comm, const Settings& s, const BlockDistribution& first,
                   std::vector<double>& held, int& moves, double& cpu, double& sink) {
  const int rank = glue::rank_of(comm);
  std::optional<isocost::mpi::BlockBalancer> made;
  {
    glue::Clock c(comm, cpu);
    isocost::mpi::BlockBalancerOptions o;  // the defaults
    o.pipeline.log_path = s.log;
    made.emplace(comm, first, o);
  }
  isocost::mpi::BlockBalancer& b = *made;
  Particles p = start(s, first, rank);
  std::vector<double> density(static_cast<std::size_t>(b.local_count()));
  for (int t = 0; t < s.steps; ++t) {
    {
      auto scope = b.step();
      sink += step(s, t, p, density, b.local_begin());
    }
    held[static_cast<std::size_t>(t)] = static_cast<double>(p.x.size());
    glue::Clock c(comm, cpu);
    if (b.next_decide_is_check()) b.set_costs(density);  // particles per cell
    const auto e = b.maybe_rebalance(
        isocost::mpi::residents([&p, &s](std::size_t i) { return cell_of(p.x[i], s.cells); }, p.x,
                                p.v, p.id),
        density);
    moves += e.migration ? 1 : 0;
  }
  return correct(comm, s, p, b.distribution().offsets, rank, density.size());
}

// The glue every `every` steps and its exchange every step (`balance`), or
// the exchange alone on the first blocks.
bool with_glue(MPI_Comm comm, const Settings& s, const BlockDistribution& first, bool balance,
               std::vector<double>& held, int& moves, double& cpu, double& sink) {
  const int rank = glue::rank_of(comm);
  std::vector<i64> offsets = first.offsets;
  Particles p = start(s, first, rank);
  std::vector<double> density(static_cast<std::size_t>(first.count(rank)));
  for (int t = 0; t < s.steps; ++t) {
    sink += step(s, t, p, density, offsets[static_cast<std::size_t>(rank)]);
    held[static_cast<std::size_t>(t)] = static_cast<double>(p.x.size());
    glue::Clock c(comm, cpu);
    if (balance && (t + 1) % s.every == 0) {
      const std::vector<i64> before = offsets;
      glue_rebalance(comm, s, offsets, rank, density);
      moves += offsets != before ? 1 : 0;
    }
    glue_exchange(comm, s, offsets, rank, p);
  }
  return correct(comm, s, p, offsets, rank, density.size());
}

}  // namespace

int main(int argc, char** argv) {
  examples::yield_when_idle();
  MPI_Init(&argc, &argv);
  Settings s;
  CLI::App app{"The Balancer against a code's own glue on a drifting particle cluster"};
  app.add_option("--cells", s.cells, "cells in 1-D blocks")
      ->check(CLI::Range(i64{1}, i64{1} << 40));
  app.add_option("--particles", s.particles, "particles per rank at the start")
      ->check(CLI::Range(i64{1}, i64{1} << 32));
  app.add_option("--steps", s.steps, "time steps")->check(CLI::Range(1, 1 << 20));
  app.add_option("--every", s.every, "the glue's check interval")->check(CLI::Range(1, 1 << 20));
  app.add_option("--work", s.work, "arithmetic rounds per particle and step")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--repeat", s.repeat, "runs of each way; medians are reported")
      ->check(CLI::Range(1, 99));
  app.add_option("--ways", s.ways, "only these runs, e.g. balancer,glue (default: all three)");
  app.add_option("--log", s.log, "the Balancer's JSON-lines log (one object per check)");
  app.add_option("--json", s.json, "write the results as JSON to this file ('-': stdout)");
  return examples::parse_and_run(app, argc, argv, "glue_particles", [&] {
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank = 0, P = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    const auto first = BlockDistribution::uniform(s.cells, P);
    double sink = 0;
    const std::vector<glue::Way> ways = {
        {"balancer",
         [&](std::vector<double>& held, int& moves, double& cpu) {
           return with_balancer(comm, s, first, held, moves, cpu, sink);
         }},
        {"glue",
         [&](std::vector<double>& held, int& moves, double& cpu) {
           return with_glue(comm, s, first, true, held, moves, cpu, sink);
         }},
        {"none", [&](std::vector<double>& held, int& moves, double& cpu) {
           return with_glue(comm, s, first, false, held, moves, cpu, sink);
         }}};
    const std::vector<glue::Run> runs =
        glue::compare(comm, glue::select(ways, s.ways), s.steps, s.repeat);
    const std::string header =
        "\"ranks\": " + std::to_string(P) + ", \"cells\": " + std::to_string(s.cells) +
        ", \"particles_per_rank\": " + std::to_string(s.particles) +
        ", \"steps\": " + std::to_string(s.steps) + ", \"checksum\": " + (sink > 0 ? "1" : "0");
    const bool ok = glue::report(runs, rank, header, s.repeat, s.json);
    return ok ? 0 : 1;
  });
}
