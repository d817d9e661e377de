// Training sections: the loss over all positions, the backward pass (two GEMMs per forward
// GEMM, the attention backward kernel, the backward of every elementwise and norm kernel, the
// gradient sums where the residual stream branches), optional activation recomputation, and
// the AdamW step.
#pragma once

#include "workloads/model_config.h"
#include "workloads/op_graph.h"
#include "workloads/run_config.h"

namespace ridgeline {

// Appends the loss, backward and optimizer sections to a graph whose forward sections exist.
void add_training_sections(OpGraph& g, const ModelConfig& model, const RunConfig& run);

}  // namespace ridgeline
