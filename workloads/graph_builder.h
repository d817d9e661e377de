// Graph builders: a model config and a run config become an OpGraph of the kernels the chosen
// runtime launches. See inference_builder.cpp (prefill, decode) and train_builder.cpp.
#pragma once

#include "workloads/model_config.h"
#include "workloads/op_graph.h"
#include "workloads/run_config.h"

namespace ridgeline {

OpGraph build_graph(const ModelConfig& model, const RunConfig& run);

// One serving step's kernels but attention, for a batch that mixes prefill chunks and decodes:
// embedding, the decoder blocks (norms, projections, RoPE and cache writes, MLP) over `tokens`
// tokens of all requests together, and the head with logits for `sampled` rows (one a request
// in the step). Attention is left out: its cost depends on each request's query and cache
// lengths, so the serving step model prices it per request group (serve/gpu_step_model.cpp).
// Reads run's precision, runtime and launch; not its phase or sizes.
OpGraph build_serving_step_graph(const ModelConfig& model, const RunConfig& run, int64_t tokens,
                                 int64_t sampled);

// Multi-head latent attention is served in its absorbed form (workloads/mla_forward.cpp): an
// InputError naming the model's file for a runtime that runs transformers' expand_kv.
void check_serving_mla(const ModelConfig& model, const RunConfig& run);
// What the serving step graph leaves out of absorbed MLA for one request group, every layer:
// a decode's (q_len 1) q_absorb_uk, attention over the latent cache and o_absorb_uv; a prefill
// chunk's kv_b_proj over its kv_len keys, the key cat and flash attention.
OpGraph build_serving_mla_attention_graph(const ModelConfig& model, const RunConfig& run,
                                          int64_t requests, int64_t q_len, int64_t kv_len);

}  // namespace ridgeline
