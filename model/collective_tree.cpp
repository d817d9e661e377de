// Tree all-reduce (NCCL's double binary tree across nodes, a chain inside each node), as NCCL's
// tuning model prices it (collectives.md §1.3, §1.4): bus bandwidth capped at 92% and per
// channel, then per protocol (LL: /3.8, LL128: 7/9 on one node, 120/128 across nodes); algorithm
// bandwidth is half of it; latency = base + 2 x (chain hops inside a node + tree levels across
// nodes); NCCL's correction factor for medium sizes ("trees are not perfectly sticking to the
// model") is applied by message size.
#include "model/collective_algorithms.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

namespace {

// treeCorrectionFactor[protocol][log2(bytes / 64)] for 64 B ... 256 MiB (tuning.cc, 2.30.7): a
// dimensionless shape of NCCL's, not a bandwidth.
double tree_correction(CollectiveProtocol p, double bytes) {
  static const double kFactor[kProtocols][24] = {
      {1, 1, 1, 1, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1, 1, 1},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
       .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};
  int index = bytes >= 64 ? (int)std::log2(bytes / 64) : 0;
  return kFactor[protocol_index(p)][std::clamp(index, 0, 23)];
}

}  // namespace

std::optional<AlgorithmCost> tree_cost(const CollectiveGroup& g) {
  if (g.kind != CollectiveKind::AllReduce || g.ranks < 2) return std::nullopt;
  const CollectiveModelParams& m = g.params();
  const HopLatencies& h = m.tree;
  double channels = m.ring_channels.value;
  double bus = g.nodes == 1 ? g.intra_bus_GBps
                            : (g.per_node == 1 ? g.node_net_GBps
                                               : std::min(g.intra_bus_GBps, g.node_net_GBps));
  double tree_bus =
      std::min(m.ll128_fraction.value * bus, channels * m.tree_per_channel_max_GBps.value);
  double ll_max = g.nodes == 1 ? m.ll_max_GBps.value : m.ll_max_multinode_GBps.value;
  double levels = std::log2((double)g.nodes);
  int ctas = 2 * (int)channels;
  std::optional<AlgorithmCost> best;
  for (CollectiveProtocol p : kAllProtocols) {
    int i = protocol_index(p);
    bool simple = p == CollectiveProtocol::Simple;
    double bw = tree_bus;
    if (p == CollectiveProtocol::Ll) bw = std::min(tree_bus / 3.8, ll_max);
    if (p == CollectiveProtocol::Ll128)
      bw = std::min(tree_bus * (g.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                    channels * m.tree_ll128_per_channel_max_GBps.value);
    double algbw = bw * m.efficiency[i].value * tree_correction(p, g.bytes) * 0.5;
    double intra = g.nvlink ? h.nvlink_hop_us[i].value : h.pcie_hop_us[i].value;
    double latency_inter = g.cluster->scale_out.latency_us.value;
    double inter = h.network_hop_us[i].value + latency_inter * (simple ? 2 : 1);
    double lat = h.base_us[i].value + 2 * ((g.per_node - 1) * intra + levels * inter);
    double threshold = p == CollectiveProtocol::Ll ? 8.0 : (simple ? 64 : 8);
    int used = reduced_channels(g.bytes, ctas, 640, threshold);  // trees run 640 threads
    double t = lat + transfer_us(g.bytes, algbw * used / ctas);
    if (!best || t < best->time_us) best = AlgorithmCost{t, p, used};
  }
  return best;
}

}  // namespace ridgeline
