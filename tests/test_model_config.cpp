// Model configs: every preset loads and has its published parameter count; the shape rules
// (head_dim, GQA, tied embeddings, biases, windows, MoE); and one test per error message.
#include "test_helpers.h"
#include "workloads/model_config.h"

#include <nlohmann/json.hpp>

#include <cmath>

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

// A small, valid Llama config; tests change one key at a time.
nlohmann::json llama() {
  return nlohmann::json::parse(R"({
    "model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 2,
    "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 4096,
    "vocab_size": 1000, "max_position_embeddings": 2048, "hidden_act": "silu",
    "tie_word_embeddings": false, "rms_norm_eps": 1e-05, "rope_theta": 10000.0})");
}

nlohmann::json mixtral() {
  nlohmann::json j = llama();
  j["model_type"] = "mixtral";
  j["num_local_experts"] = 8;
  j["num_experts_per_tok"] = 2;
  return j;
}

nlohmann::json gpt2() {
  return nlohmann::json::parse(R"({
    "model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024,
    "n_inner": null, "vocab_size": 50257, "activation_function": "gelu_new"})");
}

ModelConfig load(const nlohmann::json& j) {
  return load_model_text(j.dump(), "test.json");
}

void expect_error(const nlohmann::json& j, std::initializer_list<std::string> parts) {
  require_input_error([&] { load(j); }, parts);
}

}  // namespace

TEST_CASE("every preset loads and matches its published parameter count", "[model]") {
  struct Published {
    const char* name;
    double billions;
  };
  const Published published[] = {
      {"llama-3-8b", 8.03},
      {"llama-3-70b", 70.6},
      {"llama-3-405b", 405.9},
      {"llama-2-7b", 6.74},
      {"mistral-7b", 7.24},
      {"mixtral-8x7b", 46.7},
      {"qwen2.5-7b", 7.62},
      {"qwen2.5-72b", 72.7},
      {"gpt2-xl", 1.56},
      {"gpt3-175b", 174.6},
      {"llama-3.1-8b", 8.03},
      {"llama-3.1-70b", 70.6},
      {"llama-3.1-405b", 405.9},
      {"llama-3.3-70b", 70.6},
      {"deepseek-v3", 671.0},  // the main model; the MTP module's 14B apart (test_mla.cpp)
      {"deepseek-v2-lite", 15.7},
      // Issue 14's families (sources and the 0.5% checks, actives too: test_families.cpp).
      {"qwen3-32b", 32.8},
      {"qwen3-30b-a3b", 30.5},
      {"qwen3-235b-a22b", 235},
      {"gemma-2-27b", 27.23},
      {"gemma-3-27b", 27.0},
      {"gpt-oss-120b", 116.83},
      {"gpt-oss-20b", 20.91},
      {"llama-4-scout", 109},
      {"llama-4-maverick", 400},
      {"phi-3-medium", 14},
      {"olmo-2-7b", 7.30},
  };
  CHECK(model_preset_names().size() == std::size(published));
  for (const auto& p : published) {
    INFO(p.name);
    ModelConfig m = load_model(p.name);
    CHECK(m.name == p.name);
    CHECK(!m.provenance.empty());
    double billions = parameter_count(m) / 1e9;
    INFO("counted " << billions << "B, published " << p.billions << "B");
    CHECK(std::fabs(billions / p.billions - 1) < 0.02);
  }
}

TEST_CASE("presets carry the published shapes", "[model]") {
  ModelConfig l3 = load_model("llama-3-8b");
  CHECK(l3.family == "llama");
  CHECK(l3.heads == 32);
  CHECK(l3.kv_heads == 8);
  CHECK(l3.head_dim == 128);
  CHECK(!l3.tied_embeddings);
  CHECK(l3.sliding_window == 0);
  CHECK(l3.moe.experts == 0);
  ModelConfig mistral = load_model("mistral-7b");
  CHECK(mistral.sliding_window == 4096);
  ModelConfig mixtral = load_model("mixtral-8x7b");
  CHECK(mixtral.sliding_window == 0);  // "sliding_window": null
  CHECK(mixtral.moe.experts == 8);
  CHECK(mixtral.moe.top_k == 2);
  CHECK(mixtral.moe.expert_intermediate == 14336);
  ModelConfig qwen = load_model("qwen2.5-7b");
  CHECK(qwen.qkv_bias);
  CHECK(!qwen.attn_out_bias);
  CHECK(qwen.sliding_window == 0);  // use_sliding_window is false
  ModelConfig xl = load_model("gpt2-xl");
  CHECK(xl.head_dim == 64);
  CHECK(xl.intermediate == 4 * 1600);  // n_inner absent
  CHECK(xl.tied_embeddings);
  CHECK(xl.norm == NormKind::LayerNorm);
  CHECK(xl.mlp == MlpKind::Gelu);
  CHECK(xl.position == PositionKind::Learned);
}

