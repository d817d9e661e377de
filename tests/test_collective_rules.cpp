// Rule tests of the collective model (model/collective_cost.h): times against NCCL's closed
// forms (collectives.md §1.3-1.4, §1.7) on both sides of each protocol switch (LL -> LL128 ->
// Simple) and algorithm switch (ring -> tree, ring -> NVLS), the NVLS rank threshold, the
// hierarchical multi-node combination, and all-to-all across nodes bound by one NIC per GPU.
// The closed forms read the cluster's parameters, so the tests follow the files.
#include "test_helpers.h"

#include "hardware/cluster_spec.h"
#include "model/collective_cost.h"
#include "model/node_cost.h"
#include "model/prediction.h"

#include "common/embedded_files.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

using namespace ridgeline;

namespace {

std::string embedded_text(const std::string& path) {
  for (const auto& f : embedded_files())
    if (f.path == path) return std::string(f.text);
  FAIL("not embedded: " << path);
  return "";
}

// Drops every fitted figure below `j`, so that NCCL's own constants (the architecture's
// defaults) remain; objects left empty go too.
void drop_fitted(nlohmann::json& j) {
  for (auto it = j.begin(); it != j.end();) {
    bool fact = it->is_object() && it->contains("source");
    if (fact && (*it)["source"].get<std::string>().rfind("fitted:", 0) == 0) {
      it = j.erase(it);
      continue;
    }
    if (it->is_object() && !fact) drop_fitted(*it);
    if (it->is_object() && it->empty()) {
      it = j.erase(it);
      continue;
    }
    ++it;
  }
}

// A preset with NCCL's constants in place of its fitted parameters: the closed forms below are
// NCCL's model, which the fit only rescales.
const ClusterSpec& cluster(const std::string& name) {
  static std::map<std::string, ClusterSpec> loaded;
  auto it = loaded.find(name);
  if (it == loaded.end()) {
    nlohmann::json doc = cluster_document(name);
    if (doc.contains("collective_model")) drop_fitted(doc["collective_model"]);
    if (doc.contains("collective_model") && doc["collective_model"].empty())
      doc.erase("collective_model");
    it = loaded.emplace(name, load_cluster_text(doc.dump(), name + " (NCCL's constants)")).first;
  }
  return it->second;
}

CollectiveOp op(CollectiveKind k, double bytes, int ranks, int per_node = 0) {
  CollectiveOp o;
  o.kind = k;
  o.bytes = bytes;
  o.ranks = ranks;
  o.ranks_per_node = per_node;
  return o;
}

CollectiveOp all_reduce(double bytes, int ranks, int per_node = 0) {
  return op(CollectiveKind::AllReduce, bytes, ranks, per_node);
}

// NCCL's ring all-reduce on one NVLink node: base + 2(n-1) hops + bytes / (busBw x n/(2(n-1))),
// with the channels kept for `bytes` (§1.7) out of 2 x ring channels.
double ring_ar_closed_form(const ClusterSpec& c, CollectiveProtocol p, double bytes, int n) {
  const CollectiveModelParams& m = c.collective;
  int i = (int)p;
  double bus = m.ring_channels.value * m.channel_GBps.value;
  if (p == CollectiveProtocol::Ll) bus = std::min(m.ll_max_GBps.value, 0.5 * bus);
  if (p == CollectiveProtocol::Ll128)
    bus = std::min(0.92 * bus, m.ring_channels.value * m.ll128_per_channel_max_GBps.value);
  double threads[] = {512, 640, 544}, threshold[] = {8.0 * n, 8, 64};
  double ctas = 2 * m.ring_channels.value;
  double ch = std::clamp(std::floor(bytes / (threads[i] * threshold[i])), 1.0, ctas);
  double algbw = bus * m.efficiency[i].value * n / (2.0 * (n - 1)) * ch / ctas;
  double lat = m.ring.base_us[i].value + 2 * (n - 1) * m.ring.nvlink_hop_us[i].value;
  return m.call_overhead_us.value + bytes * m.buffer_us_per_MB.value / 1e6 + lat +
         bytes / (algbw * 1e3);
}

void check_ring(const ClusterSpec& c, double bytes, int n, CollectiveProtocol p) {
  CollectiveCost got = collective_cost(all_reduce(bytes, n), c);
  INFO(c.name << " all_reduce " << bytes << " B on " << n
              << " GPUs: " << algorithm_name(got.algorithm) << "/" << protocol_name(got.protocol));
  CHECK(got.algorithm == CollectiveAlgorithm::Ring);
  CHECK(got.protocol == p);
  CHECK(got.time_us == Approx(ring_ar_closed_form(c, p, bytes, n)).epsilon(1e-12));
}

// Where two saturated ring protocols cost the same: a1 + s/b1 = a2 + s/b2.
double crossover_bytes(const ClusterSpec& c, CollectiveProtocol p1, CollectiveProtocol p2, int n) {
  double big = 1e12;  // intercept and slope from two far points of each closed form
  auto slope = [&](CollectiveProtocol p) {
    return (ring_ar_closed_form(c, p, 2 * big, n) - ring_ar_closed_form(c, p, big, n)) / big;
  };
  auto intercept = [&](CollectiveProtocol p) {
    return ring_ar_closed_form(c, p, big, n) - slope(p) * big;
  };
  return (intercept(p2) - intercept(p1)) / (slope(p1) - slope(p2));
}

}  // namespace

