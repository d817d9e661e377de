// ClusterSpec: a plain, validated description of a multi-GPU system (one file a cluster under
// hardware/clusters/): which GPU, how many per node and how many nodes at most, the scale-up
// fabric inside a node (NVSwitch, NVLink bridges or plain PCIe), the scale-out network between
// nodes, and the parameters of the collective model (model/collective_cost.h), each a Fact with
// its provenance. Links are components between levels (STYLE 15): every bandwidth the collective
// model uses is read from here, never written in code.
//
// The collective model's parameters are NCCL's own constants (tuning.cc, search.cc of NCCL
// 2.30.7; shared/reference/collectives.md §1), one set per GPU architecture under
// hardware/collectives/<architecture>.json; a cluster file's optional "collective_model" object
// overrides any of them (a calibrated cluster file does), as a GPU file overrides its
// architecture's kernel-model defaults.
#pragma once

#include "common/name_table.h"
#include "hardware/gpu_spec.h"
#include "hardware/provenance.h"

#include <nlohmann/json.hpp>

#include <array>
#include <string>
#include <vector>

namespace ridgeline {

// NCCL's three protocols: LL (8-byte lines, 4 B data + 4 B flag: lowest latency, half the
// bandwidth), LL128 (128-byte lines, 120 B payload) and Simple (bulk copies with fences).
enum class CollectiveProtocol { Ll, Ll128, Simple };
constexpr int kProtocols = 3;
constexpr std::array<CollectiveProtocol, kProtocols> kAllProtocols = {
    CollectiveProtocol::Ll, CollectiveProtocol::Ll128, CollectiveProtocol::Simple};
const char* protocol_name(CollectiveProtocol p);  // "ll", "ll128", "simple"
const NameTable<CollectiveProtocol>& collective_protocols();

// What joins the GPUs of a node: an NVSwitch (every GPU reaches every other at its full NVLink
// bandwidth), PCIe (through PCIe switches and the CPU; NVLink bridges may join small groups, see
// ScaleUpSpec::domain_gpus), or nothing (one GPU per node).
enum class ScaleUpKind { NvSwitch, Pcie, None };
const char* scale_up_kind_name(ScaleUpKind k);  // "nvswitch", "pcie", "none"

struct ScaleUpSpec {
  ScaleUpKind kind = ScaleUpKind::NvSwitch;
  Fact nvlink_generation;  // 0 where there is no NVLink
  Fact links_per_gpu;
  Fact link_GBps_per_direction;  // NCCL's per-link figure (20, 20.6, 40.1), not the datasheet's
  // GPUs that one NVLink fabric joins: 8 on an HGX board, 72 in an NVL72 rack, 2 for bridged
  // PCIe cards; a group larger than this inside a node talks over PCIe.
  Fact domain_gpus;
  Fact pcie_GBps_per_direction;  // per GPU, as NCCL derives it from the link width and speed
  bool nvls_available = false;   // NVLink SHARP (multicast reductions in the NVSwitches)
};

struct ScaleOutSpec {
  Fact nics_per_node;
  Fact nic_Gbps;  // line rate of one NIC (400 for NDR InfiniBand)
  // NCCL's `latencyInter`: what the network transport reports per hop (IB: 0); the collective
  // model's network hop terms carry the rest.
  Fact latency_us;
  // Rail-optimised: GPU i of every node hangs off leaf switch i, so a per-rail collective (the
  // inter-node phase of the hierarchical algorithm) crosses one switch and never the spine.
  bool rail_optimized = false;
};

// Per protocol: LL, LL128, Simple.
using ProtocolFacts = std::array<Fact, kProtocols>;

// NCCL's per-algorithm latency terms: a base latency and one hop term per link type.
struct HopLatencies {
  ProtocolFacts base_us;
  ProtocolFacts nvlink_hop_us;
  ProtocolFacts pcie_hop_us;
  ProtocolFacts network_hop_us;
};

struct CollectiveModelParams {
  // Per call, beyond NCCL's own model: the kernel launch and the host-side enqueue a benchmark
  // loop pays (0 in NCCL's model; fitted from measured tables).
  Fact call_overhead_us;
  // Per byte of the op's buffer, beyond the links: each GPU reads its input and writes its
  // output in device memory, and a group of few ranks pays it over less link traffic (nccl-tests
  // busbw on 2 of 8 NVSwitch GPUs is 20-35% below 8 of 8). 0 in NCCL's model; fitted. Not for
  // point-to-point ops, which have their own (p2p_buffer_us_per_MB).
  Fact buffer_us_per_MB;
  // NCCL's intra-node graph search result: channels x GB/s per channel (after it duplicates
  // channels); their product may not exceed the GPU's NVLink bandwidth. It launches twice as
  // many CTAs as channels.
  Fact ring_channels;
  Fact channel_GBps;
  HopLatencies ring;
  HopLatencies tree;
  // Protocol caps (collectives.md §1.3).
  Fact ll_fraction;                 // LL carries this share of the link (4 B of 8)
  Fact ll128_fraction;              // LL128's payload share (120 of 128 B)
  Fact ll_max_GBps;                 // llMaxBw, one node
  Fact ll_max_multinode_GBps;       // llMaxBw, several nodes
  Fact ll128_per_channel_max_GBps;  // perChMaxRingLL128Bw
  Fact tree_per_channel_max_GBps;   // perChMaxTreeBw
  Fact tree_ll128_per_channel_max_GBps;
  Fact net_overhead_us;  // per step of a multi-node ring (x3 for Simple)
  // NVLink SHARP (used only where the cluster has it and nvls_enabled): channels, GB/s per
  // channel from NCCL's NVLS search, its efficiency, and its latencies.
  bool nvls_enabled = false;
  Fact nvls_channels;
  Fact nvls_channel_GBps;
  Fact nvls_efficiency;
  Fact nvls_min_ranks;   // NCCL picks NVLS from this many GPUs on (measured: 5 on H200, 6 on B200)
  Fact nvls_latency_us;  // one node (NCCL's NVLink hop term; base is 0)
  Fact nvls_tree_network_hop_us;        // NVLSTree, per tree level across nodes
  Fact nvls_tree_per_channel_max_GBps;  // perChMaxNVLSTreeBw
  // Achieved bandwidth / NCCL's model bandwidth, per protocol (1 = NCCL's own figure; fitted).
  ProtocolFacts efficiency;
  // Point-to-point (all-to-all, send/recv): grouped p2p operations outside NCCL's tuning model.
  Fact p2p_base_us;             // per call
  Fact p2p_peer_us;             // per peer a rank exchanges with
  Fact p2p_efficiency;          // achieved share of the link
  Fact p2p_buffer_us_per_MB;    // p2p's own per-buffer-byte term (buffer_us_per_MB is the rest's)
  Fact p2p_ll_threshold_bytes;  // per-peer messages up to this use LL (NCCL_P2P_LL_THRESHOLD)
  // Hierarchical multi-node algorithms: share of the shorter phases hidden behind the longest
  // (0: phases run one after another, 1: fully overlapped).
  Fact hierarchical_overlap;
};

struct ClusterSpec {
  std::string name;          // preset key, e.g. "dgx-h100"
  std::string full_name;     // "NVIDIA DGX H100 (8x H100 SXM5, ...)"
  std::string file;          // where it was read from
  std::string gpu;           // a GPU preset name (hardware/gpus) or a path to a GPU file
  std::string architecture;  // the GPU's, which picked the collective-model defaults
  Fact gpus_per_node;
  Fact max_nodes;
  ScaleUpSpec scale_up;
  ScaleOutSpec scale_out;
  CollectiveModelParams collective;
  double max_gpus() const { return gpus_per_node.value * max_nodes.value; }
};

// Calls f(json_path, fact, rule) for every Fact of the collective model, paths relative to the
// "collective_model" object ("ring/base_us/ll", "channel_GBps", ...). Parsing, the fit and
// `clusters show` walk this one list.
template <class Params, class F>
void visit_collective_fields(Params& p, F&& f) {
  static const char* proto[kProtocols] = {"ll", "ll128", "simple"};
  f(std::string("call_overhead_us"), p.call_overhead_us, FieldRule::NonNegative);
  f(std::string("buffer_us_per_MB"), p.buffer_us_per_MB, FieldRule::NonNegative);
  f(std::string("ring_channels"), p.ring_channels, FieldRule::PositiveInteger);
  f(std::string("channel_GBps"), p.channel_GBps, FieldRule::Positive);
  auto hops = [&](const std::string& algo, auto& h) {
    for (int i = 0; i < kProtocols; ++i)
      f(algo + "/base_us/" + proto[i], h.base_us[i], FieldRule::NonNegative);
    for (int i = 0; i < kProtocols; ++i)
      f(algo + "/nvlink_hop_us/" + proto[i], h.nvlink_hop_us[i], FieldRule::NonNegative);
    for (int i = 0; i < kProtocols; ++i)
      f(algo + "/pcie_hop_us/" + proto[i], h.pcie_hop_us[i], FieldRule::NonNegative);
    for (int i = 0; i < kProtocols; ++i)
      f(algo + "/network_hop_us/" + proto[i], h.network_hop_us[i], FieldRule::NonNegative);
  };
  hops("ring", p.ring);
  hops("tree", p.tree);
  f(std::string("protocol/ll_fraction"), p.ll_fraction, FieldRule::Fraction);
  f(std::string("protocol/ll128_fraction"), p.ll128_fraction, FieldRule::Fraction);
  f(std::string("protocol/ll_max_GBps"), p.ll_max_GBps, FieldRule::Positive);
  f(std::string("protocol/ll_max_multinode_GBps"), p.ll_max_multinode_GBps, FieldRule::Positive);
  f(std::string("protocol/ll128_per_channel_max_GBps"), p.ll128_per_channel_max_GBps,
    FieldRule::Positive);
  f(std::string("protocol/tree_per_channel_max_GBps"), p.tree_per_channel_max_GBps,
    FieldRule::Positive);
  f(std::string("protocol/tree_ll128_per_channel_max_GBps"), p.tree_ll128_per_channel_max_GBps,
    FieldRule::Positive);
  f(std::string("net_overhead_us"), p.net_overhead_us, FieldRule::NonNegative);
  f(std::string("nvls/channels"), p.nvls_channels, FieldRule::PositiveInteger);
  f(std::string("nvls/channel_GBps"), p.nvls_channel_GBps, FieldRule::Positive);
  f(std::string("nvls/efficiency"), p.nvls_efficiency, FieldRule::Fraction);
  f(std::string("nvls/min_ranks"), p.nvls_min_ranks, FieldRule::PositiveInteger);
  f(std::string("nvls/latency_us"), p.nvls_latency_us, FieldRule::NonNegative);
  f(std::string("nvls/tree_network_hop_us"), p.nvls_tree_network_hop_us, FieldRule::NonNegative);
  f(std::string("nvls/tree_per_channel_max_GBps"), p.nvls_tree_per_channel_max_GBps,
    FieldRule::Positive);
  for (int i = 0; i < kProtocols; ++i)
    f(std::string("efficiency/") + proto[i], p.efficiency[i], FieldRule::Positive);
  f(std::string("p2p/base_us"), p.p2p_base_us, FieldRule::NonNegative);
  f(std::string("p2p/peer_us"), p.p2p_peer_us, FieldRule::NonNegative);
  f(std::string("p2p/efficiency"), p.p2p_efficiency, FieldRule::Fraction);
  f(std::string("p2p/buffer_us_per_MB"), p.p2p_buffer_us_per_MB, FieldRule::NonNegative);
  f(std::string("p2p/ll_threshold_bytes"), p.p2p_ll_threshold_bytes, FieldRule::NonNegative);
  f(std::string("hierarchical_overlap"), p.hierarchical_overlap, FieldRule::NonNegative);
}

// `name_or_path`: a preset name ("dgx-h100") or a path to a .json file of the same schema.
ClusterSpec load_cluster(const std::string& name_or_path);
// Parses cluster text as if it were the file `label` (tests, files already in memory).
ClusterSpec load_cluster_text(const std::string& text, const std::string& label);
std::vector<std::string> cluster_names();
// The cluster file as written (a preset's embedded text or the file at the path), for tools
// that write a changed copy of it (calibrate fit-collectives).
nlohmann::json cluster_document(const std::string& name_or_path);

}  // namespace ridgeline
