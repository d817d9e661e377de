// DeepSeek-V2/V3 figures of a ModelConfig: multi-head latent attention (MLA) and DeepSeek's MoE
// layout (dense first layers, shared experts beside routed ones, group-limited routing, the
// multi-token-prediction head). Plain data read by hf_config_deepseek.cpp; the graph builders
// (mla_forward.cpp) and the parameter count (mla_params.cpp) read it. A model without MLA has
// kv_lora_rank 0 and none of this applies.
//
// MLA, per token and layer: q = q_b(norm(q_a(x))) (or q_proj(x) when q_lora_rank is 0), heads of
// qk_nope + qk_rope channels; kv_a(x) gives a latent of kv_lora_rank channels and one shared RoPE
// key of qk_rope channels; kv_b(norm(latent)) decompresses it to every head's nope key and its
// value (v_head_dim). The cache holds the latent and the RoPE key only: kv_lora_rank +
// qk_rope_head_dim elements per token and layer, shared by all heads (and so replicated, not
// split, over tensor-parallel ranks).
#pragma once

#include <cstdint>
#include <string>

namespace ridgeline {

struct ModelConfig;

struct MlaConfig {
  int64_t q_lora_rank = 0;   // 0: q_proj straight from the hidden state (DeepSeek-V2-Lite)
  int64_t kv_lora_rank = 0;  // 0: not MLA
  int64_t qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;

  bool enabled() const { return kv_lora_rank > 0; }
  int64_t qk_head_dim() const { return qk_nope_head_dim + qk_rope_head_dim; }
  // Cached elements per token and layer: the latent and the shared RoPE key.
  int64_t latent_per_token() const { return kv_lora_rank + qk_rope_head_dim; }
};

// DeepSeek's MoE layout. Layers before first_dense_layers run the dense MLP (intermediate); the
// others run MoeConfig's routed experts plus `shared_experts` always-on experts (one SwiGLU MLP of
// shared_experts * expert_intermediate: the importer sets MoeConfig::shared_intermediate to that).
struct DeepseekMoe {
  int64_t first_dense_layers = 0;  // first_k_dense_replace
  int64_t shared_experts = 0;      // n_shared_experts
  int64_t groups = 1;              // n_group: experts split into groups for routing
  int64_t topk_groups = 1;         // topk_group: groups a token may pick experts from
  std::string topk_method;         // noaux_tc (V3), greedy or group_limited_greedy (V2)
  std::string scoring;             // sigmoid (V3, with a correction bias) or softmax (V2)
  double routed_scaling_factor = 1;
  bool norm_topk_prob = false;
  // num_nextn_predict_layers: DeepSeek-V3's multi-token-prediction module, one decoder block plus
  // a projection. Its weights are in the checkpoint (mtp_parameter_count) but no step runs it:
  // transformers drops those weights on load and a decode step without speculation never calls it.
  int64_t mtp_layers = 0;
  // The checkpoint's quantization_config, shown ("" when none). It says how the published weights
  // are stored; the run's weight dtype comes from --weight-dtype, as torch_dtype's does.
  std::string checkpoint_quantization;

  bool enabled() const { return shared_experts > 0 || first_dense_layers > 0 || groups > 1; }
};

struct DeepseekConfig {
  MlaConfig mla;
  DeepseekMoe moe;
};

// Weights of MLA's projections and norms in one layer (q_a, q_a_norm, q_b or q_proj, kv_a,
// kv_a_norm, kv_b, o).
long double mla_attention_parameters(const ModelConfig& m);
// Layers that run the dense MLP: first_k_dense_replace of them (all when the model has no
// experts), of `layers` (the whole stack, or --blocks N).
int64_t dense_layer_count(const ModelConfig& m, int64_t layers);
// The multi-token-prediction module's weights as the checkpoint stores them: its decoder block
// (an MoE layer), the 2h -> h projection, two norms, and its own copy of the embedding and head.
int64_t mtp_parameter_count(const ModelConfig& m);
// KV-cache elements one token adds to one layer: MLA's latent + RoPE key, else K and V per KV head.
double kv_cache_elements_per_layer(const ModelConfig& m);

}  // namespace ridgeline
