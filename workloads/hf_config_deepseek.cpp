// DeepSeek-V2/V3 config.json import (model_type deepseek_v2, deepseek_v3): their key tables and
// the reading of MLA and DeepSeek's MoE layout into a ModelConfig (mla_config.h), registered in
// hf_config.cpp's per-model_type table through hf::deepseek_families (hf_config_reader.h).
//
// Keys and defaults follow transformers' DeepseekV3Config / DeepseekV2Config (5.x): an absent
// optional key takes that class's default, named in `models show`; null means None. What
// transformers' DeepseekV3 model runs fixes some keys the checkpoints also carry: it routes
// with sigmoid scores, a correction bias and group-limited top-k ("noaux_tc") whatever
// topk_method and scoring_func say, and makes every layer past first_k_dense_replace an MoE
// layer (moe_layer_freq is never read). So those keys are read and must agree with what runs;
// a value that would change the math otherwise is an error, never a silent guess.
//
// Checked shape rules: qk_head_dim (when given) = qk_nope_head_dim + qk_rope_head_dim; head_dim
// (when given) = qk_rope_head_dim (what the class stores there); num_key_value_heads =
// num_attention_heads (MLA has no grouped KV heads); num_experts_per_tok <= n_routed_experts;
// n_group divides n_routed_experts; topk_group <= n_group, with topk_group groups holding at
// least num_experts_per_tok experts; first_k_dense_replace <= num_hidden_layers.
//
// rope_scaling / rope_parameters: null, "default" or "yarn" (YaRN changes RoPE's frequency table
// and the attention's softmax scale, not the kernels: checked and shown, no cost reads it).
// quantization_config: DeepSeek-V3's published FP8 checkpoint (e4m3, 128x128 weight blocks,
// dynamic activation scales) is accepted and shown; the run's weight dtype is still the run's
// (--weight-dtype fp8 prices it; bf16, the default, is the dequantised model transformers runs).
#include "workloads/hf_config_reader.h"

#include <cmath>
#include <string>

