// Parameter and KV-cache counts of MLA and DeepSeek's MoE layout; see mla_config.h. The figures
// they reproduce (tests/test_mla.cpp): DeepSeek-V3 671B in the main model and 685B with the MTP
// module as published on its model card; DeepSeek-V2-Lite 15.7B.
#include "workloads/mla_config.h"

#include "workloads/model_config.h"

#include <algorithm>

namespace ridgeline {

long double mla_attention_parameters(const ModelConfig& m) {
  const MlaConfig& a = m.deepseek.mla;
  long double h = m.hidden, heads = m.heads;
  long double q = a.q_lora_rank > 0
                      ? h * a.q_lora_rank + a.q_lora_rank +                       // q_a, q_a_norm
                            (long double)a.q_lora_rank * heads * a.qk_head_dim()  // q_b
                      : h * heads * a.qk_head_dim();                              // q_proj
  long double kv = h * a.latent_per_token() + a.kv_lora_rank +  // kv_a (with the RoPE key), norm
                   (long double)a.kv_lora_rank * heads * (a.qk_nope_head_dim + a.v_head_dim);
  long double o = heads * a.v_head_dim * h;
  return q + kv + o + (m.attn_out_bias ? h : 0);
}

int64_t dense_layer_count(const ModelConfig& m, int64_t layers) {
  if (m.moe.experts == 0) return layers;
  return std::min(layers, m.deepseek.moe.first_dense_layers);
}

int64_t mtp_parameter_count(const ModelConfig& m) {
  if (m.deepseek.moe.mtp_layers == 0) return 0;
  ModelConfig one = m;
  one.layers = 1;
  one.deepseek.moe.first_dense_layers = 0;  // the MTP block is an MoE layer
  one.deepseek.moe.mtp_layers = 0;
  long double h = m.hidden;
  // parameter_count(one): embedding, one block, final norm (the MTP module's shared_head.norm)
  // and the head; + eh_proj (2h -> h) and the enorm and hnorm before it.
  long double per_module = (long double)parameter_count(one) + 2 * h * h + 2 * h;
  return (int64_t)(per_module * m.deepseek.moe.mtp_layers);
}

double kv_cache_elements_per_layer(const ModelConfig& m) {
  if (m.deepseek.mla.enabled()) return (double)m.deepseek.mla.latent_per_token();
  return 2.0 * (double)m.kv_heads * (double)m.head_dim;
}

}  // namespace ridgeline