TEST_CASE("ring all-reduce: LL below the LL/LL128 crossover, LL128 above it", "[collective]") {
  const ClusterSpec& a100 = cluster("dgx-a100");
  double s = crossover_bytes(a100, CollectiveProtocol::Ll, CollectiveProtocol::Ll128, 8);
  REQUIRE(s > 1e6);  // both protocols have all their channels there
  check_ring(a100, 0.95 * s, 8, CollectiveProtocol::Ll);
  check_ring(a100, 1.05 * s, 8, CollectiveProtocol::Ll128);
}

TEST_CASE("ring all-reduce: LL128 below the LL128/Simple crossover, Simple above it",
          "[collective]") {
  const ClusterSpec& a100 = cluster("dgx-a100");
  double s = crossover_bytes(a100, CollectiveProtocol::Ll128, CollectiveProtocol::Simple, 8);
  check_ring(a100, 0.95 * s, 8, CollectiveProtocol::Ll128);
  check_ring(a100, 1.05 * s, 8, CollectiveProtocol::Simple);
  check_ring(a100, 512.0 * (1 << 20), 8, CollectiveProtocol::Simple);
}

TEST_CASE("small all-reduce: ring LL at 4 KiB, tree LL at 64 KiB (tree keeps more channels)",
          "[collective]") {
  const ClusterSpec& a100 = cluster("dgx-a100");
  check_ring(a100, 4096, 8, CollectiveProtocol::Ll);
  CollectiveCost t = collective_cost(all_reduce(65536, 8), a100);
  CHECK(t.algorithm == CollectiveAlgorithm::Tree);
  CHECK(t.protocol == CollectiveProtocol::Ll);
  // Tree LL: bus = min(0.92 x 240, 12 x 24) / 3.8, x correction 0.6 at 2^10 x 64 B, x 0.5;
  // 65536 / (640 x 8) = 12 of 24 CTAs; latency 6.8 + 2 x 7 x 0.6.
  const CollectiveModelParams& m = a100.collective;
  double bus = std::min(0.92 * 240, m.ring_channels.value * m.tree_per_channel_max_GBps.value);
  double algbw = std::min(bus / 3.8, m.ll_max_GBps.value) * 0.6 * 0.5 * 12 / 24;
  CHECK(t.time_us == Approx(6.8 + 2 * 7 * 0.6 + 65536 / (algbw * 1e3)).epsilon(1e-12));
  // The ring at 64 KiB keeps 2 of 24 CTAs and is slower.
  CHECK(ring_ar_closed_form(a100, CollectiveProtocol::Ll, 65536, 8) > t.time_us);
}

