// The typed readers every family's import shares; see hf_config_reader.h.
//
// RoPE scaling (rope_scaling, and rope_parameters, its successor since transformers 4.56, which
// also holds rope_theta, and in Gemma 3 one object per layer type) changes RoPE's frequencies,
// not the kernels: no cost reads it. It is read and checked so that a malformed or unknown
// scaling is an error rather than silently accepted. Each family names the kinds it checks
// (llama3 for Llama and Llama 4, yarn for Qwen3 and gpt-oss, linear for Gemma 3, longrope for
// Phi-3); other kinds are errors until someone checks what they change.
#include "workloads/hf_config_reader.h"

#include "common/errors.h"

#include <algorithm>

namespace ridgeline::hf {

namespace {

constexpr long long kMaxSize = 1LL << 24;

std::string listed(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "\"" : ", \"") + s + "\"";
  return out;
}

void read_llama3(JsonReader& s, RopeScaling& rs, const ModelConfig& m, bool equal_ok) {
  rs.low_freq_factor = s.positive("low_freq_factor");
  rs.high_freq_factor = s.positive("high_freq_factor");
  if (rs.high_freq_factor < rs.low_freq_factor ||
      (rs.high_freq_factor == rs.low_freq_factor && !equal_ok)) {
    s.fail("high_freq_factor", "must be larger than low_freq_factor");
  }
  rs.original_max_positions = s.integer("original_max_position_embeddings", 1);
  if (rs.original_max_positions > m.max_positions) {
    s.fail("original_max_position_embeddings",
           num(rs.original_max_positions) + " is more than max_position_embeddings (" +
               num(m.max_positions) + "); the scaling extends the context, never shortens it");
  }
}

// YaRN's constants (values of the angles and of the attention scale, not shapes).
void read_yarn(JsonReader& s, RopeScaling& rs) {
  for (const char* k : {"beta_fast", "beta_slow", "mscale", "mscale_all_dim", "attention_factor"})
    if (given(s, k)) s.non_negative(k);
  if (given(s, "truncate")) s.boolean("truncate");
  if (given(s, "original_max_position_embeddings"))
    rs.original_max_positions = s.integer("original_max_position_embeddings", 1);
}

// Phi-3's long RoPE: one factor per rotated pair of each head, for short and long contexts.
void read_longrope(JsonReader& s, const ModelConfig& m, int64_t rotated) {
  for (const char* k : {"short_factor", "long_factor"}) {
    const nlohmann::json& v = s.raw(k);
    if (!v.is_array() || (int64_t)v.size() != rotated / 2) {
      s.fail(k, "expected " + num(rotated / 2) + " numbers (half the rotated width of a head, " +
                    num(m.head_dim) + "), got " + describe_json(v));
    }
    for (const auto& x : v)
      if (!x.is_number() || x.get<double>() <= 0) s.fail(k, "expected positive numbers");
  }
  if (given(s, "original_max_position_embeddings"))
    s.integer("original_max_position_embeddings", 1);
}

// One scaling object; returns whether it scales (false for "default").
bool read_rope_fields(JsonReader& s, ModelConfig& m, bool parameters, const ShapeRules& rules,
                      int64_t rotated) {
  const std::vector<std::string>& types = rules.rope_types;
  if (parameters && s.has("rope_theta")) s.positive("rope_theta");  // the angles' base only
  if (parameters && s.has("partial_rotary_factor")) s.fraction("partial_rotary_factor");
  // transformers before 4.43 wrote "type"; later versions "rope_type" (and accept both).
  bool legacy = !s.has("rope_type") && s.has("type");
  std::string type_key = legacy ? "type" : "rope_type";
  if (!s.has(type_key)) s.fail("rope_type", "missing (the kind of RoPE scaling, e.g. \"llama3\")");
  std::string type = s.string(type_key);
  if (!legacy && s.has("type") && s.string("type") != type) {
    s.fail("type", "\"" + s.string("type") + "\" disagrees with rope_type \"" + type + "\"");
  }
  if (parameters && type == "default") return false;
  if (std::find(types.begin(), types.end(), type) == types.end()) {
    s.fail(type_key, "unsupported RoPE scaling \"" + type + "\" (ridgeline checks " +
                         listed(types) + " for " + m.family + "; null means none)");
  }
  RopeScaling rs;
  rs.type = type;
  if (type != "longrope" || s.has("factor")) {
    rs.factor = s.positive("factor");
    if (rs.factor < 1) s.fail("factor", "must be at least 1, got " + std::to_string(rs.factor));
  }
  if (type == "llama3") read_llama3(s, rs, m, rules.llama3_equal_factors);
  if (type == "yarn") read_yarn(s, rs);
  if (type == "longrope") read_longrope(s, m, rotated);
  const RopeScaling& before = m.rope_scaling;  // rope_scaling, when both are given
  if (!before.type.empty() && (before.type != rs.type || before.factor != rs.factor ||
                               before.low_freq_factor != rs.low_freq_factor ||
                               before.high_freq_factor != rs.high_freq_factor ||
                               before.original_max_positions != rs.original_max_positions)) {
    s.fail("", "disagrees with rope_scaling");
  }
  m.rope_scaling = rs;
  return true;
}

// Returns whether `key` held a scaling. Gemma 3's rope_parameters hold one object per layer
// type; the full-attention layers' scaling is the one shown.
bool read_rope_object(JsonReader& r, ModelConfig& m, const std::string& key,
                      const ShapeRules& types, int64_t rotated) {
  if (!given(r, key)) return false;
  JsonReader& s = r.child(key);
  bool parameters = key == "rope_parameters";
  if (parameters && (s.has("full_attention") || s.has("sliding_attention"))) {
    bool any = false;
    for (const char* layer : {"sliding_attention", "full_attention"}) {
      if (!s.has(layer)) continue;
      RopeScaling keep = m.rope_scaling;
      bool scaled = read_rope_fields(s.child(layer), m, true, types, rotated);
      if (std::string(layer) == "sliding_attention") m.rope_scaling = keep;
      any = any || (scaled && std::string(layer) == "full_attention");
    }
    return any;
  }
  return read_rope_fields(s, m, parameters, types, rotated);
}

}  // namespace

