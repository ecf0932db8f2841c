// Readers for the diffusion inputs (io.hpp): process graphs as edge lists and
// per-rank task lists, with io.hpp's splitting rules (records.hpp).
#include <cmath>
#include <fstream>
#include <map>

#include "core/data/records.hpp"
#include "isocost/detail/file.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/io.hpp"
#include "isocost/limits.hpp"

namespace isocost {

using detail::quote;
using detail::Record;

namespace {

// The record's fields as one line: "0 1 2".
std::string text_of(const Record& r) {
  std::string s;
  for (const auto& f : r.fields) s += (s.empty() ? "" : " ") + f;
  return s;
}

}  // namespace

ProcessGraph read_graph(std::istream& in, const std::string& name, int nodes) {
  std::vector<std::pair<int, int>> edges;
  int highest = -1;
  for (const Record& r : detail::read_records(in, name)) {
    if (r.fields.size() != 2)
      throw ParseError(name, r.line,
                       "expected an edge as two node numbers 'i j', got " + quote(text_of(r)));
    int ends[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      ends[k] = static_cast<int>(
          detail::parse_index(name, r.line, r.fields[k], "node number", kMaxParts - 1));
      if (nodes >= 0 && ends[k] >= nodes)
        throw ParseError(name, r.line,
                         "node " + std::to_string(ends[k]) + " does not exist: the loads give " +
                             std::to_string(nodes) + " ranks, nodes 0.." +
                             std::to_string(nodes - 1));
      highest = std::max(highest, ends[k]);
    }
    if (ends[0] == ends[1])
      throw ParseError(name, r.line, "self-loop at node " + std::to_string(ends[0]));
    edges.emplace_back(ends[0], ends[1]);
  }
  if (nodes < 0) nodes = highest + 1;
  if (edges.empty() && nodes != 1)
    throw Error(name + ": no edges" +
                (nodes > 1 ? "; " + std::to_string(nodes) + " ranks need edges to exchange work"
                           : std::string()));
  try {
    return edge_graph(nodes, edges);
  } catch (const Error& e) {
    throw Error(name + ": " + e.what());
  }
}

ProcessGraph read_graph(const std::string& path, int nodes) {
  auto in = detail::open_for_reading(path);
  return read_graph(in, path, nodes);
}

std::vector<std::vector<Task>> read_tasks(std::istream& in, const std::string& name) {
  std::vector<std::vector<Task>> tasks;
  std::map<std::int64_t, std::size_t> seen;  // id → line
  const auto records = detail::read_records(in, name);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    const auto& f = r.fields;
    if (i == 0 && !f.empty() && detail::lower(f[0]) == "rank") continue;  // the header
    if (f.size() != 3 && f.size() != 4)
      throw ParseError(
          name, r.line,
          "expected 'rank,id,load[,immobile]', got " + std::to_string(f.size()) + " fields");
    const auto rank = detail::parse_index(name, r.line, f[0], "rank", kMaxRankIndex);
    double id = 0;
    if (!detail::parse_number(f[1], id) || id != std::floor(id) || std::fabs(id) > 9e15)
      throw ParseError(name, r.line, "expected a task id (an integer), got " + quote(f[1]));
    // The id as parsed: the field may spell it with any number of digits.
    const std::string task = "task " + std::to_string(static_cast<std::int64_t>(id));
    double load = 0;
    if (!detail::parse_number(f[2], load) || !std::isfinite(load) || load < 0)
      throw ParseError(name, r.line,
                       task + ": expected a load (a finite number >= 0), got " + quote(f[2]));
    bool immobile = false;
    if (f.size() == 4) {
      if (f[3] != "0" && f[3] != "1")
        throw ParseError(name, r.line, task + ": expected immobile 0 or 1, got " + quote(f[3]));
      immobile = f[3] == "1";
    }
    const auto key = static_cast<std::int64_t>(id);
    if (const auto it = seen.find(key); it != seen.end())
      throw ParseError(name, r.line,
                       "task id " + std::to_string(key) + " given twice (first on line " +
                           std::to_string(it->second) + ")");
    seen[key] = r.line;
    if (tasks.size() <= static_cast<std::size_t>(rank)) tasks.resize(rank + 1);
    tasks[rank].push_back({key, load, immobile});
  }
  if (seen.empty()) throw Error(name + ": no tasks");
  return tasks;
}

std::vector<std::vector<Task>> read_tasks(const std::string& path) {
  auto in = detail::open_for_reading(path);
  return read_tasks(in, path);
}

}  // namespace isocost
