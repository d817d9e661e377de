// collective_cost(): lays the op on the cluster (which links, how many nodes), asks every
// registered algorithm for its best protocol, and keeps the fastest, as NCCL's
// topoGetAlgoInfo does; then turns the time into nccl-tests' algbw and busbw. A new algorithm
// is one function in its own file and one line in kAlgorithms.
#include "model/collective_cost.h"

#include "common/errors.h"
#include "model/collective_algorithms.h"
#include "workloads/op_math.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ridgeline {

namespace {

using AlgorithmFn = std::optional<AlgorithmCost> (*)(const CollectiveGroup&);
struct AlgorithmEntry {
  CollectiveAlgorithm algorithm;
  AlgorithmFn cost;
  bool flat;  // may be a phase of the hierarchical algorithm
};
const AlgorithmEntry kAlgorithms[] = {
    {CollectiveAlgorithm::Ring, ring_cost, true},
    {CollectiveAlgorithm::Tree, tree_cost, true},
    {CollectiveAlgorithm::Nvls, nvls_cost, true},
    {CollectiveAlgorithm::NvlsTree, nvls_tree_cost, true},
    {CollectiveAlgorithm::Direct, direct_cost, false},
    {CollectiveAlgorithm::Hierarchical, hierarchical_cost, false},
};

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

void check_op(const CollectiveOp& op, const ClusterSpec& c, int per_node) {
  std::string what = std::string(collective_kind_name(op.kind)) + " on " + c.name;
  auto fail = [&](const std::string& field, const std::string& msg) {
    throw InputError(located(what, field + ": " + msg));
  };
  if (op.ranks < 1) fail("ranks", "must be at least 1, got " + std::to_string(op.ranks));
  if (!(op.bytes >= 0) || !std::isfinite(op.bytes))
    fail("bytes", "must be a finite number >= 0, got " + num(op.bytes));
  if (op.kind == CollectiveKind::SendRecv && op.ranks != 2)
    fail("ranks", "a send_recv is between 2 ranks, got " + std::to_string(op.ranks));
  if (op.ranks_per_node < 0)
    fail("ranks_per_node",
         "must be at least 1 (0: fill nodes), got " + std::to_string(op.ranks_per_node));
  if (per_node > c.gpus_per_node.value)
    fail("ranks_per_node", std::to_string(per_node) + " exceeds the cluster's " +
                               num(c.gpus_per_node.value) + " GPUs per node");
  if (op.ranks % per_node != 0)
    fail("ranks_per_node", std::to_string(per_node) + " does not divide ranks " +
                               std::to_string(op.ranks) + " (nodes = ranks / ranks_per_node)");
  if (op.ranks / per_node > c.max_nodes.value)
    fail("ranks", std::to_string(op.ranks) + " GPUs at " + std::to_string(per_node) +
                      " per node need " + std::to_string(op.ranks / per_node) +
                      " nodes; the cluster has at most " + num(c.max_nodes.value) + " (" +
                      num(c.max_gpus()) + " GPUs)");
}

// What every algorithm pays on top of its own time: the per-call overhead and the buffer term.
double fixed_us(const CollectiveOp& op, const ClusterSpec& c) {
  const CollectiveModelParams& m = c.collective;
  bool p2p = op.kind == CollectiveKind::AllToAll || op.kind == CollectiveKind::SendRecv;
  double per_MB = p2p ? m.p2p_buffer_us_per_MB.value : m.buffer_us_per_MB.value;
  return m.call_overhead_us.value + op.bytes * per_MB / 1e6;
}

CollectiveCost finish(const CollectiveOp& op, const ClusterSpec& c, CollectiveAlgorithm a,
                      const AlgorithmCost& cost) {
  CollectiveCost out;
  out.time_us = cost.time_us + fixed_us(op, c);
  out.algorithm = a;
  out.protocol = cost.protocol;
  out.channels = cost.channels;
  out.algbw_GBps = out.time_us > 0 ? op.bytes / (out.time_us * 1e3) : 0;
  out.busbw_GBps = out.algbw_GBps * collective_bus_factor(op.kind, op.ranks);
  return out;
}

}  // namespace

const NameTable<CollectiveAlgorithm>& collective_algorithms() {
  static const NameTable<CollectiveAlgorithm> t = {
      {CollectiveAlgorithm::Ring, "ring"},     {CollectiveAlgorithm::Tree, "tree"},
      {CollectiveAlgorithm::Nvls, "nvls"},     {CollectiveAlgorithm::NvlsTree, "nvls_tree"},
      {CollectiveAlgorithm::Direct, "direct"}, {CollectiveAlgorithm::Hierarchical, "hierarchical"},
      {CollectiveAlgorithm::Local, "local"}};
  return t;
}

