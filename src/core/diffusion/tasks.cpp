// Task selection for diffusive load balancing (Watts §2.4, §3.2.5–3.2.6):
// exhaustive exchange search, first-fit exchange and subset-sum trimming per
// edge; markers hopping edge by edge over repeated passes; one move per task.
#include "isocost/tasks.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <unordered_map>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

using detail::exact;

std::string_view to_string(TaskSelectionMethod method) {
  switch (method) {
    case TaskSelectionMethod::first_fit_exchange:
      return "first-fit";
    case TaskSelectionMethod::trimming:
      return "trimming";
  }
  return "?";
}

TaskSelectionMethod parse_task_selection_method(std::string_view name) {
  if (name == "first-fit") return TaskSelectionMethod::first_fit_exchange;
  if (name == "trimming") return TaskSelectionMethod::trimming;
  throw Error("task selection method: expected first-fit or trimming, got '" + std::string(name) +
              "'");
}

std::string TaskSelection::brief_report() const {
  std::ostringstream out;
  double moved = 0;
  for (const auto& m : moves) moved += m.load;
  out << "task selection: " << moves.size() << " tasks move (load " << exact(moved) << "), "
      << passes << " passes, " << exchanges << " exchanges (" << exhaustive_searches
      << " exhaustive, " << approximate_searches << " approximate searches), " << marker_hops
      << " marker hops; transfer " << exact(achieved_volume) << " of " << exact(requested_volume)
      << " requested, error volume " << exact(error_volume) << ", largest edge error "
      << exact(max_edge_error) << " (largest task " << exact(max_task_load) << ")"
      << (converged() ? "" : " (NOT terminated: max_passes ran out)");
  return out.str();
}

