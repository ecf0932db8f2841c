// read_graph(): an edge list, with and without a given node count.
#include <cmath>
#include <sstream>

#include "fuzz_support.hpp"
#include "isocost/io.hpp"

using isocost::fuzz::accepts;
using isocost::fuzz::check;

namespace {

void check_graph(const isocost::ProcessGraph& g) {
  check(g.nodes >= 1, "graph: no nodes");
  check(g.nodes == 1 || !g.edges.empty(), "graph: several nodes and no edges");
  for (const auto& e : g.edges) {
    check(0 <= e.i && e.i < e.j && e.j < g.nodes, "graph: edge endpoints out of order or range");
    check(std::isfinite(e.weight) && e.weight > 0, "graph: bad edge weight");
  }
  // The reader promises a validated (connected) graph.
  check(accepts([&] { g.validate(); }), "graph: returned graph fails validate()");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 1 << 16) return -1;
  const std::string text = isocost::fuzz::text(data, size);
  isocost::ProcessGraph g;
  if (!accepts([&] {
        std::istringstream in(text);
        g = isocost::read_graph(in, "fuzz");
      }))
    return 0;
  check_graph(g);
  // With the node count it found, the same file must read the same graph.
  isocost::ProcessGraph again;
  check(accepts([&] {
          std::istringstream in(text);
          again = isocost::read_graph(in, "fuzz", g.nodes);
        }),
        "graph: refused with its own node count");
  check(again.nodes == g.nodes && again.edges.size() == g.edges.size(),
        "graph: differs when read with its own node count");
  for (std::size_t k = 0; k < g.edges.size(); ++k)
    check(again.edges[k].i == g.edges[k].i && again.edges[k].j == g.edges[k].j &&
              again.edges[k].weight == g.edges[k].weight,
          "graph: edge differs when read with its own node count");
  return 0;
}
