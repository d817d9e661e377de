// DeepSeek-V2/V3 (mla_config.h): parameter counts against the published figures, the KV cache of
// MLA, the kernels of both MLA forms and of DeepSeek's MoE layout, the family records of the H200
// data set, and one test per error message of the importer.
#include "test_helpers.h"
#include "validate/workload_dataset.h"
#include "workloads/graph_builder.h"
#include "workloads/model_config.h"
#include "workloads/op_math.h"
#include "workloads/runtime_profile.h"

#include "common/json_reader.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace ridgeline;
using test::require_input_error;

namespace {

double rel(double got, double want) {
  return std::abs(got - want) / want;
}

// The DeepSeek-V3 preset's document; tests change one key at a time.
nlohmann::json v3() {
  return read_json_file(std::string(RIDGELINE_SOURCE_DIR) + "/workloads/models/deepseek-v3.json");
}

ModelConfig load(const nlohmann::json& j) {
  return load_model_text(j.dump(), "ds.json");
}

int64_t kernels(const OpGraph& g) {
  int64_t n = 0;
  for (const auto& s : g.sections) n += s.repeat * (int64_t)boost::num_vertices(s.dag());
  return n;
}

const Op* find_op(const OpGraph& g, const std::string& name) {
  for (const auto& s : g.sections)
    for (auto v : boost::make_iterator_range(boost::vertices(s.dag())))
      if (s.dag()[v].name == name) return &s.dag()[v].op;
  return nullptr;
}

RunConfig decode(const std::string& runtime, int64_t batch, int64_t kv) {
  RunConfig run;
  run.runtime = load_runtime(runtime);
  run.phase = Phase::Decode;
  run.batch = batch;
  run.kv_len = kv;
  return run;
}

}  // namespace

TEST_CASE("DeepSeek-V3: 671B in the main model, 685B with the MTP module", "[mla]") {
  ModelConfig m = load_model("deepseek-v3");
  // arXiv:2412.19437: "671B total parameters"; the model card: 685B = 671B + 14B MTP.
  CHECK(rel((double)parameter_count(m), 671e9) < 0.005);
  CHECK(rel((double)(parameter_count(m) + mtp_parameter_count(m)), 685e9) < 0.005);
  CHECK(parameter_count(m) == 671026419200);
}

TEST_CASE("DeepSeek-V3: 37B activated per token", "[mla]") {
  ModelConfig m = load_model("deepseek-v3");
  // DeepSeek counts the activated weights without the token embedding (a row lookup): 36.63B,
  // which is the published "37B" to its two digits (the rounding interval 36.5-37.5B). ridgeline's
  // active count keeps both embeddings, as for Mixtral's 12.9B.
  double lookup = (double)m.vocab * m.hidden;
  double deepseek = (double)active_parameter_count(m) - lookup;
  CHECK(std::round(deepseek / 1e9) == 37);
  CHECK(rel(deepseek, 37e9) < 0.0135);
}

TEST_CASE("DeepSeek-V2-Lite: 15.7B parameters, q_proj without a q LoRA", "[mla]") {
  ModelConfig m = load_model("deepseek-v2-lite");
  CHECK(m.deepseek.mla.q_lora_rank == 0);
  CHECK(rel((double)parameter_count(m), 15.7e9) < 0.005);
}

TEST_CASE("MLA caches kv_lora_rank + qk_rope_head_dim per token and layer", "[mla]") {
  ModelConfig m = load_model("deepseek-v3");
  CHECK(kv_cache_bytes_per_token(m, 2) == 61.0 * 576 * 2);  // 68.6 KiB a token in bf16
  ModelConfig l = load_model("llama-3-8b");
  CHECK(kv_cache_bytes_per_token(l, 2) == 32.0 * 2 * 8 * 128 * 2);
}

TEST_CASE("DeepSeek blocks: dense first layers, then MoE layers with shared experts", "[mla]") {
  ModelConfig m = load_model("deepseek-v3");
  OpGraph g = build_graph(m, decode("hf-transformers", 1, 2048));
  REQUIRE(g.sections.size() == 4);
  CHECK(g.sections[1].name == "dense_block");
  CHECK(g.sections[1].repeat == 3);
  CHECK(g.sections[2].name == "moe_block");
  CHECK(g.sections[2].repeat == 58);
  CHECK(g.sections[2].first_layer == 3);
  CHECK(find_op(g, "shared_experts.down_proj") != nullptr);
  CHECK(find_op(g, "router_group_topk") != nullptr);  // noaux_tc: group-limited
  RunConfig two = decode("hf-transformers", 1, 2048);
  two.blocks = 2;  // within the dense layers: one section
  CHECK(build_graph(m, two).sections.size() == 1);
}

