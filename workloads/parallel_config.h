// How a model is spread over GPUs (Megatron-LM's vocabulary): tensor (tp), pipeline (pp, with
// vp virtual stages per GPU for the interleaved schedule), data (dp, ZeRO stage 0-3), context (cp,
// ring attention) and expert (ep) parallelism, sequence parallelism (sp) inside a TP group, the
// micro-batch and the global batch (gradient accumulation), the pipeline schedule and activation
// recomputation. Plain data, checked by check_parallel_config().
//
// GPU count: gpus = tp * pp * dp * cp. Expert parallelism is carved out of the data-parallel
// ranks, as Megatron-Core does it (experts sharded over ep of the dp ranks; ep divides dp), so it
// adds no factor. Ranks are laid out TP fastest (inside a node), then CP, DP, PP.
//
// Expert tensor parallelism (Megatron's expert_tensor_parallel_size, etp): by default the experts
// are split over the TP group like the dense MLP (etp = tp). With etp 1 under tp > 1 (Megatron's
// "MoE parallel folding", as the Qwen3-MoE and DeepSeek recipes run), each expert is whole on its
// rank, the MoE layer takes the rank's sequence-parallel shard of the tokens (no TP all-gather or
// reduce-scatter around it) and the expert-parallel group is carved out of the tp x cp x dp ranks
// (ep divides them), TP fastest.
//
// ZeRO-3 over part of the data-parallel group (HSDP, torch FSDP2's 2-D mesh, Megatron-FSDP's
// hybrid sharding, MaxText's fsdp x data axes): fsdp_shard dp ranks (x cp) shard the parameters,
// gradients and optimizer state; dp / fsdp_shard such groups each hold a replica. The shard group
// is the innermost dp ranks (TP, CP, then the shard group, then the replicas). 0: all dp ranks.
//
// KV heads under TP: when kv_heads < tp, Megatron and vLLM replicate each KV head over
// tp / kv_heads ranks; that is allowed when kv_heads divides tp (each rank holds one KV head),
// an error otherwise (as when tp does not divide kv_heads >= tp).
#pragma once

#include "workloads/model_config.h"
#include "workloads/run_config.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ridgeline {

enum class PipelineSchedule { GPipe, OneFOneB, Interleaved };
const char* schedule_name(PipelineSchedule s);  // "gpipe", "1f1b", "interleaved"

struct ParallelConfig {
  int64_t gpus = 1;  // --gpus: the GPUs of the job, tp * pp * dp * cp
  int64_t tp = 1, pp = 1, vp = 1, dp = 1, cp = 1, ep = 1;
  int64_t etp = 0;  // expert tensor parallelism: 0 is tp (the experts split like the MLP), or 1
  bool sp = false;  // sequence parallelism: norms and residual adds on seq / tp tokens per rank
  int zero = 0;     // 0: DDP; 1: optimizer state sharded over dp; 2: + gradients; 3: + parameters
  int64_t fsdp_shard = 0;    // ZeRO-3's shard group in dp ranks (HSDP, above); 0: all dp ranks
  int64_t microbatch = 1;    // sequences per micro-batch and data-parallel rank
  int64_t global_batch = 1;  // sequences per optimizer step (training); the batch (inference)
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  Recompute recompute = Recompute::None;
  // Megatron's account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split
  // (--pipeline-split-counts): the embedding, the loss (with the LM head) or both count as one
  // layer each when the layers are split over the pp x vp model chunks, so the first chunk holds
  // one decoder layer fewer, the last likewise (NeMo's Llama 3.1 405B and MoE recipes).
  bool split_counts_embedding = false, split_counts_loss = false;