TEST_CASE("a preset file loads by path, and a config.json is named after its folder", "[model]") {
  ModelConfig m =
      load_model(std::string(RIDGELINE_SOURCE_DIR) + "/workloads/models/llama-2-7b.json");
  CHECK(m.name == "llama-2-7b");
  CHECK(m.kv_heads == 32);
  CHECK(load_model_text(llama().dump(), "hub/Meta-Llama-3-8B/config.json").name ==
        "Meta-Llama-3-8B");
  CHECK(load_model_text(llama().dump(), "config.json").name == "config");
}

TEST_CASE("head_dim is honoured when the config gives it", "[model]") {
  nlohmann::json j = llama();
  j["hidden_size"] = 2048;
  j["num_attention_heads"] = 8;
  j["num_key_value_heads"] = 8;
  j["head_dim"] = 256;
  CHECK(load(j).head_dim == 256);
  j["num_attention_heads"] = 6;  // 2048 / 6 is not whole, but head_dim says how wide they are
  j["num_key_value_heads"] = 2;
  ModelConfig m = load(j);
  CHECK(m.head_dim == 256);
  int64_t h = 2048, q = 6 * 256, kv = 2 * 256;
  int64_t layer = h * (q + 2 * kv) + q * h + 3 * h * 4096 + 2 * h;
  CHECK(parameter_count(m) == 2 * 1000 * h + 2 * layer + h);
  j["head_dim"] = nullptr;  // null is absent: hidden / heads, which 6 does not divide
  expect_error(j, {"test.json: /num_attention_heads: hidden_size (2048) is not a multiple"});
}

TEST_CASE("grouped-query attention shrinks only the k and v projections", "[model]") {
  nlohmann::json j = llama();
  ModelConfig gqa = load(j);
  j.erase("num_key_value_heads");  // absent: one kv head per query head
  ModelConfig mha = load(j);
  CHECK(gqa.kv_heads == 2);
  CHECK(mha.kv_heads == 8);
  // Per layer, k and v each lose (8 - 2) heads of 128 columns.
  CHECK(parameter_count(mha) - parameter_count(gqa) == 2 * 2 * 1024 * (6 * 128));
}

TEST_CASE("tied embeddings are counted once", "[model]") {
  nlohmann::json j = llama();
  int64_t untied = parameter_count(load(j));
  j["tie_word_embeddings"] = true;
  CHECK(untied - parameter_count(load(j)) == 1000 * 1024);
  j.erase("tie_word_embeddings");  // LlamaConfig's default is false
  CHECK(parameter_count(load(j)) == untied);
}

TEST_CASE("biases and norms follow each family", "[model]") {
  nlohmann::json j = llama();
  int64_t plain = parameter_count(load(j));
  j["attention_bias"] = true;  // q, k, v and o
  j["mlp_bias"] = true;        // gate, up, down
  int64_t biased = parameter_count(load(j));
  CHECK(biased - plain == 2 * ((1024 + 2 * 256 + 1024) + (2 * 4096 + 1024)));
  ModelConfig g = load(gpt2());  // GPT-2 small: 124.4M with the head tied to wte
  CHECK(parameter_count(g) == 124439808);
  CHECK(g.intermediate == 3072);
}

TEST_CASE("integers may be written as integral floats", "[model]") {
  nlohmann::json j = llama();
  j["hidden_size"] = 1024.0;
  CHECK(load(j).hidden == 1024);
}

TEST_CASE("sliding windows follow each config class", "[model]") {
  nlohmann::json m = llama();
  m["model_type"] = "mistral";
  CHECK(load(m).sliding_window == 4096);  // MistralConfig's default
  m["sliding_window"] = nullptr;
  CHECK(load(m).sliding_window == 0);
  nlohmann::json q = llama();
  q["model_type"] = "qwen2";
  q["sliding_window"] = 4096;
  CHECK(load(q).sliding_window == 0);  // use_sliding_window defaults to false
  q["use_sliding_window"] = true;
  q["max_window_layers"] = 2;  // window only on layers >= 2: none of the 2 layers
  CHECK(load(q).sliding_window == 0);
  q["max_window_layers"] = 0;  // every layer
  CHECK(load(q).sliding_window == 4096);
}

TEST_CASE("Mixtral experts count in full, the router too", "[model]") {
  nlohmann::json dense = llama();
  ModelConfig moe = load(mixtral());
  CHECK(moe.moe.experts == 8);
  CHECK(moe.moe.top_k == 2);
  int64_t mlp = 3 * 1024 * 4096;
  CHECK(parameter_count(moe) - parameter_count(load(dense)) == 2 * (7 * mlp + 8 * 1024));
}

