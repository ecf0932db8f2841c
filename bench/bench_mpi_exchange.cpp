// exchange() against the exchange a code would write itself (issue #24). Run
// it under mpiexec:
//   mpiexec -n 4 bench_mpi_exchange [--elements 5e5] [--repetitions 11] [--filter REGEX]
//
// Every rank holds `elements` particles of 40 B as a struct of arrays (x, y,
// vx, vy: double; id: int64) on a 1-D block distribution of 10^6 cells of
// [0, 1), a particle's cell being floor(x · 10^6). A fraction f = 0, 0.1, 1,
// 10 % of them has moved into the next rank's range. Three ways to send them
// home, each from the same state:
//  - `keyfn`: exchange(comm, d, key, x, y, vx, vy, id), the key computed from x
//    (nothing but the 40 B travels);
//  - `keys`: the keys computed into an array first, then exchange(comm, d,
//    keys, x, …) (the keys travel too: 48 B);
//  - `plain`: written here as an application would: the owner test, a count
//    per rank, MPI_Alltoall of the counts, a packed struct per leaving
//    particle, MPI_Alltoallv of bytes, the kept ones compacted, the arrived
//    ones appended. Against `keys` the plain code keeps a key array too: it
//    computes the keys into it, tests them, and packs them with the rest
//    (48 B), as a code with keys in an array would.
// Each way and its plain counterpart must leave the same arrays on every
// rank (checked: an error and exit 2 if not). Time: per repetition the slowest rank's wall time and
// the largest per-rank CPU time (CLOCK_THREAD_CPUTIME_ID; with more ranks than cores it includes
// Open MPI's polling while it waits), medians over repetitions; the ratio columns are exchange()'s
// medians over plain's. Goal: ≤ 1.2.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <regex>
#include <string>
#include <vector>

#include "isocost/mpi/exchange.hpp"
#include "mpi_bench_support.hpp"

namespace {

using i64 = std::int64_t;
using isocost::bench::median;
using isocost::bench::thread_cpu;
using isocost::mpi::BlockDistribution;

constexpr i64 kCells = 1'000'000;

struct Particles {
  std::vector<double> x, y, vx, vy;
  std::vector<i64> id;
  bool operator==(const Particles&) const = default;
};

i64 cell_of(double x) {
  return std::clamp(static_cast<i64>(x * static_cast<double>(kCells)), i64{0}, kCells - 1);
}

// This rank's particles, every 1/f-th of them moved into the next rank's range.
Particles make(const BlockDistribution& d, int rank, int P, std::size_t n, double f) {
  Particles p;
  const double lo = static_cast<double>(d.begin(rank)) / kCells;
  const double w = static_cast<double>(d.count(rank)) / kCells;
  const int next = (rank + 1) % P;
  const double nlo = static_cast<double>(d.begin(next)) / kCells;
  const double nw = static_cast<double>(d.count(next)) / kCells;
  const std::size_t every = f > 0 ? static_cast<std::size_t>(std::llround(1 / f)) : 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double u = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
    const bool leaves = every > 0 && i % every == every / 2;
    p.x.push_back(leaves ? nlo + u * nw : lo + u * w);
    p.y.push_back(0.5 * u);
    p.vx.push_back(-u);
    p.vy.push_back(2 * u);
    p.id.push_back(static_cast<i64>(n) * rank + static_cast<i64>(i));
  }
  return p;
}

struct Record {
  double x, y, vx, vy;
  i64 id;
};
struct KeyedRecord {
  double x, y, vx, vy;
  i64 id, key;
};

// The application's own exchange: what the library must not be slower than.
// Keyed: a code that keeps each particle's key in an array beside it, so the
// owner test reads the keys and they travel and are kept with the rest.
template <bool Keyed>
void plain_exchange(MPI_Comm comm, const BlockDistribution& d, Particles& p,
                    std::vector<i64>* keys = nullptr) {
  using Rec = std::conditional_t<Keyed, KeyedRecord, Record>;
  int rank = 0, P = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  const i64 lo = d.begin(rank), hi = d.end(rank);
  const std::size_t n = p.x.size();
  std::vector<std::size_t> leave;
  std::vector<int> to;
  std::vector<int> sc(static_cast<std::size_t>(P), 0), rc(sc.size()), sd(sc.size()), rd(sc.size());
  for (std::size_t i = 0; i < n; ++i) {
    i64 c = 0;
    if constexpr (Keyed)
      c = (*keys)[i];
    else
      c = cell_of(p.x[i]);
    if (c >= lo && c < hi) continue;
    const int q = static_cast<int>(std::upper_bound(d.offsets.begin(), d.offsets.end(), c) -
                                   d.offsets.begin()) -
                  1;
    leave.push_back(i);
    to.push_back(q);
    ++sc[static_cast<std::size_t>(q)];
  }
  MPI_Alltoall(sc.data(), 1, MPI_INT, rc.data(), 1, MPI_INT, comm);
  int so = 0, ro = 0;
  for (std::size_t q = 0; q < sc.size(); ++q) {
    sd[q] = so;
    rd[q] = ro;
    so += sc[q];
    ro += rc[q];
  }
  std::vector<Rec> send(leave.size()), recv(static_cast<std::size_t>(ro));
  std::vector<int> next(sd);
  for (std::size_t j = 0; j < leave.size(); ++j) {
    const std::size_t i = leave[j];
    Rec& r = send[static_cast<std::size_t>(next[static_cast<std::size_t>(to[j])]++)];
    r.x = p.x[i];
    r.y = p.y[i];
    r.vx = p.vx[i];
    r.vy = p.vy[i];
    r.id = p.id[i];
    if constexpr (Keyed) r.key = (*keys)[i];
  }
  for (std::size_t q = 0; q < sc.size(); ++q) {  // in bytes
    sc[q] *= static_cast<int>(sizeof(Rec));
    sd[q] *= static_cast<int>(sizeof(Rec));
    rc[q] *= static_cast<int>(sizeof(Rec));
    rd[q] *= static_cast<int>(sizeof(Rec));
  }
  MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_BYTE, recv.data(), rc.data(), rd.data(),
                MPI_BYTE, comm);
  std::size_t w = 0, j = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (j < leave.size() && leave[j] == i) {
      ++j;
      continue;
    }
    p.x[w] = p.x[i];
    p.y[w] = p.y[i];
    p.vx[w] = p.vx[i];
    p.vy[w] = p.vy[i];
    p.id[w] = p.id[i];
    if constexpr (Keyed) (*keys)[w] = (*keys)[i];
    ++w;
  }
  const std::size_t total = w + recv.size();
  p.x.resize(total);
  p.y.resize(total);
  p.vx.resize(total);
  p.vy.resize(total);
  p.id.resize(total);
  if constexpr (Keyed) keys->resize(total);
  for (const Rec& r : recv) {
    p.x[w] = r.x;
    p.y[w] = r.y;
    p.vx[w] = r.vx;
    p.vy[w] = r.vy;
    p.id[w] = r.id;
    if constexpr (Keyed) (*keys)[w] = r.key;
    ++w;
  }
}

