// OpGraph helpers; see op_graph.h.
#include "workloads/op_graph.h"

#include "common/errors.h"

#include <string>

namespace ridgeline {

OpVertex add_kernel(GraphSection& section, const KernelRole& role, const std::string& name,
                    const Op& op, const std::vector<OpVertex>& after) {
  OpVertex v = boost::add_vertex(GraphNode{name, op, Stream::Compute, role}, section.dag());
  section.dag()[v].op.id = name;
  for (OpVertex u : after) boost::add_edge(u, v, section.dag());
  return v;
}

const char* stream_name(Stream s) {
  switch (s) {
    case Stream::Compute:
      return "compute";
    case Stream::Comm:
      return "comm";
    case Stream::Host:
      return "host";
  }
  return "?";
}

const GraphNode& node(const OpGraph& graph, NodeId id) {
  if (id.section < 0 || id.section >= (int)graph.sections.size() ||
      id.vertex >= boost::num_vertices(graph.sections[id.section].dag()))
    throw InternalError("node (" + std::to_string(id.section) + ", " + std::to_string(id.vertex) +
                        ") is not in the graph");
  return graph.sections[id.section].dag()[id.vertex];
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
