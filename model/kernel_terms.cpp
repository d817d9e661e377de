// Shared cost terms; see kernel_terms.h.
#include "model/kernel_terms.h"

#include "common/errors.h"
#include "common/name_table.h"
#include "hardware/derived.h"
#include "workloads/op_math.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

const char* bottleneck_name(Bottleneck b) {
  static const NameTable<Bottleneck> names = {
      {Bottleneck::Compute, "compute"}, {Bottleneck::Hbm, "hbm"},
      {Bottleneck::L2, "l2"},           {Bottleneck::Smem, "smem"},
      {Bottleneck::Latency, "latency"}, {Bottleneck::Comm, "comm"}};
  return names.name(b);
}

double achievable_hbm_bytes_per_s(const GpuSpec& gpu, double active_sms, double efficiency) {
  if (efficiency <= 0) efficiency = gpu.model.memory.hbm_efficiency.value;
  double chip = efficiency * hbm_bytes_per_s(gpu);
  double per_sm = gpu.model.memory.sm_bytes_per_clk.value * gpu.compute.max_clock_MHz.value * 1e6;
  return std::min(chip, std::max(1.0, active_sms) * per_sm);
}

double achievable_l2_bytes_per_s(const GpuSpec& gpu, double active_sms) {
  double chip = gpu.model.memory.l2_efficiency.value * l2_bytes_per_s(gpu);
  double per_sm =
      gpu.model.memory.sm_l2_bytes_per_clk.value * gpu.compute.max_clock_MHz.value * 1e6;
  return std::min(chip, std::max(1.0, active_sms) * per_sm);
}

double smem_bytes_per_s(const GpuSpec& gpu, double active_sms) {
  return gpu.memory.smem_bytes_per_clk_per_sm.value * std::max(1.0, active_sms) *
         gpu.compute.max_clock_MHz.value * 1e6;
}

double l2_hit_fraction(const GpuSpec& gpu, double working_set_bytes) {
  double cap = gpu.memory.l2.capacity_bytes.value;
  double start = gpu.model.memory.l2_knee_start_fraction.value * cap;
  double end = gpu.model.memory.l2_knee_end_fraction.value * cap;
  if (working_set_bytes <= start) return 1.0;
  if (working_set_bytes >= end) return 0.0;
  return 1.0 - (working_set_bytes - start) / (end - start);
}

MathUnit matrix_unit(const GpuSpec& gpu, DType d) {
  MathUnit u = MathUnit::VectorFp32;
  switch (d) {
    case DType::Fp32:
      u = MathUnit::VectorFp32;
      break;
    case DType::Tf32:
      u = MathUnit::TensorTf32;
      break;
    case DType::Bf16:
      u = MathUnit::TensorBf16;
      break;
    case DType::Fp16:
      u = MathUnit::TensorFp16;
      break;
    case DType::Fp8:
      u = MathUnit::TensorFp8;
      break;
    case DType::Fp4:
      u = MathUnit::TensorFp4;
      break;
  }
  if (!has_unit(gpu, u)) {
    throw InputError(std::string("/dtype: ") + gpu.name + " has no " + math_unit_key(u) +
                     (is_tensor_unit(u) ? " tensor cores" : " units") + " (" + gpu.file + ")");
  }
  return u;
}

bool fp4_dequantized(const GpuSpec& gpu, DType d) {
  return d == DType::Fp4 && !has_unit(gpu, MathUnit::TensorFp4);
}

MathUnit gemm_unit(const GpuSpec& gpu, DType d) {
  if (fp4_dequantized(gpu, d)) return MathUnit::TensorBf16;
  return matrix_unit(gpu, d);
}

double vector_seconds(const GpuSpec& gpu, double vector_flops, double sfu_ops, double active_sms) {
  double share = std::clamp(active_sms / sm_count(gpu), 1.0 / sm_count(gpu), 1.0);
  double fp32 =
      peak_flops_per_s(gpu, MathUnit::VectorFp32) * gpu.model.vector.efficiency.value * share;
  double sfu = gpu.compute.sfu_ops_per_clk_per_sm.value * sm_count(gpu) * share *
               gpu.compute.max_clock_MHz.value * 1e6;
  return vector_flops / fp32 + sfu_ops / sfu;
}

