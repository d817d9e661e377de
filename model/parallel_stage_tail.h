// Internal to predict_parallel (parallel_predict.h): the pieces it prices per collective and
// per pipeline stage, apart so that parallel_predict.cpp stays one screen of method: a collective
// over a group with its SM share, the data-parallel groups, and a stage's end of iteration (the
// gradients' reduction in 25 MB buckets overlapped with the last backward, the optimizer step,
// ZeRO 1-2's parameter all-gather), priced once per distinct stage parameter count.
#pragma once

#include "hardware/cluster_spec.h"
#include "hardware/gpu_spec.h"
#include "model/parallel_memory.h"
#include "model/parallel_predict.h"
#include "workloads/model_config.h"
#include "workloads/op.h"
#include "workloads/parallel_config.h"
#include "workloads/run_config.h"

#include <cstdint>
#include <vector>

namespace ridgeline::parallel_detail {

// A collective over `ranks` GPUs, `per_node` of them in a node: its time and SM share.
struct Comm {
  double time_us = 0, u = 0;
};
Comm comm(CollectiveKind kind, double bytes, int64_t ranks, int64_t per_node,
          const ClusterSpec& cluster, const GpuSpec& gpu);

struct Strategy {
  const ModelConfig& model;
  const RunConfig& run;
  const ParallelConfig& p;
  const ClusterSpec& cluster;
  const GpuSpec& gpu;
  int64_t gpn;
  bool fp8_param_gather = false;  // ZeRO 1-2's gather carries the blocks' weights in fp8
};

// The data-parallel group (dp x cp ranks; dp / ep x cp for experts) and its ranks in a node.
struct Group {
  int64_t ranks, per_node;
};
Group dp_group(const Strategy& s, bool experts);
// ZeRO-3's groups: the shard group (fsdp_shard x cp ranks, all dp x cp without --fsdp-shard),
// over which each layer's parameters are all-gathered and its gradients reduce-scattered, and
// the replica group (dp / fsdp_shard ranks, one per shard group, strided by tp x cp x shard),
// over which HSDP all-reduces each rank's gradient shard (one rank, i.e. none, without it).
Group zero3_shard_group(const Strategy& s);
Group zero3_replica_group(const Strategy& s);

// What a stage's end of iteration costs, priced once per distinct parameter count (the middle
// stages of a pipeline share one): its gradient buckets' collectives (consecutive buckets of one
// size share one price), the optimizer step and ZeRO 1-2's parameter all-gather.
struct StageTail {
  double dense = -1, experts = -1;  // the stage's parameters this was priced for
  std::vector<Comm> bucket_comm;    // one per 25 MB bucket, dense then experts
  double adam_us = 0;
  Comm gather;
};

// One stage's end of iteration after its last backward: the gradients' reduction in buckets,
// launched as the last micro-batch's backward (`window_us` long, ending at `end_us`) produces
// them, then the optimizer step and ZeRO 1-2's parameter all-gather. Appends their slots when
// `record`; `memo` keeps the last stage's prices for the next.
double finish_stage(const Strategy& s, int stage, double end_us, double window_us,
                    PipelineTimeline& tl, GroupTimes& comm_us, GroupTimes& exposed_us,
                    double& compute_us, bool record, StageTail& memo);

}  // namespace ridgeline::parallel_detail