TEST_CASE("hf_expand_kv decompresses every cached token, every step", "[mla]") {
  ModelConfig m = load_model("deepseek-v3");
  OpGraph g = build_graph(m, decode("hf-transformers", 16, 2048));
  const auto& kvb = std::get<GemmOp>(find_op(g, "kv_b_proj")->shape);
  CHECK(kvb.m == 16 * 2049);
  CHECK(kvb.n == 128 * 256);
  CHECK(kvb.k == 512);
  const auto& a = std::get<AttentionOp>(find_op(g, "attention")->shape);
  CHECK(a.kv_heads == 128);
  CHECK(a.head_dim == 192);
  CHECK(a.v_head_dim == 128);
  CHECK(find_op(g, "q_absorb_uk") == nullptr);
}

// The ops of that name in the first section holding one.
std::vector<const Op*> named(const OpGraph& g, const std::string& name) {
  for (const auto& s : g.sections) {
    std::vector<const Op*> out;
    for (auto v : boost::make_iterator_range(boost::vertices(s.dag())))
      if (s.dag()[v].name == name) out.push_back(&s.dag()[v].op);
    if (!out.empty()) return out;
  }
  return {};
}

TEST_CASE("expand_kv copies k_nope and k_rot into the key, ATen splits a copy past 2^31 bytes",
          "[mla]") {
  // validate/measure/mla_copy_probe.py (transformers 5.17, H200): two copies of 4 dims, V a view;
  // at b16 kv2049 k_nope's source (kv_b's output) spans 16 x 2049 x 128 x 256 x 2 B > 2^31.
  ModelConfig m = load_model("deepseek-v3");
  OpGraph g = build_graph(m, decode("hf-transformers", 16, 2048));
  auto kn = named(g, "k_nope_copy");
  REQUIRE(kn.size() == 2);
  int64_t numel = 0;
  for (const Op* op : kn) {
    const auto& e = std::get<ElementwiseOp>(op->shape);
    CHECK(e.strided);
    CHECK(e.view_dims == 4);
    numel += e.numel;
  }
  CHECK(numel == 16LL * 2049 * 128 * 128);
  auto kr = named(g, "k_rot_copy");
  REQUIRE(kr.size() == 1);  // its largest operand, the key, spans 16 x 2049 x 128 x 192 x 2 B
  CHECK(std::get<ElementwiseOp>(kr[0]->shape).numel == 16LL * 2049 * 128 * 64);
  CHECK(find_op(g, "v_contiguous") == nullptr);
  // Just under the limit: one kernel; one sequence: the batch dim drops, 3 dims are left.
  OpGraph eight = build_graph(m, decode("hf-transformers", 8, 2048));
  CHECK(named(eight, "k_nope_copy").size() == 1);
  OpGraph single =
      build_graph(m, decode("hf-transformers", 1, 2048));  // outlives its ops' pointers
  auto one = named(single, "k_nope_copy");
  REQUIRE(one.size() == 1);
  CHECK(std::get<ElementwiseOp>(one[0]->shape).view_dims == 3);
}

TEST_CASE("absorbed MLA attends over the latent cache shared by all heads", "[mla]") {
  ModelConfig m = load_model("deepseek-v3");
  OpGraph g = build_graph(m, decode("fused", 16, 2048));
  const auto& a = std::get<AttentionOp>(find_op(g, "attention")->shape);
  CHECK(a.kv_heads == 1);
  CHECK(a.head_dim == 576);
  CHECK(a.v_head_dim == 512);
  CHECK(a.v_in_k);
  CHECK(find_op(g, "kv_b_proj") == nullptr);
  CHECK(std::get<GemmOp>(find_op(g, "q_absorb_uk")->shape).batch == 128);
  CHECK(find_op(g, "o_absorb_uv") != nullptr);
  // Attention reads each cached token's latent once: 576 bf16 values, not K and V apart.
  OpWork w = op_work(*find_op(g, "attention"));
  double cache = 16.0 * 2049 * 576 * 2;
  CHECK(w.bytes_read > cache);
  CHECK(w.bytes_read < cache * 1.1);
  // A prefill decompresses its K/V once.
  RunConfig pre;
  pre.runtime = load_runtime("fused");
  pre.seq = 512;
  CHECK(find_op(build_graph(m, pre), "kv_b_proj") != nullptr);
}

