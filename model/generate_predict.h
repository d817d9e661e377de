// A generate() call (greedy, new_tokens tokens after a prompt) from step predictions: the time to
// the first token is the prompt's prefill, each later token one decode step over the cache as it
// grows (priced at the mean cache length: the step is linear in it), and the whole call the
// first token plus new_tokens - 1 decode steps. Any runtime; with eager launch each step is the
// slower of the GPU and the host (timeline.h).
#pragma once

#include "hardware/gpu_spec.h"
#include "workloads/model_config.h"
#include "workloads/run_config.h"

namespace ridgeline {

struct GeneratePrediction {
  double ttft_us = 0, per_token_us = 0, total_us = 0;
};

// `prefill`: the prompt's run (Phase::Prefill, seq = prompt tokens).
GeneratePrediction predict_generate(const ModelConfig& model, const RunConfig& prefill,
                                    int64_t new_tokens, const GpuSpec& gpu);

}  // namespace ridgeline
