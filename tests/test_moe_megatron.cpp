// Rules of the MoE kernel sets: megatron_te (Megatron-Core's MoE layer with Transformer Engine,
// workloads/moe_megatron.cpp) launches its twelve kernels a layer, four more with expert
// parallelism over several local experts, grouped GEMMs over the active experts, and TE's backward
// kernels in training; the published training rows run with NeMo or Megatron get it, a JAX row
// does not. hf_grouped_mm's sentinel masked_fill (a [rows, 1] mask broadcast over the rows) runs
// ATen's non-vectorized path, as the H200 profile of a fit record measured it, and its
// out-of-place form clones every row first.
#include "model/prediction.h"
#include "test_helpers.h"
#include "validate/training_runs.h"
#include "workloads/graph_builder.h"
#include "workloads/moe_routing.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <iterator>

using namespace ridgeline;

namespace {

RunConfig megatron_run(Phase phase, int64_t seq, int64_t expert_ranks = 1) {
  RunConfig r;
  r.phase = phase;
  r.seq = seq;
  r.blocks = 1;
  r.expert_ranks = expert_ranks;
  r.runtime.block.moe = MoeImpl::MegatronTe;
  r.runtime.learned_positions.moe = MoeImpl::MegatronTe;
  return r;
}

// The kernels of the first section from the router to the MoE MLP's last kernel, in launch order.
std::vector<std::string> moe_kernels(const GraphSection& s) {
  std::vector<std::string> names;
  bool in = false;
  for (OpVertex v : launch_order(s)) {
    const GraphNode& n = s.dag()[v];
    if (n.role.kind == RoleKind::WeightGemm && n.role.projection == Projection::Router) in = true;
    if (in && n.role.pass == Pass::Forward) names.push_back(n.name);
    if (n.name == "unpermute") break;
  }
  return names;
}

const GraphNode* find(const OpGraph& g, const std::string& name) {
  for (const auto& s : g.sections)
    for (OpVertex v : launch_order(s))
      if (s.dag()[v].name == name) return &s.dag()[v];
  return nullptr;
}

const std::vector<std::string> kMegatronLayer = {"router",
                                                 "router_topk_softmax",
                                                 "router_aux_scores",
                                                 "router_tokens_per_expert",
                                                 "router_aux_loss",
                                                 "permute_row_id_map_1",
                                                 "permute_row_id_map_2",
                                                 "permute",
                                                 "experts.linear_fc1",
                                                 "experts.swiglu",
                                                 "experts.linear_fc2",
                                                 "unpermute"};

// One Qwen3-30B-A3B layer's prefill of `seq` tokens under transformers' code.
OpGraph hf_qwen3_moe_prefill(int64_t seq) {
  RunConfig r;
  r.phase = Phase::Prefill;
  r.seq = seq;
  r.blocks = 1;
  r.runtime = load_runtime("hf-transformers");
  return build_graph(load_model("qwen3-30b-a3b"), r);
}

}  // namespace

TEST_CASE("megatron_te: twelve kernels a MoE layer, router to weighted unpermute", "[moe]") {
  ModelConfig m = load_model("mixtral-8x7b");
  OpGraph g = build_graph(m, megatron_run(Phase::Prefill, 1024));
  CHECK(moe_kernels(g.sections[0]) == kMegatronLayer);
  // None of transformers' kernels (sort, histogram, sentinel masks) run.
  CHECK(find(g, "experts.sentinel_fill") == nullptr);
  CHECK(find(g, "experts.ids_sort") == nullptr);
  // The same twelve whatever the experts.
  ModelConfig wide = m;
  wide.moe.experts = 128;
  wide.moe.top_k = 8;
  CHECK(moe_kernels(build_graph(wide, megatron_run(Phase::Prefill, 1024)).sections[0]) ==
        kMegatronLayer);
}

