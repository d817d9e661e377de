// The prices a multi-GPU serving step model asks for (serve/parallel_step_model.h memoises them):
// one replica of tp x pp GPUs under a ParallelConfig on a cluster, priced per rank as the parallel
// predictor prices a step (the sharded per-rank graph of workloads/sharding.h, its TP all-reduces
// and EP all-to-alls on the cluster's links, scheduled on the compute and comm streams by
// model/parallel_sections.h), but for a serving step's batch, which mixes prefill chunks and
// decodes and so is not one of predict_parallel's uniform prefill or decode steps:
//  - everything but attention over the step's `tokens`, logits for `sampled` rows, per rank;
//  - attention per request group on one rank's heads / tp (KV heads / tp, or one replicated);
//  - the memory one GPU holds: its weights (parallel_memory.h's stage_parameters), its KV bytes a
//    token (layers / pp x KV heads a rank x head_dim x 2), the runtime's reserved bytes plus one
//    NCCL communicator's buffers, the activation peak of the sharded model.
//  - under pipeline parallelism, one stage: layers / pp decoder blocks (the first of the model
//    in layer order) with the embedding and the head, and the send of a step's activations
//    (hidden states and residual, as vLLM's IntermediateTensors carry them) to the next stage.
#pragma once

#include "hardware/cluster_spec.h"
#include "hardware/gpu_spec.h"
#include "model/serving_step.h"
#include "workloads/model_config.h"
#include "workloads/parallel_config.h"
#include "workloads/run_config.h"

#include <cstdint>

namespace ridgeline {

// Throws InputError naming --tp / --ep when the model cannot be split so (check_parallel_config).
void check_serving_parallel(const ModelConfig& model, const RunConfig& run, const ParallelConfig& p,
                            const ClusterSpec& cluster);

struct RankStepTime {
  double total_us = 0;  // the schedule of every section (compute, comm and their overlap)
  double edge_us = 0;   // of total_us: the embedding's and the head's sections
  double tp_comm_us = 0, ep_comm_us = 0;  // the collectives' own time, summed over the layers
};
RankStepTime serving_rank_dense_us(const GpuSpec& gpu, const ClusterSpec& cluster,
                                   const ModelConfig& model, const RunConfig& run,
                                   const ParallelConfig& p, int64_t tokens, int64_t sampled);
// The point-to-point send of `tokens` tokens' hidden states and residual from one pipeline
// stage's rank to the next's (0 without pipeline parallelism): inside a node when the replica's
// tp x pp GPUs fit in one, else across the network (the slowest boundary gates).
double serving_stage_send_us(const ClusterSpec& cluster, const ModelConfig& model,
                             const RunConfig& run, const ParallelConfig& p, int64_t tokens);
double serving_rank_attention_us(const GpuSpec& gpu, const ModelConfig& model, const RunConfig& run,
                                 const ParallelConfig& p, int64_t requests, int64_t q_len,
                                 int64_t kv_len);
double serving_rank_packed_attention_us(const GpuSpec& gpu, const ModelConfig& model,
                                        const RunConfig& run, const ParallelConfig& p,
                                        int64_t q_tokens, int64_t kv_tokens);
ServingMemory serving_rank_memory(const GpuSpec& gpu, const ModelConfig& model,
                                  const RunConfig& run, const ParallelConfig& p);
double serving_rank_activation_peak_bytes(const GpuSpec& gpu, const ModelConfig& model,
                                          const RunConfig& run, const ParallelConfig& p,
                                          int64_t tokens);

}  // namespace ridgeline
