// Issue 14's families (qwen3, qwen3_moe, qwen2_moe, gemma2, gemma3_text, llama4_text, gpt_oss,
// phi3, olmo2): presets with their published parameter counts, what each import reads into the
// ModelConfig and the structures the graph builder emits for them (their error messages:
// test_families_errors.cpp).
#include "families_fixture.h"
#include "model/cost_models.h"
#include "model/prediction.h"
#include "test_helpers.h"
#include "workloads/graph_builder.h"
#include "workloads/model_config.h"
#include "workloads/op_math.h"
#include "workloads/runtime_profile.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>

using namespace ridgeline;
using namespace ridgeline::test::families;

// Published figures. Qwen3 model cards (huggingface.co/Qwen/*): Qwen3-32B 32.8B; Qwen3-30B-A3B
// 30.5B total, 3.3B activated; Qwen3-235B-A22B 235B, 22B activated (whole billions: checked to
// round to them). Gemma 3 report (arXiv 2503.19786, Table 1): 27B = 1,416M embedding + 25,600M
// non-embedding (the 417M vision encoder apart). Gemma 2 report (arXiv 2408.00118, Table 2):
// 27B = 1,180,237,824 embedding + 26,047,480,320 non-embedding. gpt-oss model card (arXiv
// 2508.10925, Table 1): 120b 116.83B total, 5.13B active; 20b 20.91B, 3.61B (active counts the
// unembedding, not the embedding table). Llama 4 (ai.meta.com/blog/llama-4-multimodal-
// intelligence): Scout 109B total, Maverick 400B, both 17B active (whole billions, vision encoder
// included). Phi-3 report (arXiv 2404.14219): medium 14B. OLMo 2 report (arXiv 2501.00656): 7B
// is 7.30B.
TEST_CASE("families: presets match their published parameter counts", "[model][families]") {
  auto total = [](const std::string& n) { return (double)parameter_count(load_model(n)); };
  auto active = [](const std::string& n) { return (double)active_parameter_count(load_model(n)); };
  near(total("qwen3-32b"), 32.8e9, 0.005);
  near(total("qwen3-30b-a3b"), 30.5e9, 0.005);
  near(active("qwen3-30b-a3b"), 3.3e9, 0.05);  // "3.3B": a tenth of a billion, 1.5% a side
  CHECK(std::round(total("qwen3-235b-a22b") / 1e9) == 235);
  CHECK(std::round(active("qwen3-235b-a22b") / 1e9) == 22);
  ModelConfig g3 = load_model("gemma-3-27b");
  near((double)(parameter_count(g3) - g3.vocab * g3.hidden), 25600e6, 0.005);
  near(total("gemma-3-27b"), 27016e6, 0.005);
  ModelConfig g2 = load_model("gemma-2-27b");
  near((double)(parameter_count(g2) - g2.vocab * g2.hidden), 26047480320.0, 0.005);
  near(total("gemma-2-27b"), 1180237824.0 + 26047480320.0, 0.005);
  for (auto [name, t, a] :
       {std::tuple{"gpt-oss-120b", 116.83e9, 5.13e9}, std::tuple{"gpt-oss-20b", 20.91e9, 3.61e9}}) {
    ModelConfig m = load_model(name);
    near(total(name), t, 0.005);
    near(active(name) - (double)m.vocab * m.hidden, a, 0.005);
  }
  CHECK(std::round(total("llama-4-maverick") / 1e9) == 401);  // 400B published, text only here
  near(total("llama-4-maverick"), 400e9, 0.005);
  CHECK(std::round(active("llama-4-maverick") / 1e9) == 17);
  CHECK(std::round(active("llama-4-scout") / 1e9) == 17);
  // Scout's 109B includes the vision encoder (~0.9B), which ridgeline leaves out: 1.2% under.
  near(total("llama-4-scout"), 109e9, 0.015);
  near(total("phi-3-medium"), 14e9, 0.005);
  near(total("olmo-2-7b"), 7.30e9, 0.005);
}