namespace ridgeline {

namespace {

using hf::from;
using hf::given;
using hf::Keys;
using hf::num;
using hf::size;
using hf::size_or;
using hf::sized;

const Keys kShape = {"hidden_size",
                     "num_hidden_layers",
                     "num_attention_heads",
                     "num_key_value_heads",
                     "intermediate_size",
                     "vocab_size",
                     "max_position_embeddings",
                     "hidden_act",
                     "tie_word_embeddings",
                     "rope_scaling",
                     "rope_parameters",
                     "attention_bias",
                     "q_lora_rank",
                     "kv_lora_rank",
                     "qk_nope_head_dim",
                     "qk_rope_head_dim",
                     "v_head_dim",
                     "qk_head_dim",
                     "head_dim",
                     "rope_interleave",
                     "n_routed_experts",
                     "n_shared_experts",
                     "moe_intermediate_size",
                     "first_k_dense_replace",
                     "moe_layer_freq",
                     "num_experts_per_tok",
                     "topk_method",
                     "scoring_func",
                     "n_group",
                     "topk_group",
                     "routed_scaling_factor",
                     "norm_topk_prob",
                     "num_nextn_predict_layers",
                     "quantization_config"};
// Values only (epsilon, dropout, RoPE's base), training-time losses (aux_loss_alpha, seq_aux),
// the reference code's own expert-parallel degree (ep_size: ridgeline takes --ep from the run),
// remote-code pointers (auto_map) and pretraining_tp (splits eager matmuls for numerics).
const Keys kIgnored = {"rms_norm_eps",   "rope_theta", "attention_dropout", "pretraining_tp",
                       "aux_loss_alpha", "seq_aux",    "ep_size",           "auto_map"};

struct Defaults {
  const char* cls;
  int64_t first_dense;
  int64_t groups, topk_groups;  // 0: None
  double scaling;
  bool norm_topk;
  const char* topk_method;
  const char* scoring;
};
const Defaults kV3{"DeepseekV3Config", 3, 8, 4, 2.5, true, "noaux_tc", "sigmoid"};
const Defaults kV2{"DeepseekV2Config", 0, 0, 0, 1.0, false, "greedy", "softmax"};

void read_yarn(JsonReader& s, ModelConfig& m, const std::string& type_key) {
  RopeScaling rs;
  rs.type = "yarn";
  rs.factor = s.positive("factor");
  if (rs.factor < 1) s.fail("factor", "must be at least 1, got " + std::to_string(rs.factor));
  rs.original_max_positions = s.integer("original_max_position_embeddings", 1);
  if (rs.original_max_positions > m.max_positions) {
    s.fail("original_max_position_embeddings",
           num(rs.original_max_positions) + " is more than max_position_embeddings (" +
               num(m.max_positions) + "); the scaling extends the context, never shortens it");
  }
  for (const char* k : {"beta_fast", "beta_slow"})
    if (s.has(k)) s.positive(k);
  for (const char* k : {"mscale", "mscale_all_dim", "attention_factor"})
    if (s.has(k)) s.non_negative(k);
  if (s.has("truncate")) s.boolean("truncate");
  (void)type_key;
  m.rope_scaling = rs;
}

// rope_scaling or rope_parameters (transformers 5.x writes the second, with rope_theta in it).
void read_rope(JsonReader& r, ModelConfig& m) {
  std::string used = "none (not given)";
  for (const char* key : {"rope_scaling", "rope_parameters"}) {
    if (!given(r, key)) continue;
    JsonReader& s = r.child(key);
    if (s.has("rope_theta")) s.positive("rope_theta");
    bool legacy = !s.has("rope_type") && s.has("type");
    std::string type_key = legacy ? "type" : "rope_type";
    if (!s.has(type_key)) s.fail("rope_type", "missing (the kind of RoPE scaling, e.g. \"yarn\")");
    std::string type = s.string(type_key);
    if (!legacy && s.has("type") && s.string("type") != type)
      s.fail("type", "\"" + s.string("type") + "\" disagrees with rope_type \"" + type + "\"");
    if (type == "default") continue;
    if (type != "yarn")
      s.fail(type_key, "unsupported RoPE scaling \"" + type +
                           "\" for a DeepSeek model (ridgeline checks \"yarn\"; null means none)");
    RopeScaling before = m.rope_scaling;
    read_yarn(s, m, type_key);
    if (!before.type.empty() &&
        (before.factor != m.rope_scaling.factor ||
         before.original_max_positions != m.rope_scaling.original_max_positions))
      s.fail("", "disagrees with rope_scaling");
    used = key;
  }
  from(m, "rope_scaling", used);
}

void read_attention(JsonReader& r, ModelConfig& m, const Defaults& d) {
  MlaConfig& a = m.deepseek.mla;
  bool q_given = r.has("q_lora_rank");
  a.q_lora_rank = q_given ? (given(r, "q_lora_rank") ? size(r, "q_lora_rank") : 0) : 1536;
  from(m, "q_lora_rank",
       q_given ? "q_lora_rank (null: q_proj from the hidden state)"
               : std::string("default 1536 (") + d.cls + ")");
  a.kv_lora_rank = size(r, "kv_lora_rank");
  a.qk_nope_head_dim = size(r, "qk_nope_head_dim");
  a.qk_rope_head_dim = size(r, "qk_rope_head_dim");
  a.v_head_dim = size(r, "v_head_dim");
  for (const char* k : {"kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"})
    from(m, k, k);
  if (given(r, "qk_head_dim") && r.integer("qk_head_dim", 1) != a.qk_head_dim()) {
    r.fail("qk_head_dim", num(r.integer("qk_head_dim", 1)) +
                              " is not qk_nope_head_dim + qk_rope_head_dim (" +
                              num(a.qk_nope_head_dim) + " + " + num(a.qk_rope_head_dim) + ")");
  }
  if (given(r, "head_dim") && r.integer("head_dim", 1) != a.qk_rope_head_dim) {
    r.fail("head_dim", num(r.integer("head_dim", 1)) + " is not qk_rope_head_dim (" +
                           num(a.qk_rope_head_dim) + "), which " + d.cls + " stores there");
  }
  m.head_dim = a.v_head_dim;  // what o_proj reads per head
  from(m, "head_dim", "v_head_dim (MLA: the value width o_proj reads per head)");
  bool kv_given = given(r, "num_key_value_heads");
  m.kv_heads = kv_given ? size(r, "num_key_value_heads") : m.heads;
  from(m, "kv_heads", kv_given ? "num_key_value_heads" : "num_attention_heads (not given)");
  if (m.kv_heads != m.heads) {
    r.fail("num_key_value_heads", num(m.kv_heads) + " is not num_attention_heads (" + num(m.heads) +
                                      "); MLA decompresses a key and value for every head");
  }
  m.qkv_bias = m.attn_out_bias = given(r, "attention_bias") && r.boolean("attention_bias");
  if (m.qkv_bias)
    r.fail("attention_bias", "true is not modelled for MLA (no DeepSeek checkpoint sets it)");
  // rope_interleave only changes which channels RoPE pairs (transformers copies q and k into
  // that order first: kernels the hf-transformers runtime emits either way).
  if (r.has("rope_interleave")) r.boolean("rope_interleave");
}

void read_routing(JsonReader& r, ModelConfig& m, const Defaults& d, bool v3) {
  DeepseekMoe& x = m.deepseek.moe;
  m.moe.experts = size(r, "n_routed_experts");
  m.moe.top_k = size(r, "num_experts_per_tok");
  m.moe.expert_intermediate = size(r, "moe_intermediate_size");
  from(m, "experts", "n_routed_experts");
  from(m, "top_k", "num_experts_per_tok");
  from(m, "expert_intermediate", "moe_intermediate_size");
  x.shared_experts = size_or(r, m, "shared_experts", "n_shared_experts", v3 ? 1 : 2, 0);
  x.first_dense_layers =
      size_or(r, m, "first_dense_layers", "first_k_dense_replace", d.first_dense, 0);
  x.groups = size_or(r, m, "routing_groups", "n_group", d.groups ? d.groups : 1);
  x.topk_groups =
      size_or(r, m, "routing_topk_groups", "topk_group", d.topk_groups ? d.topk_groups : 1);
  if (m.moe.top_k > m.moe.experts)
    r.fail("num_experts_per_tok",
           num(m.moe.top_k) + " experts per token, but n_routed_experts is " + num(m.moe.experts));
  if (m.moe.experts % x.groups != 0)
    r.fail("n_group",
           num(x.groups) + " groups do not divide n_routed_experts (" + num(m.moe.experts) + ")");
  if (x.topk_groups > x.groups)
    r.fail("topk_group", num(x.topk_groups) + " is more than n_group (" + num(x.groups) + ")");
  if (x.topk_groups * (m.moe.experts / x.groups) < m.moe.top_k)
    r.fail("topk_group", num(x.topk_groups) + " groups of " + num(m.moe.experts / x.groups) +
                             " experts hold fewer than num_experts_per_tok (" + num(m.moe.top_k) +
                             ")");
  if (x.first_dense_layers > m.layers)
    r.fail("first_k_dense_replace",
           num(x.first_dense_layers) + " is more than num_hidden_layers (" + num(m.layers) + ")");
  if (r.has("moe_layer_freq") && r.integer("moe_layer_freq", 1) != 1)
    r.fail("moe_layer_freq",
           "transformers makes every layer past first_k_dense_replace an MoE "
           "layer; a frequency other than 1 is not what it runs");
  x.topk_method = given(r, "topk_method") ? r.string("topk_method") : d.topk_method;
  x.scoring = given(r, "scoring_func") ? r.string("scoring_func") : d.scoring;
  if (v3 && x.topk_method != "noaux_tc")
    r.fail("topk_method", "\"" + x.topk_method + "\": DeepseekV3 routes with \"noaux_tc\" only");
  if (!v3 && x.topk_method != "greedy" && x.topk_method != "group_limited_greedy")
    r.fail("topk_method",
           "\"" + x.topk_method + "\": expected \"greedy\" or \"group_limited_greedy\"");
  if (x.scoring != (v3 ? "sigmoid" : "softmax"))
    r.fail("scoring_func", "\"" + x.scoring + "\": " + d.cls + "'s model scores with " +
                               (v3 ? "sigmoid" : "softmax"));
  from(m, "routing",
       given(r, "topk_method") ? "topk_method, scoring_func, n_group, topk_group"
                               : std::string("default (") + d.cls + ")");
  x.routed_scaling_factor =
      given(r, "routed_scaling_factor") ? r.positive("routed_scaling_factor") : d.scaling;
  x.norm_topk_prob = given(r, "norm_topk_prob") ? r.boolean("norm_topk_prob") : d.norm_topk;
  x.mtp_layers = given(r, "num_nextn_predict_layers") ? size(r, "num_nextn_predict_layers", 0) : 0;
  from(m, "mtp_layers",
       given(r, "num_nextn_predict_layers") ? "num_nextn_predict_layers" : "none (not given)");
}

// DeepSeek-V3's published checkpoint: {"quant_method": "fp8", "fmt": "e4m3",
// "weight_block_size": [128, 128], "activation_scheme": "dynamic"}.
void read_quantization(JsonReader& r, ModelConfig& m) {
  if (!given(r, "quantization_config")) return;
  JsonReader& q = r.child("quantization_config");
  q.one_of("quant_method", {"fp8"});
  std::string fmt = q.has("fmt") ? q.one_of("fmt", {"e4m3"}) : "e4m3";
  if (q.has("activation_scheme")) q.one_of("activation_scheme", {"dynamic"});
  const auto& b = q.raw("weight_block_size");
  if (!b.is_array() || b.size() != 2 || !b[0].is_number_integer() || !b[1].is_number_integer() ||
      b[0].get<long long>() <= 0 || b[1].get<long long>() <= 0)
    q.fail("weight_block_size", "expected two positive integers, e.g. [128, 128]");
  m.deepseek.moe.checkpoint_quantization = "fp8 " + fmt + " " + b[0].dump() + "x" + b[1].dump();
}

void read_deepseek(JsonReader& r, ModelConfig& m) {
  bool v3 = m.family == "deepseek_v3";
  const Defaults& d = v3 ? kV3 : kV2;
  m.hidden = sized(r, m, "hidden", "hidden_size");
  m.layers = sized(r, m, "layers", "num_hidden_layers");
  m.heads = sized(r, m, "heads", "num_attention_heads");
  m.intermediate = sized(r, m, "intermediate", "intermediate_size");
  m.vocab = sized(r, m, "vocab", "vocab_size");
  m.max_positions = sized(r, m, "max_positions", "max_position_embeddings");
  from(m, "mlp", "hidden_act");
  std::string act = r.string("hidden_act");
  if (act != "silu")
    r.fail("hidden_act",
           "expected \"silu\" (DeepSeek's MLPs and experts are SwiGLU); got \"" + act + "\"");
  m.tied_embeddings = given(r, "tie_word_embeddings") && r.boolean("tie_word_embeddings");
  from(m, "tied_embeddings",
       r.has("tie_word_embeddings") ? "tie_word_embeddings"
                                    : std::string("default false (") + d.cls + ")");
  read_attention(r, m, d);
  read_routing(r, m, d, v3);
  // The shared experts run as one SwiGLU MLP beside the routed ones (family_ops.cpp).
  m.moe.shared_intermediate = m.deepseek.moe.shared_experts * m.moe.expert_intermediate;
  read_rope(r, m);
  read_quantization(r, m);
  m.norm = NormKind::RmsNorm;
  m.mlp = MlpKind::GatedSilu;
  m.position = PositionKind::Rope;
}

const Keys& ignored_keys(std::string_view model_type) {
  static const Keys v2 = [] {
    Keys k = kIgnored;
    k.push_back("mlp_bias");  // DeepseekV2Config carries it; its MLPs never read it
    return k;
  }();
  return model_type == "deepseek_v2" ? v2 : kIgnored;
}

}  // namespace

namespace hf {
std::vector<Family> deepseek_families() {
  return {{"deepseek_v2", kShape, ignored_keys("deepseek_v2"), "DeepseekV2Config", read_deepseek},
          {"deepseek_v3", kShape, ignored_keys("deepseek_v3"), "DeepseekV3Config", read_deepseek}};
}
}  // namespace hf

}  // namespace ridgeline
