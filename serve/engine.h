// A serving engine as data: serve/engines/NAME.json (built into the binary) or a user's file,
// read strictly (unknown keys are errors naming the file and JSON path). The scheduler policy
// (serve/policies/*.cpp) decides how a step's batch forms; the numbers it uses are here.
//
//   {"description", "source",
//    "runtime": "fused", "launch": "graph",        workloads/runtimes/ profile and launch mode
//    "scheduler": {"policy": "vllm_v1", "max_num_batched_tokens": 8192, "max_num_seqs": 1024,
//                  "chunked_prefill": true, ...policy's own keys},
//      (trtllm: "limits": "trtllm_bench" instead of the two numbers: trtllm-bench's sizing)
//    "kv_cache": {"block_size_tokens": 16, "memory": "fraction_of_total" | "fraction_of_free",
//                 "memory_fraction": 0.9, "subtract_activation_peak": true,
//                 ("memory": "sglang_reserved" with "reserved": {...} instead of the fraction:
//                  SGLang's mem_fraction_static from the GPU's memory, see SglangReserved)
//                 "max_blocks": 0 (no cap), "prefix_caching": false,
//                 "dtype": "weights" | "activations"},   the cache's precision under --precision
//    "cuda_graphs": {"sizes": [1, 2, 4], "step": 8, "max_batch_size": 512} or null (eager),
//    "host": {"overhead_us_per_step": 300, "source": "..."},
//    "attention": {"layout": "packed_masked", "kv_padding_tokens": 16384,
//                  "uniform_sliding_window": "model" | "full", "source": "..."}}
//      optional; without it each request attends to its own cache ("per_request": the paged
//      kernels of vLLM, SGLang and TensorRT-LLM). "packed_masked": transformers' paged|sdpa,
//      one SDPA over all of a step's query tokens against all of its keys with an additive
//      mask, the keys first gathered and copied to every query head; kv_padding_tokens (0: none)
//      rounds the step's keys up to a multiple, as its CUDA graphs pad them.
//      "uniform_sliding_window": "full": a model whose layers all share one sliding window (a
//      config's bare sliding_window, Mistral-7B-v0.1's 4096) runs full attention and keeps its
//      whole context, as TensorRT-LLM does unless max_attention_window is set (engine_model);
//      per-layer patterns (Gemma, gpt-oss: the model's own layer types) stay. Default "model".
#pragma once

#include "common/json_reader.h"
#include "workloads/model_config.h"
#include "workloads/op.h"
#include "workloads/run_config.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ridgeline {

enum class KvMemoryRule {
  FractionOfTotal,  // vLLM: fraction x total - weights - (activation peak) - reserved
  FractionOfFree,   // TRT-LLM, transformers: fraction x (total - weights - activations - reserved)
  SglangReserved    // SGLang: fraction_of_total with the fraction its server computes per GPU
};

// SGLang's default mem_fraction_static (server_args.py _handle_gpu_memory_settings):
// (gpu_MiB - reserved_MiB) / gpu_MiB rounded to 3 decimals, with
// reserved = base + max(chunk_tokens, min_chunk_tokens) x MiB_per_chunk_token
//          + graph_max_bs x MiB_per_graph_bs + GPUs / 8 x MiB_per_8_gpus
//          [+ graph_max_bs x DP ranks x (MiB_per_graph_bs_dp_rank, + MiB_per_large_graph_bs_dp_rank
//             when graph_max_bs > large_graph_bs)]   (attention data parallelism, --ep)
// at least floor_MiB on a GPU above floor_above_gpu_MiB; graph_max_bs is cuda_graph_max_bs, or
// cuda_graph_max_bs_tp4 at a tensor-parallel size (SGLang's tp_size: GPUs / stages) >= 4. The
// numbers are the engine file's (SGLang's constants at its defaults for an 80-160 GB GPU);
// chunk_tokens is chunked_prefill_size, not the step budget a run may lower (max_prefill_tokens).
struct SglangReserved {
  double base_mib = 512, mib_per_chunk_token = 1.5, mib_per_graph_bs = 2, mib_per_8_gpus = 1024;
  double floor_mib = 10240, floor_above_gpu_mib = 61440;
  int64_t chunk_tokens = 8192, min_chunk_tokens = 2048;
  int64_t cuda_graph_max_bs = 256, cuda_graph_max_bs_tp4 = 512;
  double mib_per_graph_bs_dp_rank = 3, mib_per_large_graph_bs_dp_rank = 1.5;
  int64_t large_graph_bs = 300;