double memory_latency_us(const GpuSpec& gpu, double hbm_fraction) {
  double f = std::clamp(hbm_fraction, 0.0, 1.0);
  return (f * gpu.memory.hbm.latency_ns.value + (1 - f) * gpu.memory.l2.latency_ns.value) / 1000;
}

double kernel_overhead_us(const GpuSpec& gpu, double hbm_fraction) {
  return gpu.launch.graph_us.value + gpu.model.kernel.latency_us.value +
         gpu.model.memory.latency_round_trips.value * memory_latency_us(gpu, hbm_fraction);
}

double list_schedule_cycles(const std::vector<double>& items, double slots) {
  // A binary min-heap of the times slots free up; each item replaces the top and sifts down.
  size_t n = (size_t)std::max(1.0, slots);
  std::vector<double> heap(n, 0.0);
  double makespan = 0;
  for (double w : items) {
    double t = heap[0] + w;
    makespan = std::max(makespan, t);
    size_t i = 0;
    for (;;) {
      size_t l = 2 * i + 1, r = l + 1, m = i;
      double mv = t;
      if (l < n && heap[l] < mv) m = l, mv = heap[l];
      if (r < n && heap[r] < mv) m = r, mv = heap[r];
      if (m == i) break;
      heap[i] = heap[m];
      i = m;
    }
    heap[i] = t;
  }
  return makespan;
}

void finish(const GpuSpec& gpu, OpCost& c) {
  double sms = c.detail.active_sms;
  require_invariant(sms > 0, "finish() needs active_sms > 0");
  c.hbm_us = c.bytes.hbm / achievable_hbm_bytes_per_s(gpu, sms, c.detail.hbm_efficiency) * 1e6;
  c.l2_us = c.bytes.l2 / achievable_l2_bytes_per_s(gpu, sms) * 1e6;
  c.smem_us = c.bytes.smem / smem_bytes_per_s(gpu, sms) * 1e6;
  c.overhead_us =
      c.detail.kernels * kernel_overhead_us(gpu, c.bytes.hbm > 0 ? c.detail.hbm_load_fraction : 0);
  struct Term {
    double us;
    Bottleneck b;
  };
  Term terms[] = {{c.compute_us, Bottleneck::Compute},
                  {c.hbm_us, Bottleneck::Hbm},
                  {c.l2_us, Bottleneck::L2},
                  {c.smem_us, Bottleneck::Smem}};
  Term top = terms[0];
  for (const Term& t : terms) {
    if (t.us > top.us) top = t;
  }
  c.time_us = c.overhead_us + top.us;
  c.bottleneck = top.us >= c.overhead_us ? top.b : Bottleneck::Latency;
  require_invariant(std::isfinite(c.time_us) && c.time_us > 0,
                    "kernel time must be finite and positive");
}

double clock_boost(const GpuSpec& gpu, double active_sms) {
  const auto& p = gpu.model.power;
  double f = active_sms / sm_count(gpu);
  double lo = p.boost_below_fraction.value, hi = p.boost_above_fraction.value;
  if (f <= lo) return p.few_sm_speedup.value;
  if (f >= hi) return 1.0;
  return 1.0 + (p.few_sm_speedup.value - 1.0) * (hi - f) / (hi - lo);
}

double start_memory_kernel(const Op& op, double ctas, const GpuSpec& gpu, OpCost& c) {
  OpWork w = op_work(op);
  c.detail.ctas = ctas;
  c.detail.active_sms = std::min(sm_count(gpu), std::max(1.0, ctas));
  c.detail.waves = ceil_div(ctas, sm_count(gpu));
  c.compute_us = vector_seconds(gpu, w.vector_flops, w.sfu_ops, c.detail.active_sms) * 1e6;
  double hit =
      op.warm_l2 ? l2_hit_fraction(gpu, std::max(w.unique_bytes(), op.l2_working_set_bytes)) : 0.0;
  c.detail.l2_hit_fraction = hit;
  c.detail.hbm_load_fraction = 1 - hit;
  return hit;
}

}  // namespace ridgeline
