// Attention implementations as choices (workloads/op.h AttentionImpl): which kernel PyTorch's
// scaled_dot_product_attention runs on a GPU for a dtype when the op names none, whether the GPU
// can run the one it names, and each one's cost.
//
//   AttentionImpl i = attention_impl_for(a, gpu);   // cudnn on Hopper for bf16, flash2 on Ampere
//   OpCost c = attention_impl_cost(a, gpu);         // c.impl == attention_impl_name(i)
#pragma once

#include "hardware/gpu_spec.h"
#include "model/op_cost.h"
#include "workloads/op.h"

namespace ridgeline {

// a.impl when set, checked against the GPU (an InputError starting "/impl: " when the GPU cannot
// run it: FlashAttention-3 off Hopper, cuDNN off NVIDIA); else SDPA's pick: in fp32 or with
// head_dim over 256 the memory-efficient kernel, else cuDNN on Hopper and Blackwell (PyTorch's
// priority there, as measured: validate/data/h200-sxm-ops-2026-11-29.json ran cuDNN's kernel
// with every backend enabled), FlashAttention-2 elsewhere.
AttentionImpl attention_impl_for(const AttentionOp& a, const GpuSpec& gpu);

// The cost of the implementation attention_impl_for picks, naming it in OpCost::impl.
OpCost attention_impl_cost(const AttentionOp& a, const GpuSpec& gpu);

// FlashAttention-2's num_splits_heuristic (flash_api.cpp): one split when the work items (batch
// x heads x query blocks) almost fill the SMs (>= 0.8 of them), else the fewest splits of the key
// blocks, among those that change the blocks per split, whose wave efficiency is within 0.85 of
// the best up to min(max_splits, SMs, key blocks). PyTorch 2.11 passes twice the SM count.
int fa2_num_splits(double items, double sms, double kv_blocks, int max_splits);

// The math backend (attention_math.cpp): bmm, softmax and bmm as separate ATen kernels in fp32,
// with the casts, scalings, GQA expansion and causal mask around them.
OpCost math_attention_cost(const AttentionOp& a, const GpuSpec& gpu);

}  // namespace ridgeline
