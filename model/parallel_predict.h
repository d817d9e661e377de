// A model on many GPUs: one training iteration (one optimizer step over the global batch) or one
// inference step (prefill or decode), under a parallel strategy (workloads/parallel_config.h) on a
// cluster (hardware/cluster_spec.h). The entry point of `ridgeline predict --cluster`, and of
// `search` / `compare`, which call it once per strategy: keep it cheap (a decoder block is priced
// once per stage, never once per layer).
//
// How it is computed:
//  1. The per-rank graph of one micro-batch (workloads/sharding.h): Megatron's column/row splits,
//     the TP (or SP), CP, EP collectives on the comm stream with edges that block the compute
//     that needs them; costed by the kernel and collective models (node_cost.h) and scheduled
//     (timeline.h). Stage time = the stage's share of layers (+ embedding on the first stage, the
//     head and loss on the last), forward and backward per micro-batch.
//  2. The pipeline (pipeline_schedule.h): GPipe, 1F1B or interleaved 1F1B placed event by event,
//     stage by stage, with the send/recv of activations between stages; the bubble is the time
//     the busiest stage waits over the time it works (Megatron's bubble fraction: (p-1)/m for
//     GPipe and 1F1B, (p-1)/(v*m) for interleaved, when stages are even).
//  3. Data parallelism: the gradients' all-reduce (ZeRO 0) or reduce-scatter (ZeRO 1-2) in
//     buckets of 25 MB, each launched when the last micro-batch's backward has produced it and
//     overlapped with the rest of that backward; what outlasts it is exposed. ZeRO-3 adds the
//     parameters' all-gather before each layer's forward and backward (prefetched: overlapped but
//     for the first layer of a chunk) and reduce-scatters each layer's gradients after its
//     backward, every micro-batch. With --fsdp-shard N (HSDP) the gathers and reduce-scatters
//     run over the N x cp ranks of a shard group, and each layer's gradient shard is then
//     all-reduced over the dp / N replicas on the same stream, every micro-batch (PyTorch FSDP2's
//     HSDP default; Megatron-FSDP's optim_grads_params shards the same way); memory is sharded
//     over the shard group. ZeRO 1-2 all-gather the updated parameters after the step
//     (exposed: the next iteration's forward waits for them). The optimizer step (AdamW, when
//     --optimizer adamw) runs on the rank's shard. Data-parallel groups are dp x cp ranks.
//  4. Overlap slowdown: compute that runs while NCCL runs loses the share of the GPU its CTAs
//     take, u = channels / SMs (Calculon's processor_usage, §3.4 of collectives.md): overlapping
//     c us of communication delays the compute by u * c (compute time x 1/(1-u) for the time they
//     share). The parameter is nccl_sm_share in ParallelPrediction.
//  5. Memory per GPU (parallel_memory.h): weights, gradients and optimizer state by TP/PP/EP and
//     the ZeRO stage, activations with the recompute setting x micro-batches in flight, KV cache,
//     communication buffers; `fits` and, when not, the reason and the smallest change that fits.
//
// MFU = model FLOPs / (total_us * gpus * peak dense tensor FLOP/s of the GPU for the dtype).
// Model FLOPs per iteration = 6 * N_active * tokens + the attention term
// 12 * layers * tokens * seq * heads * head_dim * (1/2 when causal), tokens = global batch * seq;
// recomputation is not counted (hardware FLOP/s counts it).
#pragma once

#include "hardware/gpu_spec.h"
#include "model/parallel_memory.h"
#include "model/pipeline_schedule.h"
#include "workloads/fp8_training.h"
#include "workloads/kernel_role.h"
#include "workloads/model_config.h"
#include "workloads/op_graph.h"
#include "workloads/parallel_config.h"
#include "workloads/run_config.h"

#include <array>
#include <string>
#include <vector>

