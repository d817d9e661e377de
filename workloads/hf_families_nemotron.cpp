// Nemotron (transformers' NemotronConfig, model_type "nemotron": Nemotron-3 8B/22B, Nemotron-4
// 15B/340B, Minitron): Llama's attention (GQA, RoPE) with LayerNorm (NemotronLayerNorm1P, a
// LayerNorm with bias whose weight is stored zero-centred: the same kernel) and an MLP without a
// gate, down_proj(relu2(up_proj(x))), relu2 = relu(x)^2 (hidden_act "relu2", the only one read).
// partial_rotary_factor (default 0.5) rotates part of each head; it is checked and the RoPE
// kernel priced over the whole head, as a fused RoPE kernel (Transformer Engine's, Megatron's)
// reads and writes the whole head, passing the unrotated part through.
#include "workloads/hf_config_reader.h"

namespace ridgeline::hf {

namespace {

void read_nemotron(JsonReader& r, ModelConfig& m) {
  read_llama_shape(r, m, {"hidden_act", {"relu2"}, false, {"llama3"}});
  m.norm = NormKind::LayerNorm;
  m.qkv_bias = m.attn_out_bias = flag(r, "attention_bias", false);
  std::string attn = r.has("attention_bias") ? "attention_bias" : "default false (NemotronConfig)";
  from(m, "qkv_bias", attn);
  from(m, "attn_out_bias", attn);
  m.mlp_bias = flag(r, "mlp_bias", false);
  from(m, "mlp_bias", r.has("mlp_bias") ? "mlp_bias" : "default false (NemotronConfig)");
  if (given(r, "partial_rotary_factor")) r.fraction("partial_rotary_factor");
}

}  // namespace

std::vector<Family> nemotron_families() {
  return {
      {"nemotron",
       join({kLlamaShape, {"hidden_act", "attention_bias", "mlp_bias", "partial_rotary_factor"}}),
       // The norm's epsilon, the RoPE base, dropout: values, not shapes.
       {"norm_eps", "rope_theta", "attention_dropout"},
       "NemotronConfig",
       read_nemotron},
  };
}

}  // namespace ridgeline::hf
