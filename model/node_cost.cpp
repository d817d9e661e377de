// Costing a section's nodes; see node_cost.h.
#include "model/node_cost.h"

#include "common/errors.h"
#include "model/collective_cost.h"
#include "workloads/op_math.h"

#include <array>
#include <optional>

namespace ridgeline {

namespace {

bool memory_bound(const Op& op) {
  return !std::holds_alternative<GemmOp>(op.shape) &&
         !std::holds_alternative<AttentionOp>(op.shape) &&
         !std::holds_alternative<CollectiveOp>(op.shape);
}

OpCost collective_node_cost(const Op& op, const CollectiveOp& c, const ClusterSpec* cluster) {
  if (!cluster)
    throw InputError(located(op.id.empty() ? "op" : op.id,
                             "a collective needs a cluster (collective_cost, --cluster)"));
  CollectiveCost cc = collective_cost(c, *cluster);
  OpWork w = op_work(op);
  OpCost cost;
  cost.time_us = cc.time_us;
  cost.bottleneck = Bottleneck::Comm;
  cost.vector_flops = w.vector_flops;
  cost.overhead_us = cc.time_us;
  cost.roofline_us = cc.time_us;
  cost.detail.kernels = cc.algorithm == CollectiveAlgorithm::Local ? 0 : 1;
  cost.detail.ctas = cc.channels;
  return cost;
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

std::vector<OpCost> cost_section(const GraphSection& section, const GpuSpec& gpu, GemmMemo& memo,
                                 const ClusterSpec* cluster) {
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
    const auto* coll = std::get_if<CollectiveOp>(&op.shape);
    costs[v] = coll ? collective_node_cost(op, *coll, cluster) : memo.cost(op, gpu);
    prev = v;
    first = false;
  }
  return costs;
}

}  // namespace ridgeline
