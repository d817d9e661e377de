// The prices a serving step model asks for (serve/gpu_step_model.h memoises them), so that serve/
// never builds a kernel itself:
//  - the step's kernels but attention over `tokens` tokens, logits for `sampled` rows
//    (workloads' build_serving_step_graph, predicted like any workload);
//  - one attention kernel a layer for `requests` sequences of `q_len` new tokens over `kv_len`
//    keys (causal when q_len > 1), in the dtypes and launch mode of the run, times the layers
//    (where layers differ, each kind's own: a windowed layer's keys are capped at its window);
//    for multi-head latent attention, the absorbed form's part for that group
//    (build_serving_mla_attention_graph: a decode's absorb GEMMs and FlashMLA over the latent,
//    a prefill chunk's decompression of its keys and flash attention);
//  - or, for an engine that packs the batch (transformers' paged|sdpa), a layer's gather of the
//    batch's K and V from the paged cache, their copy to every query head (repeat_kv, then
//    contiguous: a strided copy) and one SDPA over all `q_tokens` against all `kv_tokens` with
//    an additive mask (validate/data/h200-sxm-paged-sdpa-2026-12-02.json), times the layers;
//  - the memory figures KV sizing needs (weights, reserved, KV bytes a token, activation peak).
#pragma once

#include "hardware/gpu_spec.h"
#include "workloads/model_config.h"
#include "workloads/run_config.h"

#include <cstdint>

namespace ridgeline {

double serving_dense_us(const GpuSpec& gpu, const ModelConfig& model, const RunConfig& run,
                        int64_t tokens, int64_t sampled);
double serving_attention_us(const GpuSpec& gpu, const ModelConfig& model, const RunConfig& run,
                            int64_t requests, int64_t q_len, int64_t kv_len);
double serving_packed_attention_us(const GpuSpec& gpu, const ModelConfig& model,
                                   const RunConfig& run, int64_t q_tokens, int64_t kv_tokens);

struct ServingMemory {
  double capacity_bytes = 0, weights_bytes = 0, reserved_bytes = 0;
  double kv_bytes_per_token = 0;  // every layer's K and V (MLA: the latent and RoPE key)
  // Where layers differ, the windowed layers' (sliding, or Llama 4's chunks) share of those
  // bytes and their (largest) window: engines keep only a window of them (vLLM V1's hybrid
  // allocator, TensorRT-LLM's variable sliding window, SGLang's SWA pool). 0: none.
  int64_t kv_window_tokens = 0;
  double kv_windowed_share = 0;
};
ServingMemory serving_memory(const GpuSpec& gpu, const ModelConfig& model, const RunConfig& run);
// The run a serving engine gives `model`: MLA in its absorbed form only (an InputError naming
// the model's file otherwise), the checkpoint's MXFP4 experts (gpt-oss) kept as they are unless
// the run's weights are NVFP4 (an NVFP4 checkpoint quantizes the experts as well).
RunConfig serving_run(const ModelConfig& model, RunConfig run);
// Sets m's KV figures for `model` (one GPU's or one rank's) at the run's KV dtype.
void set_serving_kv_bytes(ServingMemory& m, const ModelConfig& model, const RunConfig& run);
// Activation peak of a forward pass over `tokens` prompt tokens (vLLM's profile run).
double serving_activation_peak_bytes(const GpuSpec& gpu, const ModelConfig& model,
                                     const RunConfig& run, int64_t tokens);

}  // namespace ridgeline