namespace {

/// A selection on one edge, oriented from the sender s to the receiver d:
/// `send` (markers at s) go to d, `back` (markers at d) go to s.
struct Choice {
  std::vector<int> send, back;
};

/// Net load of a choice, summed in a fixed order.
double net_of(const Choice& c, const std::vector<double>& load) {
  double net = 0;
  for (int g : c.send) net += load[g];
  for (int g : c.back) net -= load[g];
  return net;
}

// ---------------------------------------------------------------------------
// Exhaustive exchange search (Watts §2.4.2 "Best Fit/Exhaustive", §3.2.5).
//
// Items: the sender's tasks with value +load, the receiver's with −load; the
// best exchange is the subset whose value sum is nearest the need r (the
// empty subset, sum 0, included). Among (nearly) equally good subsets the one
// moving the least load wins, so equal tasks are not swapped for nothing.
// Meet in the middle (Horowitz–Sahni): the subset sums of each half of the
// items, built already sorted by merging L with L + x item by item (no
// sort); then one sweep over the first half ascending while a pointer into
// the second half walks down to the sums nearest r − s1. O(2^⌈n/2⌉) time and
// memory instead of the 2^n of plain bit-mask enumeration.
Choice exhaustive_exchange(const std::vector<int>& A, const std::vector<int>& B,
                           const std::vector<double>& load, double r) {
  std::vector<int> items(A);
  items.insert(items.end(), B.begin(), B.end());
  const int n = static_cast<int>(items.size());
  std::vector<double> value(static_cast<std::size_t>(n));
  double scale = r;
  for (int k = 0; k < n; ++k) {
    value[k] = k < static_cast<int>(A.size()) ? load[items[k]] : -load[items[k]];
    scale += load[items[k]];
  }
  const double tie = 1e-13 * scale;  // errors this close count as equal
  const int h1 = n / 2, h2 = n - h1;

  struct Entry {
    double sum, vol;  ///< Σ value and Σ |value| of the subset
    std::uint32_t mask;
  };
  auto lighter = [](const Entry& a, const Entry& b) {
    return a.sum < b.sum || (a.sum == b.sum && a.vol < b.vol);
  };
  // All subsets of items [first, first + count) sorted by (sum, volume), one
  // per distinct sum (the lightest).
  auto sorted_sums = [&](int first, int count) {
    std::vector<Entry> list{{0.0, 0.0, 0u}}, shifted, merged;
    for (int b = 0; b < count; ++b) {
      const double x = value[first + b];
      shifted.resize(list.size());
      for (std::size_t k = 0; k < list.size(); ++k)
        shifted[k] = {list[k].sum + x, list[k].vol + std::fabs(x),
                      list[k].mask | std::uint32_t{1} << b};
      merged.resize(2 * list.size());
      std::merge(list.begin(), list.end(), shifted.begin(), shifted.end(), merged.begin(), lighter);
      list.swap(merged);
    }
    list.erase(std::unique(list.begin(), list.end(),
                           [](const Entry& a, const Entry& b) { return a.sum == b.sum; }),
               list.end());
    return list;
  };
  const auto one = sorted_sums(0, h1);
  const auto two = sorted_sums(h1, h2);

  double best = std::fabs(r), best_vol = 0;  // the empty exchange
  std::uint32_t best1 = 0, best2 = 0;
  const auto size2 = static_cast<std::ptrdiff_t>(two.size());
  std::ptrdiff_t p = size2;  // first index with two[p].sum >= target
  for (const Entry& a : one) {
    const double target = r - a.sum;  // decreasing as a.sum increases
    while (p > 0 && two[p - 1].sum >= target) --p;
    auto consider = [&](std::ptrdiff_t k) {
      const double err = std::fabs(a.sum + two[k].sum - r);
      const double vol = a.vol + two[k].vol;
      if (err < best - tie || (err <= best + tie && vol < best_vol)) {
        best = err;
        best_vol = vol;
        best1 = a.mask;
        best2 = two[k].mask;
      }
    };
    for (std::ptrdiff_t k = p; k < size2 && two[k].sum - target <= best + tie; ++k) consider(k);
    for (std::ptrdiff_t k = p - 1; k >= 0 && target - two[k].sum <= best + tie; --k) consider(k);
  }

  Choice c;
  const std::uint64_t mask = std::uint64_t{best1} | (std::uint64_t{best2} << h1);
  for (int k = 0; k < n; ++k)
    if (mask >> k & 1) (k < static_cast<int>(A.size()) ? c.send : c.back).push_back(items[k]);
  return c;
}

// ---------------------------------------------------------------------------
// First-fit exchange (Watts §2.4.2 "First Fit", exchange case).
//
// Traverse the sender's tasks, heaviest first (first fit decreasing: a fixed,
// better-behaved order than list order); a task that fits the unsatisfied
// need is taken. A task too large by `over` is taken only together with a
// first-fit transfer of the receiver's untaken tasks back (heaviest first,
// each if it fits what is left of `over`), and only if that brings the need
// closer to zero. O(M·N).
Choice first_fit_exchange(std::vector<int> A, std::vector<int> B, const std::vector<double>& load,
                          double r) {
  auto heavier = [&](int a, int b) { return load[a] > load[b]; };
  std::stable_sort(A.begin(), A.end(), heavier);
  std::stable_sort(B.begin(), B.end(), heavier);
  std::vector<char> taken(B.size(), 0);
  Choice c;
  double rem = r;
  for (int a : A) {
    const double x = load[a];
    if (x <= rem) {
      c.send.push_back(a);
      rem -= x;
      continue;
    }
    const double over = x - rem;  // > 0
    double offset = 0;
    std::vector<std::size_t> picked;
    for (std::size_t k = 0; k < B.size(); ++k)
      if (!taken[k] && load[B[k]] <= over - offset) {
        picked.push_back(k);
        offset += load[B[k]];
      }
    const double next = rem - x + offset;
    if (std::fabs(next) < std::fabs(rem)) {
      c.send.push_back(a);
      for (std::size_t k : picked) {
        taken[k] = 1;
        c.back.push_back(B[k]);
      }
      rem = next;
    }
  }
  return c;
}

// ---------------------------------------------------------------------------
// Subset-sum trimming (Cormen et al., APPROX-SUBSET-SUM; Watts §2.4.2
// "Subset Trimming"): one-way, the sender's tasks only. The list of candidate
// sums <= r grows one task at a time (L ∪ (L + x_i)) and is trimmed with
// δ = ε/(2n): an element within a factor 1 + δ above the last kept one is
// dropped. The largest survivor is >= y*/(1 + ε), y* the best sum <= r. Each
// list element carries its subset as a bit set so the answer can be read off.
Choice trimmed_transfer(const std::vector<int>& A, const std::vector<double>& load, double r,
                        double epsilon) {
  std::vector<int> items;
  for (int a : A)
    if (load[a] <= r) items.push_back(a);
  Choice c;
  const auto n = items.size();
  if (n == 0) return c;
  const double delta = epsilon / (2.0 * static_cast<double>(n));
  const std::size_t words = (n + 63) / 64;
  // A list: sorted sums, and `words` 64-bit words of subset per element.
  std::vector<double> sum{0.0}, next_sum;
  std::vector<std::uint64_t> bits(words, 0), next_bits;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = load[items[i]];
    next_sum.clear();
    next_bits.clear();
    double last = -1;
    auto push = [&](double s, std::size_t from, bool with) {
      if (s > r) return;
      if (last >= 0 && !(s > last * (1 + delta))) return;  // trimmed
      last = s;
      next_sum.push_back(s);
      next_bits.insert(next_bits.end(), bits.begin() + from * words,
                       bits.begin() + (from + 1) * words);
      if (with) next_bits[next_bits.size() - words + i / 64] |= std::uint64_t{1} << (i % 64);
    };
    // Merge L (without x_i) and L + x_i, both sorted; on equal sums the one
    // without x_i comes first.
    std::size_t p = 0, q = 0;
    const std::size_t m = sum.size();
    while (p < m || q < m) {
      if (q >= m || (p < m && sum[p] <= sum[q] + x)) {
        push(sum[p], p, false);
        ++p;
      } else {
        push(sum[q] + x, q, true);
        ++q;
      }
    }
    sum.swap(next_sum);
    bits.swap(next_bits);
  }
  const std::size_t best = sum.size() - 1;  // the largest
  for (std::size_t i = 0; i < n; ++i)
    if (bits[best * words + i / 64] >> (i % 64) & 1) c.send.push_back(items[i]);
  return c;
}

