// GpuStepModel (see gpu_step_model.h).
#include "serve/gpu_step_model.h"

#include "common/errors.h"
#include "model/op_cost.h"
#include "model/prediction.h"
#include "workloads/graph_builder.h"
#include "workloads/op_math.h"

#include <algorithm>
#include <bit>

namespace ridgeline {

namespace {

// Rounds n up to a multiple of 1/64 of its power of two (n > 0).
int64_t round_relative(int64_t n) {
  int64_t grain = std::max<int64_t>(1, (int64_t)std::bit_floor((uint64_t)n) / 64);
  return (n + grain - 1) / grain * grain;
}

// The attention kernel's math dtype, as the graph builders choose it (block_forward.cpp).
DType attention_dtype(const RunConfig& run) {
  if (run.activations != DType::Fp8) return run.activations;
  return run.kv_cache == DType::Fp8 ? DType::Fp8 : run.kv_cache;
}

}  // namespace

int64_t GpuStepModel::bucket_tokens(int64_t tokens) {
  return tokens <= 512 ? tokens : round_relative(tokens);
}

int64_t GpuStepModel::bucket_kv(int64_t kv_len) {
  return kv_len <= 1024 ? (kv_len + 15) / 16 * 16 : round_relative(kv_len);
}

GpuStepModel::GpuStepModel(GpuSpec gpu, ModelConfig model, RunConfig run)
    : gpu_(std::move(gpu)), model_(std::move(model)), run_(std::move(run)) {
  RunConfig one = run_;
  one.phase = Phase::Decode;
  one.batch = 1;
  one.kv_len = 1;
  one.blocks = 0;
  check_run_config(one, model_);
  MemoryFootprint f = memory_footprint(build_graph(model_, one), model_, one, gpu_);
  memory_.capacity_bytes = f.capacity_bytes;
  memory_.weights_bytes = f.weights_bytes;
  memory_.reserved_bytes = f.reserved_bytes;
  memory_.kv_bytes_per_token =
      2.0 * model_.layers * model_.kv_heads * model_.head_dim * dtype_bytes(run_.kv_cache);
  memory_.max_context_tokens = model_.max_positions;
}

double GpuStepModel::activation_peak_bytes(int64_t tokens) {
  RunConfig p = run_;
  p.phase = Phase::Prefill;
  p.batch = 1;
  p.seq = tokens;
  p.kv_len = 0;
  p.blocks = 0;
  return memory_footprint(build_graph(model_, p), model_, p, gpu_).activation_bytes;
}

double GpuStepModel::dense_us(int64_t tokens, int64_t sequences) {
  int64_t t = bucket_tokens(tokens), s = std::min(bucket_tokens(sequences), t);
  auto key = std::make_pair(t, s);
  auto it = dense_.find(key);
  if (it != dense_.end()) return it->second;
  OpGraph g = build_serving_step_graph(model_, run_, t, s);
  double us = predict_workload(g, model_, run_, gpu_).total_us;
  dense_.emplace(key, us);
  return us;
}

double GpuStepModel::attention_us(const AttentionGroup& g) {
  int64_t kv = std::max(bucket_kv(g.kv_len), g.q_len);
  if (model_.sliding_window > 0) kv = std::min(kv, std::max(model_.sliding_window, g.q_len));
  auto key = std::make_tuple(g.requests, g.q_len, kv);
  auto it = attention_.find(key);
  if (it != attention_.end()) return it->second;
  AttentionOp a;
  a.batch = g.requests;
  a.heads = model_.heads;
  a.kv_heads = model_.kv_heads;
  a.head_dim = model_.head_dim;
  a.q_len = g.q_len;
  a.kv_len = kv;
  a.causal = g.q_len > 1;
  a.dtype = attention_dtype(run_);
  if (run_.kv_cache != a.dtype) a.kv_dtype = run_.kv_cache;
  double kernel_us = predict_op(Op{"", a, false}, gpu_).time_us;
  if (run_.launch == LaunchMode::Eager)
    kernel_us = std::max(kernel_us, gpu_.launch.python_eager_us.value);
  double us = kernel_us * (double)model_.layers;
  attention_.emplace(key, us);
  return us;
}

double GpuStepModel::step_us(const StepShape& shape) {
  require_invariant(shape.tokens >= 1 && shape.sequences >= 1, "a step has work");
  double us = dense_us(shape.tokens, shape.sequences);
  for (const AttentionGroup& g : shape.groups) us += attention_us(g);
  return us;
}

}  // namespace ridgeline