namespace ridgeline {

struct ClusterSpec;

// Per communication group (CommGroup in kernel_role.h: Tp, Pp, Dp, Cp, Ep).
using GroupTimes = std::array<double, kCommGroups>;

struct StageTime {
  double forward_us = 0, backward_us = 0;  // one micro-batch, all of the stage's model chunks
  double send_us = 0;                      // the activation (or its gradient) to the next stage
};

struct ParallelPrediction {
  std::string gpu, cluster, model, description;
  RunConfig run;
  ParallelConfig parallel;
  int64_t microbatches = 1;  // per pipeline and step (training), 1 in inference

  double total_us = 0;      // training: one iteration; prefill/decode: one step
  double tokens_per_s = 0;  // over the whole job (all data-parallel replicas)
  double mfu = 0;           // model FLOPs / (total_us * gpus * peak); see the header comment
  double model_flops = 0;   // per iteration (step), whole job, recomputation excluded
  double hardware_flops_per_s = 0;  // executed per GPU per second, recomputation included
  double peak_flops_per_s = 0;      // the GPU's dense tensor-core peak for the weights' dtype
  double bubble_fraction = 0;       // pipeline wait / work of the busiest stage (see above)
  double nccl_sm_share = 0;         // u of the overlap slowdown (channels / SMs)

  // One GPU of the busiest stage: the time each stream is busy over the iteration (compute,
  // comm, host; comm: while any collective runs, those of different communicators running at
  // once counted once, so never above total_us), and per group the communication time and the
  // part of it nothing hides (at most that time; pp: the delay the sends add to the step, up to
  // this GPU's own transfers, the rest being its wait on other stages, i.e. bubble).
  std::array<double, kStreams> time_by_stream_us{};
  GroupTimes comm_us{}, exposed_comm_us{};

  std::vector<StageTime> stages;  // one per pipeline stage (pp), per micro-batch
  PipelineTimeline pipeline;      // stage ends; every slot with ParallelOptions::timeline
  ParallelMemory memory;          // per GPU (the stage that needs the most)
  Fp8Training fp8{};              // the training precision it was predicted in (off: bf16)
};

struct ParallelOptions {
  // Keep every slot of the pipeline (forward, backward, sends, gradient buckets, optimizer) in
  // ParallelPrediction::pipeline, for a trace. Off, the long pipelines of a search are placed for
  // 3p micro-batches and extrapolated (exact: pipeline_schedule.h) and no slot is kept.
  bool timeline = false;
  // Transformer Engine FP8 training (workloads/fp8_training.h); off: bf16. Its GPU must have
  // fp8 tensor cores, mxfp8 Blackwell ones (check_fp8_training).
  Fp8Training fp8{};
};

// Throws InputError naming --precision / --fp8-recipe / --fp8-param-gather when `gpu` cannot run
// the recipe (no fp8 tensor cores; mxfp8 before Blackwell), the run is not training, or the
// parameter gather it asks for is not there (ZeRO 1-2 with data parallelism).
void check_fp8_training(const Fp8Training& fp8, const GpuSpec& gpu, const RunConfig& run,
                        const ParallelConfig& p);

// Predicts one iteration (train) or step (prefill, decode) of `model` under `parallel` on
// `cluster` with GPUs `gpu` (the cluster's GPU preset, or a what-if of it). Throws InputError for
// an impossible strategy (check_parallel_config, with the cluster's limits); a strategy that does
// not fit in memory is not an error here: memory.fits is false and memory.reason says why.
ParallelPrediction predict_parallel(const ModelConfig& model, const RunConfig& run,
                                    const ParallelConfig& parallel, const ClusterSpec& cluster,
                                    const GpuSpec& gpu, const ParallelOptions& options = {});

// The model FLOPs of one iteration (train: 6N + attention) or step (inference: 2N + attention),
// over the whole job, as stated above.
double model_flops(const ModelConfig& model, const RunConfig& run, const ParallelConfig& parallel);

}  // namespace ridgeline
