// Internal to workloads/: the kernels of DeepSeek-V2/V3 blocks (mla_forward.cpp), called from
// block_forward.cpp and moe_forward.cpp where a model has MLA or DeepSeek's MoE layout.
#pragma once

#include "workloads/builder_ops.h"

namespace ridgeline {

// MLA from the input norm's output to what o_proj reads (heads * v_head_dim per token), as the
// runtime's attention/mla choice runs it; returns that kernel.
OpVertex emit_mla_attention(Emitter& e, const ModelConfig& m, const RunConfig& run,
                            const BlockShape& s, OpVertex norm);
// What a serving step prices per request group of absorbed MLA (model/serving_step.h): a decode's
// q_absorb_uk, attention over the latent cache and o_absorb_uv; a prefill's kv_b_proj over its
// keys, the key cat and flash attention. The rest of the block (down projections, norms, RoPE
// and the cache write) is in the step's graph (BlockShape::attention false).
void emit_absorbed_mla_attention_part(Emitter& e, const ModelConfig& m, const RunConfig& run,
                                      const BlockShape& s);
// transformers' DeepseekV3TopkRouter / DeepseekV2 gate over T tokens (the kernels before the
// experts' dispatch); returns the last.
OpVertex emit_deepseek_hf_router(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T,
                                 OpVertex in);

}  // namespace ridgeline