TEST_CASE("families: each import reads its structure", "[model][families]") {
  ModelConfig q = load_model("qwen3-32b");
  CHECK(q.qk_norm == QkNorm::PerHead);
  CHECK(q.head_dim == 128);
  ModelConfig g = load_model("gemma-3-27b");
  REQUIRE(g.layer_kinds.size() == 62);
  CHECK(g.layer_kinds[4].window == 1024);
  CHECK(g.layer_kinds[5].window == 0);  // every sixth layer is global
  CHECK(g.norm_placement == NormPlacement::PreAndPost);
  CHECK(g.mlp == MlpKind::GatedGelu);
  CHECK(g.tied_embeddings);
  ModelConfig g2 = load_model("gemma-2-27b");
  CHECK(g2.attn_softcap == 50);
  CHECK(g2.final_softcap == 30);
  CHECK(g2.layer_kinds[0].window == 4096);
  CHECK(g2.layer_kinds[1].window == 0);
  ModelConfig o = load_model("gpt-oss-20b");
  CHECK(o.attention_sinks);
  CHECK(o.moe.mxfp4_experts);
  CHECK(o.moe.expert_bias);
  CHECK(o.layer_kinds[0].window == 128);
  CHECK(o.layer_kinds[1].window == 0);
  ModelConfig mav = load_model("llama-4-maverick");
  CHECK(!mav.layer_kinds[0].moe);
  CHECK(mav.layer_kinds[1].moe);
  CHECK(mav.layer_kinds[3].rope == false);  // every fourth layer: NoPE, full attention
  CHECK(mav.layer_kinds[3].window == 0);
  CHECK(mav.layer_kinds[0].window == 8192);  // chunked
  CHECK(mav.moe.shared_intermediate == 8192);
  CHECK(load_model("olmo-2-7b").norm_placement == NormPlacement::Post);
  CHECK(load_model("olmo-2-7b").qk_norm == QkNorm::AllHeads);
  ModelConfig phi = load_model("phi-3-medium");
  CHECK(phi.fused_qkv_weight);
  CHECK(phi.fused_gate_up_weight);
  CHECK(phi.sliding_window == 2047);
}

TEST_CASE("families: qwen2_moe's shared expert with its gate", "[model][families]") {
  nlohmann::json j = {{"model_type", "qwen2_moe"},
                      {"hidden_size", 2048},
                      {"num_hidden_layers", 4},
                      {"num_attention_heads", 16},
                      {"num_key_value_heads", 16},
                      {"intermediate_size", 5632},
                      {"moe_intermediate_size", 1408},
                      {"shared_expert_intermediate_size", 5632},
                      {"num_experts", 60},
                      {"num_experts_per_tok", 4},
                      {"vocab_size", 151936},
                      {"max_position_embeddings", 8192},
                      {"hidden_act", "silu"},
                      {"mlp_only_layers", {1}}};
  ModelConfig m = load(j);
  CHECK(m.moe.shared_intermediate == 5632);
  CHECK(m.moe.shared_gate);
  CHECK(!m.moe.norm_topk);  // Qwen2MoeConfig's default
  REQUIRE(m.layer_kinds.size() == 4);
  CHECK(!m.layer_kinds[1].moe);
  OpGraph gr = build_graph(m, decode(1, 128));
  CHECK(count_named(gr, "shared_expert_gate") == 2);  // the gate GEMM and its sigmoid, per kind
  CHECK(count_named(gr, "router_weight_div") == 0);
  // Shared expert in the counts: 3 SwiGLU matrices and the gate's row, per MoE layer.
  j.erase("shared_expert_intermediate_size");
  j["shared_expert_intermediate_size"] = 1;
  int64_t small = parameter_count(load(j));
  CHECK(parameter_count(m) - small == 3 * (3 * 2048 * (5632 - 1)));
  // transformers 5 writes layer_types (all full attention without a window): read, checked.
  j["layer_types"] = std::vector<std::string>(4, "full_attention");
  CHECK(parameter_count(load(j)) == small);
  j["layer_types"][2] = "sliding_attention";
  expect_error(j, {"test.json: /layer_types/2: expected one of \"full_attention\""});
  j.erase("layer_types");
  CHECK(load(j).qkv_bias);  // Qwen2MoeAttention's biases, also when written as qkv_bias
  j["qkv_bias"] = false;
  CHECK(!load(j).qkv_bias);
  CHECK(parameter_count(load(j)) < small);
}