  // The fraction on a GPU of gpu_bytes: `gpus` GPUs a replica in `stages` pipeline stages,
  // dp_ranks attention-data-parallel ranks (1: none).
  double fraction(double gpu_bytes, int64_t gpus, int64_t stages, int64_t dp_ranks) const;
};

// The KV cache's precision. "weights": the weights' precision (TensorRT-LLM: FP8 quantization sets
// the KV cache to FP8 as well); "activations": the activations' (SGLang's kv_cache_dtype "auto":
// the model's dtype, bf16 under FP8 weights quantized at load). Same for bf16 and fp16 runs.
enum class KvDtypeRule { Weights, Activations };

struct SglangKnobs {  // SGLang's admission estimate of future tokens (schedule_policy.py)
  double init_new_token_ratio = 0.7, min_ratio_fraction = 0.14;
  int64_t decay_steps = 600, clip_max_new_tokens = 4096;
  bool mixed_chunk = false;
};

struct EngineConfig {
  std::string name, file, description, source;
  std::string runtime = "fused";
  bool graph_launch = true;
  std::string policy;                  // vllm_v1, trtllm, sglang, hf_cb
  int64_t max_num_batched_tokens = 0;  // per-step token budget (chunk size)
  int64_t max_num_seqs = 0;            // running requests (decode batch) cap
  // "limits": "trtllm_bench": the two above are set per run from the workload
  // (serve/trtllm_bench.h) and are 0 until then.
  bool limits_from_workload = false;
  bool chunked_prefill = true;
  std::string capacity_policy;  // trtllm: guaranteed_no_evict
  double safety_margin = 0;     // hf_cb: free-block fraction under which only decodes join
  SglangKnobs sglang;
  int64_t block_size_tokens = 16;
  KvMemoryRule memory_rule = KvMemoryRule::FractionOfTotal;
  double memory_fraction = 0.9;  // not used under SglangReserved
  SglangReserved sglang_reserved;
  bool subtract_activation_peak = true;
  int64_t max_blocks = 0;  // 0: no cap
  bool prefix_caching = false;
  KvDtypeRule kv_dtype = KvDtypeRule::Weights;
  std::vector<int64_t> graph_sizes;  // captured batch sizes, ascending; empty: no padding
  bool packed_attention = false;     // "packed_masked": one masked SDPA over the whole batch
  int64_t kv_padding_tokens = 0;     // packed: the step's keys rounded up to a multiple (0: none)
  double host_overhead_us = 0;
  std::string host_source;
  bool uniform_window_full = false;  // "uniform_sliding_window": "full"

  // The captured size a batch of n pads to (n itself above the largest or without graphs).
  int64_t padded_batch(int64_t n) const;
  // The KV cache's precision for a run with these weights and activations.
  DType kv_cache_dtype(DType weights, DType activations) const {
    // An NVFP4 checkpoint's KV cache is FP8 (assumed: ModelOpt's NVFP4 exports, nvidia/*-FP4 on
    // Hugging Face, set kv_cache_quant_algo FP8 in hf_quant_config.json).
    if (kv_dtype == KvDtypeRule::Weights) return weights == DType::Fp4 ? DType::Fp8 : weights;
    return activations;
  }
};

// The model as the engine runs it: under "uniform_sliding_window": "full", a uniform sliding
// window (no per-layer kinds) dropped; otherwise `model` unchanged.
ModelConfig engine_model(const EngineConfig& engine, ModelConfig model);

// The precisions an engine runs under `weights` (serve --precision, a published row's precision):
// those weights; bf16 activations under fp8 or nvfp4 weights (quantized at each GEMM), else the
// weights' dtype; the KV cache by the engine's rule (kv_cache_dtype). Runtime and launch unset.
RunConfig engine_precisions(DType weights, const EngineConfig& engine);

// A preset name (vllm, trtllm, sglang, hf-cb) or a path to an engine file.
EngineConfig load_engine(const std::string& name_or_path);
EngineConfig load_engine_text(const std::string& text, const std::string& label);
std::vector<std::string> engine_preset_names();

}  // namespace ridgeline
