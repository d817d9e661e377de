// The training runs' models table as ridgeline models; see training_run_models.h.
#include "validate/training_run_models.h"

#include "common/errors.h"
#include "common/json_reader.h"

namespace ridgeline {

namespace {

using nlohmann::json;
using Skip = SkippedRow;

// Models of the 2025-26 families the table describes only in part (gpt-oss's sinks and windows,
// Llama 4's NoPE and chunked layers): ridgeline's preset of the same checkpoint, every figure the
// table prints checked against it.
struct PresetFamily {
  const char* key;
  const char* preset;
  const char* family;
};
constexpr PresetFamily kPresetFamilies[] = {{"gpt_oss_120b", "gpt-oss-120b", "gpt_oss"},
                                            {"llama4_maverick_400b", "llama-4-maverick", "llama4"},
                                            {"llama4_scout", "llama-4-scout", "llama4"}};

const PresetFamily* preset_family_of(const std::string& key) {
  for (const auto& f : kPresetFamilies)
    if (key == f.key) return &f;
  return nullptr;
}

ModelConfig preset_model(JsonReader& r, const std::string& key, const PresetFamily& f,
                         const json& m, std::string& family) {
  ModelConfig model = load_model(f.preset);
  const std::pair<const char*, int64_t> figures[] = {
      {"layers", model.layers},
      {"hidden", model.hidden},
      {"heads", model.heads},
      {"kv_heads", model.kv_heads},
      {"head_dim", model.head_dim},
      {"vocab", model.vocab},
      {"experts", model.moe.experts},
      {"topk", model.moe.top_k},
      {"moe_ffn", model.moe.expert_intermediate},
      {"shared_expert_ffn", model.moe.shared_intermediate}};
  for (const auto& [field, preset] : figures)
    if (m.contains(field) && r.integer(field, 0) != preset)
      r.fail(field, std::to_string(r.integer(field, 0)) + ", but the " + f.preset +
                        " preset it is read as has " + std::to_string(preset));
  family = f.family;
  model.name = key;
  return model;
}

}  // namespace

ModelConfig training_run_model(const json& models, const std::string& key, int64_t seq,
                               const std::string& where, std::string& family) {
  if (!models.contains(key)) throw InputError(where + "/model: \"" + key + "\" not in /models");
  const json& m = models[key];
  JsonReader r(m, where.substr(0, where.find(':')), "/models/" + key);
  std::string arch = r.string("arch");
  int64_t hidden = r.integer("hidden", 1), layers = r.integer("layers", 1);
  int64_t heads = r.integer("heads", 1), ffn = r.integer("ffn", 1);
  int64_t vocab = r.integer("vocab", 1);
  json hf;
  if (arch == "gpt") {
    family = "gpt3";
    hf = {{"model_type", "gpt2"}, {"n_embd", hidden},
          {"n_layer", layers},    {"n_head", heads},
          {"n_inner", ffn},       {"vocab_size", vocab},
          {"n_positions", seq},   {"activation_function", "gelu"}};
  } else if (arch == "llama" || arch == "moe") {
    int64_t kv = r.integer("kv_heads", 1), head_dim = r.integer("head_dim", 1);
    hf = {{"model_type", arch == "moe" ? "mixtral" : "llama"},
          {"hidden_size", hidden},
          {"num_hidden_layers", layers},
          {"num_attention_heads", heads},
          {"num_key_value_heads", kv},
          {"head_dim", head_dim},
          {"intermediate_size", ffn},
          {"vocab_size", vocab},
          {"max_position_embeddings", seq},
          {"hidden_act", "silu"},
          {"tie_word_embeddings", false}};
    if (arch == "moe" && key.rfind("qwen3", 0) == 0 && m.contains("moe_ffn") &&
        !m.contains("shared_experts")) {
      // Qwen3-MoE (NeMo's Qwen3MoEConfig): every layer MoE, routed experts of moe_ffn, QK-norm.
      hf["model_type"] = "qwen3_moe";
      hf["moe_intermediate_size"] = r.integer("moe_ffn", 1);
      hf["num_experts"] = r.integer("experts", 1);
      hf["num_experts_per_tok"] = r.integer("topk", 1);
      hf["decoder_sparse_step"] = 1;
      hf["mlp_only_layers"] = json::array();
      hf["norm_topk_prob"] = true;
      family = "qwen3_moe";
    } else if (arch == "moe") {
      int64_t experts = r.integer("experts", 1), topk = r.integer("topk", 1);
      if (m.contains("moe_ffn") || m.contains("shared_experts") || experts != 8 || topk != 2)
        throw Skip{
            "MoE design other than Mixtral-like (8 experts, top-2) or Qwen3-MoE not "
            "modelled"};
      hf["num_local_experts"] = experts;
      hf["num_experts_per_tok"] = topk;
      family = key.rfind("grok", 0) == 0 ? "grok1" : "mixtral";
    } else {
      family = key.rfind("llama2", 0) == 0 ? "llama2" : "llama3";
    }
  } else if (arch.rfind("nemotron", 0) == 0) {
    family = "nemotron";
    hf = {{"model_type", "nemotron"},
          {"hidden_size", hidden},
          {"num_hidden_layers", layers},
          {"num_attention_heads", heads},
          {"num_key_value_heads", r.integer("kv_heads", 1)},
          {"head_dim", r.integer("head_dim", 1)},
          {"intermediate_size", ffn},
          {"vocab_size", vocab},
          {"max_position_embeddings", seq},
          {"hidden_act", "relu2"},
          {"tie_word_embeddings", false}};
  } else if (const PresetFamily* f = preset_family_of(key)) {
    return preset_model(r, key, *f, m, family);
  } else {
    throw Skip{"architecture \"" + arch + "\" not modelled (issue 14)"};
  }
  ModelConfig model = load_model_text(hf.dump(), where + " (/models/" + key + ")");
  model.name = key;
  return model;
}

}  // namespace ridgeline
