// Gemma 2 and Gemma 3 (text): their key tables and readers (hf_config_reader.h). Both add to
// Llama's block: four RMSNorms a block (before and after attention and MLP), a GeGLU MLP
// (gelu_pytorch_tanh), embeddings scaled by sqrt(hidden), tied embeddings, and layers alternating
// sliding-window and full attention. Gemma 2 soft-caps the attention scores and the logits
// (cap * tanh(x / cap)); Gemma 3 drops the caps (null in its files) for RMSNorm on each q and k
// head, one full layer in sliding_window_pattern, and separate RoPE bases for the two kinds.
// query_pre_attn_scalar sets the attention's scale (a value, not a shape).
#include "workloads/hf_config_reader.h"

namespace ridgeline::hf {

namespace {

double softcap(JsonReader& r, ModelConfig& m, const std::string& key, double class_default,
               const std::string& figure) {
  bool has = r.has(key);
  from(m, figure, has ? key : "default " + std::to_string((int)class_default));
  if (!has) return class_default;
  if (r.raw(key).is_null()) return 0;
  return r.positive(key);
}

// Which layers slide: layer_types, or every layer but each `pattern`-th.
void read_gemma_layers(JsonReader& r, ModelConfig& m, int64_t pattern, int64_t window_default) {
  int64_t w = window(r, window_default);
  from(m, "sliding_window", r.has("sliding_window") ? "sliding_window" : "class default");
  auto types = read_layer_types(r, m, {"sliding_attention", "full_attention"});
  std::vector<LayerKind> kinds;
  bool any_sliding = false;
  for (int64_t i = 0; i < m.layers; ++i) {
    bool by_pattern = (i + 1) % pattern != 0;
    bool sliding = types.empty() ? by_pattern : types[(size_t)i] == "sliding_attention";
    if (!types.empty() && r.has("sliding_window_pattern") && sliding != by_pattern) {
      r.fail_at("layer_types/" + std::to_string(i),
                "\"" + types[(size_t)i] + "\" disagrees with sliding_window_pattern " +
                    num(pattern) + ", which makes layer " + num(i) +
                    (by_pattern ? " sliding" : " full"));
    }
    if (sliding && w == 0)
      r.fail("sliding_window", "null, but layer " + num(i) + " is a sliding_attention layer");
    any_sliding = any_sliding || sliding;
    kinds.push_back(LayerKind{sliding ? w : 0, false, true, false});
  }
  bool all_same = true;
  for (const auto& k : kinds) all_same = all_same && k == kinds.front();
  if (all_same)
    m.sliding_window = kinds.front().window;
  else
    m.layer_kinds = std::move(kinds);
  (void)any_sliding;
}

void read_gemma_common(JsonReader& r, ModelConfig& m, const std::vector<std::string>& ropes) {
  ShapeRules rules{"hidden_activation", {"gelu_pytorch_tanh", "gelu"}, true, ropes};
  read_llama_shape(r, m, rules);
  // hidden_act is Gemma 1's spelling; GemmaXConfig reads hidden_activation. Checked alike.
  if (given(r, "hidden_act")) r.one_of("hidden_act", {"gelu_pytorch_tanh", "gelu"});
  m.qkv_bias = m.attn_out_bias = flag(r, "attention_bias", false);
  m.norm_placement = NormPlacement::PreAndPost;
  m.embedding_scale = true;
  if (given(r, "query_pre_attn_scalar")) r.positive("query_pre_attn_scalar");
  if (flag(r, "use_bidirectional_attention", false))
    r.fail("use_bidirectional_attention", "bidirectional attention is not modelled");
}

void read_gemma2(JsonReader& r, ModelConfig& m) {
  if (!given(r, "head_dim")) r.fail("head_dim", "missing; Gemma2Config's default is 256: give it");
  read_gemma_common(r, m, {"linear"});
  m.attn_softcap = softcap(r, m, "attn_logit_softcapping", 50, "attn_softcap");
  m.final_softcap = softcap(r, m, "final_logit_softcapping", 30, "final_softcap");
  read_gemma_layers(r, m, 2, 4096);
}

void read_gemma3(JsonReader& r, ModelConfig& m) {
  if (!given(r, "head_dim"))
    r.fail("head_dim", "missing; Gemma3TextConfig's default is 256: give it");
  read_gemma_common(r, m, {"linear"});
  m.qk_norm = QkNorm::PerHead;
  m.attn_softcap = softcap(r, m, "attn_logit_softcapping", 0, "attn_softcap");
  m.final_softcap = softcap(r, m, "final_logit_softcapping", 0, "final_softcap");
  if (given(r, "rope_local_base_freq")) r.positive("rope_local_base_freq");
  int64_t pattern = given(r, "sliding_window_pattern") ? size(r, "sliding_window_pattern") : 6;
  if (given(r, "_sliding_window_pattern") && r.integer("_sliding_window_pattern", 1) != pattern) {
    r.fail("_sliding_window_pattern", "disagrees with sliding_window_pattern");
  }
  read_gemma_layers(r, m, pattern, 4096);
}

const Keys kGemma = {"hidden_activation",
                     "hidden_act",
                     "attention_bias",
                     "query_pre_attn_scalar",
                     "sliding_window",
                     "layer_types",
                     "final_logit_softcapping",
                     "attn_logit_softcapping",
                     "use_bidirectional_attention"};

}  // namespace

std::vector<Family> gemma_families() {
  return {
      // cache_implementation names generate()'s default cache ("hybrid"), not the model.
      {"gemma2", join({kLlamaShape, kGemma}), join({kRopeAndNorm, {"cache_implementation"}}),
       "Gemma2Config", read_gemma2},
      {"gemma3_text",
       join({kLlamaShape,
             kGemma,
             {"rope_local_base_freq", "sliding_window_pattern", "_sliding_window_pattern"}}),
       join({kRopeAndNorm, {"cache_implementation"}}), "Gemma3TextConfig", read_gemma3},
  };
}

}  // namespace ridgeline::hf
