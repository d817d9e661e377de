// The dense Llama-shaped families (llama, mistral, mixtral, qwen2, qwen3, phi3, olmo2) and GPT-2:
// their key tables and readers; see hf_config_reader.h. What each adds to Llama's block:
//   mistral  a sliding window (MistralConfig default 4096)      mixtral  8 routed SwiGLU experts
//   qwen2    q/k/v biases, a window on some layers              qwen3    RMSNorm on each q and k
//   head phi3     fused qkv_proj and gate_up_proj weights, long RoPE olmo2    norms after attention
//   and
//            MLP (not before) and RMSNorm over all q and all k heads
#include "workloads/hf_config_reader.h"

namespace ridgeline::hf {

namespace {

// Qwen2Config and Qwen3Config: the window applies only when use_sliding_window is true (default
// false), and then to layers at index >= max_window_layers (default 28); sliding_window defaults
// to 4096. A window on some layers only is an error (one attention kind for all layers).
int64_t qwen_window(JsonReader& r, int64_t layers) {
  if (!flag(r, "use_sliding_window", false)) {
    given(r, "sliding_window");  // read, and ignored as transformers ignores it
    given(r, "max_window_layers");
    return 0;
  }
  int64_t w = window(r, 4096);
  int64_t first = given(r, "max_window_layers") ? r.integer("max_window_layers", 0) : 28;
  if (w == 0 || first >= layers) return 0;
  if (first > 0) {
    r.fail("max_window_layers", "use_sliding_window with max_window_layers " + num(first) +
                                    " windows only layers " + num(first) + " to " +
                                    num(layers - 1) +
                                    "; ridgeline models one attention kind for all layers");
  }
  return w;
}

// Qwen's window, and layer_types (transformers 5 writes them) agreeing with it.
void read_qwen_attention(JsonReader& r, ModelConfig& m) {
  m.sliding_window = qwen_window(r, m.layers);
  from(m, "sliding_window", "use_sliding_window, sliding_window, max_window_layers");
  std::string want = m.sliding_window > 0 ? "sliding_attention" : "full_attention";
  auto types = read_layer_types(r, m, {"full_attention", "sliding_attention"});
  for (size_t i = 0; i < types.size(); ++i) {
    if (types[i] != want) {
      r.fail_at("layer_types/" + std::to_string(i),
                "\"" + types[i] + "\" disagrees with use_sliding_window and max_window_layers, " +
                    "which make layer " + std::to_string(i) + " \"" + want + "\"");
    }
  }
}

void read_biases(JsonReader& r, ModelConfig& m, const std::string& cls) {
  m.qkv_bias = m.attn_out_bias = flag(r, "attention_bias", false);
  std::string attn = r.has("attention_bias") ? "attention_bias" : "default false (" + cls + ")";
  from(m, "qkv_bias", attn);
  from(m, "attn_out_bias", attn);
}

void read_llama(JsonReader& r, ModelConfig& m) {
  read_llama_shape(r, m);
  read_biases(r, m, "LlamaConfig");  // q, k, v and o
  m.mlp_bias = flag(r, "mlp_bias", false);
  from(m, "mlp_bias", r.has("mlp_bias") ? "mlp_bias" : "default false (LlamaConfig)");
}

void read_mistral(JsonReader& r, ModelConfig& m) {
  read_llama_shape(r, m);
  from(m, "sliding_window",
       r.has("sliding_window") ? "sliding_window" : "default 4096 (MistralConfig)");
  m.sliding_window = window(r, 4096);
}

void read_mixtral(JsonReader& r, ModelConfig& m) {
  read_llama_shape(r, m);
  from(m, "sliding_window",
       r.has("sliding_window") ? "sliding_window" : "default None (MixtralConfig)");
  m.sliding_window = window(r, 0);
  m.moe.experts = size(r, "num_local_experts");
  m.moe.top_k = size(r, "num_experts_per_tok");
  m.moe.expert_intermediate = m.intermediate;
  from(m, "experts", "num_local_experts");
  from(m, "top_k", "num_experts_per_tok");
  from(m, "expert_intermediate", "intermediate_size");
  if (m.moe.top_k > m.moe.experts) {
    r.fail("num_experts_per_tok",
           num(m.moe.top_k) + " experts per token, but num_local_experts is " + num(m.moe.experts));
  }
}

void read_qwen2(JsonReader& r, ModelConfig& m) {
  read_llama_shape(r, m);
  m.qkv_bias = true;  // Qwen2Attention hard-wires biases on q, k, v; none on o
  from(m, "qkv_bias", "fixed by model_type qwen2 (Qwen2Attention)");
  read_qwen_attention(r, m);
}

void read_qwen3(JsonReader& r, ModelConfig& m) {
  // Qwen3Config: head_dim defaults to 128, not hidden / heads.
  if (!given(r, "head_dim")) {
    r.fail("head_dim",
           "missing; Qwen3Config's default is 128, whatever hidden_size / "
           "num_attention_heads is: give it");
  }
  read_llama_shape(r, m, {"hidden_act", {"silu"}, false, {"yarn"}});
  read_biases(r, m, "Qwen3Config");
  m.qk_norm = QkNorm::PerHead;  // Qwen3Attention's q_norm and k_norm over head_dim
  read_qwen_attention(r, m);
}

void read_phi3(JsonReader& r, ModelConfig& m) {
  read_llama_shape(r, m, {"hidden_act", {"silu"}, false, {"longrope"}});
  m.fused_qkv_weight = true;      // Phi3Attention.qkv_proj
  m.fused_gate_up_weight = true;  // Phi3MLP.gate_up_proj
  from(m, "sliding_window",
       r.has("sliding_window") ? "sliding_window" : "default None (Phi3Config)");
  m.sliding_window = window(r, 0);
  if (given(r, "partial_rotary_factor")) r.fraction("partial_rotary_factor");
  if (given(r, "original_max_position_embeddings")) {
    int64_t original = r.integer("original_max_position_embeddings", 1);
    if (original > m.max_positions) {
      r.fail(
          "original_max_position_embeddings",
          num(original) + " is more than max_position_embeddings (" + num(m.max_positions) + ")");
    }
  }
}

void read_olmo2(JsonReader& r, ModelConfig& m) {
  read_llama_shape(r, m);
  read_biases(r, m, "Olmo2Config");
  m.norm_placement = NormPlacement::Post;  // post_attention_ and post_feedforward_layernorm
  m.qk_norm = QkNorm::AllHeads;            // q_norm over heads * head_dim, k_norm likewise
}

void read_gpt2(JsonReader& r, ModelConfig& m) {
  m.hidden = size(r, "n_embd");
  m.layers = size(r, "n_layer");
  m.heads = size(r, "n_head");
  m.kv_heads = m.heads;
  m.head_dim = split_heads(r, m.hidden, m.heads, "n_embd", "n_head", "");
  // GPT2Config: n_inner None means 4 * n_embd.
  bool inner_given = given(r, "n_inner");
  m.intermediate = inner_given ? size(r, "n_inner") : 4 * m.hidden;
  m.vocab = size(r, "vocab_size");
  m.max_positions = size(r, "n_positions");
  for (auto [figure, key] : {std::pair{"hidden", "n_embd"},
                             {"layers", "n_layer"},
                             {"heads", "n_head"},
                             {"kv_heads", "n_head (multi-head attention)"},
                             {"head_dim", "n_embd / n_head"},
                             {"vocab", "vocab_size"},
                             {"max_positions", "n_positions"},
                             {"mlp", "activation_function"}})
    from(m, figure, key);
  from(m, "intermediate", inner_given ? "n_inner" : "4 * n_embd (n_inner not given)");
  from(m, "tied_embeddings",
       r.has("tie_word_embeddings") ? "tie_word_embeddings"
                                    : "default true (GPT2LMHeadModel ties its head to wte)");
  // The tanh approximations and the exact erf cost the same elementwise kernel.
  r.one_of("activation_function", {"gelu_new", "gelu", "gelu_pytorch_tanh", "gelu_fast"});
  m.tied_embeddings = flag(r, "tie_word_embeddings", true);
  m.qkv_bias = m.attn_out_bias = m.mlp_bias = true;  // Conv1D layers all carry biases
  m.fused_qkv_weight = true;                         // c_attn
  m.norm = NormKind::LayerNorm;
  m.mlp = MlpKind::Gelu;
  m.position = PositionKind::Learned;
}

const Keys kQwenWindow = {"use_sliding_window", "sliding_window", "max_window_layers",
                          "layer_types"};

}  // namespace

std::vector<Family> llama_families() {
  return {
      {"llama", join({kLlamaShape, {"hidden_act", "attention_bias", "mlp_bias"}}), kRopeAndNorm,
       "LlamaConfig", read_llama},
      {"mistral", join({kLlamaShape, {"hidden_act", "sliding_window"}}), kRopeAndNorm,
       "MistralConfig", read_mistral},
      {"mixtral",
       join({kLlamaShape,
             {"hidden_act", "sliding_window", "num_local_experts", "num_experts_per_tok"}}),
       // Router training losses and noise: training-time only.
       join(
           {kRopeAndNorm, {"output_router_logits", "router_aux_loss_coef", "router_jitter_noise"}}),
       "MixtralConfig", read_mixtral},
      {"qwen2", join({kLlamaShape, {"hidden_act"}, kQwenWindow}),
       // use_mrope is left over from Qwen2-VL; transformers' Qwen2 ignores it.
       join({kRopeAndNorm, {"use_mrope"}}), "Qwen2Config", read_qwen2},
      {"qwen3", join({kLlamaShape, {"hidden_act", "attention_bias"}, kQwenWindow}), kRopeAndNorm,
       "Qwen3Config", read_qwen3},
      {"phi3",
       join({kLlamaShape,
             {"hidden_act", "sliding_window", "partial_rotary_factor",
              "original_max_position_embeddings"}}),
       // Dropouts; auto_map names Microsoft's remote code, which transformers' Phi3 replaces.
       join({kRopeAndNorm, {"resid_pdrop", "embd_pdrop", "auto_map", "attention_bias"}}),
       "Phi3Config", read_phi3},
      {"olmo2", join({kLlamaShape, {"hidden_act", "attention_bias"}}), kRopeAndNorm, "Olmo2Config",
       read_olmo2},
      {"gpt2",
       {"n_embd", "n_layer", "n_head", "n_positions", "n_inner", "vocab_size",
        "activation_function", "tie_word_embeddings"},
       // Epsilon, dropout, the sequence-summary head (not part of the LM), attention scaling
       // and fp32 upcasting (values, not shapes); n_ctx and output_past are legacy keys that
       // GPT2Config no longer reads.
       {"layer_norm_epsilon", "resid_pdrop", "embd_pdrop", "attn_pdrop", "summary_type",
        "summary_use_proj", "summary_activation", "summary_proj_to_labels", "summary_first_dropout",
        "scale_attn_weights", "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn", "n_ctx",
        "output_past"},
       "GPT2Config",
       read_gpt2},
  };
}

}  // namespace ridgeline::hf