const char* algorithm_name(CollectiveAlgorithm a) {
  return collective_algorithms().name(a);
}

int protocol_index(CollectiveProtocol p) {
  return (int)p;
}

int reduced_channels(double bytes, int ctas, double threads, double threshold_bytes) {
  double fit = std::floor(bytes / (threads * threshold_bytes));
  return (int)std::clamp(fit, 1.0, (double)std::max(ctas, 1));
}

CollectiveGroup collective_group(const CollectiveOp& op, const ClusterSpec& c) {
  int per_node = op.ranks_per_node > 0
                     ? op.ranks_per_node
                     : std::max(1, std::min(op.ranks, (int)c.gpus_per_node.value));
  check_op(op, c, per_node);
  const ScaleUpSpec& u = c.scale_up;
  const CollectiveModelParams& m = c.collective;
  CollectiveGroup g;
  g.kind = op.kind;
  g.bytes = op.bytes;
  g.ranks = op.ranks;
  g.per_node = per_node;
  g.nodes = op.ranks / per_node;
  g.cluster = &c;
  double nvlink_GBps = u.links_per_gpu.value * u.link_GBps_per_direction.value;
  g.nvlink = u.kind != ScaleUpKind::None && nvlink_GBps > 0 && per_node <= u.domain_gpus.value;
  g.link_GBps = g.nvlink ? nvlink_GBps : u.pcie_GBps_per_direction.value;
  double ring_GBps = m.ring_channels.value * m.channel_GBps.value;
  g.intra_bus_GBps = g.nvlink ? ring_GBps : std::min(ring_GBps, u.pcie_GBps_per_direction.value);
  double nic_GBps = c.scale_out.nic_Gbps.value / 8;
  double nics_per_gpu = c.scale_out.nics_per_node.value / c.gpus_per_node.value;
  g.gpu_net_GBps = nic_GBps * nics_per_gpu;
  g.gpu_nic_GBps = nic_GBps * std::min(1.0, nics_per_gpu);
  g.node_net_GBps = nic_GBps * std::min(c.scale_out.nics_per_node.value, per_node * nics_per_gpu);
  return g;
}

CollectiveGroup sub_group(const CollectiveGroup& g, CollectiveKind kind, double bytes,
                          bool inside_node) {
  CollectiveGroup s = g;
  s.kind = kind;
  s.bytes = bytes;
  if (inside_node) {
    s.ranks = g.per_node;
    s.nodes = 1;
  } else {
    s.ranks = g.nodes;
    s.per_node = 1;
    s.node_net_GBps = g.gpu_net_GBps;  // one GPU per node, on its own rail
  }
  return s;
}

std::optional<AlgorithmCost> best_flat_cost(const CollectiveGroup& g) {
  std::optional<AlgorithmCost> best;
  for (const AlgorithmEntry& e : kAlgorithms) {
    if (!e.flat) continue;
    std::optional<AlgorithmCost> c = e.cost(g);
    if (c && (!best || c->time_us < best->time_us)) best = c;
  }
  return best;
}

std::optional<CollectiveCost> collective_cost_with(const CollectiveOp& op,
                                                   const ClusterSpec& cluster,
                                                   CollectiveAlgorithm algorithm) {
  CollectiveGroup g = collective_group(op, cluster);
  if (algorithm == CollectiveAlgorithm::Local) {
    if (op.ranks != 1) return std::nullopt;
    return finish(op, cluster, algorithm, AlgorithmCost{0, CollectiveProtocol::Simple, 0});
  }
  for (const AlgorithmEntry& e : kAlgorithms) {
    if (e.algorithm != algorithm) continue;
    std::optional<AlgorithmCost> c = e.cost(g);
    if (c) return finish(op, cluster, algorithm, *c);
  }
  return std::nullopt;
}

CollectiveCost collective_cost(const CollectiveOp& op, const ClusterSpec& cluster) {
  CollectiveGroup g = collective_group(op, cluster);
  if (op.ranks == 1) {  // nothing leaves the GPU
    CollectiveCost local;
    local.algorithm = CollectiveAlgorithm::Local;
    return local;
  }
  std::optional<CollectiveCost> best;
  for (const AlgorithmEntry& e : kAlgorithms) {
    std::optional<AlgorithmCost> c = e.cost(g);
    if (c && (!best || c->time_us + fixed_us(op, cluster) < best->time_us))
      best = finish(op, cluster, e.algorithm, *c);
  }
  require_invariant(best.has_value(), "every collective kind has an algorithm");
  return *best;
}

}  // namespace ridgeline
