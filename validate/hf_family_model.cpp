// Family records' models; see hf_family_model.h.
#include "validate/hf_family_model.h"

#include "common/errors.h"
#include "workloads/hf_config.h"

#include <algorithm>

namespace ridgeline {

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
  r.string("family");
  const nlohmann::json& config = r.raw("config");
  if (!config.is_object()) r.fail("config", "expected the object transformers' config wrote");
  const auto& types = supported_model_types();
  if (config.contains("model_type") && config["model_type"].is_string() &&
      std::find(types.begin(), types.end(), config["model_type"].get<std::string>()) ==
          types.end()) {
    skipped = "model_type " + config["model_type"].get<std::string>() + " is not imported";
    return std::nullopt;
  }
  // The keys every to_dict() writes are accepted by the importer (hf_config.cpp's bookkeeping).
  ModelConfig m = load_model_text(config.dump(), r.where("config"));
  int64_t layers = r.integer("layers", 1);
  if (layers != m.layers)
    r.fail("layers", std::to_string(layers) + " disagrees with config/num_hidden_layers (" +
                         std::to_string(m.layers) + ")");
  m.name = r.string("model") + "-L" + std::to_string(layers);
  return m;
}

}  // namespace ridgeline
