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
  if (m.mlp == MlpKind::GatedSilu)
    return 3 * h * w + (m.mlp_bias ? 2 * w + h : 0);  // gate, up, down
  return 2 * h * w + (m.mlp_bias ? w + h : 0);        // fc, proj
}

long double block_parameters(const ModelConfig& m, bool active) {
  long double h = m.hidden;
  long double q = (long double)m.heads * m.head_dim, kv = (long double)m.kv_heads * m.head_dim;
  long double attention = h * (q + 2 * kv) + q * h;  // q, k, v, o
  if (m.qkv_bias) attention += q + 2 * kv;
  if (m.attn_out_bias) attention += h;
  if (m.deepseek.mla.enabled()) attention = mla_attention_parameters(m);
  long double experts = active ? m.moe.top_k : m.moe.experts;
  long double mlp = m.moe.experts > 0 ? experts * mlp_parameters(m, m.moe.expert_intermediate) +
                                            h * m.moe.experts +  // the router, no bias
                                            shared_expert_parameters(m)
                                      : mlp_parameters(m, m.intermediate);
  return attention + mlp + 2 * norm_parameters(m);  // pre-attention, pre-MLP
}

long double dense_block_parameters(const ModelConfig& m) {
  ModelConfig dense = m;
  dense.moe.experts = 0;
  return block_parameters(dense, false);
}

// Exact below 2^64 (long double has a 64-bit mantissa on x86); only ever compared above that.
long double count_parameters(const ModelConfig& m, bool active = false) {
  long double h = m.hidden;
  long double embeddings = (long double)m.vocab * h * (m.tied_embeddings ? 1 : 2);
  if (m.position == PositionKind::Learned) embeddings += (long double)m.max_positions * h;
  int64_t dense = dense_layer_count(m, m.layers);  // all, or DeepSeek's first dense layers
  return embeddings + dense * dense_block_parameters(m) +
         (m.layers - dense) * block_parameters(m, active) + norm_parameters(m);  // final norm
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
  return checked(block_parameters(m, false));
}

int64_t weight_parameter_count(const ModelConfig& m, int64_t blocks) {
  if (blocks == 0) return parameter_count(m);
  int64_t dense = dense_layer_count(m, blocks);
  return checked(dense * dense_block_parameters(m) + (blocks - dense) * block_parameters(m, false));
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
  add("mlp", m.mlp == MlpKind::GatedSilu ? "gated silu (SwiGLU)" : "gelu");
  add("position", m.position == PositionKind::Rope ? "rope" : "learned");
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
