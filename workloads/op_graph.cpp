// OpGraph helpers; see op_graph.h.
#include "workloads/op_graph.h"

namespace ridgeline {

OpVertex add_kernel(GraphSection& section, const KernelRole& role, const std::string& name,
                    const Op& op, const std::vector<OpVertex>& after) {
  OpVertex v = boost::add_vertex(GraphNode{name, op, 0, role}, section.dag());
  section.dag()[v].op.id = name;
  for (OpVertex u : after) boost::add_edge(u, v, section.dag());
  return v;
}

std::vector<OpVertex> launch_order(const GraphSection& section) {
  // Kernels are added in the order a single stream launches them, and every edge points
  // forward, so vertex order is a topological order.
  std::vector<OpVertex> order;
  auto [it, end] = boost::vertices(section.dag());
  for (; it != end; ++it) order.push_back(*it);
  return order;
}

}  // namespace ridgeline
