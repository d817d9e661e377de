// Costing a section's nodes; see node_cost.h.
#include "model/node_cost.h"

#include <array>
#include <optional>

namespace ridgeline {

namespace {

bool memory_bound(const Op& op) {
  return !std::holds_alternative<GemmOp>(op.shape) &&
         !std::holds_alternative<AttentionOp>(op.shape);
}

}  // namespace

OpCost GemmMemo::cost(const Op& op, const GpuSpec& gpu) {
  const auto* g = std::get_if<GemmOp>(&op.shape);
  if (!g) return predict_op(op, gpu);
  for (const auto& [shape, c] : known_) {
    if (shape == *g) return c;
  }
  known_.emplace_back(*g, predict_op(op, gpu));
  return known_.back().second;
}

std::vector<OpCost> cost_section(const GraphSection& section, const GpuSpec& gpu, GemmMemo& memo) {
  const OpDag& dag = section.dag();
  std::vector<OpCost> costs(boost::num_vertices(dag));
  std::array<std::optional<OpVertex>, kStreams> previous;  // last node launched on each stream
  bool first = true;
  for (OpVertex v : launch_order(section)) {
    const GraphNode& n = dag[v];
    std::optional<OpVertex>& prev = previous[(int)n.stream];
    bool after_producer = first || (prev && boost::edge(*prev, v, dag).second);
    Op op = n.op;
    op.warm_l2 = memory_bound(op) && after_producer;
    costs[v] = memo.cost(op, gpu);
    prev = v;
    first = false;
  }
  return costs;
}

}  // namespace ridgeline
