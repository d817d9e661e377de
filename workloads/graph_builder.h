// Graph builders: a model config and a run config become an OpGraph of the kernels the chosen
// runtime launches. See inference_builder.cpp (prefill, decode) and train_builder.cpp.
#pragma once

#include "workloads/model_config.h"
#include "workloads/op_graph.h"
#include "workloads/run_config.h"

namespace ridgeline {

OpGraph build_graph(const ModelConfig& model, const RunConfig& run);

}  // namespace ridgeline
