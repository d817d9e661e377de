// Issue 14's families: one test per error message a family's config.json can get (head dims,
// layer-type lists, expert counts, quantisation, RoPE scaling, and parallel prediction of mixed
// layers).
#include "families_fixture.h"
#include "test_helpers.h"
#include "workloads/parallel_config.h"

using namespace ridgeline;
using namespace ridgeline::test::families;
using ridgeline::test::require_input_error;

TEST_CASE("families error: qwen3 without head_dim", "[model][errors][families]") {
  nlohmann::json j = preset("qwen3-32b");
  j.erase("head_dim");
  expect_error(j, {"test.json: /head_dim: missing; Qwen3Config's default is 128"});
}
TEST_CASE("families error: layer_types of the wrong length", "[model][errors][families]") {
  nlohmann::json j = preset("gpt-oss-20b");
  j["layer_types"].erase(0);
  expect_error(j, {"test.json: /layer_types: expected one entry per layer (num_hidden_layers 24)"});
}
TEST_CASE("families error: an unknown layer type", "[model][errors][families]") {
  nlohmann::json j = preset("gpt-oss-20b");
  j["layer_types"][3] = "chunked_attention";
  expect_error(j, {"test.json: /layer_types/3: expected one of \"sliding_attention\", "
                   "\"full_attention\", got \"chunked_attention\""});
}
TEST_CASE("families error: qwen layer_types disagree with the window",
          "[model][errors][families]") {
  nlohmann::json j = preset("qwen3-32b");
  j["layer_types"] = std::vector<std::string>(64, "full_attention");
  CHECK(load(j).sliding_window == 0);
  j["layer_types"][7] = "sliding_attention";
  expect_error(j, {"/layer_types/7: \"sliding_attention\" disagrees with use_sliding_window"});
}
TEST_CASE("families error: llama4 layer_types disagree with no_rope_layers",
          "[model][errors][families]") {
  nlohmann::json j = preset("llama-4-scout");
  std::vector<std::string> t;
  for (int i = 0; i < 48; ++i) t.push_back((i + 1) % 4 ? "chunked_attention" : "full_attention");
  j["layer_types"] = t;
  CHECK(load(j).layer_kinds.size() == 48);
  j["layer_types"][3] = "chunked_attention";
  expect_error(j, {"/layer_types/3: \"chunked_attention\" disagrees with no_rope_layers"});
}
TEST_CASE("families error: no_rope_layers of the wrong length", "[model][errors][families]") {
  nlohmann::json j = preset("llama-4-scout");
  j["no_rope_layers"] = {1, 1, 0};
  expect_error(j, {"/no_rope_layers: expected one 0 or 1 per layer (num_hidden_layers 48)"});
}
TEST_CASE("families error: gemma3 layer_types disagree with the pattern",
          "[model][errors][families]") {
  nlohmann::json j = preset("gemma-3-27b");
  std::vector<std::string> t;
  for (int i = 0; i < 62; ++i) t.push_back((i + 1) % 6 ? "sliding_attention" : "full_attention");
  j["layer_types"] = t;
  CHECK(load(j).layer_kinds.size() == 62);
  j["layer_types"][0] = "full_attention";
  expect_error(j, {"/layer_types/0: \"full_attention\" disagrees with sliding_window_pattern 6"});
}
TEST_CASE("families error: gemma3's two pattern keys disagree", "[model][errors][families]") {
  nlohmann::json j = preset("gemma-3-27b");
  j["_sliding_window_pattern"] = 6;
  CHECK_NOTHROW(load(j));
  j["_sliding_window_pattern"] = 5;
  expect_error(j, {"/_sliding_window_pattern: disagrees with sliding_window_pattern"});
}
TEST_CASE("families error: a quantization other than mxfp4", "[model][errors][families]") {
  nlohmann::json j = preset("gpt-oss-20b");
  j["quantization_config"] = {{"quant_method", "fp8"}};
  expect_error(j, {"test.json: /quantization_config/quant_method: \"fp8\" is not modelled"});
}
TEST_CASE("families error: mxfp4 that keeps the experts unquantised", "[model][errors][families]") {
  nlohmann::json j = preset("gpt-oss-20b");
  j["quantization_config"]["modules_to_not_convert"].push_back("model.layers.*.mlp.experts");
  expect_error(j, {"/quantization_config/modules_to_not_convert: keeps the experts unquantised"});
}
TEST_CASE("families error: experts_per_token disagrees", "[model][errors][families]") {
  nlohmann::json j = preset("gpt-oss-20b");
  j["experts_per_token"] = 2;
  expect_error(j, {"/experts_per_token: disagrees with num_experts_per_tok (4)"});
}
TEST_CASE("families error: gpt-oss sliding layers without a window", "[model][errors][families]") {
  nlohmann::json j = preset("gpt-oss-20b");
  j["sliding_window"] = nullptr;
  expect_error(j, {"/sliding_window: null, but layer 0 is a sliding_attention layer"});
}
TEST_CASE("families error: num_experts and num_local_experts both", "[model][errors][families]") {
  nlohmann::json j = preset("qwen3-30b-a3b");
  j["num_local_experts"] = 128;
  expect_error(j, {"/num_experts: given with num_local_experts, its newer name"});
  j.erase("num_experts");
  CHECK(load(j).moe.experts == 128);
}
TEST_CASE("families error: more experts per token than experts", "[model][errors][families]") {
  nlohmann::json j = preset("qwen3-30b-a3b");
  j["num_experts_per_tok"] = 128;
  CHECK(load(j).moe.top_k == 128);
  j["num_experts_per_tok"] = 129;
  expect_error(j, {"/num_experts_per_tok: 129 experts per token, but num_experts is 128"});
}
TEST_CASE("families error: mlp_only_layers leaving no MoE layer", "[model][errors][families]") {
  nlohmann::json j = preset("qwen3-30b-a3b");
  j["num_hidden_layers"] = 2;
  j["mlp_only_layers"] = {0};
  CHECK(load(j).layer_kinds.size() == 2);
  j["mlp_only_layers"] = {0, 1};
  expect_error(j, {"/mlp_only_layers: with decoder_sparse_step leaves no MoE layer"});
}
TEST_CASE("families error: a layer index out of range", "[model][errors][families]") {
  nlohmann::json j = preset("qwen3-30b-a3b");
  j["mlp_only_layers"] = {47};
  CHECK_NOTHROW(load(j));
  j["mlp_only_layers"] = {48};
  expect_error(j, {"/mlp_only_layers/0: expected a layer index in [0, 48), got 48"});
}
TEST_CASE("families error: windowed Qwen3-MoE", "[model][errors][families]") {
  nlohmann::json j = preset("qwen3-30b-a3b");
  j["use_sliding_window"] = true;
  expect_error(j, {"/use_sliding_window: a windowed Qwen3-MoE is not modelled"});
}
TEST_CASE("families error: long RoPE factors of the wrong length", "[model][errors][families]") {
  nlohmann::json j = preset("phi-3-medium");
  j["rope_scaling"] = {{"type", "longrope"},
                       {"short_factor", std::vector<double>(64, 1.0)},
                       {"long_factor", std::vector<double>(64, 2.0)}};
  CHECK(load(j).rope_scaling.type == "longrope");
  j["rope_scaling"]["long_factor"] = std::vector<double>(63, 2.0);
  expect_error(j, {"/rope_scaling/long_factor: expected 64 numbers (half the rotated width"});
}
TEST_CASE("families error: a RoPE scaling the family does not check", "[model][errors][families]") {
  nlohmann::json j = preset("gemma-3-27b");
  j["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 8.0}};
  expect_error(j, {"/rope_scaling/rope_type: unsupported RoPE scaling \"yarn\" (ridgeline checks "
                   "\"linear\" for gemma3_text"});
}
TEST_CASE("families error: bidirectional Gemma", "[model][errors][families]") {
  nlohmann::json j = preset("gemma-3-27b");
  j["use_bidirectional_attention"] = true;
  expect_error(j, {"/use_bidirectional_attention: bidirectional attention is not modelled"});
}
TEST_CASE("families error: chunked feed-forward", "[model][errors][families]") {
  nlohmann::json j = preset("olmo-2-7b");
  j["chunk_size_feed_forward"] = 0;
  CHECK_NOTHROW(load(j));
  j["chunk_size_feed_forward"] = 16;
  expect_error(j, {"/chunk_size_feed_forward: chunked feed-forward is not modelled"});
}
TEST_CASE("families error: gemma with the wrong activation", "[model][errors][families]") {
  nlohmann::json j = preset("gemma-2-27b");
  j["hidden_activation"] = "silu";
  expect_error(j, {"/hidden_activation: expected \"gelu_pytorch_tanh\", \"gelu\" (a gemma2 MLP is "
                   "GeGLU"});
}
