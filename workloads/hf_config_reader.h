// Internal to the Hugging Face import (hf_config*.cpp): the table entry of one model_type and
// the typed readers every family's reader shares (sizes, flags, defaults with their source, the
// Llama-shaped keys, RoPE scaling). hf_config.cpp holds the table and the entry point; each
// hf_families_*.cpp file holds the readers of one group of families and returns their entries,
// so a new family is one more entry and one reader (DeepSeek's: hf_config_deepseek.cpp).
#pragma once

#include "common/json_reader.h"
#include "workloads/model_config.h"

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace ridgeline::hf {

using Keys = std::vector<std::string_view>;
Keys join(std::initializer_list<Keys> parts);

// One supported model_type: the keys read (they shape the kernels, or are checked), the keys
// known to leave the cost alone, the transformers class whose defaults absent keys take, and
// the reader that fills a ModelConfig (every read key is read there; r.finish() checks).
struct Family {
  std::string_view model_type;
  Keys read;
  Keys irrelevant;
  std::string_view config_class;
  void (*reader)(JsonReader& r, ModelConfig& m);
};

// The entries of each group (hf_families_llama.cpp, hf_families_moe.cpp, hf_families_gemma.cpp).
std::vector<Family> llama_families();  // llama, mistral, mixtral, qwen2, qwen3, phi3, olmo2, gpt2
std::vector<Family> moe_families();    // qwen2_moe, qwen3_moe, llama4_text, gpt_oss
std::vector<Family> gemma_families();  // gemma2, gemma3_text
std::vector<Family> deepseek_families();  // deepseek_v2, deepseek_v3 (hf_config_deepseek.cpp)
std::vector<Family> nemotron_families();  // nemotron (hf_families_nemotron.cpp)

// The config class of a supported model_type ("LlamaConfig"), for the sources of defaults.
std::string config_class(const std::string& model_type);

// Llama family: RoPE constants, norm epsilon and dropout change values only; pretraining_tp only
// splits eager PyTorch matmuls to reproduce pretraining numerics.
extern const Keys kRopeAndNorm;
// The keys read_llama_shape reads (hidden_act excepted, which each family names).
extern const Keys kLlamaShape;

void from(ModelConfig& m, const std::string& figure, const std::string& source);
// True when `key` is present and not null; a null is marked read and means absent.
bool given(JsonReader& r, const std::string& key);
bool flag(JsonReader& r, const std::string& key, bool class_default);
// A size in [min, 2^24]; larger is a typo, and the cap keeps parameter arithmetic far from
// overflow.
int64_t size(JsonReader& r, const std::string& key, long long min = 1);
std::string num(int64_t v);
// A required size, its source (`key`) recorded for `figure`.
int64_t sized(JsonReader& r, ModelConfig& m, const std::string& figure, const std::string& key);
// A key's value or the class default, its source recorded for `figure`.
int64_t size_or(JsonReader& r, ModelConfig& m, const std::string& figure, const std::string& key,
                int64_t class_default, long long min = 1);
// Head width when the config gives none: the hidden size split evenly over the heads.
int64_t split_heads(JsonReader& r, int64_t hidden, int64_t heads, const std::string& hidden_key,
                    const std::string& heads_key, const std::string& hint);
// sliding_window: absent is the class default, null is None (0, full attention).
int64_t window(JsonReader& r, int64_t class_default);

// hidden_size, num_hidden_layers, heads, num_key_value_heads, head_dim, intermediate_size,
// vocab_size, max_position_embeddings, tie_word_embeddings (default `tied_default`), the
// activation key `act_key` (one of `acts`), rope_scaling / rope_parameters (their rope_type one
// of `rope_types`): RMSNorm, RoPE and a SwiGLU MLP unless `acts` says GeGLU (gelu) or squared
// ReLU without a gate (relu2).
struct ShapeRules {
  std::string act_key = "hidden_act";
  std::vector<std::string> acts = {"silu"};
  bool tied_default = false;
  std::vector<std::string> rope_types = {"llama3"};
  // llama3 scaling with high_freq_factor equal to low_freq_factor (Llama 4 Scout's file: an
  // empty band between the two, which transformers accepts); otherwise an error.
  bool llama3_equal_factors = false;
};
void read_llama_shape(JsonReader& r, ModelConfig& m, const ShapeRules& rules = {});

// The keys of every rope_scaling kind ridgeline checks.
const std::vector<std::string>& all_rope_scaling_keys();

// layer_types (when given): one of `allowed` per layer, as many as num_hidden_layers.
std::vector<std::string> read_layer_types(JsonReader& r, const ModelConfig& m,
                                          const std::vector<std::string>& allowed);
// A list of layer indices (mlp_only_layers, moe_layers), each in [0, layers).
std::vector<int64_t> read_layer_list(JsonReader& r, const std::string& key, int64_t layers);

}  // namespace ridgeline::hf
