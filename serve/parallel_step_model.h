// The step model of one multi-GPU replica: tensor parallelism over tp GPUs of a cluster's node
// (a MoE model's experts split over them too; expert parallelism is refused), each engine step
// priced per rank by model/serving_parallel_step.h: the sharded per-rank kernels of every token of
// the step, the two TP all-reduces a layer (after o_proj and down_proj) of the step's tokens x
// hidden on the cluster's NVLink (NCCL's model, model/collective_cost.h) on the comm stream, and
// attention per request group on the rank's heads / tp. Every rank does the same work, so the
// step's time is one rank's. Memory (KV sizing) is one GPU's: its shard of the weights and tp-th of
// the KV heads. Memoised by bucketed shape exactly as GpuStepModel (gpu_step_model.h).
#pragma once

#include "hardware/cluster_spec.h"
#include "hardware/gpu_spec.h"
#include "serve/step_model.h"
#include "workloads/model_config.h"
#include "workloads/parallel_config.h"
#include "workloads/run_config.h"

#include <map>
#include <tuple>

namespace ridgeline {

class ParallelStepModel : public StepModel {
 public:
  // Throws InputError naming --tp when the model does not split so (heads, KV heads, FFN) or
  // the group does not fit in one of the cluster's nodes; --pp > 1 and --ep > 1 are refused.
  ParallelStepModel(GpuSpec gpu, ClusterSpec cluster, ModelConfig model, RunConfig run,
                    ParallelConfig parallel);

  double step_us(const StepShape& shape) override;
  StepMemory memory() const override { return memory_; }
  double activation_peak_bytes(int64_t tokens) override;
  int64_t gpus() const override { return parallel_.tp * parallel_.pp; }

  const ParallelConfig& parallel() const { return parallel_; }
  const ClusterSpec& cluster() const { return cluster_; }
  // The TP collectives' own time (summed over the layers) in a step of that many tokens.
  double tp_comm_us(int64_t tokens, int64_t sequences);

 private:
  struct Dense {
    double total_us = 0, tp_comm_us = 0;
  };
  const Dense& dense(int64_t tokens, int64_t sequences);
  double attention_us(const AttentionGroup& g);

  GpuSpec gpu_;
  ClusterSpec cluster_;
  ModelConfig model_;
  RunConfig run_;
  ParallelConfig parallel_;
  StepMemory memory_;
  std::map<std::pair<int64_t, int64_t>, Dense> dense_;
  std::map<std::tuple<int64_t, int64_t, int64_t>, double> attention_;
};

}  // namespace ridgeline
