// The MoE families beyond Mixtral: qwen2_moe, qwen3_moe, llama4_text and gpt_oss; their key
// tables and readers (hf_config_reader.h). What each adds:
//   qwen2_moe    a shared expert beside the routed ones, scaled by sigmoid(shared_expert_gate);
//                MoE every decoder_sparse_step layers except mlp_only_layers
//   qwen3_moe    Qwen3's attention (RMSNorm on each q and k head) with routed experts only
//   llama4_text  one shared + top-1 of E routed experts (sigmoid-scaled input), MoE every
//                interleave_moe_layer_step layers (dense MLPs of intermediate_size_mlp between),
//                chunked attention on RoPE layers and full attention without RoPE (NoPE) on
//                every no_rope_layer_interval-th, a weightless L2 norm on q and k where use_qk_norm
//   gpt_oss      attention sinks, biases, alternating sliding (128) and full attention, top-4 of
//                E experts with biases and a clamped SwiGLU, experts stored as MXFP4
#include "workloads/hf_config_reader.h"

#include <algorithm>

namespace ridgeline::hf {

namespace {

void check_top_k(JsonReader& r, const ModelConfig& m, const std::string& experts_key) {
  if (m.moe.top_k > m.moe.experts) {
    r.fail("num_experts_per_tok", num(m.moe.top_k) + " experts per token, but " + experts_key +
                                      " is " + num(m.moe.experts));
  }
}

// One LayerKind per layer where they differ; a uniform model keeps layer_kinds empty.
void set_layer_kinds(ModelConfig& m, std::vector<LayerKind> kinds) {
  bool uniform = std::all_of(kinds.begin(), kinds.end(),
                             [&](const LayerKind& k) { return k == kinds.front(); });
  if (!uniform) {
    m.layer_kinds = std::move(kinds);
    return;
  }
  const LayerKind& k = kinds.front();
  m.sliding_window = k.window;
  if (!k.moe) m.moe = MoeConfig{};
  if (!k.rope) m.position = PositionKind::None;
}

// Qwen's MoE keys: which layers are MoE (decoder_sparse_step, mlp_only_layers), the experts.
void read_qwen_moe(JsonReader& r, ModelConfig& m, int64_t experts_default, int64_t top_k_default,
                   int64_t width_default, const std::string& cls) {
  // transformers 5 writes num_local_experts where the checkpoints' files say num_experts.
  std::string key = r.has("num_local_experts") ? "num_local_experts" : "num_experts";
  if (r.has("num_local_experts") && r.has("num_experts"))
    r.fail("num_experts", "given with num_local_experts, its newer name: give one");
  m.moe.experts = size_or(r, m, "experts", key, experts_default);
  m.moe.top_k = size_or(r, m, "top_k", "num_experts_per_tok", top_k_default);
  m.moe.expert_intermediate =
      size_or(r, m, "expert_intermediate", "moe_intermediate_size", width_default);
  check_top_k(r, m, key);
  m.moe.norm_topk = flag(r, "norm_topk_prob", false);
  from(m, "norm_topk", r.has("norm_topk_prob") ? "norm_topk_prob" : "default false (" + cls + ")");
  int64_t step = size_or(r, m, "decoder_sparse_step", "decoder_sparse_step", 1);
  std::vector<int64_t> dense = read_layer_list(r, "mlp_only_layers", m.layers);
  std::vector<LayerKind> kinds((size_t)m.layers, LayerKind{m.sliding_window, false, true, true});
  for (int64_t i = 0; i < m.layers; ++i) {
    bool only = std::find(dense.begin(), dense.end(), i) != dense.end();
    kinds[(size_t)i].moe = !only && (i + 1) % step == 0;
  }
  if (std::none_of(kinds.begin(), kinds.end(), [](const LayerKind& k) { return k.moe; }))
    r.fail("mlp_only_layers", "with decoder_sparse_step leaves no MoE layer; use model_type " +
                                  std::string(m.family == "qwen3_moe" ? "qwen3" : "qwen2"));
  set_layer_kinds(m, std::move(kinds));
}

void read_qwen2_moe(JsonReader& r, ModelConfig& m) {
  read_llama_shape(r, m);
  // Qwen2MoeAttention has biases on q, k, v (none on o); transformers 5 writes it as qkv_bias.
  m.qkv_bias = flag(r, "qkv_bias", true);
  from(m, "qkv_bias", r.has("qkv_bias") ? "qkv_bias" : "default true (Qwen2MoeAttention)");
  m.sliding_window = 0;
  if (flag(r, "use_sliding_window", false))
    r.fail("use_sliding_window", "a windowed Qwen2-MoE is not modelled");
  given(r, "sliding_window");  // ignored without use_sliding_window, as transformers ignores it
  given(r, "max_window_layers");
  read_layer_types(r, m,
                   {"full_attention"});  // transformers 5 writes them: all full without a window
  m.moe.shared_intermediate =
      size_or(r, m, "shared_expert", "shared_expert_intermediate_size", 5632);
  m.moe.shared_gate = true;  // Qwen2MoeSparseMoeBlock.shared_expert_gate
  read_qwen_moe(r, m, 60, 4, 1408, "Qwen2MoeConfig");
}

void read_qwen3_moe(JsonReader& r, ModelConfig& m) {
  if (!given(r, "head_dim"))
    r.fail("head_dim", "missing; Qwen3MoeConfig's default is 128: give it");
  read_llama_shape(r, m, {"hidden_act", {"silu"}, false, {"yarn"}});
  m.qkv_bias = m.attn_out_bias = flag(r, "attention_bias", false);
  from(m, "qkv_bias", r.has("attention_bias") ? "attention_bias" : "default false");
  m.qk_norm = QkNorm::PerHead;
  if (flag(r, "use_sliding_window", false))
    r.fail("use_sliding_window", "a windowed Qwen3-MoE is not modelled");
  given(r, "sliding_window");
  given(r, "max_window_layers");
  read_layer_types(r, m, {"full_attention"});
  read_qwen_moe(r, m, 128, 8, 768, "Qwen3MoeConfig");
}

void read_llama4(JsonReader& r, ModelConfig& m) {
  read_llama_shape(r, m, {"hidden_act", {"silu"}, false, {"llama3"}, true});
  m.moe.experts = size_or(r, m, "experts", "num_local_experts", 16);
  m.moe.top_k = size_or(r, m, "top_k", "num_experts_per_tok", 1);
  check_top_k(r, m, "num_local_experts");
  m.moe.expert_intermediate = m.intermediate;  // intermediate_size is each expert's width
  m.moe.shared_intermediate = m.intermediate;  // Llama4TextMoe.shared_expert
  m.intermediate = size_or(r, m, "intermediate", "intermediate_size_mlp", 16384);
  m.moe.sigmoid_router = true;
  m.moe.norm_topk = false;
  int64_t step = size_or(r, m, "interleave_moe_layer_step", "interleave_moe_layer_step", 1);
  std::vector<int64_t> moe = read_layer_list(r, "moe_layers", m.layers);
  if (!given(r, "moe_layers"))
    for (int64_t i = step - 1; i < m.layers; i += step) moe.push_back(i);
  int64_t interval = size_or(r, m, "no_rope_interval", "no_rope_layer_interval", 4);
  int64_t chunk = size_or(r, m, "attention_chunk_size", "attention_chunk_size", 8192);
  std::vector<int> rope((size_t)m.layers);
  for (int64_t i = 0; i < m.layers; ++i) rope[(size_t)i] = (i + 1) % interval != 0;
  // An empty list is the default (Llama4TextConfig: `no_rope_layers or default`).
  if (given(r, "no_rope_layers") &&
      !(r.raw("no_rope_layers").is_array() && r.raw("no_rope_layers").empty())) {
    const nlohmann::json& v = r.raw("no_rope_layers");
    if (!v.is_array() || (int64_t)v.size() != m.layers)
      r.fail("no_rope_layers", "expected one 0 or 1 per layer (num_hidden_layers " + num(m.layers) +
                                   "), got " + describe_json(v));
    for (size_t i = 0; i < v.size(); ++i) rope[i] = v[i].is_number_integer() && v[i] == 1;
  }
  auto types = read_layer_types(r, m, {"chunked_attention", "full_attention"});
  std::vector<LayerKind> kinds;
  for (int64_t i = 0; i < m.layers; ++i) {
    bool chunked = rope[(size_t)i];  // Llama4TextAttention: chunked exactly where RoPE runs
    if (!types.empty() && (types[(size_t)i] == "chunked_attention") != chunked) {
      r.fail_at("layer_types/" + std::to_string(i),
                "\"" + types[(size_t)i] + "\" disagrees with no_rope_layers, which make layer " +
                    std::to_string(i) + (chunked ? " a RoPE (chunked)" : " a NoPE (full)") +
                    " layer");
    }
    bool is_moe = std::find(moe.begin(), moe.end(), i) != moe.end();
    kinds.push_back(LayerKind{chunked ? chunk : 0, chunked, (bool)rope[(size_t)i], is_moe});
  }
  m.moe.hf_dense_experts = true;
  from(m, "hf_dense_experts",
       "fixed by model_type llama4_text (transformers' Llama4TextExperts: bmm over all experts)");
  m.qk_norm = flag(r, "use_qk_norm", true) ? QkNorm::L2 : QkNorm::None;
  from(m, "qk_norm", r.has("use_qk_norm") ? "use_qk_norm" : "default true (Llama4TextConfig)");
  m.attn_out_bias = m.qkv_bias = flag(r, "attention_bias", false);
  set_layer_kinds(m, std::move(kinds));
}

// quantization_config: MXFP4 experts (gpt-oss's checkpoints); any other scheme is an error,
// since its kernels and memory would be mis-modelled.
void read_quantization(JsonReader& r, ModelConfig& m) {
  if (!given(r, "quantization_config")) return;
  JsonReader& q = r.child("quantization_config");
  std::string method = q.string("quant_method");
  if (method != "mxfp4") {
    q.fail("quant_method", "\"" + method +
                               "\" is not modelled (ridgeline models gpt-oss's "
                               "\"mxfp4\" experts; give a bf16 config otherwise)");
  }
  if (given(q, "modules_to_not_convert")) {
    for (const auto& name : q.raw("modules_to_not_convert"))
      if (name.is_string() && name.get<std::string>().find("experts") != std::string::npos)
        q.fail("modules_to_not_convert", "keeps the experts unquantised: drop the config");
  }
  m.moe.mxfp4_experts = true;
  from(m, "expert_weights", "quantization_config/quant_method");
}

void read_gpt_oss(JsonReader& r, ModelConfig& m) {
  if (!given(r, "head_dim")) r.fail("head_dim", "missing; GptOssConfig's default is 64: give it");
  read_llama_shape(r, m, {"hidden_act", {"silu"}, false, {"yarn"}});
  m.moe.experts = size_or(r, m, "experts", "num_local_experts", 128);
  m.moe.top_k = size_or(r, m, "top_k", "num_experts_per_tok", 4);
  check_top_k(r, m, "num_local_experts");
  // experts_per_token is the original checkpoint's name for it, kept in the published files.
  if (given(r, "experts_per_token") && r.integer("experts_per_token", 1) != m.moe.top_k)
    r.fail("experts_per_token", "disagrees with num_experts_per_tok (" + num(m.moe.top_k) + ")");
  m.moe.expert_intermediate = m.intermediate;
  m.moe.expert_bias = m.moe.clamped_swiglu = true;
  if (given(r, "swiglu_limit")) r.positive("swiglu_limit");  // the clamp's value, not its cost
  m.qkv_bias = m.attn_out_bias = flag(r, "attention_bias", true);
  m.attention_sinks = true;  // GptOssAttention.sinks
  int64_t w = window(r, 128);
  from(m, "sliding_window", r.has("sliding_window") ? "sliding_window" : "default 128");
  auto types = read_layer_types(r, m, {"sliding_attention", "full_attention"});
  std::vector<LayerKind> kinds;
  for (int64_t i = 0; i < m.layers; ++i) {
    bool sliding = types.empty() ? (i + 1) % 2 != 0 : types[(size_t)i] == "sliding_attention";
    if (sliding && w == 0)
      r.fail("sliding_window", "null, but layer " + num(i) + " is a sliding_attention layer");
    kinds.push_back(LayerKind{sliding ? w : 0, false, true, true});
  }
  read_quantization(r, m);
  set_layer_kinds(m, std::move(kinds));
}

const Keys kRouter = {"output_router_logits", "router_aux_loss_coef", "router_jitter_noise"};
const Keys kQwenMoe = {"num_experts",           "num_local_experts",  "num_experts_per_tok",
                       "moe_intermediate_size", "norm_topk_prob",     "decoder_sparse_step",
                       "mlp_only_layers",       "use_sliding_window", "sliding_window",
                       "max_window_layers"};

}  // namespace

std::vector<Family> moe_families() {
  return {
      {"qwen2_moe",
       join({kLlamaShape,
             {"hidden_act", "shared_expert_intermediate_size", "layer_types", "qkv_bias"},
             kQwenMoe}),
       join({kRopeAndNorm, kRouter, {"use_mrope"}}), "Qwen2MoeConfig", read_qwen2_moe},
      {"qwen3_moe", join({kLlamaShape, {"hidden_act", "attention_bias", "layer_types"}, kQwenMoe}),
       join({kRopeAndNorm, kRouter}), "Qwen3MoeConfig", read_qwen3_moe},
      {"llama4_text",
       join({kLlamaShape,
             {"hidden_act", "num_local_experts", "num_experts_per_tok", "intermediate_size_mlp",
              "interleave_moe_layer_step", "moe_layers", "no_rope_layer_interval", "no_rope_layers",
              "attention_chunk_size", "layer_types", "use_qk_norm", "attention_bias"}}),
       // attn_temperature_tuning, floor_scale, attn_scale scale q's values in NoPE layers at
       // long positions (one small elementwise kernel a NoPE layer, left out);
       // for_llm_compressor only changes how the experts are laid out for a quantizer.
       join({kRopeAndNorm,
             kRouter,
             {"attn_temperature_tuning", "floor_scale", "attn_scale", "for_llm_compressor"}}),
       "Llama4TextConfig", read_llama4},
      {"gpt_oss",
       join({kLlamaShape,
             {"hidden_act", "num_local_experts", "num_experts_per_tok", "experts_per_token",
              "sliding_window", "layer_types", "attention_bias", "swiglu_limit",
              "quantization_config"}}),
       // initial_context_length: the original checkpoint's name for YaRN's original context.
       join({kRopeAndNorm, kRouter, {"initial_context_length"}}), "GptOssConfig", read_gpt_oss},
  };
}

}  // namespace ridgeline::hf
