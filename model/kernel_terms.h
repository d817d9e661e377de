// Terms shared by every kernel's cost: the bandwidth a kernel can reach with the SMs it keeps
// busy, the fraction of a working set L2 serves, the unit a dtype runs on, and finish(), which
// turns the work and traffic an op model worked out into the final time and bottleneck.
#pragma once

#include "hardware/gpu_spec.h"
#include "model/op_cost.h"
#include "workloads/op.h"

#include <vector>

namespace ridgeline {

// Achievable HBM bytes/s when `active_sms` SMs stream: the chip's efficiency-limited bandwidth,
// or what that many SMs can keep in flight (Little's law), whichever is lower.
// `efficiency` overrides the chip's streaming efficiency when positive.
double achievable_hbm_bytes_per_s(const GpuSpec& gpu, double active_sms, double efficiency = 0);
double achievable_l2_bytes_per_s(const GpuSpec& gpu, double active_sms);
double smem_bytes_per_s(const GpuSpec& gpu, double active_sms);

// Fraction of a working set of `bytes` that stays in L2: 1 below l2_knee_start x capacity,
// 0 above l2_knee_end x capacity, falling linearly in between (a soft knee, not a step).
double l2_hit_fraction(const GpuSpec& gpu, double working_set_bytes);

// The unit a matrix op of dtype d runs on; throws InputError if the GPU lacks it.
MathUnit matrix_unit(const GpuSpec& gpu, DType d);
// Whether a GEMM of dtype `d` runs NVFP4's dequantising path on this GPU (no FP4 tensor cores:
// bf16 math against 4.5-bit weights, model/gemm_cost.cpp).
bool fp4_dequantized(const GpuSpec& gpu, DType d);
// The unit a GEMM of dtype `d` runs on: matrix_unit's, or bf16's on the dequantising path.
MathUnit gemm_unit(const GpuSpec& gpu, DType d);

// Seconds of CUDA-core and special-function work, spread over `active_sms`.
double vector_seconds(const GpuSpec& gpu, double vector_flops, double sfu_ops, double active_sms);

// One memory round trip when `hbm_fraction` of the loads miss L2: the HBM latency for those, the
// L2 latency for the rest.
double memory_latency_us(const GpuSpec& gpu, double hbm_fraction);
// What a kernel costs beyond its work when replayed from a CUDA graph: the launch gap, a fixed
// latency, and the memory round trips (load, store drain) at memory_latency_us each.
double kernel_overhead_us(const GpuSpec& gpu, double hbm_fraction);
// How much faster a kernel with `active_sms` busy SMs computes than a full-chip one, because the
// clock rises when the GPU is below its power limit (model.power): few_sm_speedup at or below
// boost_below_fraction of the SMs, 1 at or above boost_above_fraction, linear in between.
double clock_boost(const GpuSpec& gpu, double active_sms);

// Adds `us` of fixed cost (an extra pass, a helper kernel) to a finished cost.
inline void add_overhead(OpCost& c, double us) {
  c.overhead_us += us;
  c.time_us += us;
}

// Fills time_us, the per-level times, overhead and bottleneck of `c`, whose compute_us, bytes
// and detail.active_sms the op model set.
void finish(const GpuSpec& gpu, OpCost& c);

// A memory-bound kernel of `ctas` CTAs over the op's operands: sets its launch shape (CTAs, SMs
// busy, waves), its vector math and the share of its working set L2 holds (warm_l2: the part
// the knee keeps; else none), and returns that share. Its bytes and finish() are the caller's.
double start_memory_kernel(const Op& op, double ctas, const GpuSpec& gpu, OpCost& c);

// Makespan of `items` (cycles each, in launch order) on `slots` identical slots, each item
// going to the slot that frees first (how the GPU's block scheduler fills SMs).
double list_schedule_cycles(const std::vector<double>& items, double slots);

inline double ceil_div(double a, double b) {
  return a <= 0 ? 0 : (double)(long long)((a + b - 1) / b);
}

}  // namespace ridgeline
