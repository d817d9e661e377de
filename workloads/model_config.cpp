// Model configs: finding a preset, a file or a folder holding config.json, naming it (a hub
// snapshot after its repository), counting its parameters, and listing its figures for
// `ridgeline models show`; see model_config.h. Presets are Hugging Face config.json files under
// workloads/models/, built into the binary (embedded_files.h); reading the document itself is
// hf_config.cpp.
#include "workloads/model_config.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "common/presets.h"
#include "workloads/hf_config.h"

#include <algorithm>
#include <filesystem>
#include <string_view>

namespace ridgeline {

namespace {

constexpr std::string_view kModelDir = "workloads/models/";

// More weights than this is a typo in the sizes, not a model (GPT-4-class models are ~10^12).
constexpr long double kMaxParameters = 1e15L;

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string last_part(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string drop_last_part(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

// "llama-3-8b.json" is "llama-3-8b"; a Hugging Face download, ".../Meta-Llama-3-8B/config.json",
// is named after its folder, since every such file is called config.json; a hub cache snapshot,
// ".../models--meta-llama--Llama-3.1-8B/snapshots/<hash>/config.json", after its repository.
std::string name_from_label(const std::string& label) {
  std::string file = last_part(label);
  std::string stem = ends_with(file, ".json") ? file.substr(0, file.size() - 5) : file;
  if (stem != "config" || label.find('/') == std::string::npos) return stem;
  std::string dir = drop_last_part(label);
  std::string parent = last_part(dir);
  std::string repo = last_part(drop_last_part(drop_last_part(dir)));
  constexpr std::string_view kHub = "models--";
  if (last_part(drop_last_part(dir)) == "snapshots" && repo.rfind(kHub, 0) == 0) {
    size_t sep = repo.find("--", kHub.size());  // models--ORG--NAME (ORG absent for old repos)
    std::string name = sep == std::string::npos ? repo.substr(kHub.size()) : repo.substr(sep + 2);
    if (!name.empty()) return name;
  }
  return parent.empty() || parent == "." || parent == ".." ? stem : parent;
}

// A folder given as --model: its config.json, or an error naming the folder.
std::string config_in_folder(const std::string& folder) {
  std::string dir = folder;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::string file = dir + "/config.json";
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    throw InputError(located("--model " + folder,
                             "this folder holds no config.json (a Hugging Face model folder or "
                             "hub snapshot, .../snapshots/<hash>/, has one)"));
  }
  return file;
}

long double norm_parameters(const ModelConfig& m) {
  return m.norm == NormKind::LayerNorm ? 2.0L * m.hidden : m.hidden;  // scale, LayerNorm's shift
}

long double mlp_parameters(const ModelConfig& m, int64_t width) {
  long double h = m.hidden, w = width;
  if (gated_mlp(m.mlp)) return 3 * h * w + (m.mlp_bias ? 2 * w + h : 0);  // gate, up, down
  return 2 * h * w + (m.mlp_bias ? w + h : 0);                            // fc, proj
}

long double attention_parameters(const ModelConfig& m) {
  if (m.deepseek.mla.enabled()) return mla_attention_parameters(m);  // mla_params.cpp
  long double h = m.hidden;
  long double q = (long double)m.heads * m.head_dim, kv = (long double)m.kv_heads * m.head_dim;
  long double attention = h * (q + 2 * kv) + q * h;  // q, k, v, o
  if (m.qkv_bias) attention += q + 2 * kv;
  if (m.attn_out_bias) attention += h;
  if (m.qk_norm == QkNorm::PerHead) attention += 2.0L * m.head_dim;
  if (m.qk_norm == QkNorm::AllHeads) attention += q + kv;
  if (m.attention_sinks) attention += m.heads;
  return attention;
}

long double moe_parameters(const ModelConfig& m, bool active) {
  const MoeConfig& e = m.moe;
  long double h = m.hidden, experts = active ? e.top_k : e.experts;
  long double expert = mlp_parameters(m, e.expert_intermediate);
  if (e.expert_bias) expert += 2.0L * e.expert_intermediate + h;  // gate_up and down biases
  long double router = h * e.experts + (e.expert_bias ? e.experts : 0);
  if (m.deepseek.moe.scoring == "sigmoid") router += e.experts;  // e_score_correction_bias
  long double shared = e.shared_intermediate > 0 ? mlp_parameters(m, e.shared_intermediate) : 0;
  if (e.shared_gate) shared += h;  // Linear(hidden, 1), no bias
  return experts * expert + router + shared;
}

// One block of a uniform model (or of one layer group's model).
long double uniform_block_parameters(const ModelConfig& m, bool active) {
  long double mlp =
      m.moe.experts > 0 ? moe_parameters(m, active) : mlp_parameters(m, m.intermediate);
  int norms = m.norm_placement == NormPlacement::PreAndPost ? 4 : 2;
  return attention_parameters(m) + mlp + norms * norm_parameters(m);
}

// The first `layers` blocks (all when 0).
long double blocks_parameters(const ModelConfig& m, int64_t layers, bool active) {
  long double n = 0;
  for (const auto& g : layer_groups(m, layers > 0 ? layers : m.layers))
    n += g.count * uniform_block_parameters(g.model, active);
  return n;
}

// Exact below 2^64 (long double has a 64-bit mantissa on x86); only ever compared above that.
long double table_parameters(const ModelConfig& m) {
  long double h = m.hidden;
  long double embeddings = (long double)m.vocab * h * (m.tied_embeddings ? 1 : 2);
  if (m.position == PositionKind::Learned) embeddings += (long double)m.max_positions * h;
  return embeddings;
}

long double count_parameters(const ModelConfig& m, bool active = false) {
  return table_parameters(m) + blocks_parameters(m, 0, active) + norm_parameters(m);  // final norm
}

int64_t checked(long double n) {
  require_invariant(n < 9e18L, "parameter count fits in 64 bits");
  return (int64_t)n;
}

ModelConfig from_document(const nlohmann::json& doc, const std::string& label) {
  ModelConfig m = parse_hf_config(doc, label);
  m.name = name_from_label(label);
  m.source = label;
  if (count_parameters(m) > kMaxParameters) {
    throw InputError(located(label, "/: these sizes give more than 10^15 parameters; check them"));
  }
  return m;
}

}  // namespace

std::vector<std::string> model_preset_names() {
  return preset_names(kModelDir);
}

ModelConfig load_model_text(const std::string& text, const std::string& label) {
  return from_document(parse_json_text(text, label), label);
}

ModelConfig load_model(const std::string& name_or_path) {
  const EmbeddedFile* f = find_preset(kModelDir, name_or_path);
  std::error_code ec;
  if (looks_like_path(name_or_path) || (!f && std::filesystem::is_directory(name_or_path, ec))) {
    std::string file = std::filesystem::is_directory(name_or_path, ec)
                           ? config_in_folder(name_or_path)
                           : name_or_path;
    return from_document(read_json_file(file), file);
  }
  if (!f) {
    throw InputError(located("--model", "unknown model \"" + name_or_path +
                                            "\"; presets: " + joined_names(model_preset_names()) +
                                            " (or give a Hugging Face config.json or the "
                                            "folder holding it)"));
  }
  return load_model_text(std::string(f->text), std::string(f->path));
}

int64_t parameter_count(const ModelConfig& m) {
  return checked(count_parameters(m));
}

int64_t active_parameter_count(const ModelConfig& m) {
  return checked(count_parameters(m, true));
}

int64_t block_parameter_count(const ModelConfig& m) {
  if (m.layer_kinds.empty() || m.layers <= 0) return checked(uniform_block_parameters(m, false));
  return checked(blocks_parameters(m, 0, false) / m.layers);
}

int64_t weight_parameter_count(const ModelConfig& m, int64_t blocks) {
  return blocks > 0 ? checked(blocks_parameters(m, blocks, false)) : parameter_count(m);
}

int64_t table_parameter_count(const ModelConfig& m, int64_t blocks) {
  return blocks > 0 ? 0 : checked(table_parameters(m));
}

double routed_expert_parameters(const ModelConfig& m) {
  if (m.moe.experts == 0) return 0;
  double per = (m.mlp == MlpKind::GatedSilu ? 3.0 : 2.0) * m.hidden * m.moe.expert_intermediate;
  return (double)m.moe.experts * per;
}

double routed_expert_parameter_count(const ModelConfig& m, int64_t blocks) {
  double n = 0;
  for (const LayerGroup& g : layer_groups(m, blocks > 0 ? blocks : m.layers))
    n += (double)g.count * routed_expert_parameters(g.model);
  return n;
}

double kv_cache_bytes_per_token(const ModelConfig& m, double bytes_per_element) {
  return (double)m.layers * kv_cache_elements_per_layer(m) * bytes_per_element;
}

}  // namespace ridgeline

namespace ridgeline {

namespace {

std::string yes_no(bool b) {
  return b ? "yes" : "no";
}

std::string source_of(const ModelConfig& m, const std::string& figure) {
  for (const auto& s : m.sources) {
    if (s.figure == figure) return s.source;
  }
  return "fixed by model_type " + m.family;
}

std::string number(double x) {
  std::string s = std::to_string(x);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

// The figures only some families set, shown when set (a Llama config lists as before).
template <typename Add>
void add_family_figures(const ModelConfig& m, Add add) {
  if (m.norm_placement != NormPlacement::Pre)
    add("norm_placement", m.norm_placement == NormPlacement::Post ? "post" : "pre and post");
  if (m.qk_norm != QkNorm::None)
    add("qk_norm", m.qk_norm == QkNorm::PerHead    ? "rmsnorm per head"
                   : m.qk_norm == QkNorm::AllHeads ? "rmsnorm over all heads"
                                                   : "l2 per head");
  if (m.attn_softcap > 0) add("attn_softcap", number(m.attn_softcap));
  if (m.final_softcap > 0) add("final_softcap", number(m.final_softcap));
  if (m.attention_sinks) add("attention_sinks", "yes");
  if (!m.layer_kinds.empty()) {
    std::string kinds;
    for (const auto& g : layer_groups(m, m.layers)) {
      const ModelConfig& v = g.model;
      std::string k = v.sliding_window == 0 ? "full" : "window " + std::to_string(v.sliding_window);
      if (v.position == PositionKind::None) k += " nope";
      k += v.moe.experts > 0 ? " moe" : " dense";
      kinds += (kinds.empty() ? "" : ", ") + std::to_string(g.count) + "x " + k;
    }
    add("layer_kinds", kinds);
  }
  const MoeConfig& e = m.moe;
  if (e.shared_intermediate > 0 && !m.deepseek.moe.enabled())  // DeepSeek's: shared_experts
    add("shared_expert", std::to_string(e.shared_intermediate) + (e.shared_gate ? " gated" : ""));
  if (e.mxfp4_experts) add("expert_weights", "mxfp4");
}

// MLA and DeepSeek's MoE layout (mla_config.h), when the model has them.
void add_deepseek_figures(const ModelConfig& m, std::vector<ModelFigure>& out) {
  auto add = [&](const std::string& name, const std::string& value) {
    out.push_back({name, value, source_of(m, name)});
  };
  auto n = [](int64_t v) { return std::to_string(v); };
  const MlaConfig& a = m.deepseek.mla;
  if (a.enabled()) {
    add("q_lora_rank", a.q_lora_rank > 0 ? n(a.q_lora_rank) : "none (q_proj)");
    add("kv_lora_rank", n(a.kv_lora_rank));
    add("qk_nope_head_dim", n(a.qk_nope_head_dim));
    add("qk_rope_head_dim", n(a.qk_rope_head_dim));
    add("v_head_dim", n(a.v_head_dim));
    out.push_back({"kv_cache_per_layer", n(a.latent_per_token()) + " per token",
                   "kv_lora_rank + qk_rope_head_dim (the latent; full K/V per head: " +
                       n(m.heads * (a.qk_head_dim() + a.v_head_dim)) + ")"});
  }
  const DeepseekMoe& d = m.deepseek.moe;
  if (m.moe.experts == 0 || !d.enabled()) return;
  add("shared_experts", n(d.shared_experts));
  add("first_dense_layers", n(d.first_dense_layers));
  out.push_back({"routing", d.topk_method + " " + n(d.topk_groups) + "/" + n(d.groups) + " groups",
                 source_of(m, "routing") + ", " + d.scoring + " scores"});
  out.push_back({"routed_scale",
                 number(d.routed_scaling_factor) + (d.norm_topk_prob ? " renorm" : ""),
                 "routed_scaling_factor, norm_topk_prob"});
  add("mtp_layers", d.mtp_layers > 0 ? n(d.mtp_layers) + " (not run)" : "none");
  if (!d.checkpoint_quantization.empty())
    out.push_back({"checkpoint_weights", d.checkpoint_quantization,
                   "quantization_config (storage; the run's weights: --weight-dtype)"});
}

}  // namespace

std::vector<ModelFigure> model_figures(const ModelConfig& m) {
  std::vector<ModelFigure> out;
  auto add = [&](const std::string& name, const std::string& value) {
    out.push_back({name, value, source_of(m, name)});
  };
  auto n = [](int64_t v) { return std::to_string(v); };
  add("hidden", n(m.hidden));
  add("layers", n(m.layers));
  add("heads", n(m.heads));
  add("kv_heads", n(m.kv_heads));
  add("head_dim", n(m.head_dim));
  add("intermediate", n(m.intermediate));
  add("vocab", n(m.vocab));
  add("max_positions", n(m.max_positions));
  add("tied_embeddings", yes_no(m.tied_embeddings));
  add("qkv_bias", yes_no(m.qkv_bias));
  add("attn_out_bias", yes_no(m.attn_out_bias));
  add("mlp_bias", yes_no(m.mlp_bias));
  add("sliding_window", m.sliding_window > 0 ? n(m.sliding_window) : "none (full attention)");
  add("norm", m.norm == NormKind::RmsNorm ? "rmsnorm" : "layernorm");
  add("mlp", m.mlp == MlpKind::GatedSilu   ? "gated silu (SwiGLU)"
             : m.mlp == MlpKind::GatedGelu ? "gated gelu-tanh (GeGLU)"
             : m.mlp == MlpKind::Relu2     ? "squared relu (relu2, no gate)"
                                           : "gelu");
  add("position", m.position == PositionKind::Rope      ? "rope"
                  : m.position == PositionKind::Learned ? "learned"
                                                        : "none");
  add_family_figures(m, add);
  if (m.moe.experts > 0) {
    add("experts", n(m.moe.experts));
    add("top_k", n(m.moe.top_k));
    add("expert_intermediate", n(m.moe.expert_intermediate));
  }
  add_deepseek_figures(m, out);
  if (m.position != PositionKind::Rope) return out;
  const RopeScaling& r = m.rope_scaling;
  if (r.type.empty()) {
    add("rope_scaling", "none");
    return out;
  }
  // Scaling changes RoPE's frequencies, not the kernels; shown because it was read.
  std::string key = source_of(m, "rope_scaling");  // rope_scaling or rope_parameters
  out.push_back({"rope_scaling", r.type, key + " (RoPE's frequencies, not the kernels)"});
  out.push_back({"rope_factor", number(r.factor), key + "/factor"});
  if (r.type == "llama3") {
    out.push_back({"rope_low_freq_factor", number(r.low_freq_factor), key + "/low_freq_factor"});
    out.push_back({"rope_high_freq_factor", number(r.high_freq_factor), key + "/high_freq_factor"});
  }
  out.push_back({"rope_original_context", std::to_string(r.original_max_positions),
                 key + "/original_max_position_embeddings"});
  return out;
}

}  // namespace ridgeline
