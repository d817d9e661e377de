// The HF config.json import of DeepSeek-V2 and DeepSeek-V3 (model_type deepseek_v2, deepseek_v3):
// their key tables and the reading of MLA and DeepSeek's MoE layout into a ModelConfig. Registered
// in hf_config.cpp's family table; hf_config_deepseek.cpp says what each key does.
#pragma once

#include "common/json_reader.h"
#include "workloads/model_config.h"

#include <string_view>
#include <vector>

namespace ridgeline {

bool is_deepseek_type(std::string_view model_type);
// Keys read (shape the kernels or are checked) and keys ignored on purpose, for `model_type`.
const std::vector<std::string_view>& deepseek_read_keys(std::string_view model_type);
const std::vector<std::string_view>& deepseek_ignored_keys(std::string_view model_type);
// Reads every figure but name and source; m.family is set. Throws InputError with the JSON path.
void read_deepseek(JsonReader& r, ModelConfig& m);

}  // namespace ridgeline
