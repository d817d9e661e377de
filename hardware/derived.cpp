// Derived hardware figures; see derived.h.
#include "hardware/derived.h"

namespace ridgeline {

bool has_unit(const GpuSpec& s, MathUnit u) {
  return s.compute.ops_per_clk_per_sm[(int)u].has_value();
}

double clock_MHz(const GpuSpec& s, MathUnit u) {
  return is_tensor_unit(u) ? s.compute.tensor_clock_MHz.value : s.compute.max_clock_MHz.value;
}

double peak_flops_per_s(const GpuSpec& s, MathUnit u) {
  const auto& ops = s.compute.ops_per_clk_per_sm[(int)u];
  if (!ops) return 0;
  return s.compute.sm_count.value * ops->value * clock_MHz(s, u) * 1e6;
}

double peak_tflops(const GpuSpec& s, MathUnit u) {
  return peak_flops_per_s(s, u) / 1e12;
}

double hbm_bytes_per_s(const GpuSpec& s) {
  return s.memory.hbm.bandwidth_GBps.value * 1e9;
}

double l2_bytes_per_s(const GpuSpec& s) {
  return s.memory.l2.bandwidth_GBps.value * 1e9;
}

double ridge_flop_per_byte(const GpuSpec& s, MathUnit u) {
  return peak_flops_per_s(s, u) / hbm_bytes_per_s(s);
}

double sm_count(const GpuSpec& s) {
  return s.compute.sm_count.value;
}

}  // namespace ridgeline
