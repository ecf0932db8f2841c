// Task-based diffusive balancing with the failure re-plan of Watts §3.2.6
// (task_balancer.hpp): gather the task lists, plan on every rank, migrate,
// mark failed tasks immobile and re-plan.
#include "isocost/mpi/task_balancer.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/metrics.hpp"
#include "mpi/agreement.hpp"

namespace isocost::mpi {

namespace {

using isocost::detail::exact;
using isocost::detail::expected_got;
using i64 = std::int64_t;
using u64 = std::uint64_t;

constexpr const char* kWhat = "balance_tasks";

// splitmix64's finaliser: a well-mixed 64-bit hash step.
u64 splitmix(u64 x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

struct Hasher {
  u64 h = 0x3c6ef372fe94f82bULL;
  void add(u64 v) { h = splitmix(h ^ v); }
  void add(i64 v) { add(static_cast<u64>(v)); }
  void add(int v) { add(static_cast<u64>(static_cast<i64>(v))); }
  void add(bool v) { add(static_cast<u64>(v)); }
  void add(double v) { add(std::bit_cast<u64>(v)); }
};

u64 graph_hash(const ProcessGraph& g) {
  Hasher h;
  h.add(g.nodes);
  h.add(static_cast<u64>(g.edges.size()));
  for (const auto& e : g.edges) {
    h.add(e.i);
    h.add(e.j);
    h.add(e.weight);
  }
  h.add(static_cast<u64>(g.mesh.size()));
  for (int m : g.mesh) h.add(m);
  h.add(g.torus);
  return h.h;
}

// This rank's own checks; the first problem wins. Empty when all is well.
std::string check_input(int P, const ProcessGraph& graph, std::span<const Task> tasks,
                        const MigrationCallbacks& cb, const TaskBalanceOptions& options) {
  std::string e;
  if (!options.is_valid(&e)) return "options." + e;
  if (options.migration.max_mpi_count <= P)
    return expected_got("options.migration.max_mpi_count", "more than P = " + std::to_string(P),
                        std::to_string(options.migration.max_mpi_count));
  try {
    graph.validate();
  } catch (const Error& x) {
    return std::string("graph: ") + x.what();
  }
  if (graph.nodes != P)
    return expected_got("graph", std::to_string(P) + " nodes (one per rank of the communicator)",
                        std::to_string(graph.nodes) + " nodes");
  if (auto m = detail::empty_callbacks(cb); !m.empty()) return m;
  // Three 64-bit words per task travel in one MPI_Allgatherv (int counts).
  if (tasks.size() > static_cast<std::size_t>(INT_MAX / 3))
    return expected_got("my_tasks", "at most " + std::to_string(INT_MAX / 3) + " tasks",
                        std::to_string(tasks.size()) + " tasks");
  for (std::size_t k = 0; k < tasks.size(); ++k)
    if (!std::isfinite(tasks[k].load) || tasks[k].load < 0)
      return expected_got(
          "my_tasks[" + std::to_string(k) + "] (id " + std::to_string(tasks[k].id) + "): load",
          "a finite number >= 0", exact(tasks[k].load));
  std::vector<i64> ids;
  ids.reserve(tasks.size());
  for (const auto& t : tasks) ids.push_back(t.id);
  std::sort(ids.begin(), ids.end());
  if (auto it = std::adjacent_find(ids.begin(), ids.end()); it != ids.end())
    return "my_tasks lists id " + std::to_string(*it) + " twice, expected unique ids";
  return {};
}

// Collective: every rank's tasks on every rank, in rank order. The data are
// the same on every rank afterwards, so errors found here are thrown alike on
// every rank without further communication.
std::vector<std::vector<Task>> gather_tasks(MPI_Comm comm, int P, std::span<const Task> mine) {
  const auto uP = static_cast<std::size_t>(P);
  const int n = static_cast<int>(mine.size());
  std::vector<int> counts(uP);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  i64 total = 0;
  for (int c : counts) total += c;
  if (total > INT_MAX / 3)
    throw Error(std::string(kWhat) + ": " +
                expected_got("tasks over all ranks",
                             "at most " + std::to_string(INT_MAX / 3) +
                                 " (every rank holds every task's id and load while planning)",
                             std::to_string(total)));

  std::vector<u64> out(3 * mine.size());
  for (std::size_t k = 0; k < mine.size(); ++k) {
    out[3 * k] = static_cast<u64>(mine[k].id);
    out[3 * k + 1] = std::bit_cast<u64>(mine[k].load);
    out[3 * k + 2] = mine[k].immobile ? 1 : 0;
  }
  std::vector<int> words(uP), displs(uP, 0);
  for (std::size_t r = 0; r < uP; ++r) {
    words[r] = 3 * counts[r];
    if (r > 0) displs[r] = displs[r - 1] + words[r - 1];
  }
  std::vector<u64> in(static_cast<std::size_t>(3 * total));
  MPI_Allgatherv(out.data(), 3 * n, MPI_UINT64_T, in.data(), words.data(), displs.data(),
                 MPI_UINT64_T, comm);

  std::vector<std::vector<Task>> all(uP);
  for (std::size_t r = 0; r < uP; ++r) {
    all[r].resize(static_cast<std::size_t>(counts[r]));
    for (std::size_t k = 0; k < all[r].size(); ++k) {
      const auto w = static_cast<std::size_t>(displs[r]) + 3 * k;
      all[r][k] = {static_cast<i64>(in[w]), std::bit_cast<double>(in[w + 1]), in[w + 2] != 0};
    }
  }
  return all;
}

// Throws (alike on every rank: `all` is the same everywhere) if an id is held
// by two ranks. Duplicates within one rank were refused by check_input().
void check_unique(const std::vector<std::vector<Task>>& all) {
  std::vector<std::pair<i64, int>> where;
  for (std::size_t r = 0; r < all.size(); ++r)
    for (const auto& t : all[r]) where.emplace_back(t.id, static_cast<int>(r));
  std::sort(where.begin(), where.end());
  for (std::size_t k = 1; k < where.size(); ++k)
    if (where[k].first == where[k - 1].first)
      throw Error(std::string(kWhat) + ": invalid input across ranks (task id " +
                  std::to_string(where[k].first) + " is held by ranks " +
                  std::to_string(where[k - 1].second) + " and " + std::to_string(where[k].second) +
                  ", expected each id on one rank only)");
}

// An order-independent checksum term for task `id` held by `rank`.
u64 holding_hash(i64 id, int rank) {
  return splitmix(static_cast<u64>(id) ^ splitmix(0x9e3779b97f4a7c15ULL + static_cast<u64>(rank)));
}

}  // namespace

std::string TaskBalanceResult::brief_report() const {
  std::ostringstream out;
  out << "balance_tasks: " << tasks << " tasks, " << rounds.size() << " rounds (" << replans
      << " re-plans), " << moves_planned << " moves planned, " << tasks_moved << " done ("
      << bytes_moved << " B), " << failed.size() << " failed";
  for (std::size_t i = 0; i < failed.size() && i < 5; ++i)
    out << (i ? ", " : " (") << "id " << failed[i].id << " " << failed[i].from << "->"
        << failed[i].to << " at " << to_string(failed[i].stage);
  if (!failed.empty()) out << (failed.size() > 5 ? ", …)" : ")");
  out << "; imbalance " << isocost::detail::fixed_digits(initial_imbalance, 6) << " -> "
      << isocost::detail::fixed_digits(final_imbalance, 6) << (converged() ? "" : ", NOT converged")
      << (terminated ? "" : ", NOT terminated (max_replans ran out)")
      << (verified ? ", verified" : "") << ", " << seconds * 1e3 << " ms";
  return out.str();
}

TaskBalanceResult balance_tasks(MPI_Comm comm, const ProcessGraph& graph,
                                std::vector<Task>& my_tasks, const MigrationCallbacks& callbacks,
                                const TaskBalanceOptions& options) {
  detail::check_comm(comm, kWhat);
  const double t0 = MPI_Wtime();
  int rank = 0, P = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  const auto ur = static_cast<std::size_t>(rank);

  // 1. Validate and agree before anything moves: local checks plus hashes of
  //    what must be the same on every rank; then every rank's tasks everywhere.
  {
    const std::string problem = check_input(P, graph, my_tasks, callbacks, options);
    const detail::Same same[] = {{graph_hash(graph), "graph"}, detail::same_options(options)};
    detail::agree(comm, kWhat, problem, same);
  }
  auto all = gather_tasks(comm, P, my_tasks);
  check_unique(all);

  TaskBalanceResult r;
  r.initial_loads = node_loads(all);
  r.initial_imbalance = imbalance(r.initial_loads);
  u64 id_sum = 0;
  for (const auto& list : all)
    for (const auto& t : list) {
      ++r.tasks;
      r.largest_task = std::max(r.largest_task, t.load);
      id_sum += splitmix(static_cast<u64>(t.id));
    }
  double total = 0;
  for (double u : r.initial_loads) total += u;

  MigrateOptions migrate_options = options.migration;
  if (options.verify) migrate_options.verify = true;

  // 2. Plan, migrate, and on failure re-plan (Watts §3.2.6). Every rank runs
  //    the same loop on the same data, so the loop's control flow (including
  //    skipping migrate() when a round plans no move) is the same everywhere.
  //    With total load 0 diffuse() has nothing to balance: no round.
  for (int round = 0; total > 0; ++round) {
    TaskBalanceRound R;
    R.index = round;
    R.loads_before = node_loads(all);
    R.diffusion = diffuse(graph, R.loads_before, options.diffusion);
    R.selection = select_tasks(graph, all, R.diffusion.transfers, options.selection);
    R.migration.rank = rank;
    R.migration.ranks = P;
    if (!R.selection.moves.empty()) {
      std::vector<i64> held;
      held.reserve(all[ur].size());
      for (const auto& t : all[ur]) held.push_back(t.id);
      R.migration = migrate(comm, held, R.selection.moves, callbacks, migrate_options);
      R.migrated = true;
      R.failed = R.migration.failed;
      R.moved = completed_moves(R.selection.moves, R.failed);
      // The failed tasks are still on their `from` rank: apply only what
      // completed, then exclude the failed ones from every later selection.
      all = apply_moves(all, R.moved);
      for (auto& list : all) mark_immobile(list, R.failed);
      my_tasks = all[ur];
      for (const auto& m : R.moved) {
        if (m.from == rank) r.sent.push_back(m.id);
        if (m.to == rank) r.received.push_back(m.id);
      }
      r.bytes_moved += R.migration.global_bytes_moved;
    }
    R.loads_after = node_loads(all);
    r.moves_planned += static_cast<i64>(R.selection.moves.size());
    r.tasks_moved += static_cast<i64>(R.moved.size());
    r.failed.insert(r.failed.end(), R.failed.begin(), R.failed.end());
    const bool again = !R.failed.empty() && round < options.max_replans;
    r.termination = R.diffusion.converged() && R.selection.converged()
                        ? Termination::converged
                        : Termination::iteration_limit;
    r.terminated = R.failed.empty();
    r.rounds.push_back(std::move(R));
    if (!again) break;
  }
  r.replans = r.rounds.empty() ? 0 : static_cast<int>(r.rounds.size()) - 1;
  r.final_loads = node_loads(all);
  r.final_imbalance = imbalance(r.final_loads);

  // 3. Nothing lost: the ranks' own holdings against the (replicated) plan
  //    bookkeeping. Sums: task count, Σ hash(id), Σ hash(id, rank) over what
  //    each rank holds; max of (E, ~E), E = the whole holding checksum as this
  //    rank's bookkeeping has it, equal on every rank iff the views agree.
  //    Every verdict below is computed from reduced values, so alike everywhere.
  if (options.verify) {
    u64 expected = 0;
    for (std::size_t q = 0; q < all.size(); ++q)
      for (const auto& t : all[q]) expected += holding_hash(t.id, static_cast<int>(q));
    u64 sums[3] = {static_cast<u64>(my_tasks.size()), 0, 0}, total_sums[3] = {};
    for (const auto& t : my_tasks) {
      sums[1] += splitmix(static_cast<u64>(t.id));
      sums[2] += holding_hash(t.id, rank);
    }
    u64 views[2] = {expected, ~expected}, max_views[2] = {};
    MPI_Allreduce(sums, total_sums, 3, MPI_UINT64_T, MPI_SUM, comm);
    MPI_Allreduce(views, max_views, 2, MPI_UINT64_T, MPI_MAX, comm);
    std::string problem;
    if (max_views[0] != ~max_views[1])
      problem = "the ranks' plans disagree on where the tasks are";
    else if (total_sums[0] != static_cast<u64>(r.tasks))
      problem = expected_got("tasks the ranks hold", std::to_string(r.tasks),
                             std::to_string(total_sums[0]));
    else if (total_sums[1] != id_sum)
      problem = "the set of task ids changed";
    else if (total_sums[2] != max_views[0])
      problem = "a task is not on the rank the plan says";
    if (!problem.empty()) throw Error(std::string(kWhat) + ": verification failed: " + problem);
    r.verified = true;
  }
  r.seconds = MPI_Wtime() - t0;
  return r;
}

std::size_t update_task_loads(std::span<Task> tasks, const LoadMonitor& monitor) {
  std::unordered_map<i64, double> measured;
  for (const auto& t : monitor.task_loads()) measured[t.id] = t.seconds;
  std::size_t updated = 0;
  for (auto& t : tasks)
    if (auto it = measured.find(t.id); it != measured.end()) {
      t.load = it->second;
      ++updated;
    }
  return updated;
}

}  // namespace isocost::mpi