TEST_CASE("hf-transformers builds the kernels transformers' DeepseekV3 launched", "[mla]") {
  // validate/data/h200-sxm-families-2026-12-01.json, decode b1 kv2048, DynamicCache: 373 kernels
  // (Memset, Memcpy and splitKreduce left out), 4 layers (2 dense + 2 MoE).
  nlohmann::json c = v3();
  c["num_hidden_layers"] = 4;
  c["first_k_dense_replace"] = 2;
  ModelConfig m = load(c);
  int64_t n = kernels(build_graph(m, decode("hf-transformers", 1, 2048)));
  CHECK(std::abs(n - 373) <= 8);
}

TEST_CASE("the families data set's deepseek-v3 records load with their config", "[mla]") {
  WorkloadDataset d = load_workload_dataset(
      std::string(RIDGELINE_SOURCE_DIR) + "/validate/data/h200-sxm-families-2026-12-01.json",
      load_runtime("hf-transformers"));
  int n = 0, holdout = 0;
  for (const auto& r : d.records) {
    if (r.model.family != "deepseek_v3") continue;
    ++n;
    holdout += r.split == "holdout";
    CHECK(r.model.layers == 4);
    CHECK(r.model.deepseek.moe.first_dense_layers == 2);
  }
  CHECK(n == 5);  // prefill, 2 static-graph decodes, 2 cropped eager decodes
  CHECK(holdout == 1);
}

TEST_CASE("DeepSeek config errors: one per message", "[mla][errors]") {
  auto bad = [](const char* key, nlohmann::json value, std::initializer_list<std::string> parts) {
    nlohmann::json j = v3();
    j[key] = value;
    require_input_error([&] { load(j); }, parts);
  };
  bad("qk_head_dim", 200, {"ds.json", "qk_head_dim", "is not qk_nope_head_dim + qk_rope_head_dim"});
  bad("head_dim", 128, {"head_dim", "is not qk_rope_head_dim"});
  bad("num_key_value_heads", 16, {"num_key_value_heads", "is not num_attention_heads"});
  bad("num_experts_per_tok", 300, {"num_experts_per_tok", "but n_routed_experts is 256"});
  bad("n_group", 7, {"n_group", "do not divide n_routed_experts"});
  bad("topk_group", 9, {"topk_group", "is more than n_group"});
  nlohmann::json few = v3();
  few["topk_group"] = 1;
  few["num_experts_per_tok"] = 40;
  require_input_error([&] { load(few); }, {"topk_group", "hold fewer than num_experts_per_tok"});
  bad("first_k_dense_replace", 62, {"first_k_dense_replace", "is more than num_hidden_layers"});
  bad("moe_layer_freq", 2, {"moe_layer_freq", "a frequency other than 1"});
  bad("topk_method", "greedy", {"topk_method", "routes with \"noaux_tc\" only"});
  bad("scoring_func", "softmax", {"scoring_func", "scores with sigmoid"});
  bad("attention_bias", true, {"attention_bias", "not modelled for MLA"});
  bad("hidden_act", "gelu", {"hidden_act", "SwiGLU"});
  bad("rope_scaling", nlohmann::json{{"type", "linear"}, {"factor", 2}},
      {"rope_scaling/type", "unsupported RoPE scaling \"linear\""});
  nlohmann::json short_ctx = v3();
  short_ctx["rope_scaling"]["original_max_position_embeddings"] = 200000;
  require_input_error([&] { load(short_ctx); },
                      {"original_max_position_embeddings", "never shortens"});
  nlohmann::json q = v3();
  q["quantization_config"]["quant_method"] = "awq";
  require_input_error([&] { load(q); }, {"quantization_config/quant_method", "awq"});
  nlohmann::json b = v3();
  b["quantization_config"]["weight_block_size"] = {128};
  require_input_error([&] { load(b); }, {"weight_block_size", "two positive integers"});
  nlohmann::json v2 =
      read_json_file(std::string(RIDGELINE_SOURCE_DIR) + "/workloads/models/deepseek-v2-lite.json");
  v2["topk_method"] = "noaux_tc";
  require_input_error([&] { load(v2); }, {"topk_method", "\"greedy\" or \"group_limited_greedy\""});
  nlohmann::json unknown = v3();
  unknown["index_topk"] = 2048;  // DeepSeek-V3.2's sparse attention: would change the math
  require_input_error([&] { load(unknown); }, {"index_topk", "unsupported field"});
}
