// Internal to workloads/: the pieces every MoE kernel set shares (moe_forward.cpp defines them):
// the experts one rank runs, their grouped GEMMs and the small index kernels around them.
#pragma once

#include "workloads/builder_ops.h"
#include "workloads/moe_routing.h"

namespace ridgeline {

// One grouped GEMM over the experts that receive tokens, m rows each (their mean load).
Op grouped_gemm(const ExpertLoad& load, int64_t n, int64_t k, const RunConfig& run);

// A small index kernel (sort, histogram, offsets, masks, routing-weight gathers): `n` 4-byte
// values.
Op moe_index_op(int64_t n);

// The experts one rank runs: of all experts, over the tokens of the expert_ranks ranks it
// exchanges tokens with, 1 / expert_ranks of those that receive any (each rank holds E / ep).
ExpertLoad rank_expert_load(const ModelConfig& m, const RunConfig& run, int64_t T);

// Megatron-Core's MoE layer with Transformer Engine over T tokens (moe_megatron.cpp): the
// routed experts only; returns its last kernel.
OpVertex emit_megatron_moe(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T,
                           OpVertex in);

}  // namespace ridgeline
