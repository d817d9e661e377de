// torch.optim.AdamW's step as its implementations run it (ElementwiseOp AdamW, AdamwImpl):
//  - fused (_fused_adamw_): one multi-tensor pass reading param, grad, m, v and writing param, m,
//    v: elementwise_cost's AdamW (memory_bound_cost.cpp);
//  - foreach (the _foreach_* ops of _multi_tensor_adamw): eight multi-tensor passes, param.mul_
//    (2 streams of elements), m.lerp_(grad) (3), v.mul_ (2), v.addcmul_(grad, grad) (3),
//    sqrt(v) into a temporary (2), its div_ (2) and add_(eps) (2), param.addcdiv_(m, temporary)
//    (4): 20 element streams where fused moves 7. ATen's multi_tensor_apply launches a kernel per
//    320 chunks of 65536 elements (so 8 x 134 launches for 2.8 G parameters, the 1073 kernels an
//    H200 profile counted), each paying a fixed kForeachLaunchUs beyond streaming its bytes;
//  - for-loop (_single_tensor_adamw): the same eight ops as separate kernels per parameter tensor
//    (NOT measured here: each an elementwise kernel's streaming plus its launch overhead).
#include "hardware/derived.h"
#include "model/cost_models.h"
#include "model/kernel_terms.h"

#include <array>

namespace ridgeline {

namespace {

// Element streams (reads + writes) of the eight foreach / for-loop passes.
constexpr std::array<double, 8> kPassStreams = {2, 3, 2, 3, 2, 2, 2, 4};
// multi_tensor_apply: chunk_size elements per block, at most this many blocks per launch.
constexpr double kChunkElements = 65536, kBlocksPerLaunch = 320;
// Fitted on the fit split of validate/data/h200-sxm-hf-2026-12-01.json (the fp32 foreach step of
// an 8-layer Llama-3-8B shape): what each multi-tensor launch costs beyond its bytes.
constexpr double kForeachLaunchUs = 9.4;

}  // namespace

OpCost adamw_impl_cost(const ElementwiseOp& e, const GpuSpec& gpu) {
  OpCost c;
  double numel = (double)e.numel, bytes = dtype_bytes(e.dtype);
  double bw = achievable_hbm_bytes_per_s(gpu, sm_count(gpu));
  double streams = 0;
  for (double s : kPassStreams) streams += s;
  c.bytes.hbm = c.bytes.l2 = streams * numel * bytes;
  c.hbm_us = c.bytes.hbm / bw * 1e6;
  c.detail.active_sms = sm_count(gpu);
  if (e.adamw == AdamwImpl::Foreach) {
    double launches = kPassStreams.size() * ceil_div(numel, kChunkElements * kBlocksPerLaunch);
    c.detail.kernels = (int)launches;
    c.detail.ctas = launches * kBlocksPerLaunch;
    c.overhead_us = launches * kForeachLaunchUs;
  } else {  // for-loop: eight kernels per tensor
    double kernels = kPassStreams.size() * (double)e.tensors;
    c.detail.kernels = (int)kernels;
    c.detail.ctas = ceil_div(numel * bytes, gpu.model.vector.cta_bytes.value);
    c.overhead_us = kernels * kernel_overhead_us(gpu, 1.0);
  }
  c.detail.waves = ceil_div(c.detail.ctas, sm_count(gpu));
  c.time_us = c.hbm_us + c.overhead_us;
  c.bottleneck = c.hbm_us > c.overhead_us ? Bottleneck::Hbm : Bottleneck::Latency;
  return c;
}

}  // namespace ridgeline
