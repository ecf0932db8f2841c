// Collective error agreement (agreement.hpp).
#include "mpi/agreement.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/mpi/migrate.hpp"

namespace isocost::mpi::detail {

void check_comm(MPI_Comm comm, const char* what) {
  if (comm == MPI_COMM_NULL)
    throw Error(std::string(what) + ": expected a valid communicator, got MPI_COMM_NULL");
}

std::string empty_callbacks(const MigrationCallbacks& cb) {
  if (cb.size && cb.pack && cb.unpack && cb.free) return {};
  std::string missing;
  if (!cb.size) missing += " size";
  if (!cb.pack) missing += " pack";
  if (!cb.unpack) missing += " unpack";
  if (!cb.free) missing += " free";
  return "empty callbacks:" + missing + "; expected all four (size, pack, unpack, free)";
}

std::string rank_list(std::span<const int> ranks) {
  std::string s;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    s += (s.empty() ? "" : ", ") + std::to_string(ranks[i]);
    if (j > i) s += (j == i + 1 ? ", " : "-") + std::to_string(ranks[j]);
    i = j + 1;
  }
  return s;
}

void throw_agreed(MPI_Comm comm, const std::string& what, const std::string& problem,
                  const char* kind) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const int length = static_cast<int>(problem.size());
  std::vector<int> lengths(static_cast<std::size_t>(size));
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  std::vector<int> offsets(static_cast<std::size_t>(size), 0);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  std::string text(static_cast<std::size_t>(total), '\0');
  MPI_Allgatherv(problem.data(), length, MPI_CHAR, text.data(), lengths.data(), offsets.data(),
                 MPI_CHAR, comm);

  // Group ranks with the same message, in the order of their first rank.
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  int count = 0;
  for (int r = 0; r < size; ++r) {
    const auto n = static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)]);
    if (n == 0) continue;
    ++count;
    std::string msg =
        text.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]), n);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == msg; });
    if (it == groups.end())
      groups.push_back({std::move(msg), {r}});
    else
      it->second.push_back(r);
  }
  std::string details;
  for (const auto& [msg, ranks] : groups)
    details += (details.empty() ? "" : "; ") + std::string(ranks.size() == 1 ? "rank " : "ranks ") +
               rank_list(ranks) + ": " + msg;
  throw Error(what + ": " + kind + " " +
              (count == 1 ? "1 rank (" : std::to_string(count) + " ranks (") + details + ")");
}

namespace {
// Speeds as an options-like field list, so that a difference is named.
struct SpeedsField {
  const Speeds& speeds;
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("speeds", self.speeds);
  }
};
}  // namespace

Same same_speeds(const Speeds& speeds) {
  return {options_hash(SpeedsField{speeds}), "speeds",
          [&speeds] { return options_lines(SpeedsField{speeds}); }};
}

Same same_text(std::string name, const std::string& text) {
  isocost::detail::FieldHasher h;
  h.text(text);
  return {h.h, name, [name, text] { return name + "\t" + text + "\n"; }};
}

void agree(MPI_Comm comm, const std::string& what, std::string problem, std::span<const Same> same,
           const char* kind, long long* allreduces) {
  const std::size_t k = same.size();
  // MAX of h and of ~h: equal on every rank iff max(h) == min(h).
  std::vector<std::uint64_t> mine(1 + 2 * k), all(1 + 2 * k);
  mine[0] = problem.empty() ? 0 : 1;
  for (std::size_t i = 0; i < k; ++i) {
    mine[1 + 2 * i] = same[i].hash;
    mine[2 + 2 * i] = ~same[i].hash;
  }
  MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_UINT64_T, MPI_MAX,
                comm);
  if (allreduces) ++*allreduces;
  bool differ = false;
  for (std::size_t i = 0; i < k; ++i) differ = differ || all[1 + 2 * i] != ~all[2 + 2 * i];
  if (all[0] == 0 && !differ) return;
  if (differ) {
    const bool own_problem = !problem.empty();
    for (std::size_t i = 0; i < k; ++i) {
      if (all[1 + 2 * i] == ~all[2 + 2 * i]) continue;  // the same everywhere: every rank knows
      std::uint64_t root_hash = same[i].hash;
      MPI_Bcast(&root_hash, 1, MPI_UINT64_T, 0, comm);
      int rank = 0;
      MPI_Comm_rank(comm, &rank);
      std::string root_fields = rank == 0 && same[i].fields ? same[i].fields() : std::string();
      int length = static_cast<int>(root_fields.size());
      MPI_Bcast(&length, 1, MPI_INT, 0, comm);
      root_fields.resize(static_cast<std::size_t>(length));
      MPI_Bcast(root_fields.data(), length, MPI_CHAR, 0, comm);
      // A rank whose own input is bad says so; that is the difference to fix.
      if (same[i].hash == root_hash || own_problem) continue;
      const std::string own = same[i].fields ? same[i].fields() : std::string();
      const std::string fields =
          own.empty() ? std::string() : field_differences(own, root_fields, "rank 0");
      problem += (problem.empty() ? "" : "; ") +
                 (fields.empty() ? same[i].name + " not equal to rank 0's"
                                 : same[i].name + " differ from rank 0's: " + fields);
    }
  }
  throw_agreed(comm, what, problem, kind);
}

}  // namespace isocost::mpi::detail
