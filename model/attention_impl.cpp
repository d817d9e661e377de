// Attention implementations (attention_impl.h). Each fused kernel is the flash-style model of
// attention_cost.cpp with its own structure, read off the kernels PyTorch 2.11 launched on an
// H200 (validate/data/h200-sxm-hf-kernels-2026-12-01{,b}.json):
//  - cudnn: the GPU's own attention parameters (hardware/arch, calibrated profiles), which
//    describe cuDNN's fused kernel on Hopper and Blackwell (sm90 wgmma, 128-row query tiles;
//    decode: the 16x128 kernel and a split-KV reduction) and the FlashAttention-2-like kernel
//    elsewhere;
//  - flash2: pytorch_flash::flash_fwd_kernel<traits<128, 128, 64, 4>>: 128 query rows x 64 keys
//    per step (128 keys at head_dim <= 64) on sm80 mma.sync, also on Hopper (no wgmma: a lower
//    share of the tensor peak, kFa2MmaEfficiency). Decode packs the query heads of a KV head as
//    rows (seqlenq_ngroups_swapped) and splits the keys as FA2's num_splits_heuristic says
//    (fa2_num_splits, over twice the SMs: the combine kernels' log2 split counts recorded at
//    batch 1-16 match it, one SM count does not): flash_fwd_splitkv_kernel <traits<d, 64, 128, 4>>
//    (64-row tiles, 256/128/64 keys a step to head_dim 64/128/above), then
//    flash_fwd_splitkv_combine_kernel; at one split (items >= 0.8 x 2 x SMs: batch 32 of 8 KV
//    heads) the forward kernel, whose 128-row tile holds the few packed rows and whose MMAs over
//    the padding, not the KV read, bound it (b32 kv512: 30.9 us; cuDNN reads that KV in 20.1);
//  - flash3: FlashAttention-3 (Hopper only; NOT measured here): the same wgmma main loop as
//    cuDNN's Hopper kernel (128 x 128 tiles, producer/consumer warpgroups; its paper reports
//    ~75% of H100's bf16 peak, cuDNN's band), with FlashAttention's split-KV decode and combine;
//  - efficient: CUTLASS fmha_cutlassF_*_64x128_rf_sm80: 64 queries x 128 keys a step, one CTA per
//    SM, no GQA packing and no split-KV: in decode each (batch, head) is one CTA whose 64-row tile
//    holds a single query, walking every key block alone; with no more CTAs than SMs nothing
//    hides a CTA's K/V loads (kEfficientLoneBlockUs a block);
//  - math: separate ATen kernels (attention_math.cpp);
//  - flashmla: DeepSeek's FlashMLA (NOT measured here), the absorbed MLA decode a serving engine
//    runs on Hopper and Blackwell: every query head of a request over the one latent (K and V
//    one read, AttentionOp::v_in_k), 64 packed heads a CTA, 64 keys a step, the keys split over
//    the SMs and combined; its main loop at the published 660 TFLOP/s of the H800's 989 dense
//    bf16 peak (deepseek-ai/FlashMLA, kernel of 2025-04-22; memory-bound 3000 of 3350 GB/s,
//    which the GPU's own HBM efficiency already gives).
// The efficiencies below were fitted on fit-split rows only (by hand, see the constants); the
// held-out splits are validate/accuracy_baseline_h200_impl{,_shapes}.json's. Both runs timed
// 32/8/128 heads only (the second run's other head shapes were never run: its records say so),
// so head_dim 64 and other GQA groups are structure here, not measurement.
#include "model/attention_impl.h"

#include "common/errors.h"
#include "hardware/derived.h"
#include "model/cost_models.h"
#include "model/kernel_terms.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace ridgeline {

