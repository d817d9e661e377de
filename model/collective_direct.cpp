// Direct point-to-point: all-to-all (every rank sends bytes / ranks to each peer) and send/recv
// (one rank to another), run by NCCL as grouped sends outside its tuning model
// (collectives.md §1.8). Inside a node each GPU's link carries its intra-node share; across nodes
// each GPU's own NIC carries the rest (NICs do not aggregate for all-to-all: nccl-tests#267).
// time = p2p base + per-peer cost + the slower of the two transfers; LL below the p2p LL
// threshold per peer.
#include "model/collective_algorithms.h"

#include <algorithm>

namespace ridgeline {

std::optional<AlgorithmCost> direct_cost(const CollectiveGroup& g) {
  bool p2p = g.kind == CollectiveKind::AllToAll || g.kind == CollectiveKind::SendRecv;
  if (!p2p || g.ranks < 2) return std::nullopt;
  const CollectiveModelParams& m = g.params();
  double n = g.ranks;
  double peers = g.kind == CollectiveKind::SendRecv ? 1 : n - 1;
  double per_peer = g.kind == CollectiveKind::SendRecv ? g.bytes : g.bytes / n;
  double intra_bytes = 0, inter_bytes = 0;
  if (g.kind == CollectiveKind::SendRecv) {
    (g.per_node == 2 ? intra_bytes : inter_bytes) = g.bytes;
  } else {
    intra_bytes = per_peer * (g.per_node - 1);
    inter_bytes = per_peer * (n - g.per_node);
  }
  bool ll = per_peer <= m.p2p_ll_threshold_bytes.value;
  double share = m.p2p_efficiency.value * (ll ? m.ll_fraction.value : 1.0);
  double t = m.p2p_base_us.value + peers * m.p2p_peer_us.value +
             std::max(transfer_us(intra_bytes, g.link_GBps * share),
                      transfer_us(inter_bytes, g.gpu_nic_GBps * share));
  if (inter_bytes > 0) t += g.cluster->scale_out.latency_us.value;
  return AlgorithmCost{t, ll ? CollectiveProtocol::Ll : CollectiveProtocol::Simple,
                       2 * (int)m.ring_channels.value};
}

}  // namespace ridgeline
