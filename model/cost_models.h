// Internal to model/: one cost function per op family. predict_op() dispatches to them and
// adds what every op shares (FLOP counts, the plain roofline).
#pragma once

#include "hardware/gpu_spec.h"
#include "model/op_cost.h"
#include "workloads/op.h"

namespace ridgeline {

OpCost gemm_cost(const GemmOp& g, const GpuSpec& gpu);
OpCost attention_cost(const AttentionOp& a, const GpuSpec& gpu);
OpCost elementwise_cost(const ElementwiseOp& e, bool warm_l2, const GpuSpec& gpu);
OpCost reduce_cost(const ReduceOp& r, bool warm_l2, const GpuSpec& gpu);
OpCost row_op_cost(const RowOp& r, bool warm_l2, const GpuSpec& gpu);

}  // namespace ridgeline