const Keys kRopeAndNorm = {"rms_norm_eps", "rope_theta", "attention_dropout", "pretraining_tp"};

const Keys kLlamaShape = {"hidden_size",
                          "num_hidden_layers",
                          "num_attention_heads",
                          "num_key_value_heads",
                          "head_dim",
                          "intermediate_size",
                          "vocab_size",
                          "max_position_embeddings",
                          "tie_word_embeddings",
                          "rope_scaling",
                          "rope_parameters"};

Keys join(std::initializer_list<Keys> parts) {
  Keys out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

void from(ModelConfig& m, const std::string& figure, const std::string& source) {
  m.sources.push_back({figure, source});
}

bool given(JsonReader& r, const std::string& key) {
  return r.has(key) && !r.raw(key).is_null();
}

bool flag(JsonReader& r, const std::string& key, bool class_default) {
  return given(r, key) ? r.boolean(key) : class_default;
}

int64_t size(JsonReader& r, const std::string& key, long long min) {
  long long v = r.integer(key, min);
  if (v > kMaxSize) r.fail(key, "too large (the limit is 2^24 = 16777216)");
  return v;
}

std::string num(int64_t v) {
  return std::to_string(v);
}

int64_t sized(JsonReader& r, ModelConfig& m, const std::string& figure, const std::string& key) {
  from(m, figure, key);
  return size(r, key);
}

int64_t size_or(JsonReader& r, ModelConfig& m, const std::string& figure, const std::string& key,
                int64_t class_default, long long min) {
  bool has = given(r, key);
  from(m, figure,
       has ? key : "default " + num(class_default) + " (" + config_class(m.family) + ")");
  return has ? size(r, key, min) : class_default;
}

int64_t split_heads(JsonReader& r, int64_t hidden, int64_t heads, const std::string& hidden_key,
                    const std::string& heads_key, const std::string& hint) {
  if (hidden % heads != 0) {
    r.fail(heads_key, hidden_key + " (" + num(hidden) + ") is not a multiple of " + heads_key +
                          " (" + num(heads) + ")" + hint);
  }
  return hidden / heads;
}

int64_t window(JsonReader& r, int64_t class_default) {
  if (!r.has("sliding_window")) return class_default;
  if (r.raw("sliding_window").is_null()) return 0;
  return size(r, "sliding_window");
}

void read_llama_shape(JsonReader& r, ModelConfig& m, const ShapeRules& rules) {
  m.hidden = sized(r, m, "hidden", "hidden_size");
  m.layers = sized(r, m, "layers", "num_hidden_layers");
  m.heads = sized(r, m, "heads", "num_attention_heads");
  // None means multi-head attention in every class.
  bool kv_given = given(r, "num_key_value_heads");
  m.kv_heads = kv_given ? size(r, "num_key_value_heads") : m.heads;
  from(m, "kv_heads",
       kv_given ? "num_key_value_heads"
                : "num_attention_heads (num_key_value_heads not given: multi-head attention)");
  bool head_dim_given = r.has("head_dim") && given(r, "head_dim");
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
  m.intermediate = sized(r, m, "intermediate", "intermediate_size");
  m.vocab = sized(r, m, "vocab", "vocab_size");
  m.max_positions = sized(r, m, "max_positions", "max_position_embeddings");
  std::string act = r.string(rules.act_key);
  if (std::find(rules.acts.begin(), rules.acts.end(), act) == rules.acts.end()) {
    const std::string& front = rules.acts.front();
    r.fail(rules.act_key, "expected " + listed(rules.acts) + " (a " + m.family + " MLP is " +
                              (front == "silu"    ? "SwiGLU: down(silu(gate) * up)"
                               : front == "relu2" ? "squared ReLU: down(relu(up)^2), no gate"
                                                  : "GeGLU: down(gelu_tanh(gate) * up)") +
                              "); got \"" + act + "\"");
  }
  m.tied_embeddings = flag(r, "tie_word_embeddings", rules.tied_default);
  from(m, "tied_embeddings",
       given(r, "tie_word_embeddings")
           ? "tie_word_embeddings"
           : std::string("default ") + (rules.tied_default ? "true" : "false") + " (" +
                 config_class(m.family) + ")");
  from(m, "mlp", rules.act_key);
  int64_t rotated = m.head_dim;
  bool scaling = read_rope_object(r, m, "rope_scaling", rules, rotated);
  bool parameters = read_rope_object(r, m, "rope_parameters", rules, rotated);
  std::string none =
      r.has("rope_scaling") || r.has("rope_parameters") ? "none" : "none (not given)";
  from(m, "rope_scaling", scaling ? "rope_scaling" : parameters ? "rope_parameters" : none);
  m.norm = NormKind::RmsNorm;
  const std::string& front = rules.acts.front();
  m.mlp = front == "silu"    ? MlpKind::GatedSilu
          : front == "relu2" ? MlpKind::Relu2
                             : MlpKind::GatedGelu;
  m.position = PositionKind::Rope;
}

const std::vector<std::string>& all_rope_scaling_keys() {
  static const std::vector<std::string> keys = {
      "rope_type",        "type",
      "factor",           "low_freq_factor",
      "high_freq_factor", "original_max_position_embeddings",
      "beta_fast",        "beta_slow",
      "mscale",           "mscale_all_dim",
      "attention_factor", "truncate",
      "short_factor",     "long_factor"};
  return keys;
}

std::vector<std::string> read_layer_types(JsonReader& r, const ModelConfig& m,
                                          const std::vector<std::string>& allowed) {
  std::vector<std::string> out;
  if (!given(r, "layer_types")) return out;
  const nlohmann::json& v = r.raw("layer_types");
  if (!v.is_array() || (int64_t)v.size() != m.layers) {
    r.fail("layer_types", "expected one entry per layer (num_hidden_layers " + num(m.layers) +
                              "), got " + describe_json(v));
  }
  for (size_t i = 0; i < v.size(); ++i) {
    std::string t = v[i].is_string() ? v[i].get<std::string>() : describe_json(v[i]);
    if (std::find(allowed.begin(), allowed.end(), t) == allowed.end()) {
      r.fail_at("layer_types/" + std::to_string(i),
                "expected one of " + listed(allowed) + ", got \"" + t + "\"");
    }
    out.push_back(t);
  }
  return out;
}

std::vector<int64_t> read_layer_list(JsonReader& r, const std::string& key, int64_t layers) {
  std::vector<int64_t> out;
  if (!given(r, key)) return out;
  const nlohmann::json& v = r.raw(key);
  if (!v.is_array()) r.fail(key, "expected a list of layer indices, got " + describe_json(v));
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_integer() || v[i].get<int64_t>() < 0 || v[i].get<int64_t>() >= layers) {
      r.fail_at(key + "/" + std::to_string(i),
                "expected a layer index in [0, " + num(layers) + "), got " + describe_json(v[i]));
    }
    out.push_back(v[i].get<int64_t>());
  }
  return out;
}

}  // namespace ridgeline::hf