TEST_CASE("megatron_te: the chunk sort runs with expert parallelism over several local experts",
          "[moe]") {
  ModelConfig m = load_model("mixtral-8x7b");  // 8 experts
  // ep 2: four local experts a rank, their received chunks sorted and unsorted (16 kernels).
  std::vector<std::string> sorted =
      moe_kernels(build_graph(m, megatron_run(Phase::Prefill, 1024, 2)).sections[0]);
  std::vector<std::string> expected = kMegatronLayer;
  expected.insert(expected.begin() + 8, {"sort_chunks_map", "sort_chunks"});
  expected.insert(expected.end() - 1, {"unsort_chunks_map", "unsort_chunks"});
  CHECK(sorted == expected);
  // ep 8: one local expert a rank, nothing to sort (12 kernels).
  CHECK(moe_kernels(build_graph(m, megatron_run(Phase::Prefill, 1024, 8)).sections[0]) ==
        kMegatronLayer);
}

TEST_CASE("megatron_te: fc1 and fc2 are grouped GEMMs over the active experts", "[moe]") {
  ModelConfig m = load_model("mixtral-8x7b");
  const int64_t T = 1024;
  OpGraph g = build_graph(m, megatron_run(Phase::Prefill, T));
  ExpertLoad load = expert_load(m.moe.experts, m.moe.top_k, T, 1.0);
  const GemmOp& fc1 = std::get<GemmOp>(find(g, "experts.linear_fc1")->op.shape);
  const GemmOp& fc2 = std::get<GemmOp>(find(g, "experts.linear_fc2")->op.shape);
  CHECK(fc1.groups == Approx(load.active));
  CHECK(fc2.groups == Approx(load.active));
  CHECK(fc1.m == (int64_t)std::ceil(load.tokens_per_active));  // 256 rows each of 8 experts
  CHECK(fc1.n == 2 * m.moe.expert_intermediate);
  CHECK(fc1.k == m.hidden);
  CHECK(fc2.n == m.hidden);
  CHECK(fc2.k == m.moe.expert_intermediate);
  // The permute moves every token's k rows; the unpermute sums them back (k/2 adds a token).
  const auto& permute = std::get<ElementwiseOp>(find(g, "permute")->op.shape);
  const auto& unpermute = std::get<ElementwiseOp>(find(g, "unpermute")->op.shape);
  CHECK(permute.numel == T * m.moe.top_k * m.hidden);
  CHECK(unpermute.numel == T * m.moe.top_k * m.hidden / 2);
  CHECK(!permute.strided);
}

TEST_CASE("megatron_te: training runs TE's backward kernel of each MoE part", "[moe][training]") {
  ModelConfig m = load_model("mixtral-8x7b");
  OpGraph g = build_graph(m, megatron_run(Phase::Train, 1024, 2));
  const int64_t P = 1024 * m.moe.top_k;
  // permute's backward: the k rows summed back to their token (unpermute_with_mask_map).
  const GraphNode* pb = find(g, "permute.backward");
  REQUIRE(pb);
  CHECK(pb->role ==
        role::backward(role::moe(RoleKind::MoeDispatch, MoePart::Permute), GradKind::Input));
  CHECK(std::get<ElementwiseOp>(pb->op.shape).numel == P * m.hidden / 2);
  // The weighted unpermute's: the k rows' gradient (and the probs') in one kernel.
  const GraphNode* ub = find(g, "unpermute.backward");
  REQUIRE(ub);
  CHECK(std::get<ElementwiseOp>(ub->op.shape).numel == P * m.hidden);
  CHECK(find(g, "sort_chunks.backward"));
  CHECK(find(g, "unsort_chunks.backward"));
  CHECK(find(g, "router_aux_loss.backward"));
  CHECK(find(g, "router_topk_softmax.backward"));
  CHECK(find(g, "experts.swiglu.backward"));
  CHECK(find(g, "experts.linear_fc1.wgrad"));
  // Index kernels have no backward.
  CHECK(find(g, "permute_row_id_map_1.backward") == nullptr);
  CHECK(find(g, "router_tokens_per_expert.backward") == nullptr);
}

