// Internal to model/: one cost function per op family. predict_op() dispatches to them and
// adds what every op shares (FLOP counts, the plain roofline). The memory-bound ones also take
// the whole op, for where its inputs come from (warm_l2, l2_working_set_bytes).
#pragma once

#include "hardware/gpu_spec.h"
#include "model/op_cost.h"
#include "workloads/op.h"

namespace ridgeline {

OpCost gemm_cost(const GemmOp& g, const GpuSpec& gpu);
// A routed grouped GEMM's expected row tiles of `tile_m` rows (GemmOp::routed), summed over
// its experts.
double expected_routed_row_tiles(const GemmOp& g, double tile_m);
OpCost attention_cost(const AttentionOp& a, const GpuSpec& gpu);
// The same kernel over exactly kv_splits key splits in decode (a library's own split choice, as
// FlashAttention-2's num_splits heuristic makes it), in place of the GPU parameters' choice.
OpCost attention_cost(const AttentionOp& a, const GpuSpec& gpu, int kv_splits);
OpCost elementwise_cost(const ElementwiseOp& e, const Op& op, const GpuSpec& gpu);
OpCost reduce_cost(const ReduceOp& r, const Op& op, const GpuSpec& gpu);
OpCost row_op_cost(const RowOp& r, const Op& op, const GpuSpec& gpu);
// ATen's forward norms and softmax (aten_row_cost.cpp); row_op_cost routes them there.
OpCost aten_row_forward_cost(const RowOp& r, const Op& op, const GpuSpec& gpu);
// Which of ATen's softmax forward kernels a row width runs (host_softmax's limits):
// softmax_warp_forward to 1024 / 2048 columns (at most 8 KiB a row), cunn_SoftMaxForwardReg to
// 8192, cunn_SoftMaxForwardSmem under 48 KiB a row, the multi-pass cunn_SoftMaxForward beyond.
enum class AtenSoftmaxKernel { Warp1024, Warp2048, Registers, SharedMemory, MultiPass };
AtenSoftmaxKernel aten_softmax_kernel(const RowOp& r);
// AdamW's foreach and for-loop steps (adamw_cost.cpp); fused is elementwise_cost's.
OpCost adamw_impl_cost(const ElementwiseOp& e, const GpuSpec& gpu);

}  // namespace ridgeline