TEST_CASE("families: graph structures (QK-norm, caps, sinks, windows)", "[workloads][families]") {
  RunConfig r = decode(1, 4096, "hf-transformers");
  OpGraph q = build_graph(load_model("qwen3-32b"), r);
  CHECK(count_named(q, "q_norm") > 0);
  CHECK(count_named(q, "k_norm") > 0);
  ModelConfig g2 = load_model("gemma-2-27b");
  // transformers' sdpa_attention_forward drops the cap: SDPA, uncapped; plain PyTorch code
  // (pytorch-eager) caps the scores in eager attention, one per layer kind (sliding, full).
  OpGraph hf = build_graph(g2, r);
  CHECK(count_named(hf, "attn_softcap_tanh") == 0);
  CHECK(count_named(hf, "logits_softcap_tanh") == 1);
  CHECK(count_named(build_graph(g2, decode(1, 4096)), "attn_softcap_tanh") == 2);
  CHECK(count_named(hf, "post_mlp_norm") > 0);
  OpGraph fused = build_graph(g2, decode(1, 4096, "fused"));  // FlashAttention caps inside
  CHECK(count_named(fused, "attn_softcap") == 0);
  OpGraph oss = build_graph(load_model("gpt-oss-20b"), r);
  CHECK(count_named(oss, "attn.sinks_cat") == 2);
  for (const auto& sec : oss.sections)  // P is probs[..., :-1]: rows of kv_len + 1
    for (auto v : boost::make_iterator_range(boost::vertices(sec.dag()))) {
      const GraphNode& n = sec.dag()[v];
      if (n.name.find("attn.pv_matmul") == std::string::npos) continue;
      const auto& g = std::get<GemmOp>(n.op.shape);
      CHECK(g.a_row_pitch == g.k + 1);
    }
  // repeat_kv: none for an MHA model (n_rep 1 returns K and V); each cached element read once
  // for its n_rep heads under GQA (a StaticCache decode, where transformers' mask reaches SDPA).
  RunConfig st = decode(8, 1024, "hf-transformers");
  select_cache_impl(st.runtime, "static", "--kv-cache-impl");
  CHECK(count_named(build_graph(load_model("olmo-2-7b"), st), "repeat_kv") == 0);
  ModelConfig l8 = load_model("llama-3-8b");  // 32 heads over 8 KV heads
  OpGraph gqa = build_graph(l8, st);
  CHECK(count_named(gqa, "k_repeat_kv") > 0);
  for (const auto& sec : gqa.sections)
    for (auto v : boost::make_iterator_range(boost::vertices(sec.dag()))) {
      const GraphNode& n = sec.dag()[v];
      if (n.name.find("repeat_kv") == std::string::npos) continue;
      const auto& e = std::get<ElementwiseOp>(n.op.shape);
      CHECK(e.input_reuse == 4);
      CHECK(op_work(n.op).bytes_read == Approx(op_work(n.op).bytes_written / 4));
    }
  // Sliding layers hold their window: gemma-3's KV cache at 32k is far below a full cache.
  ModelConfig g3 = load_model("gemma-3-27b");
  RunConfig long_ctx = decode(1, 32768);
  double windowed =
      memory_footprint(build_graph(g3, long_ctx), g3, long_ctx, test::h100()).kv_cache_bytes;
  double full = kv_cache_bytes_per_token(g3, 2) * 32769;
  CHECK(windowed == Approx(2.0 * 2 * g3.kv_heads * g3.head_dim * (10.0 * 32769 + 52.0 * 1024)));
  CHECK(windowed < full / 4);
  // Sections by layer kind: 52 sliding, 10 full.
  OpGraph sec = build_graph(g3, long_ctx);
  std::map<std::string, int64_t> repeats;
  for (const auto& s : sec.sections) repeats[s.name] = s.repeat;
  CHECK(repeats["decoder_block.sliding"] == 52);
  CHECK(repeats["decoder_block.full"] == 10);
}

TEST_CASE("gemm: an A view with wider rows loses alignment", "[model][gemm][families]") {
  GemmOp g = std::get<GemmOp>(gemm_op(4096, 64, 4096, DType::Bf16, 64).shape);
  double aligned = gemm_cost(g, test::h100()).time_us;
  g.a_row_pitch = 4096;  // a pitch of k: the same GEMM
  CHECK(gemm_cost(g, test::h100()).time_us == aligned);
  g.a_row_pitch = 4097;  // probs[..., :-1] of gpt-oss's sinks: 2-byte rows
  CHECK(gemm_cost(g, test::h100()).time_us > aligned);
}

// transformers' Llama4TextExperts runs every expert on every token (two bmm over all 16 experts,
// the input repeated per expert); vLLM's fused MoE runs only the routed ones. The H200 profiles
// of Llama4ForCausalLM (validate/data/h200-sxm-families-2026-12-01b.json) list the bmm at the
// cost of all experts: a 2048-token prefill's gate_up is 6.2 ms a layer.
TEST_CASE("families: transformers' Llama 4 experts run every expert on every token",
          "[workloads][families]") {
  ModelConfig m = load_model("llama-4-scout");
  CHECK(m.moe.hf_dense_experts);
  RunConfig r = decode(1, 0, "hf-transformers");
  r.phase = Phase::Prefill;
  r.batch = 1;
  r.seq = 2048;
  OpGraph hf = build_graph(m, r);
  CHECK(count_named(hf, "experts.repeat") > 0);
  CHECK(count_named(hf, "experts.ids_sort") == 0);  // no sort/gather dispatch
  RunConfig f = r;
  f.runtime = load_runtime("fused");
  OpGraph fused = build_graph(m, f);
  CHECK(count_named(fused, "experts.repeat") == 0);
  // Every expert's FLOPs: the dense experts cost about E / top_k = 16 times the routed ones.
  GpuSpec gpu = load_gpu("h200-sxm");
  double hf_us = predict_workload(hf, m, r, gpu).total_us;
  double fused_us = predict_workload(fused, m, f, gpu).total_us;
  CHECK(hf_us > 2.5 * fused_us);
  // Qwen3-MoE under transformers keeps the grouped (routed) experts.
  CHECK(!load_model("qwen3-30b-a3b").moe.hf_dense_experts);
  CHECK(count_named(build_graph(load_model("qwen3-30b-a3b"), r), "experts.repeat") == 0);
}
