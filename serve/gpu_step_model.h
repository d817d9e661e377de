// The single-GPU step model: everything but attention is one ridgeline prediction of the step's
// kernels over all its tokens, attention is one kernel per request group and layer (both priced
// by model/serving_step.h; serve/ builds no kernel), so a mixed prefill-chunk + decode batch is
// priced as one step: GEMMs over the total tokens, attention over each group's own KV length.
// Decodes form one group whose cache length is their mean (the KV read is their sum; attention
// of a skewed batch is under-priced where the longest cache dominates a split).
// Memoised by bucketed shape so that long runs cost few predictions: tokens exact up to 512,
// then rounded up to 1/64 of their power of two (< 1.6% more work); cache lengths rounded up to
// 16 tokens up to 1024, then to 1/64 of their power of two.
#pragma once

#include "hardware/gpu_spec.h"
#include "serve/step_model.h"
#include "workloads/model_config.h"
#include "workloads/run_config.h"

#include <map>
#include <tuple>

namespace ridgeline {

class GpuStepModel : public StepModel {
 public:
  // `run` gives precision, runtime and launch mode; its phase and sizes are not read.
  GpuStepModel(GpuSpec gpu, ModelConfig model, RunConfig run);

  double step_us(const StepShape& shape) override;
  StepMemory memory() const override { return memory_; }
  double activation_peak_bytes(int64_t tokens) override;
  int64_t gpus() const override { return 1; }

  int64_t predictions() const { return (int64_t)dense_.size() + (int64_t)attention_.size(); }

  static int64_t bucket_tokens(int64_t tokens);
  static int64_t bucket_kv(int64_t kv_len);

 private:
  double dense_us(int64_t tokens, int64_t sequences);
  double attention_us(const AttentionGroup& g);

  GpuSpec gpu_;
  ModelConfig model_;
  RunConfig run_;
  StepMemory memory_;
  std::map<std::pair<int64_t, int64_t>, double> dense_;
  std::map<std::tuple<int64_t, int64_t, int64_t>, double> attention_;
};

}  // namespace ridgeline