TEST_CASE("model error: unknown model_type", "[model][errors]") {
  nlohmann::json j = llama();
  j["model_type"] = "bert";
  expect_error(j, {"test.json: /model_type: unsupported model_type \"bert\"; supported: llama, "
                   "mistral, mixtral, qwen2, qwen3, phi3, olmo2, gpt2, qwen2_moe, qwen3_moe, "
                   "llama4_text, gpt_oss, gemma2, gemma3_text, deepseek_v2, deepseek_v3"});
}
TEST_CASE("model error: unsupported field", "[model][errors]") {
  nlohmann::json j = llama();
  j["quantization_config"] = {{"quant_method", "fp8"}};
  expect_error(j, {"test.json: /quantization_config: unsupported field that may change the "
                   "model's cost"});
}
TEST_CASE("model error: a key of another family", "[model][errors]") {
  nlohmann::json j = llama();
  j["sliding_window"] = 4096;  // LlamaConfig has no window
  expect_error(j, {"test.json: /sliding_window: unsupported field", "llama keys"});
}
TEST_CASE("model error: wrong type", "[model][errors]") {
  nlohmann::json j = llama();
  j["hidden_size"] = "1024";
  expect_error(j, {"test.json: /hidden_size: expected an integer, got \"1024\""});
}
TEST_CASE("model error: missing key", "[model][errors]") {
  nlohmann::json j = llama();
  j.erase("intermediate_size");
  expect_error(j, {"test.json: /intermediate_size: missing; expected an integer"});
}
TEST_CASE("model error: non-positive size", "[model][errors]") {
  nlohmann::json j = llama();
  j["num_hidden_layers"] = 0;
  expect_error(j, {"test.json: /num_hidden_layers: expected an integer >= 1, got 0"});
}
TEST_CASE("model error: size too large", "[model][errors]") {
  nlohmann::json j = llama();
  j["vocab_size"] = 1e9;
  expect_error(j, {"test.json: /vocab_size: too large"});
}
TEST_CASE("model error: too many parameters", "[model][errors]") {
  nlohmann::json j = mixtral();
  j["hidden_size"] = 1 << 20;
  j["intermediate_size"] = 1 << 24;
  j["num_local_experts"] = 1 << 10;
  expect_error(j, {"test.json: /: these sizes give more than 10^15 parameters"});
}
TEST_CASE("model error: bad hidden_act", "[model][errors]") {
  nlohmann::json j = llama();
  j["hidden_act"] = "gelu";
  expect_error(j, {"test.json: /hidden_act: expected \"silu\"", "got \"gelu\""});
}
TEST_CASE("model error: bad GPT-2 activation_function", "[model][errors]") {
  nlohmann::json j = gpt2();
  j["activation_function"] = "relu";
  expect_error(j, {"test.json: /activation_function: expected one of gelu_new"});
}
TEST_CASE("model error: heads not dividing hidden", "[model][errors]") {
  nlohmann::json j = llama();
  j["num_attention_heads"] = 6;
  j["num_key_value_heads"] = 6;
  expect_error(j, {"test.json: /num_attention_heads: hidden_size (1024) is not a multiple of "
                   "num_attention_heads (6)"});
  nlohmann::json g = gpt2();
  g["n_head"] = 10;
  expect_error(g, {"test.json: /n_head: n_embd (768) is not a multiple of n_head (10)"});
}
TEST_CASE("model error: kv_heads not dividing heads", "[model][errors]") {
  nlohmann::json j = llama();
  j["num_key_value_heads"] = 3;
  expect_error(j, {"test.json: /num_key_value_heads: num_attention_heads (8) is not a multiple "
                   "of num_key_value_heads (3)"});
}
TEST_CASE("model error: top_k > experts", "[model][errors]") {
  nlohmann::json j = mixtral();
  j["num_experts_per_tok"] = 9;
  expect_error(j, {"test.json: /num_experts_per_tok: 9 experts per token, but num_local_experts "
                   "is 8"});
}
TEST_CASE("model error: Qwen2 window on some layers only", "[model][errors]") {
  nlohmann::json j = llama();
  j["model_type"] = "qwen2";
  j["use_sliding_window"] = true;
  j["sliding_window"] = 4096;
  j["max_window_layers"] = 1;
  expect_error(j, {"test.json: /max_window_layers: use_sliding_window with max_window_layers 1 "
                   "windows only layers 1 to 1"});
}
TEST_CASE("model error: not an object", "[model][errors]") {
  require_input_error([] { load_model_text("[1, 2]", "test.json"); },
                      {"test.json: /: expected an object"});
}
TEST_CASE("model error: unreadable file", "[model][errors]") {
  require_input_error([] { load_model("/no/such/dir/config.json"); },
                      {"/no/such/dir/config.json: cannot open file"});
}
TEST_CASE("model error: invalid JSON", "[model][errors]") {
  require_input_error([] { load_model_text("{\"model_type\": \"llama\",", "test.json"); },
                      {"test.json: invalid JSON"});
}
TEST_CASE("model error: unknown preset name", "[model][errors]") {
  require_input_error([] { load_model("llama-9b"); },
                      {"--model: unknown model \"llama-9b\"; presets: ", "gpt2-xl, gpt3-175b",
                       "(or give a Hugging Face config.json or the folder holding it)"});
}
