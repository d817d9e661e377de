// The single-GPU step model: everything but attention is one ridgeline prediction of the step's
// kernels over all its tokens, attention is one kernel per request group and layer (both priced
// by model/serving_step.h; serve/ builds no kernel), so a mixed prefill-chunk + decode batch is
// priced as one step: GEMMs over the total tokens, attention over each group's own KV length.
// Decodes form one group whose cache length is their mean (the KV read is their sum; attention
// of a skewed batch is under-priced where the longest cache dominates a split).
// Where layers differ (sliding or chunked windows beside full attention, dense and MoE MLPs),
// each kind's layers are priced as that kind; multi-head latent attention in its absorbed form
// (a serving engine's; a runtime that runs transformers' expand_kv is refused).
// Memoised by bucketed shape (serve/memo_step_model.h).
#pragma once

#include "hardware/gpu_spec.h"
#include "serve/memo_step_model.h"
#include "workloads/model_config.h"
#include "workloads/run_config.h"

namespace ridgeline {

class GpuStepModel : public MemoStepModel {
 public:
  // `run` gives precision, runtime and launch mode; its phase and sizes are not read.
  GpuStepModel(GpuSpec gpu, ModelConfig model, RunConfig run);

  StepMemory memory() const override { return memory_; }
  double activation_peak_bytes(int64_t tokens) override;
  int64_t gpus() const override { return 1; }

 private:
  DenseCost price_dense(int64_t tokens, int64_t sequences) override;
  double price_attention(int64_t requests, int64_t q_len, int64_t kv_len) override;
  double price_packed_attention(int64_t q_tokens, int64_t kv_tokens) override;

  GpuSpec gpu_;
  ModelConfig model_;
  RunConfig run_;
  StepMemory memory_;
};

}  // namespace ridgeline
