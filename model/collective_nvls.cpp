// NVLink SHARP (NVLS): the NVSwitches reduce (multimem loads) and multicast, so each GPU sends
// and receives its buffer about once (collectives.md §1.3, §3.1). One node: all-reduce,
// all-gather, reduce-scatter; several nodes: NVLS tree all-reduce (NVLS inside each node, a
// tree across). Simple protocol only, always NCCL's NVLS channel count. Used only where the
// cluster's switches have it (scale_up.nvls_available) and it is enabled
// (collective_model.nvls_enabled; NCCL_NVLS_ENABLE=0 is common), from nvls.min_ranks GPUs on.
#include "model/collective_algorithms.h"

#include "workloads/op_math.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

namespace {

bool nvls_usable(const CollectiveGroup& g) {
  const CollectiveModelParams& m = g.params();
  return g.cluster->scale_up.nvls_available && m.nvls_enabled && g.nvlink && g.per_node >= 2 &&
         g.ranks >= (int)m.nvls_min_ranks.value;
}

// NCCL: bwIntra x nvlsEfficiency x (channels - 1) / channels, x2 for all-reduce ("pipelines two
// operations"), x(ppn - 1) / ppn for all-gather and reduce-scatter; per channel.
double nvls_channel_GBps(const CollectiveGroup& g) {
  const CollectiveModelParams& m = g.params();
  double ch = m.nvls_channels.value;
  double bw = m.nvls_channel_GBps.value * m.nvls_efficiency.value * (ch - 1) / ch;
  if (g.kind == CollectiveKind::AllReduce) return 2 * bw;
  return bw * (g.per_node - 1) / g.per_node;
}

}  // namespace

std::optional<AlgorithmCost> nvls_cost(const CollectiveGroup& g) {
  bool kind_ok = g.kind == CollectiveKind::AllReduce || g.kind == CollectiveKind::AllGather ||
                 g.kind == CollectiveKind::ReduceScatter;
  if (!kind_ok || g.nodes != 1 || !nvls_usable(g)) return std::nullopt;
  const CollectiveModelParams& m = g.params();
  int simple = protocol_index(CollectiveProtocol::Simple);
  double bus = m.nvls_channels.value * nvls_channel_GBps(g) * m.efficiency[simple].value;
  double algbw = bus / collective_bus_factor(g.kind, g.ranks);
  double t = m.nvls_latency_us.value + transfer_us(g.bytes, algbw);
  return AlgorithmCost{t, CollectiveProtocol::Simple, (int)m.nvls_channels.value};
}

std::optional<AlgorithmCost> nvls_tree_cost(const CollectiveGroup& g) {
  if (g.kind != CollectiveKind::AllReduce || g.nodes < 2 || !nvls_usable(g)) return std::nullopt;
  const CollectiveModelParams& m = g.params();
  int simple = protocol_index(CollectiveProtocol::Simple);
  double ch = m.nvls_channels.value;
  double inter = g.node_net_GBps * (g.nodes <= 2 ? 2 : 1);
  double bus =
      std::min({ch * nvls_channel_GBps(g), inter, ch * m.nvls_tree_per_channel_max_GBps.value});
  double algbw = bus * m.efficiency[simple].value / collective_bus_factor(g.kind, g.ranks);
  double hop = m.nvls_tree_network_hop_us.value + g.cluster->scale_out.latency_us.value;
  double lat =
      m.tree.base_us[simple].value + m.nvls_latency_us.value + 2 * std::log2((double)g.nodes) * hop;
  return AlgorithmCost{lat + transfer_us(g.bytes, algbw), CollectiveProtocol::Simple, (int)ch};
}

}  // namespace ridgeline
