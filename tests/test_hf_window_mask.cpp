// transformers' window masks (workloads/hf_kernels.cpp, hf_window_mask_span) and the host cost
// of an MoE routing kernel (model/host_cost.cpp, op_us.moe): outside a decode a sliding layer's
// attention spans every key under an explicit mask once the keys reach the window (below it
// transformers passes is_causal and no mask), with K/V repeated to every head, SDPA's where and
// the masked (additive_mask) kernel; a decode keeps its windowed cache.
#include "families_fixture.h"
#include "model/host_cost.h"
#include "model/prediction.h"
#include "workloads/builder_ops.h"

#include <catch2/catch.hpp>

using namespace ridgeline;
using namespace ridgeline::test::families;

namespace {

// The attention op of the first section named `section`.
AttentionOp attention_of(const OpGraph& g, const std::string& section) {
  for (const auto& s : g.sections) {
    if (s.name != section) continue;
    for (auto v : boost::make_iterator_range(boost::vertices(s.dag())))
      if (const auto* a = std::get_if<AttentionOp>(&s.dag()[v].op.shape)) return *a;
  }
  FAIL("no attention in " << section);
  return {};
}

}  // namespace

TEST_CASE("window mask: built once the keys reach the window, not below", "[workloads][hf]") {
  ModelConfig layer = load_model("gemma-3-27b");  // window 1024
  layer.layer_kinds.clear();
  layer.sliding_window = 1024;
  RunConfig hf = prefill(1, 1023, "hf-transformers");
  CHECK(hf_window_mask_span(layer, hf, 1023, 1023) == 0);     // fewer keys than the window: causal
  CHECK(hf_window_mask_span(layer, hf, 1024, 1024) == 1024);  // as many: the mask
  CHECK(hf_window_mask_span(layer, hf, 4096, 4096) == 4096);  // every key, not the window
  // A chunk over a cached prefix: the cache kept window - 1 of the prefix's keys.
  CHECK(hf_window_mask_span(layer, hf, 512, 512 + 8192) == 1023 + 512);
  CHECK(hf_window_mask_span(layer, hf, 512, 512 + 100) == 0);  // 612 keys, under the window
  RunConfig dec = decode(1, 4096, "hf-transformers");
  CHECK(hf_window_mask_span(layer, dec, 1, 1024) == 0);  // a decode reads its windowed cache
  CHECK(hf_window_mask_span(layer, prefill(1, 4096, "pytorch-eager"), 4096, 4096) == 0);
  layer.sliding_window = 0;
  CHECK(hf_window_mask_span(layer, hf, 4096, 4096) == 0);  // a full layer
}

TEST_CASE("window mask: a sliding layer's prefill under transformers", "[workloads][hf]") {
  ModelConfig g3 = load_model("gemma-3-27b");
  g3.layers = 6;
  g3.layer_kinds.resize(6);
  OpGraph long_prompt = build_graph(g3, prefill(1, 4096, "hf-transformers"));
  AttentionOp s = attention_of(long_prompt, "decoder_block.sliding");
  CHECK(s.kv_len == 4096);
  CHECK_FALSE(s.causal);
  CHECK(s.additive_mask);
  CHECK(s.kv_heads == s.heads);  // repeat_kv: no GQA path with a mask
  AttentionOp f = attention_of(long_prompt, "decoder_block.full");
  CHECK(f.causal);
  CHECK_FALSE(f.additive_mask);
  CHECK(f.kv_heads == g3.kv_heads);
  CHECK(count_named(long_prompt, "window_mask_where") == 1);  // the sliding section (5 layers)
  CHECK(count_named(long_prompt, "window_mask_and") == 1);    // built once a forward
  // Below the window: is_causal over the prompt, no mask kernels.
  OpGraph short_prompt = build_graph(g3, prefill(1, 1000, "hf-transformers"));
  AttentionOp c = attention_of(short_prompt, "decoder_block.sliding");
  CHECK(c.causal);
  CHECK(c.kv_len == 1000);
  CHECK(count_named(short_prompt, "window_mask") == 0);
  // Plain PyTorch code (pytorch-eager) keeps the windowed causal attention.
  AttentionOp p =
      attention_of(build_graph(g3, prefill(1, 4096, "pytorch-eager")), "decoder_block.sliding");
  CHECK(p.kv_len == 1024);
  CHECK_FALSE(p.additive_mask);
  // A sliding layer costs more than the full one once masked: every key, the bias tile.
  Prediction pr =
      predict_workload(long_prompt, g3, prefill(1, 4096, "hf-transformers"), test::h100());
  double sliding_us = 0, full_us = 0;
  for (const auto& sec : pr.sections)
    for (const auto& k : sec.kernels)
      if (k.name == "attention")
        (sec.name == "decoder_block.full" ? full_us : sliding_us) = k.device_us;
  CHECK(sliding_us > 1.5 * full_us);
}

TEST_CASE("window mask: gpt-oss's eager attention spans every key in a prefill",
          "[workloads][hf]") {
  ModelConfig oss = load_model("gpt-oss-20b");  // window 128
  oss.layers = 2;
  oss.layer_kinds.resize(2);
  OpGraph g = build_graph(oss, prefill(1, 1024, "hf-transformers"));
  for (const auto& sec : g.sections)
    for (auto v : boost::make_iterator_range(boost::vertices(sec.dag()))) {
      const GraphNode& n = sec.dag()[v];
      if (n.name != "attn.qk_matmul") continue;
      CHECK(std::get<GemmOp>(n.op.shape).n == 1024);  // sliding and full: scores over 1024 keys
    }
  CHECK(count_named(g, "window_mask_where") == 0);  // eager attention adds the mask itself
}

TEST_CASE("host: MoE routing, dispatch and combine kernels take op_us.moe", "[model][host]") {
  ModelConfig q = load_model("qwen3-30b-a3b");
  RunConfig r = decode(4, 1024, "hf-transformers");
  OpGraph g = build_graph(q, r);
  int moe = 0, gemms = 0;
  for (const auto& sec : g.sections)
    for (auto v : boost::make_iterator_range(boost::vertices(sec.dag()))) {
      const GraphNode& n = sec.dag()[v];
      HostOpKind k = host_op_kind(n);
      bool routing = n.role.kind == RoleKind::MoeRouting || n.role.kind == RoleKind::MoeDispatch ||
                     n.role.kind == RoleKind::MoeCombine;
      CHECK((k == HostOpKind::Moe) == routing);
      moe += k == HostOpKind::Moe ? (int)sec.repeat : 0;
      if (n.name == "experts.gate_up_proj") CHECK(k == HostOpKind::Gemm);  // a grouped GEMM
      gemms += k == HostOpKind::Gemm;
    }
  CHECK(moe > 0);
  CHECK(gemms > 0);
  // The step's host time grows by op_us.moe for each of them.
  r.launch = LaunchMode::Eager;
  RunConfig more = r;
  more.runtime.host_us.moe_us += 10;
  auto total = [&](const RunConfig& run) {
    return predict_workload(build_graph(q, run), q, run, test::h100()).total_us;
  };
  CHECK(total(more) - total(r) == Approx(10.0 * moe).epsilon(0.02));  // a host-bound step
}