void check_tasks(std::span<const std::vector<Task>> tasks) {
  std::unordered_map<std::int64_t, std::size_t> seen;
  for (std::size_t v = 0; v < tasks.size(); ++v)
    for (const auto& t : tasks[v]) {
      if (!(t.load >= 0) || !std::isfinite(t.load))
        throw Error(detail::expected_got(
            "task " + std::to_string(t.id) + " on node " + std::to_string(v) + ": load",
            "a finite number >= 0", exact(t.load)));
      const auto [it, fresh] = seen.emplace(t.id, v);
      if (!fresh)
        throw Error("task id " + std::to_string(t.id) + " appears twice: on node " +
                    std::to_string(it->second) + " and on node " + std::to_string(v) +
                    "; task ids must be unique");
    }
}

}  // namespace

std::vector<double> node_loads(std::span<const std::vector<Task>> tasks) {
  std::vector<double> u(tasks.size(), 0.0);
  for (std::size_t v = 0; v < tasks.size(); ++v)
    for (const auto& t : tasks[v]) u[v] += t.load;
  return u;
}

std::vector<std::vector<Task>> apply_moves(std::span<const std::vector<Task>> tasks,
                                           std::span<const TaskMove> moves) {
  check_tasks(tasks);
  const int nodes = static_cast<int>(tasks.size());
  std::unordered_map<std::int64_t, std::pair<int, std::size_t>> where;
  for (int v = 0; v < nodes; ++v)
    for (std::size_t k = 0; k < tasks[v].size(); ++k)
      where.emplace(tasks[v][k].id, std::pair{v, k});
  std::vector<std::vector<char>> gone(tasks.size());
  for (int v = 0; v < nodes; ++v) gone[v].assign(tasks[v].size(), 0);
  for (const auto& m : moves) {
    if (m.from < 0 || m.from >= nodes || m.to < 0 || m.to >= nodes)
      throw Error("move of task " + std::to_string(m.id) + ": rank " +
                  std::to_string(m.from < 0 || m.from >= nodes ? m.from : m.to) +
                  " is outside [0, " + std::to_string(nodes) + ")");
    const auto it = where.find(m.id);
    if (it == where.end() || it->second.first != m.from)
      throw Error("move of task " + std::to_string(m.id) + ": the task is not on node " +
                  std::to_string(m.from));
    auto& flag = gone[m.from][it->second.second];
    if (flag) throw Error("move of task " + std::to_string(m.id) + ": the task moves twice");
    flag = 1;
  }
  std::vector<std::vector<Task>> out(tasks.size());
  for (int v = 0; v < nodes; ++v)
    for (std::size_t k = 0; k < tasks[v].size(); ++k)
      if (!gone[v][k]) out[v].push_back(tasks[v][k]);
  for (const auto& m : moves) out[m.to].push_back(tasks[m.from][where.at(m.id).second]);
  return out;
}

