// The models table of the published training runs (validate/training_runs.h's mapping) as
// ridgeline models: each entry as a Hugging Face config of the structure it names (GPT, Llama,
// Mixtral-like and Qwen3 MoE, Nemotron), or ridgeline's preset of the same checkpoint where the
// table describes the model only in part (gpt-oss, Llama 4), every figure it prints checked.
#pragma once

#include "workloads/model_config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace ridgeline {

// A training-run row ridgeline cannot model, with the reason the scorecard counts (training_runs.h
// keeps it as a TrainingRunSkip beside the row id).
struct SkippedRow {
  std::string reason;
};

// The model `key` of the file's /models table at sequence length `seq`, and its scorecard
// family. Throws InputError naming `where` and the JSON path for a malformed or disagreeing
// entry, SkippedRow for an architecture not modelled.
ModelConfig training_run_model(const nlohmann::json& models, const std::string& key, int64_t seq,
                               const std::string& where, std::string& family);

}  // namespace ridgeline