using isocost::bench::Timing;

// Times `call` from a fresh copy of `start` on every rank: copy (untimed),
// barrier, call; the slowest rank's wall and CPU time. `out` gets the result.
template <class F>
Timing time_it(MPI_Comm comm, int repetitions, const Particles& start, Particles& out, F&& call) {
  return isocost::bench::time_calls(
      comm, repetitions, [&] { out = start; }, [&] { call(out); });
}

bool same_everywhere(MPI_Comm comm, const Particles& a, const Particles& b, bool also = true) {
  int ok = a == b && also ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
  return ok == 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  double elements = 5e5;
  int repetitions = 11;
  std::string filter = ".";
  const bool parsed = isocost::bench::parse_args(
      argc, argv,
      {{"--elements", [&](const char* v) { elements = std::atof(v); }},
       {"--repetitions", [&](const char* v) { repetitions = std::max(1, std::atoi(v)); }},
       {"--filter", [&](const char* v) { filter = v; }}},
      "usage: bench_mpi_exchange [--elements 5e5] [--repetitions 11] [--filter REGEX]");
  if (!parsed) {
    MPI_Finalize();
    return 2;
  }
  MPI_Comm comm = MPI_COMM_WORLD;
  const auto [rank, P] = isocost::bench::ranks_of(comm);
  const auto n = static_cast<std::size_t>(elements);
  const auto d = BlockDistribution::uniform(kCells, P);
  int status = isocost::bench::run_cases("bench_mpi_exchange", [&] {
    if (rank == 0) {
      std::printf("# %d ranks, %zu particles of 40 B per rank; ms: median over %d repetitions\n", P,
                  n, repetitions);
      std::printf("%-26s %9s %9s %9s %9s %9s\n", "case", "wall ms", "cpu ms", "plain wall",
                  "plain cpu", "cpu ratio");
    }
    for (const double f : {0.0, 0.001, 0.01, 0.1}) {
      const Particles start = make(d, rank, P, n, f);
      for (const bool keyfn : {true, false}) {
        char label[64];
        std::snprintf(label, sizeof label, "BM_Exchange_%s/%g%%", keyfn ? "keyfn" : "keys",
                      100 * f);
        if (!std::regex_search(std::string(label), std::regex(filter))) continue;
        // Both ways compute the keys into an array inside the timed call
        // when the keys travel.
        std::vector<i64> keys, plain_keys;
        Particles plain, lib;
        const Timing tp = time_it(comm, repetitions, start, plain, [&](Particles& p) {
          if (keyfn) {
            plain_exchange<false>(comm, d, p);
          } else {
            plain_keys.resize(p.x.size());
            for (std::size_t i = 0; i < plain_keys.size(); ++i) plain_keys[i] = cell_of(p.x[i]);
            plain_exchange<true>(comm, d, p, &plain_keys);
          }
        });
        const Timing tl = time_it(comm, repetitions, start, lib, [&](Particles& p) {
          if (keyfn) {
            const double* x = p.x.data();
            isocost::mpi::exchange(
                comm, d, [x](std::size_t i) { return cell_of(x[i]); }, p.x, p.y, p.vx, p.vy, p.id);
          } else {
            keys.resize(p.x.size());
            for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = cell_of(p.x[i]);
            isocost::mpi::exchange(comm, d, keys, p.x, p.y, p.vx, p.vy, p.id);
          }
        });
        if (!same_everywhere(comm, lib, plain, keys == plain_keys))
          throw isocost::Error(std::string(label) + ": exchange() and the plain exchange differ");
        if (rank == 0)
          std::printf("%-26s %9.3f %9.3f %9.3f %9.3f %9.2f\n", label, 1e3 * median(tl.wall),
                      1e3 * median(tl.cpu), 1e3 * median(tp.wall), 1e3 * median(tp.cpu),
                      median(tl.cpu) / median(tp.cpu));
        std::fflush(stdout);
      }
    }
  });
  MPI_Finalize();
  return status;
}
