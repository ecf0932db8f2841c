// Vector balancing from chunk costs held in parts (mpi/pieces.hpp).
#include "isocost/mpi/pieces.hpp"

#include <climits>
#include <cmath>
#include <new>
#include <string>
#include <vector>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/limits.hpp"
#include "mpi/agreement.hpp"

namespace isocost::mpi {

namespace {

using isocost::detail::expected_got;

std::string check_input(std::int64_t chunks, std::span<const std::int64_t> ids,
                        std::span<const double> costs, std::size_t phases, const Speeds& speeds,
                        int P, const PiecesOptions& options) {
  std::string why;
  if (!options.is_valid(&why)) return "options: " + why;
  if (chunks < 1 || chunks > kMaxParts)
    return expected_got("chunks", "1 to " + std::to_string(kMaxParts), std::to_string(chunks));
  if (phases == 0) return expected_got("phases", "at least 1", "0");
  // One MPI_Allreduce carries them all: its count is an int.
  if (static_cast<double>(chunks) * static_cast<double>(phases) > INT_MAX)
    return expected_got("chunks x phases", "at most " + std::to_string(INT_MAX),
                        std::to_string(chunks) + " x " + std::to_string(phases));
  if (speeds.ranks() != P)
    return expected_got("speeds", std::to_string(P) + " ranks (the communicator's size)",
                        std::to_string(speeds.ranks()) + " ranks");
  if (costs.size() != ids.size() * phases)
    return expected_got("costs for " + std::to_string(ids.size()) + " chunks and " +
                            std::to_string(phases) + " phases",
                        std::to_string(ids.size() * phases), std::to_string(costs.size()));
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= chunks)
      return expected_got("chunk id at " + std::to_string(i), "0 to " + std::to_string(chunks - 1),
                          std::to_string(ids[i]));
    for (std::size_t p = 0; p < phases; ++p) {
      const double v = costs[i * phases + p];
      if (!(v >= 0) || !std::isfinite(v))
        return expected_got(
            "cost of chunk " + std::to_string(ids[i]) + " in phase " + std::to_string(p),
            "a finite number >= 0", isocost::detail::exact(v));
    }
  }
  return {};
}

}  // namespace

PiecePlan plan_pieces(MPI_Comm comm, std::int64_t chunks, std::span<const std::int64_t> ids,
                      std::span<const double> costs, std::size_t phases, const Speeds& speeds,
                      const PiecesOptions& options) {
  const char* what = "plan_pieces";
  detail::check_comm(comm, what);
  int P = 1;
  MPI_Comm_size(comm, &P);
  const std::string problem = check_input(chunks, ids, costs, phases, speeds, P, options);
  const detail::Same same[] = {
      detail::same_text("chunks and phases",
                        std::to_string(chunks) + " and " + std::to_string(phases)),
      detail::same_speeds(speeds), detail::same_options(options)};
  detail::agree(comm, what, problem, same);

  std::vector<double> all;
  std::string memory;
  try {
    all.assign(static_cast<std::size_t>(chunks) * phases, 0.0);
  } catch (const std::bad_alloc&) {
    memory = std::to_string(chunks) + " chunks x " + std::to_string(phases) + " phases";
  }
  detail::agree(comm, what, memory, {}, "out of memory on");
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t p = 0; p < phases; ++p)
      all[static_cast<std::size_t>(ids[i]) * phases + p] += costs[i * phases + p];
  MPI_Allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM, comm);
  // The same sums on every rank: plan_pieces() answers, or throws, alike.
  return isocost::plan_pieces(all, phases, speeds, options);
}

}  // namespace isocost::mpi
