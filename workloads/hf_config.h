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

// Reads a parsed config.json; `label` names the document in errors. Fills every field but
// name and source. Throws InputError naming `label` and the JSON path.
ModelConfig parse_hf_config(const nlohmann::json& doc, const std::string& label);

}  // namespace ridgeline
