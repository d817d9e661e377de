// Reading a Hugging Face config.json; see hf_config.h.
//
// Each supported model_type has a key table: the keys that shape the kernels, which are read
// into the ModelConfig, and the keys known to leave the cost alone (token ids, dropout,
// initialisation, RoPE constants, norm epsilons), which are accepted and ignored. Any other key
// is an error, because a key we do not know may be a quantization scheme, a cross-attention
// block or an attention window, and ignoring it would silently mis-model the run.
//
// Defaults. The shape keys and the activation are required: every config.json that
// transformers writes carries them (its diff-against-defaults serialisation always keeps
// model-specific keys). Keys that older configs predate (num_key_value_heads, head_dim,
// attention_bias, sliding_window, ...) take the default of that model_type's transformers
// config class (LlamaConfig, MistralConfig, MixtralConfig, Qwen2Config, GPT2Config), named
// where it is applied. For optional keys, null means what None means in that class.
#include "workloads/hf_config.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "workloads/hf_config_deepseek.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace ridgeline {

namespace {

using Keys = std::vector<std::string_view>;

// Sizes beyond 2^24 are typos; the cap also keeps parameter arithmetic far from overflow.
constexpr long long kMaxSize = 1LL << 24;

// Bookkeeping any config.json may carry. torch_dtype (dtype since transformers 4.56) is the
// checkpoint's storage type; ridgeline takes the run's dtype from the run, not the file.
const Keys kBookkeeping = {"_name_or_path", "architectures",        "bos_token_id",
                           "eos_token_id",  "pad_token_id",         "torch_dtype",
                           "dtype",         "transformers_version", "initializer_range",
                           "use_cache",     "tokenizer_class",      "task_specific_params"};

// Llama family: RoPE constants change the rotation angles, not the kernels; norm epsilon and
// dropout change values only; pretraining_tp only splits eager PyTorch matmuls to reproduce
// pretraining numerics. (rope_scaling and rope_parameters change the angles too, but are read
// and checked: see read_rope_object.)
const Keys kRopeAndNorm = {"rms_norm_eps", "rope_theta", "attention_dropout", "pretraining_tp"};

const Keys kLlamaShape = {
    "hidden_size", "num_hidden_layers",   "num_attention_heads", "num_key_value_heads",
    "head_dim",    "intermediate_size",   "vocab_size",          "max_position_embeddings",
    "hidden_act",  "tie_word_embeddings", "rope_scaling",        "rope_parameters"};

struct Family {
  std::string_view model_type;
  Keys read;        // shape the kernels; read below
  Keys irrelevant;  // known, and without effect on the cost
};

Keys join(std::initializer_list<Keys> parts) {
  Keys out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

const std::vector<Family>& families() {
  static const std::vector<Family> all = {
      {"llama", join({kLlamaShape, {"attention_bias", "mlp_bias"}}), kRopeAndNorm},
      {"mistral", join({kLlamaShape, {"sliding_window"}}), kRopeAndNorm},
      {"mixtral",
       join({kLlamaShape, {"sliding_window", "num_local_experts", "num_experts_per_tok"}}),
       // Router training losses and noise: training-time only.
       join({kRopeAndNorm,
             {"output_router_logits", "router_aux_loss_coef", "router_jitter_noise"}})},
      {"qwen2", join({kLlamaShape, {"use_sliding_window", "sliding_window", "max_window_layers"}}),
       // use_mrope is left over from Qwen2-VL; transformers' Qwen2 ignores it.
       join({kRopeAndNorm, {"use_mrope"}})},
      {"gpt2",
       {"n_embd", "n_layer", "n_head", "n_positions", "n_inner", "vocab_size",
        "activation_function", "tie_word_embeddings"},
       // Epsilon, dropout, the sequence-summary head (not part of the LM), attention scaling
       // and fp32 upcasting (values, not shapes); n_ctx and output_past are legacy keys that
       // GPT2Config no longer reads.
       {"layer_norm_epsilon", "resid_pdrop", "embd_pdrop", "attn_pdrop", "summary_type",
        "summary_use_proj", "summary_activation", "summary_proj_to_labels", "summary_first_dropout",
        "scale_attn_weights", "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn", "n_ctx",
        "output_past"}},
      {"deepseek_v2", deepseek_read_keys("deepseek_v2"), deepseek_ignored_keys("deepseek_v2")},
      {"deepseek_v3", deepseek_read_keys("deepseek_v3"), deepseek_ignored_keys("deepseek_v3")},
  };
  return all;
}

bool contains(const Keys& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

void reject_unknown_keys(JsonReader& r, const Family& f) {
  for (const auto& key : r.keys()) {
    if (key == "model_type" || key == "_ridgeline_source" || contains(f.read, key)) continue;
    if (contains(kBookkeeping, key) || contains(f.irrelevant, key)) {
      r.raw(key);  // accepted, ignored
      continue;
    }
    r.fail(key, "unsupported field that may change the model's cost (not among the " +
                    std::string(f.model_type) + " keys ridgeline knows)");
  }
}

// The transformers class whose defaults a family's absent keys take.
std::string config_class(const std::string& family) {
  if (family == "qwen2") return "Qwen2Config";
  std::string name = family;
  name[0] = (char)std::toupper((unsigned char)name[0]);
  return name + "Config";  // LlamaConfig, MistralConfig, MixtralConfig, Gpt2Config
}

void from(ModelConfig& m, const std::string& figure, const std::string& source) {
  m.sources.push_back({figure, source});
}

// True when `key` is present and not null; a null is marked read and means absent.
bool given(JsonReader& r, const std::string& key) {
  return r.has(key) && !r.raw(key).is_null();
}

bool flag(JsonReader& r, const std::string& key, bool class_default) {
  return given(r, key) ? r.boolean(key) : class_default;
}

int64_t size(JsonReader& r, const std::string& key) {
  long long v = r.integer(key, 1);
  if (v > kMaxSize) r.fail(key, "too large (the limit is 2^24 = 16777216)");
  return v;
}

std::string num(int64_t v) {
  return std::to_string(v);
}

// Head width when the config gives none: the hidden size split evenly over the heads.
int64_t split_heads(JsonReader& r, int64_t hidden, int64_t heads, const std::string& hidden_key,
                    const std::string& heads_key, const std::string& hint) {
  if (hidden % heads != 0) {
    r.fail(heads_key, hidden_key + " (" + num(hidden) + ") is not a multiple of " + heads_key +
                          " (" + num(heads) + ")" + hint);
  }
  return hidden / heads;
}

// Mistral and Mixtral: an absent sliding_window is the class default (MistralConfig 4096,
// MixtralConfig None); null is None, full attention.
int64_t window(JsonReader& r, int64_t class_default) {
  if (!r.has("sliding_window")) return class_default;
  if (r.raw("sliding_window").is_null()) return 0;
  return size(r, "sliding_window");
}

// Qwen2Config: the window applies only when use_sliding_window is true (default false), and
// then to layers at index >= max_window_layers (default 28); sliding_window defaults to 4096.
// A ModelConfig has one attention kind for all layers, so a mix of the two is an error.
int64_t qwen2_window(JsonReader& r, int64_t layers) {
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

// rope_scaling (and rope_parameters, its successor since transformers 4.56, which also holds
// rope_theta): null, absent or rope_type "default" is plain RoPE. Of the scaled kinds ridgeline
// knows "llama3" (Llama 3.1 and later), whose fields are checked as LlamaConfig's validation
// checks them. Scaling changes RoPE's frequencies, not the kernels: no cost reads it. Other
// kinds (linear, dynamic, yarn, longrope, ...) are errors until someone checks what they change.
// Returns whether `key` held a scaling.
bool read_rope_object(JsonReader& r, ModelConfig& m, const std::string& key) {
  if (!given(r, key)) return false;
  JsonReader& s = r.child(key);
  bool parameters = key == "rope_parameters";
  if (parameters && s.has("rope_theta")) s.positive("rope_theta");  // the angles' base only
  // transformers before 4.43 wrote "type"; later versions "rope_type" (and accept both).
  bool legacy = !s.has("rope_type") && s.has("type");
  std::string type_key = legacy ? "type" : "rope_type";
  if (!s.has(type_key)) s.fail("rope_type", "missing (the kind of RoPE scaling, e.g. \"llama3\")");
  std::string type = s.string(type_key);
  if (!legacy && s.has("type") && s.string("type") != type) {
    s.fail("type", "\"" + s.string("type") + "\" disagrees with rope_type \"" + type + "\"");
  }
  if (parameters && type == "default") return false;
  if (type != "llama3") {
    s.fail(type_key, "unsupported RoPE scaling \"" + type +
                         "\" (ridgeline checks \"llama3\"; null means none)");
  }
  RopeScaling rs;
  rs.type = type;
  rs.factor = s.positive("factor");
  if (rs.factor < 1) s.fail("factor", "must be at least 1, got " + std::to_string(rs.factor));
  rs.low_freq_factor = s.positive("low_freq_factor");
  rs.high_freq_factor = s.positive("high_freq_factor");
  if (rs.high_freq_factor <= rs.low_freq_factor) {
    s.fail("high_freq_factor", "must be larger than low_freq_factor");
  }
  rs.original_max_positions = s.integer("original_max_position_embeddings", 1);
  if (rs.original_max_positions > m.max_positions) {
    s.fail("original_max_position_embeddings",
           num(rs.original_max_positions) + " is more than max_position_embeddings (" +
               num(m.max_positions) + "); the scaling extends the context, never shortens it");
  }
  const RopeScaling& before = m.rope_scaling;  // rope_scaling, when both are given
  if (!before.type.empty() &&
      (before.factor != rs.factor || before.low_freq_factor != rs.low_freq_factor ||
       before.high_freq_factor != rs.high_freq_factor ||
       before.original_max_positions != rs.original_max_positions)) {
    s.fail("", "disagrees with rope_scaling");
  }
  m.rope_scaling = rs;
  return true;
}

void read_rope_scaling(JsonReader& r, ModelConfig& m) {
  bool scaling = read_rope_object(r, m, "rope_scaling");
  bool parameters = read_rope_object(r, m, "rope_parameters");
  std::string none =
      r.has("rope_scaling") || r.has("rope_parameters") ? "none" : "none (not given)";
  from(m, "rope_scaling", scaling ? "rope_scaling" : parameters ? "rope_parameters" : none);
}

void read_llama_shape(JsonReader& r, ModelConfig& m) {
  m.hidden = size(r, "hidden_size");
  m.layers = size(r, "num_hidden_layers");
  m.heads = size(r, "num_attention_heads");
  from(m, "hidden", "hidden_size");
  from(m, "layers", "num_hidden_layers");
  from(m, "heads", "num_attention_heads");
  // None means multi-head attention in all four classes.
  bool kv_given = given(r, "num_key_value_heads");
  m.kv_heads = kv_given ? size(r, "num_key_value_heads") : m.heads;
  from(m, "kv_heads",
       kv_given ? "num_key_value_heads"
                : "num_attention_heads (num_key_value_heads not given: multi-head attention)");
  bool head_dim_given = given(r, "head_dim");
  m.head_dim = head_dim_given
                   ? size(r, "head_dim")
                   : split_heads(r, m.hidden, m.heads, "hidden_size", "num_attention_heads",
                                 "; give head_dim when the heads are narrower or wider");
  from(m, "head_dim",
       head_dim_given ? "head_dim" : "hidden_size / num_attention_heads (head_dim not given)");
  if (m.heads % m.kv_heads != 0) {
    r.fail("num_key_value_heads", "num_attention_heads (" + num(m.heads) +
                                      ") is not a multiple of num_key_value_heads (" +
                                      num(m.kv_heads) + ")");
  }
  m.intermediate = size(r, "intermediate_size");
  m.vocab = size(r, "vocab_size");
  m.max_positions = size(r, "max_position_embeddings");
  from(m, "intermediate", "intermediate_size");
  from(m, "vocab", "vocab_size");
  from(m, "max_positions", "max_position_embeddings");
  std::string act = r.string("hidden_act");
  if (act != "silu") {
    r.fail("hidden_act", "expected \"silu\" (a " + m.family +
                             " MLP is SwiGLU: down(silu(gate) * up)); got \"" + act + "\"");
  }
  // LlamaConfig, MistralConfig, MixtralConfig and Qwen2Config all default this to false
  // (overriding PretrainedConfig's true).
  m.tied_embeddings = flag(r, "tie_word_embeddings", false);
  from(m, "tied_embeddings",
       given(r, "tie_word_embeddings") ? "tie_word_embeddings"
                                       : "default false (" + config_class(m.family) + ")");
  from(m, "mlp", "hidden_act");
  read_rope_scaling(r, m);
  m.norm = NormKind::RmsNorm;
  m.mlp = MlpKind::GatedSilu;
  m.position = PositionKind::Rope;
}

void read_llama_family(JsonReader& r, ModelConfig& m) {
  read_llama_shape(r, m);
  if (m.family == "llama") {
    // LlamaConfig: attention_bias puts a bias on q, k, v and o; both default to false.
    m.qkv_bias = m.attn_out_bias = flag(r, "attention_bias", false);
    m.mlp_bias = flag(r, "mlp_bias", false);
    std::string attn = r.has("attention_bias") ? "attention_bias" : "default false (LlamaConfig)";
    from(m, "qkv_bias", attn);
    from(m, "attn_out_bias", attn);
    from(m, "mlp_bias", r.has("mlp_bias") ? "mlp_bias" : "default false (LlamaConfig)");
  } else if (m.family == "qwen2") {
    m.qkv_bias = true;  // Qwen2Attention hard-wires biases on q, k, v; none on o
    from(m, "qkv_bias", "fixed by model_type qwen2 (Qwen2Attention)");
    m.sliding_window = qwen2_window(r, m.layers);
    from(m, "sliding_window", "use_sliding_window, sliding_window, max_window_layers");
  } else if (m.family == "mistral") {
    from(m, "sliding_window",
         r.has("sliding_window") ? "sliding_window" : "default 4096 (MistralConfig)");
    m.sliding_window = window(r, 4096);
  } else {  // mixtral
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
      r.fail(
          "num_experts_per_tok",
          num(m.moe.top_k) + " experts per token, but num_local_experts is " + num(m.moe.experts));
    }
  }
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
  // GPT2LMHeadModel ties its head to wte unless the config says otherwise (PretrainedConfig's
  // default, true).
  m.tied_embeddings = flag(r, "tie_word_embeddings", true);
  m.qkv_bias = m.attn_out_bias = m.mlp_bias = true;  // Conv1D layers all carry biases
  m.fused_qkv_weight = true;                         // c_attn
  m.norm = NormKind::LayerNorm;
  m.mlp = MlpKind::Gelu;
  m.position = PositionKind::Learned;
}

}  // namespace

const std::vector<std::string>& supported_model_types() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& f : families()) out.emplace_back(f.model_type);
    return out;
  }();
  return names;
}

