// Hierarchical multi-node collectives on a rail-optimised fabric (collectives.md §3.1): the
// ranks of each node first work inside the node, then GPU i of every node runs the collective on
// its shard over rail i, then inside the node again:
//   all-reduce     = reduce-scatter inside (S) + all-reduce across (S / per node) + all-gather
//   inside (S) all-gather     = all-gather across (S / per node) + all-gather inside (S)
//   reduce-scatter = reduce-scatter inside (S) + reduce-scatter across (S / per node)
// Each phase is the best flat algorithm for its group; the phases overlap by
// collective_model.hierarchical_overlap (0: one after another; 1: all hidden behind the longest).
#include "model/collective_algorithms.h"

#include <algorithm>
#include <vector>

namespace ridgeline {

std::optional<AlgorithmCost> hierarchical_cost(const CollectiveGroup& g) {
  bool kind_ok = g.kind == CollectiveKind::AllReduce || g.kind == CollectiveKind::AllGather ||
                 g.kind == CollectiveKind::ReduceScatter;
  if (!kind_ok || g.nodes < 2 || g.per_node < 2 || !g.cluster->scale_out.rail_optimized)
    return std::nullopt;
  double shard = g.bytes / g.per_node;
  std::vector<CollectiveGroup> phases;
  if (g.kind == CollectiveKind::AllReduce) {
    phases = {sub_group(g, CollectiveKind::ReduceScatter, g.bytes, true),
              sub_group(g, CollectiveKind::AllReduce, shard, false),
              sub_group(g, CollectiveKind::AllGather, g.bytes, true)};
  } else if (g.kind == CollectiveKind::AllGather) {
    phases = {sub_group(g, CollectiveKind::AllGather, shard, false),
              sub_group(g, CollectiveKind::AllGather, g.bytes, true)};
  } else {
    phases = {sub_group(g, CollectiveKind::ReduceScatter, g.bytes, true),
              sub_group(g, CollectiveKind::ReduceScatter, shard, false)};
  }
  double sum = 0;
  AlgorithmCost longest;
  for (const CollectiveGroup& p : phases) {
    std::optional<AlgorithmCost> c = best_flat_cost(p);
    if (!c) return std::nullopt;
    sum += c->time_us;
    if (c->time_us > longest.time_us) longest = *c;
  }
  double overlap = g.params().hierarchical_overlap.value;
  double t = sum - overlap * (sum - longest.time_us);
  return AlgorithmCost{t, longest.protocol, longest.channels};
}

}  // namespace ridgeline