TEST_CASE("NVLS: ring LL below the crossover, NVLS above it (8 x H100)", "[collective]") {
  const ClusterSpec& h100 = cluster("dgx-h100");
  const CollectiveModelParams& m = h100.collective;
  double ch = m.nvls_channels.value;
  double bus = ch * m.nvls_channel_GBps.value * m.nvls_efficiency.value * (ch - 1) / ch * 2;
  double algbw = bus * 8 / 14.0;
  auto nvls = [&](double s) { return m.nvls_latency_us.value + s / (algbw * 1e3); };
  // ring LL: a + s / b; NVLS: 25 + s / algbw
  double big = 1e12;
  double b_ll = big / 1e3 /
                (ring_ar_closed_form(h100, CollectiveProtocol::Ll, 2 * big, 8) -
                 ring_ar_closed_form(h100, CollectiveProtocol::Ll, big, 8));
  double a_ll = ring_ar_closed_form(h100, CollectiveProtocol::Ll, big, 8) - big / (b_ll * 1e3);
  double s = (m.nvls_latency_us.value - a_ll) / (1 / b_ll - 1 / algbw) * 1e3;
  REQUIRE(s > 1e6);
  check_ring(h100, 0.95 * s, 8, CollectiveProtocol::Ll);
  CollectiveCost above = collective_cost(all_reduce(1.05 * s, 8), h100);
  CHECK(above.algorithm == CollectiveAlgorithm::Nvls);
  CHECK(above.protocol == CollectiveProtocol::Simple);
  CHECK(above.channels == 16);
  CHECK(above.time_us == Approx(nvls(1.05 * s)).epsilon(1e-12));
}

TEST_CASE("NVLS only from nvls.min_ranks GPUs, and only where the fabric has it", "[collective]") {
  const ClusterSpec& h100 = cluster("dgx-h100");
  double gib = 1 << 30;
  REQUIRE(h100.collective.nvls_min_ranks.value == 5);
  CHECK(collective_cost(all_reduce(gib, 4), h100).algorithm == CollectiveAlgorithm::Ring);
  CHECK(collective_cost(all_reduce(gib, 5), h100).algorithm == CollectiveAlgorithm::Nvls);
  CHECK(collective_cost(all_reduce(gib, 8), cluster("dgx-a100")).algorithm ==
        CollectiveAlgorithm::Ring);
  ClusterSpec off = h100;
  off.collective.nvls_enabled = false;  // NCCL_NVLS_ENABLE=0
  CHECK(collective_cost(all_reduce(gib, 8), off).algorithm == CollectiveAlgorithm::Ring);
  CHECK(!collective_cost_with(all_reduce(gib, 8), off, CollectiveAlgorithm::Nvls));
}

TEST_CASE("hierarchical all-reduce = phases inside, across, inside, overlapped", "[collective]") {
  const ClusterSpec& a100 = cluster("dgx-a100");
  double s = 1 << 30;
  auto hier = collective_cost_with(all_reduce(s, 16), a100, CollectiveAlgorithm::Hierarchical);
  REQUIRE(hier);
  double rs = collective_cost(op(CollectiveKind::ReduceScatter, s, 8), a100).time_us;
  double ar = collective_cost(all_reduce(s / 8, 2, 1), a100).time_us;
  double ag = collective_cost(op(CollectiveKind::AllGather, s, 8), a100).time_us;
  double sum = rs + ar + ag, longest = std::max({rs, ar, ag});
  double overlap = a100.collective.hierarchical_overlap.value;
  CHECK(hier->time_us == Approx(sum - overlap * (sum - longest)).epsilon(1e-12));
  // One node: no hierarchy; a fabric without rails: none either.
  CHECK(!collective_cost_with(all_reduce(s, 8), a100, CollectiveAlgorithm::Hierarchical));
  ClusterSpec flat = a100;
  flat.scale_out.rail_optimized = false;
  CHECK(!collective_cost_with(all_reduce(s, 16), flat, CollectiveAlgorithm::Hierarchical));
}

