// How many KV blocks an engine gets on a GPU, as each engine sizes its pool:
//  fraction_of_total (vLLM: gpu_memory_utilization):
//      fraction x capacity - weights [- activation peak at the token budget - reserved]
//  sglang_reserved (SGLang's default mem_fraction_static, computed per GPU: engine.h):
//      the same with that fraction
//  fraction_of_free (TRT-LLM: free_gpu_memory_fraction; transformers: max_memory):
//      fraction x (capacity - weights - reserved [- activation peak])
// where the bracket is there when kv_cache/subtract_activation_peak is true (vLLM profiles a
// forward pass at max_num_batched_tokens; the reserved bytes are the runtime profile's CUDA
// context and workspaces). blocks = floor(bytes / (block_size x KV bytes a token)), capped by
// kv_cache/max_blocks. An engine whose memory leaves no block is an InputError naming its file.
#pragma once

#include "serve/engine.h"
#include "serve/step_model.h"

namespace ridgeline {

struct KvSizing {
  int64_t blocks = 0;   // the replica's: one GPU's pool times its attention-data-parallel ranks
  int64_t ranks = 1;    // pools (attention data parallel: a request's blocks are on one rank)
  double kv_bytes = 0;  // the pool's bytes (blocks x block bytes)
  double memory_fraction = 0;  // the fraction applied (the engine's, or SGLang's computed one)
  double activation_peak_bytes = 0;
  double weights_bytes = 0, capacity_bytes = 0;
};

KvSizing size_kv_cache(const EngineConfig& engine, StepModel& model);

}  // namespace ridgeline
