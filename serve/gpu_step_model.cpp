// GpuStepModel (see gpu_step_model.h).
#include "serve/gpu_step_model.h"

#include "model/serving_step.h"

namespace ridgeline {

GpuStepModel::GpuStepModel(GpuSpec gpu, ModelConfig model, RunConfig run)
    : MemoStepModel(memo_window(model)),
      gpu_(std::move(gpu)),
      model_(std::move(model)),
      run_(serving_run(model_, std::move(run))) {
  ServingMemory m = serving_memory(gpu_, model_, run_);
  memory_ = step_memory(m, model_);
}

double GpuStepModel::activation_peak_bytes(int64_t tokens) {
  return serving_activation_peak_bytes(gpu_, model_, run_, tokens);
}

MemoStepModel::DenseCost GpuStepModel::price_dense(int64_t tokens, int64_t sequences) {
  return {serving_dense_us(gpu_, model_, run_, tokens, sequences), 0};
}

double GpuStepModel::price_attention(int64_t requests, int64_t q_len, int64_t kv_len) {
  return serving_attention_us(gpu_, model_, run_, requests, q_len, kv_len);
}

double GpuStepModel::price_packed_attention(int64_t q_tokens, int64_t kv_tokens) {
  return serving_packed_attention_us(gpu_, model_, run_, q_tokens, kv_tokens);
}

}  // namespace ridgeline