TEST_CASE("multi-node ring all-reduce is bound by the node's NICs", "[collective]") {
  const ClusterSpec& a100 = cluster("dgx-a100");  // 8 x 200 Gb/s = 200 GB/s < 240 NVLink
  double s = 4.0 * (1 << 30);
  auto ring = collective_cost_with(all_reduce(s, 32), a100, CollectiveAlgorithm::Ring);
  REQUIRE(ring);
  double algbw = 8 * 200 / 8.0 / (2 * 31 / 32.0);
  CHECK(ring->algbw_GBps == Approx(algbw).epsilon(0.02));  // latency is < 2% at 4 GiB
  CHECK(ring->algbw_GBps < algbw);
}

TEST_CASE("all-to-all across nodes is bound by one NIC per GPU", "[collective]") {
  const ClusterSpec& h100 = cluster("dgx-h100");
  const CollectiveModelParams& m = h100.collective;
  double s = 1 << 30;
  CollectiveCost c = collective_cost(op(CollectiveKind::AllToAll, s, 16), h100);
  CHECK(c.algorithm == CollectiveAlgorithm::Direct);
  double nic_GBps = 400 / 8.0 * m.p2p_efficiency.value;
  double inter = s * 8 / 16;  // half of each rank's buffer goes to the other node
  CHECK(c.time_us ==
        Approx(m.p2p_base_us.value + 15 * m.p2p_peer_us.value + inter / (nic_GBps * 1e3))
            .epsilon(1e-12));
  // Inside one node the same buffer runs at NVLink speed.
  CollectiveCost one = collective_cost(op(CollectiveKind::AllToAll, s, 8), h100);
  CHECK(one.time_us == Approx(m.p2p_base_us.value + 7 * m.p2p_peer_us.value +
                              s * 7 / 8 / (370.8 * m.p2p_efficiency.value * 1e3))
                           .epsilon(1e-12));
}

TEST_CASE("send/recv: NVLink inside a node, one NIC across, a group of one costs nothing",
          "[collective]") {
  const ClusterSpec& h100 = cluster("dgx-h100");
  const CollectiveModelParams& m = h100.collective;
  double s = 64 << 20;
  double fixed_us = m.p2p_base_us.value + m.p2p_peer_us.value;
  CollectiveCost in = collective_cost(op(CollectiveKind::SendRecv, s, 2, 2), h100);
  CollectiveCost across = collective_cost(op(CollectiveKind::SendRecv, s, 2, 1), h100);
  CHECK(in.time_us == Approx(fixed_us + s / (370.8 * m.p2p_efficiency.value * 1e3)));
  CHECK(across.time_us == Approx(fixed_us + s / (50 * m.p2p_efficiency.value * 1e3)));
  CHECK(in.busbw_GBps == Approx(in.algbw_GBps));
  CollectiveCost local = collective_cost(all_reduce(s, 1), h100);
  CHECK(local.algorithm == CollectiveAlgorithm::Local);
  CHECK(local.time_us == 0);
}

TEST_CASE("busbw follows nccl-tests' factors", "[collective]") {
  const ClusterSpec& h100 = cluster("dgx-h100");
  CollectiveCost ar = collective_cost(all_reduce(1 << 28, 8), h100);
  CHECK(ar.busbw_GBps == Approx(ar.algbw_GBps * 14 / 8.0));
  CHECK(ar.algbw_GBps == Approx((1 << 28) / (ar.time_us * 1e3)));
  CollectiveCost ag = collective_cost(op(CollectiveKind::AllGather, 1 << 28, 8), h100);
  CHECK(ag.busbw_GBps == Approx(ag.algbw_GBps * 7 / 8.0));
}

