// trtllm-bench's engine settings. `trtllm-bench throughput` (TensorRT-LLM's performance overview)
// does not take max_batch_size and max_num_tokens from the user: it derives them from the model,
// the GPUs and the dataset's lengths (tensorrt_llm/bench/build/tuning.py, calc_engine_setting and
// finetune_setting, read from the stored source 2026-12-06):
//   KV bytes a token = 2 x layers x max(tp, kv_heads) x head_dim x (1 for an FP8 cache, else 2)
//   free GiB = total GiB of the tp x pp GPUs - parameters x (1 for FP8 weights, else 2) / 2^30
//   requests = 0.95 x free / (KV a token x (ISL + OSL))           (kv_cache_free_gpu_mem_fraction)
//   batch = min(requests, 4096) / pp, rounded up: to 32 (at least 64) below 256, to 128 below
//           1024, else to 256
//   tokens = min(batch x (1 + ISL / OSL), 32768), rounded up: to 256 (at least 2048) below 4096,
//           to 512 below 8192, else to 1024
// An engine file says it sizes this way with "scheduler": {"limits": "trtllm_bench"} (and gives
// no max_num_seqs or max_num_batched_tokens of its own); a run then sets them from its workload's
// mean lengths.
#pragma once

#include "hardware/gpu_spec.h"
#include "serve/engine.h"
#include "workloads/model_config.h"
#include "workloads/run_config.h"

#include <cstdint>

namespace ridgeline {

struct BenchLimits {
  int64_t max_batch_size = 0, max_num_tokens = 0;
};

// The rounding of finetune_setting, from the requests the KV cache holds (unrounded).
BenchLimits trtllm_bench_finetune(double kv_cache_requests, double input_len, double output_len,
                                  int64_t pp);

// `engine` with its limits set for this model, GPU, tensor-parallel size, precisions and mean
// lengths when it asks for trtllm-bench's (unchanged otherwise).
// (Reads the run's weight and KV-cache precisions.)
EngineConfig with_workload_limits(EngineConfig engine, const ModelConfig& model, const GpuSpec& gpu,
                                  int64_t tp, const RunConfig& run, double input_len,
                                  double output_len);

}  // namespace ridgeline
