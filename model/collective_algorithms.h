// Internal to the collective model (see collective_cost.h): a collective laid on the cluster (a
// CollectiveGroup: how many ranks, nodes and ranks per node, over which links at what
// bandwidth), and one cost function per algorithm, each in its own file. An algorithm returns
// nullopt where NCCL would not run it (NVLS without NVLink SHARP, a tree for an all-gather, ...).
#pragma once

#include "hardware/cluster_spec.h"
#include "model/collective_cost.h"
#include "workloads/op.h"

#include <optional>

namespace ridgeline {

struct CollectiveGroup {
  CollectiveKind kind = CollectiveKind::AllReduce;
  double bytes = 0;
  int ranks = 1, nodes = 1, per_node = 1;
  bool nvlink = false;        // the group's GPUs of a node talk over NVLink (else PCIe)
  double link_GBps = 0;       // one GPU's link inside a node, per direction (NVLink or PCIe)
  double intra_bus_GBps = 0;  // NCCL's channels x GB/s per channel for a ring inside a node
  double node_net_GBps = 0;   // the NICs the group's GPUs of one node drive together
  double gpu_net_GBps = 0;    // one GPU's share of its node's NICs
  double gpu_nic_GBps = 0;    // one GPU's NIC for point-to-point (NICs do not aggregate)
  const ClusterSpec* cluster = nullptr;
  const CollectiveModelParams& params() const { return cluster->collective; }
};

// One algorithm's best protocol. time_us excludes the per-call overhead (added once).
struct AlgorithmCost {
  double time_us = 0;
  CollectiveProtocol protocol = CollectiveProtocol::Simple;
  int channels = 0;
};

// The group an op forms on `cluster` (validated: see collective_cost.h for the errors).
CollectiveGroup collective_group(const CollectiveOp& op, const ClusterSpec& cluster);
// The same cluster and links for another op: `inside_node` one node's ranks (per_node of them),
// else one rank per node across the nodes (each GPU on its own rail).
CollectiveGroup sub_group(const CollectiveGroup& g, CollectiveKind kind, double bytes,
                          bool inside_node);

std::optional<AlgorithmCost> ring_cost(const CollectiveGroup& g);
std::optional<AlgorithmCost> tree_cost(const CollectiveGroup& g);
std::optional<AlgorithmCost> nvls_cost(const CollectiveGroup& g);
std::optional<AlgorithmCost> nvls_tree_cost(const CollectiveGroup& g);
std::optional<AlgorithmCost> direct_cost(const CollectiveGroup& g);
std::optional<AlgorithmCost> hierarchical_cost(const CollectiveGroup& g);

// The fastest of the flat algorithms (ring, tree, NVLS, NVLS tree) for `g`: the phases of the
// hierarchical algorithm.
std::optional<AlgorithmCost> best_flat_cost(const CollectiveGroup& g);

// Helpers the algorithms share.
int protocol_index(CollectiveProtocol p);
// CTAs NCCL keeps for `bytes` (§1.7): it drops channels while bytes < channels x threads x
// threshold, from `ctas` down to 1.
int reduced_channels(double bytes, int ctas, double threads, double threshold_bytes);
// bytes / (GB/s) in microseconds.
inline double transfer_us(double bytes, double GBps) {
  return GBps > 0 ? bytes / (GBps * 1e3) : 0;
}

}  // namespace ridgeline