TEST_CASE("runtimes: moe impl megatron_te is a runtime file's choice", "[moe][runtimes]") {
  std::ifstream in(RIDGELINE_SOURCE_DIR "/workloads/runtimes/fused.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto with_moe = [&](const std::string& impl) {
    std::string t = text;
    size_t at = t.find("\"fused_moe\"");
    REQUIRE(at != std::string::npos);
    return t.replace(at, std::string("\"fused_moe\"").size(), "\"" + impl + "\"");
  };
  CHECK(load_runtime_text(with_moe("megatron_te"), "m.json").block.moe == MoeImpl::MegatronTe);
  test::require_input_error([&] { load_runtime_text(with_moe("megatron"), "m.json"); },
                            {"m.json", "/moe/impl", "megatron_te"});
}

TEST_CASE("training runs: a NeMo or Megatron MoE row runs megatron_te, a JAX row does not",
          "[moe][training][validate]") {
  auto doc = [](const std::string& framework, const std::string& model) {
    nlohmann::json d = nlohmann::json::parse(R"({
      "models": {"mixtral_8x7b": {"arch": "moe", "layers": 32, "hidden": 4096, "heads": 32,
                                  "kv_heads": 8, "ffn": 14336, "vocab": 32000, "experts": 8,
                                  "topk": 2, "head_dim": 128},
                 "llama3_8b": {"arch": "llama", "layers": 32, "hidden": 4096, "heads": 32,
                               "kv_heads": 8, "ffn": 14336, "vocab": 128256, "head_dim": 128}},
      "rows": [{"id": "x#1", "source_id": "x", "seq_len": 4096, "gpu": "H100-SXM5-80GB",
                "num_gpus": 8, "tp": 1, "pp": 1, "dp": 8, "cp": 1, "ep": 8, "micro_batch": 1,
                "global_batch": 128, "precision": "bf16", "completeness": "complete",
                "measured": {"iter_time_s": 1}}]})");
    d["rows"][0]["framework"] = framework;
    d["rows"][0]["model"] = model;
    return parse_training_runs(d, "t.json");
  };
  for (const char* fw : {"NeMo 2.0", "NeMo (launcher)", "NeMo Megatron-Bridge (Megatron-Core)"}) {
    TrainingRunSet s = doc(fw, "mixtral_8x7b");
    REQUIRE(s.cases.size() == 1);
    CHECK(s.cases[0].run.runtime.choices_for(s.cases[0].model).moe == MoeImpl::MegatronTe);
  }
  TrainingRunSet jax = doc("MaxText (JAX)", "mixtral_8x7b");
  REQUIRE(jax.cases.size() == 1);
  CHECK(jax.cases[0].run.runtime.block.moe == MoeImpl::HfGroupedMm);
  // A dense model keeps the runtime as it is, whatever the framework.
  TrainingRunSet dense = doc("NeMo 2.0", "llama3_8b");
  REQUIRE(dense.cases.size() == 1);
  CHECK(dense.cases[0].run.runtime.block.moe == MoeImpl::HfGroupedMm);
}

