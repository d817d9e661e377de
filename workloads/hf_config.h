// Reading a Hugging Face config.json into a ModelConfig: the key table of each supported
// model_type (llama, mistral, mixtral, qwen2, gpt2) and the shape rules between the keys.
// model_config.cpp finds the file (a preset or a path); this reads the document.
#pragma once

#include "workloads/model_config.h"

#include <nlohmann/json.hpp>

#include <string>

namespace ridgeline {

// The supported model_type values, in the order errors list them.
const std::vector<std::string>& supported_model_types();

// The keys each model_type accepts: those read (they shape the kernels, or are checked) and
// those ignored on purpose (bookkeeping, values that leave the cost alone). Any other key is an
// error. For docs/model-configs.md and its test.
struct ModelTypeKeys {
  std::string model_type;
  std::vector<std::string> read;
  std::vector<std::string> ignored;
};
std::vector<ModelTypeKeys> model_config_keys();
// The keys of a rope_scaling object that are read ("type" is the pre-4.43 spelling).
const std::vector<std::string>& rope_scaling_keys();

// Reads a parsed config.json; `label` names the document in errors. Fills every field but
// name and source. Throws InputError naming `label` and the JSON path.
ModelConfig parse_hf_config(const nlohmann::json& doc, const std::string& label);

}  // namespace ridgeline