namespace {

// Fitted on the fit split of validate/data/h200-sxm-hf-kernels-2026-12-01.json (H200); FA2's
// efficiency (0.44 there) refitted to 0.37 on the fit rows of it and of its second run
// (-2026-12-01b: prefill b2 s1024, b1 s4096, decode b4 kv4096; fit MAPE 5.4%, minimal at
// 0.36-0.37).
constexpr double kFa2MmaEfficiency = 0.37;        // FA2's mma.sync main loop, of the tensor peak
constexpr double kFa2CombineUs = 2.0;             // flash_fwd_splitkv_combine_kernel
constexpr double kEfficientMmaEfficiency = 0.19;  // CUTLASS mem-eff (sm80 rf kernel) on Hopper
// A lone CTA's exposed load of one 128-key K/V block, fitted on both runs' fit rows (decode b1
// kv512, b1 kv2048, b4 kv4096: 32-128 CTAs, 4.2-4.4 us a block where two waves take 3.3 each).
constexpr double kEfficientLoneBlockUs = 0.94;
constexpr double kFlashMlaMmaEfficiency = 660.0 / 989.0;  // published (above), of the bf16 peak

bool cudnn_first(const GpuSpec& gpu) {
  return gpu.architecture == "hopper" || gpu.architecture == "blackwell";
}

std::string impl_error(AttentionImpl i, const std::string& why) {
  return std::string("/impl: ") + attention_impl_name(i) + " " + why;
}

void check_gpu(AttentionImpl i, const GpuSpec& gpu) {
  if (i == AttentionImpl::FlashMla && gpu.architecture != "hopper" &&
      gpu.architecture != "blackwell")
    throw InputError(impl_error(i, "(FlashMLA) runs on Hopper and Blackwell GPUs; " + gpu.name +
                                       " is " + gpu.architecture));
  if (i == AttentionImpl::Flash3 && gpu.architecture != "hopper")
    throw InputError(impl_error(i, "(FlashAttention-3) runs only on Hopper GPUs (sm_90); " +
                                       gpu.name + " is " + gpu.architecture));
  if (i == AttentionImpl::Cudnn && gpu.architecture == "cdna3")
    throw InputError(impl_error(i, "is NVIDIA's library; " + gpu.name + " (" + gpu.architecture +
                                       ") runs flash2, efficient or math"));
}

// A fused kernel's structure laid over the GPU's own attention parameters (an unset one keeps
// the GPU's): its tiles (query rows x keys a step; decode's query-row tile of packed GQA heads),
// CTAs per SM, the share of the tensor peak its main loop reaches, and its split-KV decode.
enum class SplitKv {
  Flash,    // FlashAttention's: split whenever items leave SMs idle (<= 128 splits), then combine
  Exactly,  // the library's own count (shaped_cost's splits), then combine when above one
  None,
};
struct KernelShape {
  double block_m = 0, block_n = 0;
  std::optional<double> decode_block_m = {}, ctas_per_sm = {}, mma_efficiency = {};
  SplitKv splits = SplitKv::Flash;
};

OpCost shaped_cost(const AttentionOp& a, const GpuSpec& gpu, const KernelShape& k, int splits = 0) {
  GpuSpec g = gpu;
  auto& p = g.model.attention;
  p.block_m.value = k.block_m;
  p.block_n.value = k.block_n;
  if (k.decode_block_m) p.decode_block_m.value = *k.decode_block_m;
  if (k.ctas_per_sm) p.ctas_per_sm.value = *k.ctas_per_sm;
  if (k.mma_efficiency) p.mma_efficiency.value = *k.mma_efficiency;
  if (k.splits == SplitKv::None) {
    p.max_kv_splits.value = 1;
    return attention_cost(a, g);
  }
  p.max_kv_splits.value = 128;
  p.decode_split_max_waves.value = 1e9;
  p.decode_split_min_kv_len.value = 0;
  OpCost c = k.splits == SplitKv::Exactly ? attention_cost(a, g, splits) : attention_cost(a, g);
  if (c.detail.split > 1) add_overhead(c, kFa2CombineUs);
  return c;
}

// FlashAttention-2's decode, as its num_splits_heuristic picks (flash_api.cpp, over twice the SMs
// in PyTorch 2.11's copy): the split-KV kernel (64 query rows of the packed GQA heads, 256, 128
// or 64 keys a step for head_dim <= 64, <= 128, above), or at one split the forward kernel.
OpCost flash2_decode_cost(const AttentionOp& a, const GpuSpec& gpu) {
  bool packed = a.heads > a.kv_heads;  // seqlenq_ngroups_swapped: the group's heads as rows
  double rows = packed ? (double)(a.heads / a.kv_heads) : 1.0;
  double items = (double)a.batch * (packed ? a.kv_heads : a.heads) * std::ceil(rows / 64);
  double split_block_n = a.head_dim <= 64 ? 256 : a.head_dim <= 128 ? 128 : 64;
  int splits = fa2_num_splits(items, 2 * sm_count(gpu), std::ceil(a.kv_len / split_block_n), 128);
  KernelShape k{.block_m = 128,
                .block_n = split_block_n,
                .decode_block_m = 64,
                .mma_efficiency = kFa2MmaEfficiency,
                .splits = SplitKv::Exactly};
  if (splits == 1) {  // flash_fwd_kernel: its 128-row query tile holds the few packed rows
    k.decode_block_m = 128;
    k.block_n = a.head_dim <= 64 ? 128 : 64;
  }
  return shaped_cost(a, gpu, k, splits);
}

OpCost flash2_cost(const AttentionOp& a, const GpuSpec& gpu) {
  // On Ampere, Ada and CDNA the GPU's own attention parameters describe this kernel already.
  if (!cudnn_first(gpu)) return attention_cost(a, gpu);
  if (a.q_len == 1 && !a.causal && !a.backward) return flash2_decode_cost(a, gpu);
  double block_n = a.q_len == 1 || a.head_dim <= 64 ? 128 : 64;
  return shaped_cost(a, gpu,
                     {.block_m = 128,
                      .block_n = block_n,
                      .decode_block_m = 64,
                      .mma_efficiency = kFa2MmaEfficiency});
}

OpCost flash3_cost(const AttentionOp& a, const GpuSpec& gpu) {
  return shaped_cost(a, gpu, {.block_m = 128, .block_n = 128});
}

OpCost efficient_cost(const AttentionOp& a, const GpuSpec& gpu) {
  OpCost c = shaped_cost(a, gpu,
                         {.block_m = 64,
                          .block_n = 128,
                          .decode_block_m = 64,
                          .ctas_per_sm = 1,
                          .mma_efficiency = kEfficientMmaEfficiency,
                          .splits = SplitKv::None});
  // A CTA alone on its SM (no more CTAs than SMs) has no other CTA's MMAs to hide its K/V block
  // loads behind: it pays each load of its longest walk (every key block).
  if (c.detail.ctas <= sm_count(gpu))
    add_overhead(c, std::ceil((double)a.kv_len / 128) * kEfficientLoneBlockUs);
  return c;
}

OpCost flashmla_cost(const AttentionOp& a, const GpuSpec& gpu) {
  return shaped_cost(a, gpu,
                     {.block_m = 64,
                      .block_n = 64,
                      .decode_block_m = 64,
                      .mma_efficiency = kFlashMlaMmaEfficiency});
}

}  // namespace

