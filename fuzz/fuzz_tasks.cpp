// read_tasks(): "rank,id,load[,immobile]" rows.
#include <cmath>
#include <set>
#include <sstream>

#include "fuzz_support.hpp"
#include "isocost/io.hpp"

using isocost::fuzz::accepts;
using isocost::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 1 << 16) return -1;
  const std::string text = isocost::fuzz::text(data, size);
  std::vector<std::vector<isocost::Task>> tasks;
  if (!accepts([&] {
        std::istringstream in(text);
        tasks = isocost::read_tasks(in, "fuzz");
      }))
    return 0;
  check(!tasks.empty(), "tasks: no ranks");
  // R = the highest rank named + 1: the last rank has a task.
  check(!tasks.back().empty(), "tasks: the last rank has no task");
  std::set<std::int64_t> ids;
  std::size_t count = 0;
  for (const auto& rank : tasks)
    for (const auto& t : rank) {
      check(std::isfinite(t.load) && t.load >= 0, "tasks: bad load");
      ids.insert(t.id);
      ++count;
    }
  check(ids.size() == count, "tasks: duplicate id");
  // Every task is one row of at least 5 bytes ("0,0,0"), so the lists
  // cannot hold more tasks than the input has room for.
  check(count <= size / 5 + 1, "tasks: more tasks than rows");
  return 0;
}