  // Decoder layers of a full model chunk: (layers + the counted embedding and loss) / (pp x vp);
  // the first chunk holds one fewer when the embedding counts, the last when the loss does.
  int64_t chunk_layers(int64_t layers) const {
    return (layers + split_counts_embedding + split_counts_loss) / (pp * vp);
  }
  // Model chunk g's decoder layers [first, end) in layer order (g = virtual chunk x pp + stage,
  // as the interleaved schedule assigns them): chunk_layers() each, the first chunk's start and
  // the last chunk's end cut by the counted embedding and loss.
  struct LayerRange {
    int64_t first = 0, end = 0;
    int64_t count() const { return end - first; }
  };
  LayerRange chunk_range(int64_t layers, int64_t g) const {
    int64_t per = chunk_layers(layers), shift = split_counts_embedding;
    int64_t first = g * per - shift, end = (g + 1) * per - shift;
    return {first < 0 ? 0 : first, end > layers ? layers : end};
  }
  // Whether `layers` do not divide into the pp x vp chunks but would with the embedding and the
  // loss counted as a layer each (the split the error suggests and the published NeMo rows use).
  bool divides_only_counting_embedding_and_loss(int64_t layers) const {
    return pp * vp > 1 && layers % (pp * vp) != 0 && (layers + 2) % (pp * vp) == 0;
  }

  // The TP degree of the experts, and whether the MoE layer is folded (etp 1 under tp > 1, above).
  int64_t expert_tp() const { return etp > 0 ? etp : tp; }
  bool moe_folded() const { return expert_tp() < tp; }
  // Ranks holding a replica of each expert shard (the expert gradients' reduction group): the
  // tp x cp x dp ranks of a stage over etp x ep (dp x cp / ep when etp is tp).
  int64_t expert_dp() const { return tp * cp * dp / (expert_tp() * ep); }

  // Micro-batches each pipeline runs per step: global_batch / (microbatch * dp).
  int64_t microbatches() const { return global_batch / (microbatch * dp); }
  // ZeRO-3's shard group in dp ranks (fsdp_shard, or all of dp) and the replicas of each shard.
  int64_t shard_dp() const { return fsdp_shard > 0 ? fsdp_shard : dp; }
  int64_t replicas() const { return dp / shard_dp(); }
};

// Model chunk g's decoder layers (ParallelConfig::chunk_range of the first `layers`) grouped by
// kind as layer_groups_in groups them: every kind of the model, each counted over the chunk.
std::vector<LayerGroup> chunk_layer_groups(const ModelConfig& m, int64_t layers,
                                           const ParallelConfig& p, int64_t g);

// What check_parallel_config needs to know of the cluster (hardware/ is not a dependency of
// workloads/; model/ fills this from a ClusterSpec).
struct ClusterLimits {
  std::string name;           // for messages: "dgx-h100"
  int64_t gpus_per_node = 1;  // a TP group must fit in one node
  int64_t max_gpus = 1;       // gpus_per_node * max_nodes
};

// Throws InputError naming the flag and the numbers for an impossible strategy: a degree < 1,
// tp * pp * dp * cp != gpus, tp not dividing heads (or kv_heads, unless kv_heads divides tp), pp
// (times vp) not dividing the layers, vp > 1 without the interleaved schedule, sp without tp > 1,
// ep not dividing the experts or dp (tp x cp x dp when folded; or ep > 1 on a dense model), etp
// other than tp or 1, a folded MoE without sp, global batch not a multiple of
// microbatch * dp, cp not dividing the sequence, a TP group larger than a node, more GPUs than the
// cluster has, a ZeRO stage outside 0-3 or ZeRO without dp > 1 in inference, an --fsdp-shard
// below 0, without --zero 3, not dividing dp, or below dp with ep > 1.
void check_parallel_config(const ParallelConfig& p, const ModelConfig& model, const RunConfig& run,
                           const ClusterLimits& cluster);

// The vocabulary as Megatron pads it: a multiple of 128 * tp, so each TP rank holds
// padded_vocab / tp rows of the embedding table and the LM head.
int64_t padded_vocab(const ModelConfig& model, int64_t tp);

// The KV heads one TP rank holds: kv_heads / tp, or 1 when kv_heads < tp (replicated).
int64_t kv_heads_per_rank(const ModelConfig& model, int64_t tp);

}  // namespace ridgeline
