// Views of model configs: `ridgeline models` (one line per preset) and `ridgeline models show`
// (every figure with the config key it came from, parameters, KV-cache bytes per token). The
// numbers are computed by the caller (ModelSummary); these only print them.
#pragma once

#include "workloads/model_config.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <vector>

namespace ridgeline {

struct ModelSummary {
  ModelConfig config;
  int64_t parameters = 0;         // every weight (all experts)
  int64_t active_parameters = 0;  // those one token's forward pass uses
  int64_t block_parameters = 0;   // one decoder block
  double kv_bytes_per_token_bf16 = 0;
  double kv_bytes_per_token_fp8 = 0;
};

void print_model_list(std::ostream& os, const std::vector<ModelSummary>& models);
nlohmann::ordered_json model_list_json(const std::vector<ModelSummary>& models);
void print_model_show(std::ostream& os, const ModelSummary& model);
nlohmann::ordered_json model_show_json(const ModelSummary& model);

}  // namespace ridgeline
