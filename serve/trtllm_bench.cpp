// trtllm-bench's engine settings (see trtllm_bench.h).
#include "serve/trtllm_bench.h"

#include "common/errors.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kKvFraction = 0.95;  // calc_engine_setting's kv_cache_gpu_mem_fraction default

int64_t round_up(double x, int64_t grain) {
  return (int64_t)std::ceil(x / (double)grain) * grain;
}

}  // namespace

BenchLimits trtllm_bench_finetune(double kv_cache_requests, double input_len, double output_len,
                                  int64_t pp) {
  double raw_bs = std::min(kv_cache_requests, 4096.0) / (double)pp;
  double raw_token = std::min(raw_bs * (1 + input_len / output_len), 32768.0);
  BenchLimits l;
  if (raw_bs < 256)
    l.max_batch_size = std::max<int64_t>(64, round_up(raw_bs, 32));
  else if (raw_bs < 1024)
    l.max_batch_size = round_up(raw_bs, 128);
  else
    l.max_batch_size = round_up(raw_bs, 256);
  if (raw_token < 4096)
    l.max_num_tokens = std::max<int64_t>(2048, round_up(raw_token, 256));
  else if (raw_token < 8192)
    l.max_num_tokens = round_up(raw_token, 512);
  else
    l.max_num_tokens = round_up(raw_token, 1024);
  return l;
}

EngineConfig with_workload_limits(EngineConfig engine, const ModelConfig& model, const GpuSpec& gpu,
                                  int64_t tp, const RunConfig& run, double input_len,
                                  double output_len) {
  if (!engine.limits_from_workload) return engine;
  require_invariant(input_len > 0 && output_len > 0 && tp >= 1, "a workload's lengths");
  // fp8 and NVFP4 (4.5 bits): the checkpoint's stored bytes (assumed for NVFP4: trtllm-bench
  // counts what the checkpoint stores)
  bool narrow = run.weights == DType::Fp8 || run.weights == DType::Fp4;
  double weight_bytes = narrow ? dtype_bytes(run.weights) : 2;
  double kv_bytes = run.kv_cache == DType::Fp8 ? 1 : 2;
  double kv_token_gib = 2.0 * (double)model.layers * (double)std::max<int64_t>(tp, model.kv_heads) *
                        (double)model.head_dim * kv_bytes / kGiB;
  double total_gib = gpu.memory.hbm.capacity_bytes.value / kGiB * (double)tp;
  double free_gib = total_gib - (double)parameter_count(model) * weight_bytes / kGiB;
  double requests = kKvFraction * free_gib / (kv_token_gib * (input_len + output_len));
  if (requests < 1)
    throw InputError(engine.file + ": /scheduler/limits: trtllm_bench finds no room for one " +
                     "request of the workload's lengths in the KV cache (" + model.name + " on " +
                     std::to_string(tp) + " x " + gpu.name + ")");
  BenchLimits l = trtllm_bench_finetune(requests, input_len, output_len, 1);
  engine.max_num_seqs = l.max_batch_size;
  engine.max_num_batched_tokens = l.max_num_tokens;
  return engine;
}

}  // namespace ridgeline
