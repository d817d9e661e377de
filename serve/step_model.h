// The price of one engine step, asked by the simulator; serve/ knows no kernel. A step is the
// batch's shape: the new tokens of all its requests together (GEMMs, norms, the MLP run over
// them at once) and, for attention, groups of requests with the same query length and cache
// length (decodes together, each prefill chunk apart), or, for an engine that packs the batch
// into one masked attention (transformers' paged|sdpa), the batch's total keys. GpuStepModel prices
// it with ridgeline's single-GPU model; ParallelStepModel (TP, PP, EP) with one rank's. Under
// pipeline parallelism a step's price is one pipeline stage's (its layers, the activations' send
// to the next stage): a batch spends it in each of pipeline_stages() stages in turn.
#pragma once

#include <cstdint>
#include <vector>

namespace ridgeline {

struct AttentionGroup {
  int64_t requests = 0;  // sequences in the group
  int64_t q_len = 0;     // new tokens of each
  int64_t kv_len = 0;    // keys each attends to (cached + new)
};

struct StepShape {
  int64_t tokens = 0;     // new tokens of all requests (after CUDA-graph padding)
  int64_t sequences = 0;  // requests in the step: rows of the LM head
  std::vector<AttentionGroup> groups;
  // An engine that packs the batch (EngineConfig::packed_attention): no groups, one masked
  // attention of all `tokens` against the batch's keys, padded as the engine pads them.
  int64_t packed_kv_tokens = 0;
};

// What the KV sizing rules need (bytes on one GPU).
struct StepMemory {
  double capacity_bytes = 0, weights_bytes = 0, reserved_bytes = 0;
  double kv_bytes_per_token = 0;   // every layer's
  int64_t max_context_tokens = 0;  // the model's context (max_position_embeddings)
  // Windowed layers (where layers differ): their share of kv_bytes_per_token and their window;
  // the KV pool keeps only a window of them (kv_pool.h). 0: every layer keeps every token.
  int64_t kv_window_tokens = 0;
  double kv_windowed_share = 0;
};

class StepModel {
 public:
  virtual ~StepModel() = default;
  // Device time of the step in microseconds (host overhead is the engine's, added apart); with
  // pipeline stages, of the last stage (its layers, the embedding and the LM head).
  virtual double step_us(const StepShape& shape) = 0;
  // Pipeline stages a batch passes through (pp); the engine keeps up to this many in flight.
  virtual int64_t pipeline_stages() const { return 1; }
  // Of step_us, what only the end stages run (the embedding and the LM head): every stage but
  // the last takes step_us less this. 0 without pipeline stages.
  virtual double pipeline_edge_us(const StepShape& /*shape*/) { return 0; }
  virtual StepMemory memory() const = 0;
  // Peak activation memory of a forward pass over `tokens` tokens (vLLM's profile run).
  virtual double activation_peak_bytes(int64_t tokens) = 0;
  virtual int64_t gpus() const = 0;
  // The model's sliding attention window in tokens (0: every layer attends to all keys).
  virtual int64_t sliding_window_tokens() const { return 0; }
  // Ranks that each serve their own requests (attention data parallel): the engine's batch
  // limits and KV pool are per rank, so the replica's are this many times one rank's.
  virtual int64_t data_parallel_ranks() const { return 1; }
};

}  // namespace ridgeline
