// The collective model: how long one NCCL collective takes on a cluster, shaped as NCCL's own
// tuning model (NCCL 2.30.7 tuning.cc; shared/reference/collectives.md §1 and §4) so that it
// picks what NCCL picks:
//  - each algorithm (ring, tree, NVLS, NVLS tree, hierarchical, direct p2p) gets a bus bandwidth
//    from the cluster's links and NCCL's channel count, capped per protocol (LL: half the link
//    and llMaxBw; LL128: 92% and a per-channel cap; Simple: all of it);
//  - a latency of base + hop terms, one per step inside a node (NVLink or PCIe) and across
//    nodes (network);
//  - time = call overhead + latency + bytes / algorithm bandwidth (+ a fitted per-buffer-byte
//    term, 0 in NCCL's model), with the channels NCCL
//    launches cut down for small messages (§1.7); the fastest (algorithm, protocol) wins.
// Bandwidths and latencies come from the ClusterSpec (hardware/clusters/*.json); none are here.
//
//   CollectiveCost c = collective_cost({CollectiveKind::AllReduce, 1 << 30, 8, 8}, cluster);
//   c.time_us, c.busbw_GBps, c.algorithm (ring), c.protocol (simple), c.channels
#pragma once

#include "common/name_table.h"
#include "hardware/cluster_spec.h"
#include "workloads/op.h"

namespace ridgeline {

// Local: a group of one rank (nothing to send). Direct: grouped point-to-point sends
// (all-to-all, send/recv). Hierarchical: a reduce-scatter inside each node, the collective
// across nodes on each GPU's shard over its own rail, an all-gather inside each node.
enum class CollectiveAlgorithm { Ring, Tree, Nvls, NvlsTree, Direct, Hierarchical, Local };
const NameTable<CollectiveAlgorithm>& collective_algorithms();  // "ring", "tree", "nvls", ...
const char* algorithm_name(CollectiveAlgorithm a);

struct CollectiveCost {
  double time_us = 0;
  double algbw_GBps = 0;  // bytes / time (nccl-tests' algbw, bytes as in CollectiveOp)
  double busbw_GBps = 0;  // algbw x nccl-tests' bus factor
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
  CollectiveProtocol protocol = CollectiveProtocol::Simple;
  int channels = 0;  // CTAs NCCL launches for it (after the small-message reduction)
};

// Throws InputError (naming the op's field) when ranks < 1, bytes < 0, ranks_per_node does not
// divide ranks or exceeds the cluster's GPUs per node, the op spans more GPUs or nodes than the
// cluster has, or a send/recv is not between 2 ranks.
CollectiveCost collective_cost(const CollectiveOp& op, const ClusterSpec& cluster);

// The same op under one algorithm only, its best protocol (nullopt where NCCL would not run
// it there): for tests and for showing why the winner won.
std::optional<CollectiveCost> collective_cost_with(const CollectiveOp& op,
                                                   const ClusterSpec& cluster,
                                                   CollectiveAlgorithm algorithm);

}  // namespace ridgeline
