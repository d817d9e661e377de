// Ring (all-reduce, all-gather, reduce-scatter, broadcast), as NCCL's tuning model prices it
// (collectives.md §1.3, §1.4): bus bandwidth = channels x GB/s per channel inside a node, capped
// by the NICs a node's ranks drive across nodes; per protocol LL = min(llMaxBw, half),
// LL128 = min(92%, channels x per-channel cap), Simple = all. Latency = base + one hop term per
// step: (steps - steps across nodes) x the intra-node hop + steps across nodes x the network hop.
#include "model/collective_algorithms.h"

#include "workloads/op_math.h"

#include <algorithm>

namespace ridgeline {

namespace {

struct RingSteps {
  int total = 0, inter = 0;
};

RingSteps ring_steps(const CollectiveGroup& g) {
  int n = g.ranks, k = g.nodes;
  if (g.kind == CollectiveKind::AllReduce) return {2 * (n - 1), 2 * (k - 1)};
  return {n - 1, k - 1};  // all-gather, reduce-scatter, broadcast (a pipelined chain)
}

double ring_bus_GBps(const CollectiveGroup& g) {
  if (g.nodes == 1) return g.intra_bus_GBps;
  if (g.per_node == 1) return g.node_net_GBps;
  return std::min(g.intra_bus_GBps, g.node_net_GBps);
}

double protocol_bus_GBps(const CollectiveGroup& g, CollectiveProtocol p, double bus) {
  const CollectiveModelParams& m = g.params();
  double ll_max = g.nodes == 1 ? m.ll_max_GBps.value : m.ll_max_multinode_GBps.value;
  switch (p) {
    case CollectiveProtocol::Ll:
      return std::min(ll_max, m.ll_fraction.value * bus);
    case CollectiveProtocol::Ll128:
      return std::min(m.ll128_fraction.value * bus,
                      m.ring_channels.value * m.ll128_per_channel_max_GBps.value);
    case CollectiveProtocol::Simple:
      return bus;
  }
  return bus;
}

}  // namespace

// Threads a channel runs per protocol and the bytes per thread below which NCCL drops a channel
// (enqueue.cc, collectives.md §1.7).
std::optional<AlgorithmCost> ring_cost(const CollectiveGroup& g) {
  static const double kThreads[kProtocols] = {512, 640, 544};
  bool ring_kind = g.kind == CollectiveKind::AllReduce || g.kind == CollectiveKind::AllGather ||
                   g.kind == CollectiveKind::ReduceScatter || g.kind == CollectiveKind::Broadcast;
  if (!ring_kind || g.ranks < 2) return std::nullopt;
  const CollectiveModelParams& m = g.params();
  const HopLatencies& h = m.ring;
  RingSteps steps = ring_steps(g);
  double bus = ring_bus_GBps(g);
  int ctas = 2 * (int)m.ring_channels.value;
  std::optional<AlgorithmCost> best;
  for (CollectiveProtocol p : kAllProtocols) {
    int i = protocol_index(p);
    bool simple = p == CollectiveProtocol::Simple;
    double bw = protocol_bus_GBps(g, p, bus) * m.efficiency[i].value /
                collective_bus_factor(g.kind, g.ranks);
    double intra = g.nvlink ? h.nvlink_hop_us[i].value : h.pcie_hop_us[i].value;
    if (g.nodes > 1) intra = std::max(intra, m.net_overhead_us.value * (simple ? 3 : 1));
    double latency_inter = g.cluster->scale_out.latency_us.value;
    double inter = h.network_hop_us[i].value + latency_inter * (simple ? 2 : 1);
    double lat = h.base_us[i].value + (steps.total - steps.inter) * intra + steps.inter * inter;
    double threshold = p == CollectiveProtocol::Ll ? 8.0 * g.ranks : (simple ? 64 : 8);
    int channels = reduced_channels(g.bytes, ctas, kThreads[i], threshold);
    // NCCL's "plateau effect of ring": Simple all-reduce across nodes, once each rank's share
    // of a channel is at least 64 bytes.
    if (simple && g.kind == CollectiveKind::AllReduce && g.nodes > 1 &&
        g.bytes / (m.ring_channels.value * g.ranks) >= 64)
      lat *= 1.4;
    double t = lat + transfer_us(g.bytes, bw * channels / ctas);
    if (!best || t < best->time_us) best = AlgorithmCost{t, p, channels};
  }
  return best;
}

}  // namespace ridgeline
