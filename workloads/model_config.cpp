// Model configs: finding a preset or a file, naming it, and counting its parameters; see
// model_config.h. Presets are Hugging Face config.json files under workloads/models/, built
// into the binary (embedded_files.h); reading the document itself is hf_config.cpp.
#include "workloads/model_config.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "common/presets.h"
#include "workloads/hf_config.h"

#include <string_view>

namespace ridgeline {

namespace {

constexpr std::string_view kModelDir = "workloads/models/";

// More weights than this is a typo in the sizes, not a model (GPT-4-class models are ~10^12).
constexpr long double kMaxParameters = 1e15L;

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// "llama-3-8b.json" is "llama-3-8b"; a Hugging Face download, ".../Meta-Llama-3-8B/config.json",
// is named after its folder, since every such file is called config.json.
std::string name_from_label(const std::string& label) {
  size_t slash = label.find_last_of('/');
  std::string file = slash == std::string::npos ? label : label.substr(slash + 1);
  std::string stem = ends_with(file, ".json") ? file.substr(0, file.size() - 5) : file;
  if (stem != "config" || slash == std::string::npos || slash == 0) return stem;
  std::string dir = label.substr(0, slash);
  size_t up = dir.find_last_of('/');
  std::string parent = up == std::string::npos ? dir : dir.substr(up + 1);
  return parent.empty() || parent == "." || parent == ".." ? stem : parent;
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
  long double experts = active ? m.moe.top_k : m.moe.experts;
  long double mlp = m.moe.experts > 0 ? experts * mlp_parameters(m, m.moe.expert_intermediate) +
                                            h * m.moe.experts  // the router, no bias
                                      : mlp_parameters(m, m.intermediate);
  return attention + mlp + 2 * norm_parameters(m);  // pre-attention, pre-MLP
}

// Exact below 2^64 (long double has a 64-bit mantissa on x86); only ever compared above that.
long double count_parameters(const ModelConfig& m, bool active = false) {
  long double h = m.hidden;
  long double embeddings = (long double)m.vocab * h * (m.tied_embeddings ? 1 : 2);
  if (m.position == PositionKind::Learned) embeddings += (long double)m.max_positions * h;
  return embeddings + m.layers * block_parameters(m, active) + norm_parameters(m);  // final norm
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
  if (looks_like_path(name_or_path))
    return from_document(read_json_file(name_or_path), name_or_path);
  const EmbeddedFile* f = find_preset(kModelDir, name_or_path);
  if (!f) {
    throw InputError(located("--model", "unknown model \"" + name_or_path +
                                            "\"; presets: " + joined_names(model_preset_names()) +
                                            " (or give a path to a Hugging Face config.json)"));
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
  return blocks > 0 ? checked(blocks * block_parameters(m, false)) : parameter_count(m);
}

double kv_cache_bytes_per_token(const ModelConfig& m, double bytes_per_element) {
  return 2.0 * (double)m.layers * (double)m.kv_heads * (double)m.head_dim * bytes_per_element;
}

}  // namespace ridgeline