TaskSelection select_tasks(const ProcessGraph& graph, std::span<const std::vector<Task>> tasks,
                           std::span<const double> transfers, const TaskSelectionOptions& options) {
  options.validate();
  graph.validate();
  if (tasks.size() != static_cast<std::size_t>(graph.nodes))
    throw Error("tasks: expected one task list per node (" + std::to_string(graph.nodes) +
                " nodes), got " + std::to_string(tasks.size()) + " lists");
  if (transfers.size() != graph.edges.size())
    throw Error("transfers: expected one per edge (" + std::to_string(graph.edges.size()) +
                " edges), got " + std::to_string(transfers.size()));
  for (std::size_t e = 0; e < transfers.size(); ++e)
    if (!std::isfinite(transfers[e]))
      throw Error(detail::expected_got("transfers: transfer on edge " + std::to_string(e) + " (" +
                                           std::to_string(graph.edges[e].i) + ", " +
                                           std::to_string(graph.edges[e].j) + ")",
                                       "a finite number", exact(transfers[e])));
  check_tasks(tasks);

  // Markers, indexed globally in input order.
  std::vector<std::int64_t> id;
  std::vector<double> load;
  std::vector<int> origin, at;
  std::vector<char> mobile;
  std::vector<std::vector<int>> held(tasks.size());
  for (std::size_t v = 0; v < tasks.size(); ++v)
    for (const auto& t : tasks[v]) {
      const int g = static_cast<int>(load.size());
      id.push_back(t.id);
      load.push_back(t.load);
      origin.push_back(static_cast<int>(v));
      at.push_back(static_cast<int>(v));
      mobile.push_back(!t.immobile && t.load > 0);  // a zero load never helps
      held[v].push_back(g);
    }

  TaskSelection s;
  s.options = options;
  s.termination = Termination::iteration_limit;  // until a pass moves no marker
  s.initial_loads = node_loads(tasks);
  s.max_task_load = load.empty() ? 0 : *std::max_element(load.begin(), load.end());
  std::vector<double> r(transfers.begin(), transfers.end());
  s.achieved.assign(r.size(), 0.0);
  const double min_gain = options.gain_tolerance * s.max_task_load;

  auto mobile_at = [&](int v) {
    std::vector<int> list;
    for (int g : held[v])
      if (mobile[g]) list.push_back(g);
    return list;
  };
  auto relocate = [&](const std::vector<int>& which, int from, int to) {
    if (which.empty()) return;
    for (int g : which) at[g] = to;
    auto& h = held[from];
    h.erase(std::remove_if(h.begin(), h.end(), [&](int g) { return at[g] != from; }), h.end());
    held[to].insert(held[to].end(), which.begin(), which.end());
  };

  // Passes over the edges with the unsatisfied transfers until no marker
  // moves (Watts §3.2.5). Serial and in edge order, so a marker can hop
  // several edges in one pass. Each exchange lowers Σ_e |r_e| by more than
  // min_gain, which bounds the number of exchanges; max_passes is a net.
  for (int pass = 1; pass <= options.max_passes; ++pass) {
    bool moved = false;
    for (std::size_t e = 0; e < graph.edges.size(); ++e) {
      const double need = std::fabs(r[e]);
      if (!(need > min_gain)) continue;  // min_gain >= 0, so need > 0
      const int sign = r[e] > 0 ? 1 : -1;
      const int from = sign > 0 ? graph.edges[e].i : graph.edges[e].j;
      const int to = sign > 0 ? graph.edges[e].j : graph.edges[e].i;
      const auto A = mobile_at(from);
      if (A.empty()) continue;  // without a task sent, no exchange reduces the need
      const auto B = mobile_at(to);
      Choice c;
      if (A.size() + B.size() < static_cast<std::size_t>(options.exhaustive_limit)) {
        c = exhaustive_exchange(A, B, load, need);
        ++s.exhaustive_searches;
      } else {
        c = options.method == TaskSelectionMethod::trimming
                ? trimmed_transfer(A, load, need, options.trim_epsilon)
                : first_fit_exchange(A, B, load, need);
        ++s.approximate_searches;
      }
      const double net = net_of(c, load);
      const double gain = need - std::fabs(need - net);
      if (!(gain > min_gain)) continue;
      relocate(c.send, from, to);
      relocate(c.back, to, from);
      r[e] -= sign * net;
      s.achieved[e] += sign * net;
      s.marker_hops += static_cast<long long>(c.send.size() + c.back.size());
      ++s.exchanges;
      moved = true;
    }
    s.passes = pass;
    if (!moved) {
      s.termination = Termination::converged;
      break;
    }
  }

  // Each task moves once, origin → final rank (Watts §3.2.6).
  for (std::size_t g = 0; g < load.size(); ++g)
    if (at[g] != origin[g]) s.moves.push_back({id[g], origin[g], at[g], load[g]});
  // Loads as node_loads(apply_moves(...)) sums them: kept tasks in list
  // order, then arrivals in move order.
  s.loads.assign(tasks.size(), 0.0);
  for (std::size_t g = 0; g < load.size(); ++g)
    if (at[g] == origin[g]) s.loads[origin[g]] += load[g];
  for (const auto& m : s.moves) s.loads[m.to] += m.load;

  s.remaining = r;
  for (std::size_t e = 0; e < r.size(); ++e) {
    s.requested_volume += std::fabs(transfers[e]);
    s.achieved_volume += std::fabs(s.achieved[e]);
    s.error_volume += std::fabs(r[e]);
    s.max_edge_error = std::max(s.max_edge_error, std::fabs(r[e]));
  }
  return s;
}

}  // namespace isocost
