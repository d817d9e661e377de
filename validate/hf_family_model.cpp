// Family records' models; see hf_family_model.h.
#include "validate/hf_family_model.h"

#include "common/errors.h"

#include <algorithm>
#include <array>

namespace ridgeline {

namespace {

// Keys PretrainedConfig.to_dict() writes for every model (transformers 5.17): output switches and
// classification-head bookkeeping, none of which shapes a causal LM's kernels.
constexpr std::array<const char*, 8> kToDictKeys = {
    "output_hidden_states", "return_dict",      "chunk_size_feed_forward",
    "is_encoder_decoder",   "id2label",         "label2id",
    "problem_type",         "output_attentions"};

constexpr std::array<const char*, 1> kImported = {"deepseek-v3"};

}  // namespace

bool is_family_record(JsonReader& r) {
  return r.has("family") && r.has("config");
}

std::string family_record_skip_reason(JsonReader& r) {
  if (r.has("cache") && r.string("cache") == "dynamic" && r.string("phase") == "decode" &&
      r.string("launch") == "eager")
    return "a growing-cache eager decode of run 1, host-bound at 40-70 ms a step outside the "
           "model's code (meta.runs_note); its dynamic_crop rerun is scored";
  if (r.has("cache") && r.string("cache") == "sdpa_flash") return "the sdpa_flash diagnostic";
  return "";
}

std::optional<ModelConfig> family_record_model(JsonReader& r, std::string& skipped) {
  std::string family = r.string("family");
  if (std::find(kImported.begin(), kImported.end(), family) == kImported.end()) {
    skipped = "family " + family + " is not imported on this branch (issue 14, families)";
    r.raw("config");
    return std::nullopt;
  }
  nlohmann::json config = r.raw("config");
  if (!config.is_object()) r.fail("config", "expected the object transformers' config wrote");
  for (const char* k : kToDictKeys) config.erase(k);
  ModelConfig m = load_model_text(config.dump(), r.where("config"));
  int64_t layers = r.integer("layers", 1);
  if (layers != m.layers)
    r.fail("layers", std::to_string(layers) + " disagrees with config/num_hidden_layers (" +
                         std::to_string(m.layers) + ")");
  m.name = r.string("model") + "-L" + std::to_string(layers);
  return m;
}

}  // namespace ridgeline
