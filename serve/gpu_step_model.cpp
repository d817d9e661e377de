// GpuStepModel (see gpu_step_model.h).
#include "serve/gpu_step_model.h"

#include "common/errors.h"
#include "model/serving_step.h"

#include <algorithm>
#include <bit>

namespace ridgeline {

namespace {

// Rounds n up to a multiple of 1/64 of its power of two (n > 0).
int64_t round_relative(int64_t n) {
  int64_t grain = std::max<int64_t>(1, (int64_t)std::bit_floor((uint64_t)n) / 64);
  return (n + grain - 1) / grain * grain;
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
  if (!model_.layer_kinds.empty())  // attention is priced per request group with one window
    throw InputError(located("--model", model_.name + "'s layers differ (sliding and full "
                                                      "attention, or MoE and dense MLPs); serving "
                                                      "such a model is not modelled yet"));
  ServingMemory m = serving_memory(gpu_, model_, run_);
  memory_ = {m.capacity_bytes, m.weights_bytes, m.reserved_bytes, m.kv_bytes_per_token,
             model_.max_positions};
}

double GpuStepModel::activation_peak_bytes(int64_t tokens) {
  return serving_activation_peak_bytes(gpu_, model_, run_, tokens);
}

double GpuStepModel::dense_us(int64_t tokens, int64_t sequences) {
  int64_t t = bucket_tokens(tokens), s = std::min(bucket_tokens(sequences), t);
  auto key = std::make_pair(t, s);
  auto it = dense_.find(key);
  if (it != dense_.end()) return it->second;
  double us = serving_dense_us(gpu_, model_, run_, t, s);
  dense_.emplace(key, us);
  return us;
}

double GpuStepModel::attention_us(const AttentionGroup& g) {
  int64_t kv = std::max(bucket_kv(g.kv_len), g.q_len);
  if (model_.sliding_window > 0) kv = std::min(kv, std::max(model_.sliding_window, g.q_len));
  auto key = std::make_tuple(g.requests, g.q_len, kv);
  auto it = attention_.find(key);
  if (it != attention_.end()) return it->second;
  double us = serving_attention_us(gpu_, model_, run_, g.requests, g.q_len, kv);
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
