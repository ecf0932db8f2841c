#include "peer_measure.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <ctime>

#include <sys/mman.h>
#include <unistd.h>

#include "isocost/error.hpp"
#include "peer_inputs.hpp"

namespace isocost::bench {

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double page_fault_microseconds() {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t bytes = std::size_t{64} << 20;
  std::vector<double> us;
  for (int k = 0; k < 3; ++k) {
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw Error("bench_peers: mmap of 64 MiB failed");
    auto* p = static_cast<volatile char*>(m);
    const double t0 = MPI_Wtime();
    for (std::size_t i = 0; i < bytes; i += page) p[i] = 1;
    us.push_back((MPI_Wtime() - t0) * 1e6 / static_cast<double>(bytes / page));
    munmap(m, bytes);
  }
  std::sort(us.begin(), us.end());
  return us[1];
}

std::vector<double> weights_by_part(std::span<const int> part, std::span<const double> w, int P) {
  std::vector<double> sum(static_cast<std::size_t>(P) + 1, 0.0);  // last: unassigned count
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (part[i] < 0 || part[i] >= P)
      sum.back() += 1;
    else
      sum[static_cast<std::size_t>(part[i])] += w[i];
  }
  MPI_Allreduce(MPI_IN_PLACE, sum.data(), P + 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (sum.back() > 0)
    throw Error("bench_peers: " + std::to_string(static_cast<long long>(sum.back())) +
                " objects without a part");
  sum.pop_back();
  return sum;
}

std::vector<double> weights_by_cuts(std::span<const std::int64_t> cuts, std::int64_t first,
                                    std::span<const double> w) {
  const int P = static_cast<int>(cuts.size()) - 1;
  std::vector<double> sum(static_cast<std::size_t>(P), 0.0);
  const std::int64_t last = first + static_cast<std::int64_t>(w.size());
  for (int k = 0; k < P; ++k) {
    const std::int64_t b = std::max(cuts[k], first), e = std::min(cuts[k + 1], last);
    for (std::int64_t i = b; i < e; ++i) sum[k] += w[static_cast<std::size_t>(i - first)];
  }
  MPI_Allreduce(MPI_IN_PLACE, sum.data(), P, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

std::vector<int> parts_of_boxes(const std::vector<std::array<std::int64_t, 4>>& boxes,
                                std::int64_t nx, std::int64_t y0, std::int64_t y1) {
  std::vector<int> part(static_cast<std::size_t>(nx * (y1 - y0)), -1);
  for (std::size_t k = 0; k < boxes.size(); ++k) {
    const auto& b = boxes[k];
    for (std::int64_t y = std::max(b[2], y0); y < std::min(b[3], y1); ++y)
      std::fill_n(part.begin() + (y - y0) * nx + b[0], b[1] - b[0], static_cast<int>(k));
  }
  return part;
}

std::vector<std::array<std::int64_t, 4>> boxes_of(const Decomposition& d) {
  std::vector<std::array<std::int64_t, 4>> boxes;
  for (const Part& p : d.parts)
    boxes.push_back({p.cell_lo[0], p.cell_hi[0], p.cell_lo[1], p.cell_hi[1]});
  return boxes;
}

void report(const std::string& name, const std::string& method, const Timing& t,
            std::span<const double> part_weights, const std::string& settings, double optimum) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) return;
  double total = 0, heaviest = 0;
  for (double v : part_weights) {
    total += v;
    heaviest = std::max(heaviest, v);
  }
  const double avg = total / static_cast<double>(part_weights.size());
  char over[32] = "-";
  if (optimum > 0) std::snprintf(over, sizeof over, "%.7f", heaviest / optimum);
  std::printf(
      "%-30s %-30s ranks %d  max/avg %.7f  max/opt %-9s  wall %8.4f s  cpu/rank %8.4f s  (median "
      "of %d, cpu %.4f to %.4f s)  settings: %s\n",
      name.c_str(), method.c_str(), size, heaviest / avg, over, t.wall, t.cpu, t.repetitions,
      t.cpu_min, t.cpu_max, settings.c_str());
  std::fflush(stdout);
}

void describe_input(const std::string& name, const std::string& formula, const std::string& layout,
                    std::int64_t first, std::span<const double> w, std::span<const double> coords,
                    int dims) {
  const auto bits = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  std::uint64_t print = 0;
  double total = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    std::uint64_t h = mix(static_cast<std::uint64_t>(first) + i);
    h = mix(h ^ bits(w[i]));
    for (std::size_t a = 0; a < static_cast<std::size_t>(dims); ++a)
      h = mix(h ^ bits(coords[i * static_cast<std::size_t>(dims) + a]));
    print += h;  // modulo 2^64: a sum, so the order of the objects does not matter
    total += w[i];
  }
  std::uint64_t all_print = 0;
  double sums[2] = {total, static_cast<double>(w.size())};
  MPI_Allreduce(&print, &all_print, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  std::printf("input %s: %s; %s; %.0f objects, total weight %.10g, fingerprint %016llx\n",
              name.c_str(), formula.c_str(), layout.c_str(), sums[1], sums[0],
              static_cast<unsigned long long>(all_print));
  std::fflush(stdout);
}

}  // namespace isocost::bench
