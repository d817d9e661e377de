// FP8 training as Transformer Engine runs it under Megatron-Core / NeMo (`predict --cluster ...
// --phase train --precision fp8 --fp8-recipe R`): the per-rank graph of one micro-batch
// (sharding.h) rewritten so that every TE linear layer's GEMMs -- forward (fprop), recomputed
// forward, and both backward GEMMs (dgrad, wgrad) -- take fp8 operands (1 byte, the GPU's fp8
// tensor rate, a bf16 output), with the quantize kernels TE launches around them:
//   - before each forward GEMM, its input cast to fp8 and transposed (for the wgrad): one kernel
//     per distinct input (q, k and v, or gate and up, share the one of their common input),
//     reading 2 and writing 1 + 1 bytes an element (priced as a bf16 copy: the same traffic);
//   - each weight cast and transposed to fp8 once per step (TE caches it over the micro-batches
//     of a step, Megatron's is_first_microbatch), priced as 1/microbatches of that kernel per
//     micro-batch; once per micro-batch under ZeRO-3 / FSDP (the weight is gathered again);
//   - before each dgrad, the output gradient cast and transposed to fp8 (e5m2), shared by the
//     dgrad and wgrad of that GEMM;
//   - under sequence parallelism with a per-tensor recipe (delayed or current), a TP all-gather
//     feeding only TE GEMMs (the norm's output before q/k/v or gate/up, the output gradient
//     before a row-parallel dgrad) carries fp8: the rank's shard is cast before it (current
//     scaling all-reduces the shards' amax over the TP group first, 4 bytes), 1 byte an element
//     is gathered, and the gathered tensor is transposed in fp8 for the wgrad (TE's Linear and
//     LayerNormLinear gather quantized inputs; added 2026-12-07); blockwise and MXFP8 gather bf16;
//   - recipe "current" (per-tensor current scaling) adds an amax pass (a max reduction reading
//     the tensor) before every cast; "delayed" computes amax inside the cast kernel and reduces
//     the amax history once per forward and backward of a model chunk (model/ prices that
//     all-reduce); "blockwise" (1x128 / 128x128 scales) and "mxfp8" (32-element E8M0 scales,
//     Blackwell) compute their scales inside the quantize kernel (their few-% scale bytes are
//     not counted).
// Stays bf16: attention (no published row uses FP8 attention), norms, elementwise kernels, the
// LM head and the embedding (Megatron's output layer is not a TE module), the MoE router, the
// loss, and every collective but the sequence-parallel gathers above and the distributed
// optimizer's parameter all-gather under --fp8-param-gather (fp8 primary weights: NeMo 2.0's
// fp8_params, Megatron's --fp8-param-gather).
#pragma once

#include "workloads/op_graph.h"
#include "workloads/run_config.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ridgeline {

enum class Fp8Recipe { Delayed, Current, Blockwise, Mxfp8 };
const char* fp8_recipe_name(Fp8Recipe r);  // "delayed", "current", "blockwise", "mxfp8"
std::optional<Fp8Recipe> parse_fp8_recipe(const std::string& name);

struct Fp8Training {
  bool on = false;  // off: bf16 training (every field below unused)
  Fp8Recipe recipe = Fp8Recipe::Delayed;
  bool param_gather = false;  // the ZeRO 1-2 parameter all-gather carries fp8 block weights
};

// What the rewrite put in: TE GEMMs of one decoder block's forward (the amax history holds three
// scaling factors for each: input, weight, output gradient) and every cast kernel it added.
struct Fp8Rewrite {
  OpGraph graph;
  int64_t block_te_gemms = 0;
  int64_t casts = 0;
};

// Whether a GEMM of this role runs in fp8 under Transformer Engine (every weight GEMM but the LM
// head and the MoE router).
bool te_fp8_gemm(const KernelRole& role);

// The rank graph with TE's fp8 GEMMs and casts. `weight_casts_per_step_share`: the share of a
// weight cast one micro-batch pays (1 / microbatches, or 1 under ZeRO-3). `reduction`: how the
// runtime launches the amax reductions of the current-scaling recipe.
Fp8Rewrite apply_fp8_training(const OpGraph& rank_graph, const Fp8Training& fp8,
                              double weight_cast_share, const ReduceLaunch& reduction);

}  // namespace ridgeline
