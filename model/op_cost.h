// The single-kernel model's answer: how long one kernel takes on one GPU, why, and what it
// moves. time = overhead + max(compute, HBM, L2, shared memory), where each term already
// carries the effects a plain roofline misses (wave and tile quantization, alignment, the
// bandwidth a few SMs can pull, L2 hits, causal imbalance); see ARCHITECTURE.md "The model".
// One-shot memory-bound kernels with few CTAs per SM also pay part of their shorter phase,
// which no other CTA overlaps.
//
//   OpCost c = predict_op(op, gpu);
//   c.time_us, c.bottleneck, c.bytes.hbm, c.detail.waves ...
#pragma once

#include "hardware/gpu_spec.h"
#include "workloads/op.h"

namespace ridgeline {

// Comm: a collective, bound by the links between GPUs (model/collective_cost.h).
enum class Bottleneck { Compute, Hbm, L2, Smem, Latency, Comm };
const char* bottleneck_name(Bottleneck b);  // "compute", "hbm", "l2", "smem", "latency", "comm"

struct LevelBytes {
  double hbm = 0;   // device memory traffic
  double l2 = 0;    // traffic between SMs and L2 (includes what L2 passes on from HBM)
  double smem = 0;  // shared-memory reads + writes
};

// How the kernel was laid out on the GPU (GEMM and attention fill these in).
struct LaunchShape {
  int tile_m = 0, tile_n = 0;   // CTA tile (GEMM) or query x key block (attention)
  int split = 1;                // split-K (GEMM) or split-KV (attention)
  double ctas = 0;              // CTAs launched
  double waves = 0;             // ceil(ctas / (SMs x CTAs per SM)); fractional for uneven work
  double wave_efficiency = 1;   // useful work / work the waves could have done
  double alignment_bytes = 16;  // worst operand alignment (GEMM)
  double active_sms = 0;        // SMs with work
  double l2_hit_fraction = 0;   // of re-read or warm bytes
  int kernels = 1;              // launches the op needs (a split-K or split-KV pass adds one)
  double hbm_efficiency = 0;    // achievable HBM fraction, when the op's differs from the chip's
  // Share of the kernel's first loads that HBM serves (the rest hit L2): weighs the memory
  // round trips of its fixed overhead between the two latencies when it touches HBM at all.
  double hbm_load_fraction = 1;
};

struct OpCost {
  double time_us = 0;
  Bottleneck bottleneck = Bottleneck::Latency;
  double matrix_flops = 0, vector_flops = 0, sfu_ops = 0;
  LevelBytes bytes;
  // The terms of the max, and the overhead added to it.
  double compute_us = 0, hbm_us = 0, l2_us = 0, smem_us = 0, overhead_us = 0;
  // The plain datasheet roofline for the same op: max(FLOPs / peak, unique bytes / HBM bandwidth).
  double roofline_us = 0;
  LaunchShape detail;
  // The implementation that ran, for op kinds that have a choice ("cudnn", "flash2", "aten",
  // "triton", "vectorized", ...; workloads/op.h's name tables); null for the others.
  const char* impl = nullptr;
  double flops() const { return matrix_flops + vector_flops; }
};

// Throws InputError when the GPU cannot run the op (e.g. fp8 on an A100).
OpCost predict_op(const Op& op, const GpuSpec& gpu);

// The reference line: a datasheet roofline with no overheads and no efficiency factors.
double plain_roofline_us(const Op& op, const GpuSpec& gpu);

}  // namespace ridgeline
