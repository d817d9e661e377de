// Memory one GPU needs under a parallel strategy, part by part, as the ZeRO paper (Rajbhandari
// et al. 2020) and Megatron's activation analysis (Korthikanti et al. 2022) count it, for the
// pipeline stage that needs the most (the first holds the most micro-batches in flight, the last
// the logits). Closed forms from the configs (no graph), so a search can price thousands.
//
// Parameters per GPU: a decoder layer's dense weights / tp, its experts' / (tp * ep), layers / pp
// of them; the embedding table (padded_vocab / tp rows) on the first stage, the LM head on the last
// (both when tied and pp > 1, as Megatron keeps a copy). Bytes per parameter, mixed precision:
//   weights    the weights' dtype (2 B for bf16)                      / dp under ZeRO-3
//   gradients  the weights' dtype                                     / dp under ZeRO-2, 3
//   optimizer  AdamW: fp32 master + m + v = 12 B (8 B with fp32 weights) / dp under ZeRO-1, 2, 3
// (dp here is dp x cp: context-parallel ranks hold the same weights; an expert's parameters have
// dp / ep x cp replicas, so ZeRO divides them by that; with --fsdp-shard N, HSDP, it is N x cp:
// the shard group, each of the dp / N replicas holding the whole state).
// Activations saved per layer and micro-batch, T = microbatch * seq / cp tokens per rank, in
// elements per token (times the activation dtype's bytes), flash attention (no s^2 scores):
//   replicated over the TP group (/ tp with --sp): 4 h (the two norms' inputs and outputs)
//   column-sharded (/ tp): q, k, v (heads/tp + 2 kv_heads/tp) * head_dim, the attention output
//     heads/tp * head_dim, the MLP (SwiGLU: gate, up, silu, product 4 I/tp; GELU: 2 I/tp; MoE:
//     top_k * (2 h + 4 I_expert/tp) + 2 E for the router)
//   the attention's softmax statistics, heads/tp * 4 B (none: kept; selective: recomputed)
//   full recomputation keeps only each layer's input, h (/ tp with --sp), plus one layer's
//   activations while it is recomputed.
// Micro-batches in flight on stage s of p: GPipe all m; 1F1B min(m, p - s); interleaved
// min(m v, 2 (p - s - 1) + (v - 1) p + 1) model chunks of layers / (p v) (Megatron's warm-up
// count plus one), i.e. p + (p - 1) / v stages' worth on the first stage. The last stage adds
// one micro-batch's fp32 logits (T * padded_vocab / tp * 4 B).
// Inference: the KV cache, layers / pp * batch * positions * 2 * kv_heads_per_rank * head_dim,
// and twice the largest activation a kernel holds.
// Communication buffers: kNcclBufferBytes per communicator of more than one rank, two gradient
// buckets (kGradBucketBytes) under data parallelism, two layers' gathered parameters under ZeRO-3,
// and a send and a receive buffer of one micro-batch's activations per pipeline neighbour.
#pragma once

#include "workloads/model_config.h"
#include "workloads/parallel_config.h"
#include "workloads/run_config.h"

#include <string>

namespace ridgeline {

constexpr double kGradBucketBytes = 25e6;  // DDP's bucket_cap_mb, Megatron's default
constexpr double kNcclBufferBytes =
    64.0 * (1 << 20);                   // assumed: NCCL buffers + proxy, per communicator
constexpr double kAdamStateBytes = 12;  // fp32 master weights, m and v

struct ParallelMemory {
  double weights_bytes = 0, gradient_bytes = 0, optimizer_bytes = 0, activation_bytes = 0,
         kv_cache_bytes = 0, comm_buffer_bytes = 0, reserved_bytes = 0;
  double capacity_bytes = 0;
  int stage = 0;  // the pipeline stage these figures are for (the one needing the most)
  int64_t in_flight =
      1;               // micro-batches (model chunks when interleaved) whose activations it holds
  std::string reason;  // "" when it fits; else what does not fit and the smallest change that would

  double total() const {
    return weights_bytes + gradient_bytes + optimizer_bytes + activation_bytes + kv_cache_bytes +
           comm_buffer_bytes + reserved_bytes;
  }
  bool fits() const { return total() <= capacity_bytes; }
};

// Memory of one GPU: the stage that needs the most. `reserved_bytes`: the CUDA context and library
// workspaces (the runtime profile's). When it does not fit, `reason` names the parts and the
// smallest change among --zero, --recompute, --microbatch, --tp, --pp, --ep (keeping --gpus) that
// fits and passes check_parallel_config against `cluster`.
ParallelMemory parallel_memory(const ModelConfig& model, const RunConfig& run,
                               const ParallelConfig& p, double capacity_bytes,
                               double reserved_bytes, const ClusterLimits& cluster);

// The same for stage `stage` alone, without the search for a change.
ParallelMemory stage_memory(const ModelConfig& model, const RunConfig& run, const ParallelConfig& p,
                            int stage, double capacity_bytes, double reserved_bytes);

// Parameters one GPU of `stage` holds before ZeRO: dense ones (embedding and head included) and
// experts' (which have dp / ep data-parallel replicas, not dp).
struct StageParams {
  double dense = 0, experts = 0;
  double layer_dense = 0, layer_experts = 0;  // of one decoder layer
  double tables = 0;  // of dense: the embedding and LM head rows the stage holds
};
StageParams stage_parameters(const ModelConfig& model, const RunConfig& run,
                             const ParallelConfig& p, int stage);

// Saved activation bytes of one decoder layer for one micro-batch on one rank (see above).
double layer_activation_bytes(const ModelConfig& model, const RunConfig& run,
                              const ParallelConfig& p);

}  // namespace ridgeline