std::vector<ModelTypeKeys> model_config_keys() {
  std::vector<ModelTypeKeys> out;
  for (const auto& f : families()) {
    ModelTypeKeys k{std::string(f.model_type), {"model_type", "_ridgeline_source"}, {}};
    for (auto key : f.read) k.read.emplace_back(key);
    for (auto key : join({kBookkeeping, f.irrelevant})) k.ignored.emplace_back(key);
    out.push_back(std::move(k));
  }
  return out;
}

const std::vector<std::string>& rope_scaling_keys() {
  static const std::vector<std::string> keys = {
      "rope_type",        "type",
      "factor",           "low_freq_factor",
      "high_freq_factor", "original_max_position_embeddings"};
  return keys;
}

ModelConfig parse_hf_config(const nlohmann::json& doc, const std::string& label) {
  JsonReader r(doc, label);
  std::string type = r.string("model_type");
  const auto& all = families();
  auto f =
      std::find_if(all.begin(), all.end(), [&](const Family& x) { return x.model_type == type; });
  if (f == all.end()) {
    std::string list;
    for (const auto& t : supported_model_types()) list += (list.empty() ? "" : ", ") + t;
    r.fail("model_type", "unsupported model_type \"" + type + "\"; supported: " + list);
  }
  reject_unknown_keys(r, *f);
  ModelConfig m;
  m.family = type;
  if (given(r, "_ridgeline_source")) m.provenance = r.string("_ridgeline_source");
  if (is_deepseek_type(type))
    read_deepseek(r, m);  // hf_config_deepseek.cpp
  else if (type == "gpt2")
    read_gpt2(r, m);
  else
    read_llama_family(r, m);
  r.finish();  // a key in a table but not read above would be a bug; this catches it
  return m;
}

}  // namespace ridgeline
