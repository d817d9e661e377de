// How a model is run: phase, sizes, precision, which kernels the implementation launches
// (runtime, a profile read from data: runtime_profile.h) and how (launch mode). Plain data,
// checked by check_run_config().
#pragma once

#include "workloads/model_config.h"
#include "workloads/op.h"
#include "workloads/runtime_profile.h"

#include <cstdint>
#include <string>

namespace ridgeline {

enum class Phase { Prefill, Decode, Train };
enum class LaunchMode { Graph, Eager };  // replayed from a CUDA graph, or launched from Python
enum class Optimizer { None, AdamW };
// Activation recomputation in training: none; selective (Megatron's "core attention": the
// attention kernels run again in the backward pass); full (the whole block's forward runs again,
// only its input is kept).
enum class Recompute { None, Selective, Full };
// Parameters in training: in the weights' dtype (none), or fp32 master parameters the forward
// casts to --weights under torch.autocast (fp32): fp32 gradients and optimizer (autocast.h).
enum class MasterWeights { None, Fp32 };

struct RunConfig {
  Phase phase = Phase::Prefill;
  int64_t batch = 1;
  int64_t seq = 0;     // prompt tokens (prefill) or sequence length (train)
  int64_t kv_len = 0;  // cached tokens before the new one (decode) or the prompt chunk
                       // (prefill of a chunk over a cached prefix)
  int64_t blocks = 0;  // 0: the whole model; N: only N decoder blocks
  // The DynamicCache a decode step concatenates onto is a cropped view, not a tensor of its own
  // (measure_hf.py's decode steps: DynamicCache.crop after each step), so torch.cat reads a
  // strided input. Set by the validation loader for those records; generate() never crops.
  bool cache_cropped = false;
  int64_t cache_capacity = 0;  // --max-cache-len: a StaticCache's length (0: the positions the
                               // step reaches); only with a static_index_copy runtime
  bool logits_all = false;     // logits for every position (always in training)
  RuntimeProfile runtime = default_runtime();  // --runtime: pytorch-eager unless told
  LaunchMode launch = LaunchMode::Graph;
  DType weights = DType::Bf16;
  int weight_bits = 0;  // weight-only int8 / int4 (inference): weights stored in 8 or 4 bits
  // The routed experts' weights kept in MXFP4 (inference), as gpt-oss's checkpoint ships them and
  // serving engines run them: 4.25 bits a weight (4-bit values, an 8-bit scale a block of 32),
  // read by a weight-only GEMM in the 16-bit activations' dtype (Hopper's W4A16 MoE kernels).
  bool mxfp4_experts = false;
  DType activations = DType::Bf16;
  DType kv_cache = DType::Bf16;
  Optimizer optimizer = Optimizer::None;
  Recompute recompute = Recompute::None;               // activation recomputation in training
  MasterWeights master_weights = MasterWeights::None;  // --master-weights (train)
  bool grad_scaler = false;    // --grad-scaler: torch.amp.GradScaler's kernels (fp16 training)
  double moe_imbalance = 1.0;  // busiest expert's tokens over the mean (>= 1)
  // Expert parallelism (set by the sharding, workloads/sharding.h): the experts are spread over
  // this many ranks, each running experts / expert_ranks of them on the tokens of all the ranks.
  int64_t expert_ranks = 1;
  // MoE parallel folding (set by the sharding: ParallelConfig::moe_folded): the routed experts
  // run on the rank's sequence-parallel shard, the step's tokens / this; the shared expert, split
  // over the TP group like the MLP, keeps them all.
  int64_t moe_token_split = 1;
};

// Bits of storage a MXFP4 weight takes (OCP MX: 4-bit E2M1 values, one E8M0 scale per 32).
constexpr double kMxfp4BitsPerWeight = 4.25;
// Bytes a routed expert's weight takes in memory: MXFP4's under mxfp4_experts, else the bytes
// every other weight takes (`dense_bytes`).
double expert_weight_bytes_per_param(const RunConfig& run, double dense_bytes);

// The embedding table and the LM head stay in 16 bits when the decoder's weights are quantized
// (fp8, or weight-only int8 / int4, inference): no engine quantizes an embedding lookup, and the
// FP8 / INT4 checkpoints the engines load leave lm_head out (ModelOpt's and TensorRT-LLM's
// exports write "exclude_modules": ["lm_head"]; vLLM quantizes only the layers a checkpoint
// names). The activations' dtype when it is 16-bit, else bf16; the weights' dtype otherwise.
DType table_weight_dtype(const RunConfig& run);
bool weights_quantized(const RunConfig& run);
// Bytes of `params` weights other than routed experts', `tables` of them the embedding and LM
// head: those at table_weight_dtype, the rest at `bytes_per_param`.
double non_expert_weight_bytes(const RunConfig& run, double params, double tables,
                               double bytes_per_param);

const char* phase_name(Phase p);
const char* runtime_name(const RuntimeProfile& r);
const char* launch_name(LaunchMode l);
const char* recompute_name(Recompute r);           // "none", "selective", "full"
const char* master_weights_name(MasterWeights w);  // "none", "fp32"

// Throws InputError naming the flag for impossible combinations (e.g. decode without
// --kv-len, training with fp8 weights, batch < 1).
void check_run_config(const RunConfig& run, const ModelConfig& model);

// Tokens the step processes: batch * seq (prefill, train) or batch (decode).
int64_t step_tokens(const RunConfig& run);
// Positions the step's sequences reach: kv_len + 1 (decode), kv_len + seq (prefill, train).
int64_t step_positions(const RunConfig& run);

}  // namespace ridgeline
