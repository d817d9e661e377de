// The step model of one multi-GPU replica: tensor parallelism over tp GPUs of a cluster's node
// (a MoE model's experts split over them too), or, with --ep N (and --tp 1), TensorRT-LLM's
// "DEP N": attention data parallel over N ranks, each with its own requests, KV pool and batch
// limits, and the experts spread over them with an all-to-all before and after (the engine is
// the N ranks' union, a step one rank's share of it: memo_step_model.h). Each engine step
// priced per rank by model/serving_parallel_step.h: the sharded per-rank kernels of every token of
// the step, the two TP all-reduces a layer (after o_proj and down_proj) of the step's tokens x
// hidden on the cluster's NVLink (NCCL's model, model/collective_cost.h) on the comm stream, and
// attention per request group on the rank's heads / tp. Every rank does the same work, so the
// step's time is one rank's. Memory (KV sizing) is one GPU's: its shard of the weights and tp-th of
// the KV heads. Memoised by bucketed shape (serve/memo_step_model.h).
#pragma once

#include "hardware/cluster_spec.h"
#include "hardware/gpu_spec.h"
#include "serve/memo_step_model.h"
#include "workloads/model_config.h"
#include "workloads/parallel_config.h"
#include "workloads/run_config.h"

namespace ridgeline {

class ParallelStepModel : public MemoStepModel {
 public:
  // Throws InputError naming --tp when the model does not split so (heads, KV heads, FFN) or
  // the group does not fit in one of the cluster's nodes, or the layers do not split into --pp
  // stages.
  ParallelStepModel(GpuSpec gpu, ClusterSpec cluster, ModelConfig model, RunConfig run,
                    ParallelConfig parallel);

  StepMemory memory() const override { return memory_; }
  double activation_peak_bytes(int64_t tokens) override;
  int64_t gpus() const override { return parallel_.gpus; }
  int64_t pipeline_stages() const override { return parallel_.pp; }

  const ParallelConfig& parallel() const { return parallel_; }
  const ClusterSpec& cluster() const { return cluster_; }
  // The TP collectives' own time (summed over the layers) in a step of that many tokens.
  double tp_comm_us(int64_t tokens, int64_t sequences) {
    return dense(tokens, sequences).tp_comm_us;
  }

 private:
  DenseCost price_dense(int64_t tokens, int64_t sequences) override;
  double price_attention(int64_t requests, int64_t q_len, int64_t kv_len) override;
  double price_packed_attention(int64_t q_tokens, int64_t kv_tokens) override;

  GpuSpec gpu_;
  ClusterSpec cluster_;
  ModelConfig model_;
  RunConfig run_;
  ParallelConfig parallel_;
  StepMemory memory_;
};

}  // namespace ridgeline
