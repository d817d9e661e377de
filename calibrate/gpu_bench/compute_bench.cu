// Compute family: FP32 FMA throughput of the CUDA cores and tensor-core throughput per dtype.
//
// FMA: every thread of a full-occupancy grid runs 8 independent fmaf chains, 16 deep per loop
// trip, so the pipes never wait on a result; flops = 2 per FMA, and flops/clk/SM is derived with
// the attribute clock and with the clock measured in the kernel (block 0's cycles over its ns).
// Tensor cores: one large cuBLASLt GEMM per dtype (8192^3; bf16, fp16, tf32 with
// CUBLAS_COMPUTE_32F_FAST_TF32, fp8 e4m3 with bf16 output), timed like every GEMM point.
#include "device_clock.cuh"
#include "gemm_lt.cuh"

#include <algorithm>

namespace ridgeline::gpubench {

namespace {

constexpr int kFmaThreads = 256;
constexpr int kChains = 8;
constexpr int kDepth = 16;

__global__ void fma_chains(float* out, uint32_t iters, float a, float b, long long* region) {
  Stamp t0 = stamp();
  float x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = threadIdx.x * 1e-3f + c + opaque_zero(t0);
  for (uint32_t i = 0; i < iters; ++i) {
#pragma unroll
    for (int d = 0; d < kDepth; ++d) {
#pragma unroll
      for (int c = 0; c < kChains; ++c) x[c] = fmaf(x[c], a, b);
    }
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += x[c];
  Stamp t1 = stamp_after(__float_as_uint(sum));
  if (sum == 1234.5f) out[0] = sum;  // keeps the chains; practically never true
  record_region(t0, t1, region);
}

void run_fma(Context& ctx, Json& out) {
  const DeviceInfo& d = ctx.dev();
  int blocks = full_grid(d.sm_count, d.max_threads_per_sm, kFmaThreads);
  uint32_t iters = ctx.quick() ? 1024 : 4096;
  DeviceBuffer sink(64), region(16);
  cudaStream_t s = ctx.stream();
  auto launch = [&](cudaStream_t st) {
    fma_chains<<<blocks, kFmaThreads, 0, st>>>(sink.as<float>(), iters, 0.9999f, 1e-4f,
                                               region.as<long long>());
    CK_LAUNCH();
  };
  launch(s);
  CK(cudaStreamSynchronize(s));
  std::vector<double> samples = time_each(s, ctx.samples(), 1.0, launch);
  RegionClock clock = read_region_clock(region);
  double flops = 2.0 * blocks * kFmaThreads * static_cast<double>(iters) * kDepth * kChains;
  double us = median(samples);
  double measured_MHz = clock.mhz();
  put_samples(out, samples);
  out["blocks"] = blocks;
  out["threads_per_block"] = kFmaThreads;
  out["flops"] = flops;
  out["tflops"] = flops / (us * 1e6);
  out["flops_per_clk_per_sm"] = flops / us / d.sm_count / (d.sm_clock_kHz * 1e-3);
  out["sm_clock_MHz_measured"] = measured_MHz;
  out["flops_per_clk_per_sm_measured_clock"] = flops / us / d.sm_count / measured_MHz;
}

}  // namespace

std::vector<GemmShape> tensor_peak_shapes() {
  std::vector<GemmShape> v;
  for (Dtype t : {Dtype::Bf16, Dtype::Fp16, Dtype::Tf32, Dtype::Fp8})
    v.push_back({t, 8192, 8192, 8192});
  return v;
}

void add_compute_benches(BenchList& list, const DeviceInfo&, bool) {
  list.push_back({"compute/fp32_fma", "compute", run_fma});
  for (const GemmShape& g : tensor_peak_shapes()) {
    std::vector<std::string> sweeps{"tensor_peak"};
    if (g.dtype == Dtype::Bf16) sweeps.push_back("square");
    list.push_back(make_gemm_bench(g, "compute", sweeps));
  }
}

}  // namespace ridgeline::gpubench
