// Figures derived from a GpuSpec: peak throughput per unit (SMs x ops/clk/SM x clock), ridge
// points (peak FLOP/s over memory bandwidth: the arithmetic intensity, in FLOP per byte, above
// which a kernel is compute-bound), and unit conversions used everywhere in the model.
#pragma once

#include "hardware/gpu_spec.h"

namespace ridgeline {

// Derived and stated peaks may differ this much (L40S's datasheet mixes 2.49 and 2.52 GHz).
constexpr double kPeakTolerance = 0.02;

bool has_unit(const GpuSpec& s, MathUnit u);
double clock_MHz(const GpuSpec& s, MathUnit u);    // tensor clock or max clock
double peak_tflops(const GpuSpec& s, MathUnit u);  // 0 when the GPU lacks the unit
double peak_flops_per_s(const GpuSpec& s, MathUnit u);
double hbm_bytes_per_s(const GpuSpec& s);
double l2_bytes_per_s(const GpuSpec& s);
// FLOP per byte of device memory at which compute time equals memory time.
double ridge_flop_per_byte(const GpuSpec& s, MathUnit u);
double sm_count(const GpuSpec& s);

}  // namespace ridgeline