int fa2_num_splits(double items, double sms, double kv_blocks, int max_splits) {
  if (items >= 0.8 * sms) return 1;  // enough to almost fill the SMs
  int most = (int)std::min({(double)max_splits, sms, kv_blocks});
  // A count is eligible only if it changes the key blocks per split (11 splits of 64 blocks
  // are 6 x 10 + 4, so 12 would be 11 again).
  auto eligible = [&](int s) {
    return s == 1 || std::ceil(kv_blocks / s) != std::ceil(kv_blocks / (s - 1));
  };
  auto efficiency = [&](int s) {
    double waves = items * s / sms;
    return waves / std::ceil(waves);
  };
  double best = 0;
  for (int s = 1; s <= most; ++s)
    if (eligible(s)) best = std::max(best, efficiency(s));
  for (int s = 1; s <= most; ++s)
    if (eligible(s) && efficiency(s) >= 0.85 * best) return s;
  return 1;
}

AttentionImpl attention_impl_for(const AttentionOp& a, const GpuSpec& gpu) {
  if (a.impl) {
    check_gpu(*a.impl, gpu);
    if (*a.impl == AttentionImpl::FlashMla && !a.v_in_k)
      throw InputError(impl_error(*a.impl,
                                  "runs MLA's absorbed decode over the latent cache "
                                  "only (K and V one latent)"));
    if (a.additive_mask && (*a.impl == AttentionImpl::Flash2 || *a.impl == AttentionImpl::Flash3))
      throw InputError(impl_error(*a.impl, "takes no additive mask"));
    return *a.impl;
  }
  // A serving engine's absorbed MLA decode: FlashMLA where it runs (SDPA would take the 576-wide
  // head to the memory-efficient kernel).
  if (a.v_in_k && cudnn_first(gpu) && a.dtype != DType::Fp32) return AttentionImpl::FlashMla;
  if (a.dtype == DType::Fp32 || a.head_dim > 256) return AttentionImpl::Efficient;
  if (a.dtype == DType::Fp8 || cudnn_first(gpu)) return AttentionImpl::Cudnn;
  // SDPA's flash backend takes no attn_mask: with one it runs the memory-efficient kernel.
  if (a.additive_mask) return AttentionImpl::Efficient;
  return AttentionImpl::Flash2;
}

OpCost attention_impl_cost(const AttentionOp& a, const GpuSpec& gpu) {
  AttentionImpl i = attention_impl_for(a, gpu);
  OpCost c;
  switch (i) {
    case AttentionImpl::Cudnn:
      c = attention_cost(a, gpu);
      break;
    case AttentionImpl::Flash2:
      c = flash2_cost(a, gpu);
      break;
    case AttentionImpl::Flash3:
      c = flash3_cost(a, gpu);
      break;
    case AttentionImpl::Efficient:
      c = efficient_cost(a, gpu);
      break;
    case AttentionImpl::Math:
      c = math_attention_cost(a, gpu);
      break;
    case AttentionImpl::FlashMla:
      c = flashmla_cost(a, gpu);
      break;
  }
  c.impl = attention_impl_name(i);
  return c;
}

}  // namespace ridgeline
