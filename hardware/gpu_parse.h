// Internal to hardware/: parsing a complete GPU document and the model-parameter object.
#pragma once

#include "common/json_reader.h"
#include "hardware/gpu_spec.h"

#include <nlohmann/json.hpp>

namespace ridgeline {

// Parses a GPU document whose "model" object is complete; errors name `label`.
GpuSpec parse_gpu_document(const nlohmann::json& doc, const std::string& label);
// Reads every model parameter below `model` (no finish(); the caller runs it).
void parse_model_params(JsonReader& model, ModelParams& p);

// Applies one "a.b.c=value" what-if to `doc`; errors name the flag. Returns a description.
void apply_override(nlohmann::json& doc, const std::string& assignment);
// Merges `overlay` into `base` key by key; a key that `base` lacks is an error naming `label`.
void merge_strict(nlohmann::json& base, const nlohmann::json& overlay, const std::string& label,
                  const std::string& path);

}  // namespace ridgeline
