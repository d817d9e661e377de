// A generate() call (greedy, new_tokens tokens after a prompt) from step predictions: the time to
// the first token is the runtime's generate() setup (host time before the first forward,
// runtime_profile.h generate_setup_us) and the prompt's prefill, each later token one decode step
// over the cache as it grows (priced at the mean cache length: the step is linear in it), and the
// whole call the first token plus new_tokens - 1 decode steps. Any runtime; with eager launch each
// step is the slower of the GPU and the host (timeline.h). The memory the call needs is its last
// step's (the longest cache).
#pragma once

#include "hardware/gpu_spec.h"
#include "model/prediction.h"
#include "workloads/model_config.h"
#include "workloads/run_config.h"

#include <optional>

namespace ridgeline {

struct GeneratePrediction {
  double ttft_us = 0, per_token_us = 0, total_us = 0;
};

// The steps a generate() prediction is made of, for views: the prompt's prefill, the decode step
// at the mean cache length (new_tokens > 1) and the last step's memory.
struct GenerateSteps {
  GeneratePrediction times;
  int64_t new_tokens = 0;
  double tokens_per_s = 0;  // batch x new_tokens over the whole call
  Prediction prefill;
  std::optional<Prediction> decode;
  int64_t decode_kv_first = 0, decode_kv_last = 0;  // cached tokens of the first and last step
  MemoryFootprint memory;                           // of the last step
};

// `prefill`: the prompt's run (Phase::Prefill, seq = prompt tokens). Throws InputError naming
// --seq for a prefill without a prompt and --new-tokens for new_tokens < 1.
GeneratePrediction predict_generate(const ModelConfig& model, const RunConfig& prefill,
                                    int64_t new_tokens, const GpuSpec& gpu);
GenerateSteps predict_generate_steps(const ModelConfig& model, const RunConfig& prefill,
                                     int64_t new_tokens, const GpuSpec& gpu);

}  // namespace ridgeline
