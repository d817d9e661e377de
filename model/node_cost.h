// The first step of a workload prediction: the cost of every node of a section, by vertex, from
// the kernel model (predict_op), before anything is scheduled (timeline.h).
//  - Warm L2: a memory-bound kernel that consumes what the kernel launched just before it on
//    its stream wrote finds that in L2, if it fits; so does the first kernel of a section,
//    which reads the residual stream the previous section just wrote.
//  - GEMMs of one shape cost the same wherever they stand (a GEMM never runs warm): a
//    transformer block has several (gate and up, q and o), so a GemmMemo shared across the
//    sections of one prediction costs each shape once.
//  - Collectives (on the comm stream) are priced by the collective model on a cluster.
#pragma once

#include "hardware/cluster_spec.h"
#include "hardware/gpu_spec.h"
#include "model/op_cost.h"
#include "workloads/op_graph.h"

#include <utility>
#include <vector>

namespace ridgeline {

class GemmMemo {
 public:
  OpCost cost(const Op& op, const GpuSpec& gpu);  // predict_op, once per GEMM shape

 private:
  std::vector<std::pair<GemmOp, OpCost>> known_;
};

// One OpCost per vertex of `section` (index = vertex). A collective node is priced on
// `cluster` (collective_cost): time_us from the collective model, bottleneck Comm, bytes.hbm = 0
// (its traffic is on the links, not counted as HBM traffic), vector FLOPs of its reduction;
// a graph with collectives and no cluster is an InputError.
std::vector<OpCost> cost_section(const GraphSection& section, const GpuSpec& gpu, GemmMemo& memo,
                                 const ClusterSpec* cluster = nullptr);

}  // namespace ridgeline
