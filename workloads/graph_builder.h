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

}  // namespace ridgeline