TEST_CASE("hf_grouped_mm: the sentinel masked_fill runs ATen's non-vectorized path", "[moe]") {
  // Qwen3-30B-A3B, one layer, 4096 tokens: 32768 token-expert pairs; the three masks fill the
  // rows (P x 2048), gate_up (P x 1536) and down (P x 2048). The fit record
  // hf-qwen3-30b-a3b-L4-prefill-b1-s4096-dynamic-eager (validate/data/h200-sxm-families-
  // 2026-12-02.json) measured 12 masked_fill kernels in 2011.9 us over its 4 layers: 503 us a
  // layer. Priced on the strided path the three come within 25% of it; priced vectorized they
  // would not (an HBM-bound fill is 2-3x faster than what ran).
  ModelConfig m = load_model("qwen3-30b-a3b");
  OpGraph g = hf_qwen3_moe_prefill(4096);
  const GpuSpec h200 = load_gpu("h200-sxm");
  const int64_t P = 4096 * m.moe.top_k;
  double strided_us = 0, vectorized_us = 0;
  for (const char* name : {"experts.sentinel_fill", "experts.gate_up_mask", "experts.down_mask"}) {
    const GraphNode* n = find(g, name);
    REQUIRE(n);
    const auto& x = std::get<ElementwiseOp>(n->op.shape);
    CHECK(x.strided);
    strided_us += predict_op(n->op, h200).time_us;
    Op plain = n->op;
    std::get<ElementwiseOp>(plain.shape).strided = false;
    vectorized_us += predict_op(plain, h200).time_us;
  }
  const double measured_us = 2011.9 / 4;
  CHECK(std::abs(strided_us / measured_us - 1) < 0.25);
  CHECK(std::abs(vectorized_us / measured_us - 1) > 0.25);
  // The out-of-place masked_fill clones every row first (the profile's Memcpy DtoD), unstrided.
  const auto& gate_up_copy =
      std::get<ElementwiseOp>(find(g, "experts.gate_up_mask_copy")->op.shape);
  const auto& down_copy = std::get<ElementwiseOp>(find(g, "experts.down_mask_copy")->op.shape);
  CHECK(gate_up_copy.numel == P * 2 * m.moe.expert_intermediate);
  CHECK(down_copy.numel == P * m.hidden);
  CHECK(!gate_up_copy.strided);
  CHECK(!down_copy.strided);
}

TEST_CASE("hf experts: silu, the gate multiply and the weight scale take ATen's generic path",
          "[moe]") {
  // hf-qwen3-30b-a3b-L4-prefill-b1-s2048-dynamic-eager (fit split, validate/data/h200-sxm-
  // families-2026-12-01.json) ran the experts' silu as elementwise_kernel<128, 4> (4 calls,
  // 36.3 us each): gate is a chunk of the grouped GEMM's rows of 2I, a 2-dim view. Priced on
  // that path it comes within 25%; priced vectorized it would not.
  OpGraph g = hf_qwen3_moe_prefill(2048);
  const GpuSpec h200 = load_gpu("h200-sxm");
  for (const char* name : {"experts.silu", "experts.mul", "experts.scale"}) {
    const GraphNode* n = find(g, name);
    REQUIRE(n);
    INFO(name);
    CHECK(std::get<ElementwiseOp>(n->op.shape).strided);
    CHECK(std::get<ElementwiseOp>(n->op.shape).view_dims == 2);
  }
  const GraphNode* silu = find(g, "experts.silu");
  Op plain = silu->op;
  std::get<ElementwiseOp>(plain.shape).strided = false;
  CHECK(std::abs(predict_op(silu->op, h200).time_us / 36.3 - 1) < 0.25);
  CHECK(std::abs(predict_op(plain, h200).time_us / 36.3 - 1) > 0.25);
}

TEST_CASE("fused_moe and megatron_te: no strided kernel in the MoE layer", "[moe]") {
  ModelConfig m = load_model("qwen3-30b-a3b");
  RunConfig fused;
  fused.phase = Phase::Prefill;
  fused.seq = 1024;
  fused.blocks = 1;
  fused.runtime = load_runtime("fused");
  for (const RunConfig& r : {fused, megatron_run(Phase::Prefill, 1024)}) {
    OpGraph g = build_graph(m, r);
    for (OpVertex v : launch_order(g.sections[0])) {
      const GraphNode& n = g.sections[0].dag()[v];
      bool moe = n.role.kind == RoleKind::MoeRouting || n.role.kind == RoleKind::MoeDispatch ||
                 n.role.kind == RoleKind::MoeCombine;
      if (auto* x = std::get_if<ElementwiseOp>(&n.op.shape); x && moe) {
        INFO(n.name);
        CHECK(!x->strided);
      }
    }
  }
}