TEST_CASE("a PCIe box: NVLink inside a bridged pair, PCIe beyond it", "[collective]") {
  const ClusterSpec& box = cluster("h100-pcie-8");
  double s = 1 << 30;
  CollectiveCost pair = collective_cost(all_reduce(s, 2), box);
  CollectiveCost all = collective_cost(all_reduce(s, 8), box);
  CHECK(pair.busbw_GBps == Approx(4 * 30).epsilon(0.01));  // the bridge's 4 channels x 30
  CHECK(all.busbw_GBps == Approx(48).epsilon(0.01));       // PCIe Gen5 x16 as NCCL counts it
}

TEST_CASE("the presets carry fitted parameters, NCCL's constants stay the defaults",
          "[collective]") {
  ClusterSpec fitted = load_cluster("dgx-h100");
  CHECK(fitted.collective.efficiency[2].source.kind == SourceKind::Fitted);
  CHECK(cluster("dgx-h100").collective.efficiency[2].source.kind == SourceKind::Assumed);
  CHECK(cluster("dgx-h100").collective.efficiency[2].value == 1);
}

TEST_CASE("a collective node in a graph costs what the collective model says, as comm",
          "[collective]") {
  const ClusterSpec& h100 = cluster("dgx-h100");
  GraphSection s(SectionKind::DecoderBlock, "block", 1, 0);
  OpVertex mm = add_kernel(s, KernelRole{}, "o_proj", test::gemm(4096, 4096, 4096), {});
  Op ar{"tp_all_reduce", all_reduce(4096.0 * 4096 * 2, 8), false};
  OpVertex v = add_kernel(s, KernelRole{}, "tp_all_reduce", ar, {mm});
  s.dag()[v].stream = Stream::Comm;
  GemmMemo memo;
  std::vector<OpCost> costs = cost_section(s, test::h100(), memo, &h100);
  CHECK(costs[v].bottleneck == Bottleneck::Comm);
  CHECK(costs[v].time_us == collective_cost(all_reduce(4096.0 * 4096 * 2, 8), h100).time_us);
  CHECK(costs[v].bytes.hbm == 0);
  CHECK(costs[mm].bottleneck == Bottleneck::Compute);
  GemmMemo memo2;
  test::require_input_error([&] { cost_section(s, test::h100(), memo2); },
                            {"tp_all_reduce: a collective needs a cluster"});
}

TEST_CASE("docs/collectives.md names every key a cluster file may hold", "[collective][docs]") {
  std::ifstream in(std::string(RIDGELINE_SOURCE_DIR) + "/docs/collectives.md");
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& j) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "value" || it.key() == "source") continue;
      INFO("key " << it.key());
      CHECK(doc.find("`" + it.key() + "`") != std::string::npos);
      if (it->is_object()) walk(*it);
    }
  };
  nlohmann::json cluster = cluster_document("dgx-h100");
  cluster["collective_model"] =
      nlohmann::json::parse(embedded_text("hardware/collectives/hopper.json"))["collective_model"];
  walk(cluster);
}

TEST_CASE("time class comm: collectives count there, and views show it only when it holds time",
          "[collective]") {
  CHECK(time_class_of(Bottleneck::Comm) == kCommClass);
  CHECK(time_class_of(Bottleneck::Latency) == (int)Bottleneck::Latency);
  CHECK(std::string(time_class_name(kCommClass)) == "comm");
  CHECK(std::string(time_class_name(kLaunchClass)) == "launch");
  std::array<double, kTimeClasses> single_gpu{1, 2, 3, 4, 5, 6, 0};
  CHECK(!time_class_shown(single_gpu, kCommClass));
  CHECK(time_class_shown(single_gpu, kLaunchClass));
  single_gpu[kCommClass] = 7;
  CHECK(time_class_shown(single_gpu, kCommClass));
}
