// The kernels Hugging Face transformers' own model code launches where it differs from a plain
// PyTorch rendering (block_forward.cpp), chosen by a runtime profile (docs/runtimes.md). Each
// list below is what the H200 profiles of transformers 5.17 (validate/data/
// h200-sxm-hf-2026-12-01.json, Llama-3-8B shape) show, per decoder layer or per forward:
//   norm "hf_fp32_decomposed"   LlamaRMSNorm (RMSNorm models; a LayerNorm stays ATen's one kernel,
//                               as nn.LayerNorm): to(fp32), pow(2), mean(-1), + eps, rsqrt, x * r
//                               (broadcast), to(bf16), weight * x: eight kernels a norm
//   rope_tables "recomputed_per_forward"  LlamaRotaryEmbedding once a forward: positions to
//                               fp32, inv_freq @ positions (an fp32 bmm), cat(freqs, freqs),
//                               cos, sin, two scalings, two casts to bf16: nine kernels
//   kv_cache "dynamic_cat"      DynamicCache.update: torch.cat(cache, new) for K and V, every
//                               layer and step (the whole cache read and written again)
//   kv_cache "static_index_copy"  StaticCache.update: index_copy_ of the new tokens for K and V
//                               and three cache-position kernels (arange, two adds) a layer;
//                               attention spans the whole max_cache_len
//   mask "hf_sdpa"              mask creation once a forward (prefill: 2 kernels, 3 with a
//                               StaticCache; decode with a StaticCache: 7); where a mask reaches
//                               SDPA (a StaticCache decode) per layer two fills and a where, and
//                               repeat_kv copies K and V to every head (SDPA's GQA path is not
//                               taken with a mask)
//   sliding (or chunked) layers outside a decode: the cache hands attention every key (up to
//                               window - 1 cached ones) and the window is a mask; transformers
//                               skips it only while the keys are fewer than the window
//                               (masking_utils' _ignore_causal_mask_sdpa), else the mask is built
//                               once a forward (two position comparisons and an and over
//                               [batch, tokens, keys]) and SDPA turns it into an additive one per
//                               layer (ATen's where), then runs unmasked work over every key with
//                               no causal skipping (the fit split's Gemma 3 and gpt-oss prefills:
//                               cuDNN's SDPA on a sliding layer takes ~3x the full layer's time)
// Memsets (cuBLAS and cuDNN workspaces, 1-8 a layer by shape) are not modelled as kernels.
#include "workloads/builder_ops.h"

namespace ridgeline {

namespace {

// Index arithmetic on a few int64 values (cache positions, mask indices): launch-bound kernels,
// costed as fp32 elementwise ops of the same element count.
Op index_op(int64_t numel) {
  return ew_op(ElementwiseKind::Add, std::max<int64_t>(1, numel), DType::Fp32);
}

}  // namespace

OpVertex emit_hf_norm(Emitter& e, const ModelConfig& m, const RunConfig& run, NormSite site,
                      int64_t rows, std::vector<OpVertex> after) {
  int64_t n = rows * m.hidden;
  std::string p = norm_name_of(site);
  auto part = [&](NormPart k) { return role::norm_part(site, k); };
  // .to(torch.float32) and .to(input_dtype) launch nothing when the activations are fp32.
  bool casts = e.act != DType::Fp32;
  if (casts) e.emit(part(NormPart::ToFp32), p + ".to_fp32", cast_op(n, e.act, DType::Fp32), after);
  e.emit(part(NormPart::Pow), p + ".pow", ew_op(ElementwiseKind::MulScalar, n, DType::Fp32),
         casts ? std::vector<OpVertex>{} : after);
  e.emit(part(NormPart::Mean), p + ".mean",
         Op{"", ReduceOp{ReduceKind::Sum, n, DType::Fp32, run.runtime.launch.reduction}, false});
  e.emit(part(NormPart::AddEps), p + ".add_eps",
         ew_op(ElementwiseKind::MulScalar, rows, DType::Fp32));
  e.emit(part(NormPart::Rsqrt), p + ".rsqrt", ew_op(ElementwiseKind::MulScalar, rows, DType::Fp32));
  e.emit(part(NormPart::Scale), p + ".scale", strided(ew_op(ElementwiseKind::Mul, n, DType::Fp32)));
  if (casts) e.emit(part(NormPart::ToInput), p + ".to_input", cast_op(n, DType::Fp32, e.act));
  // The weight [hidden] broadcasts over the rows: ATen's generic path unless there is one row.
  // Scale and weight keep 2 dims, but their broadcast operand is all but free: they run at the
  // 3-dim rate (bf16 [rows, 4096] x [4096]: 1.61 elements per clock per SM, fit split of
  // validate/data/h200-sxm-view-dims-2026-12-03.json), so view_dims stays at its default.
  Op weight = ew_op(ElementwiseKind::Mul, n, e.act);
  return e.emit(part(NormPart::Weight), p + ".weight", rows > 1 ? strided(weight) : weight);
}

namespace {

// hf_window_mask_span for a window w under the runtime's choices c.
int64_t window_mask_span(const BlockChoices& c, const RunConfig& run, int64_t w, int64_t q_len,
                         int64_t kv_len) {
  if (c.mask != AttentionMask::HfSdpa || run.phase == Phase::Decode || w <= 0) return 0;
  int64_t span = std::min(kv_len - q_len, w - 1) + q_len;  // the cache keeps window - 1 keys
  return span >= w ? span : 0;
}

}  // namespace

int64_t hf_window_mask_span(const ModelConfig& layer, const RunConfig& run, int64_t q_len,
                            int64_t kv_len) {
  return window_mask_span(run.runtime.choices_for(layer), run, layer.sliding_window, q_len, kv_len);
}

void emit_hf_forward_prologue(Emitter& e, const ModelConfig& m, const RunConfig& run) {
  const BlockChoices& c = run.runtime.choices_for(m);
  int64_t B = run.batch, T = run.phase == Phase::Decode ? 1 : run.seq, d = m.head_dim;
  bool decode = run.phase == Phase::Decode;
  bool static_cache = c.cache_update == CacheUpdate::StaticIndexCopy;
  if (c.mask == AttentionMask::HfSdpa && run.phase != Phase::Train) {
    // Cache positions and the mask's index comparison (none in a DynamicCache decode, whose
    // single query needs no mask).
    int masks = decode ? (static_cache ? 7 : 0) : (static_cache ? 3 : 2);
    int64_t span = static_cache ? std::max(hf_cache_capacity(run), step_positions(run)) : T;
    for (int i = 0; i < masks; ++i)
      e.emit(role::of(RoleKind::Mask), "mask_prep_" + std::to_string(i + 1), index_op(B * span));
  }
  // A window mask built once a forward: its first window decides (one mask for every window
  // layer, as transformers builds one per layer type).
  int64_t window = m.sliding_window;
  for (const LayerKind& k : m.layer_kinds)
    if (window == 0) window = k.window;
  if (int64_t span = window_mask_span(c, run, window, T, run.kv_len + T); span > 0) {
    // bool [batch, tokens, keys]: costed as a 1-byte dtype, ATen's generic path
    Op bools = strided(ew_op(ElementwiseKind::Copy, B * T * span, DType::Fp8));
    e.emit(role::of(RoleKind::Mask), "window_mask_causal", bools);
    e.emit(role::of(RoleKind::Mask), "window_mask_window", bools);
    e.emit(role::of(RoleKind::Mask), "window_mask_and", bools);
  }
  if (c.rope_tables != RopeTables::RecomputedPerForward || m.position != PositionKind::Rope) return;
  KernelRole table = role::of(RoleKind::RopeTable);
  int64_t n = B * T * d;
  e.emit(table, "rope_positions_to_fp32", cast_op(B * T, DType::Fp32, DType::Fp32));
  e.emit(table, "rope_freqs", gemm_op(d / 2, T, 1, DType::Fp32, B));
  e.emit(table, "rope_freqs_cat", ew_op(ElementwiseKind::Copy, n, DType::Fp32));
  e.emit(table, "rope_cos", ew_op(ElementwiseKind::MulScalar, n, DType::Fp32));
  e.emit(table, "rope_sin", ew_op(ElementwiseKind::MulScalar, n, DType::Fp32));
  e.emit(table, "rope_cos_scale", ew_op(ElementwiseKind::MulScalar, n, DType::Fp32));
  e.emit(table, "rope_sin_scale", ew_op(ElementwiseKind::MulScalar, n, DType::Fp32));
  e.emit(table, "rope_cos_to_input", cast_op(n, DType::Fp32, e.act));
  e.emit(table, "rope_sin_to_input", cast_op(n, DType::Fp32, e.act));
}

int64_t hf_cache_capacity(const RunConfig& run) {
  return run.cache_capacity > 0 ? run.cache_capacity : step_positions(run);
}

bool hf_mask_reaches_attention(const BlockChoices& c, const RunConfig& run) {
  return c.mask == AttentionMask::HfSdpa && c.cache_update == CacheUpdate::StaticIndexCopy &&
         run.phase == Phase::Decode;
}

CacheKv emit_hf_cache_update(Emitter& e, const ModelConfig& m, const RunConfig& run,
                             const BlockShape& s, CacheKv x) {
  const BlockChoices& c = run.runtime.choices_for(m);
  int64_t per_token = s.batch * m.kv_heads * m.head_dim;
  if (c.cache_update == CacheUpdate::DynamicCat) {
    // torch.cat([cached, new], dim=-2): the whole cache copied into a new tensor, vectorized, or
    // element by element when the cache is a cropped view (model/memory_bound_cost.cpp).
    Op cat = ew_op(ElementwiseKind::Cat, per_token * s.kv_len, e.act);
    if (run.cache_cropped) cat = strided(cat);
    x.k = e.emit(role::cache_write(Tensor::K), "k_cache_cat", cat, {x.k});
    x.v = e.emit(role::cache_write(Tensor::V), "v_cache_cat", cat, {x.v});
    return x;
  }
  // StaticCache: cache-position arithmetic, then the new tokens index-copied into the cache.
  int64_t T = s.tokens / s.batch;
  OpVertex at = x.v;
  for (int i = 0; i < 3; ++i)
    at = e.emit(role::of(RoleKind::Mask), "cache_position_" + std::to_string(i + 1), index_op(T),
                {at});
  Op copy = strided(ew_op(ElementwiseKind::Copy, per_token * T, e.act));
  x.k = e.emit(role::cache_write(Tensor::K), "k_cache_index_copy", copy, distinct({x.k, at}));
  x.v = e.emit(role::cache_write(Tensor::V), "v_cache_index_copy", copy, distinct({x.v, at}));
  if (!hf_mask_reaches_attention(c, run)) return x;
  // The boolean mask turned into SDPA's additive one, and K/V expanded to every query head.
  int64_t cap = hf_cache_capacity(run);
  OpVertex mask = e.emit(role::of(RoleKind::Mask), "mask_fill_1", index_op(1), {x.v});
  mask = e.emit(role::of(RoleKind::Mask), "mask_fill_2", index_op(1), {mask});
  mask = e.emit(role::of(RoleKind::Mask), "mask_where",
                strided(ew_op(ElementwiseKind::Copy, s.batch * cap, e.act)), {mask});
  if (m.kv_heads == m.heads) {  // repeat_kv(n_rep 1) returns K and V as they are
    x.v = mask;
    return x;
  }
  return emit_hf_repeat_kv(e, {s.batch, m.heads, m.kv_heads, m.head_dim}, cap, x, mask);
}

CacheKv emit_hf_repeat_kv(Emitter& e, const KvHeads& h, int64_t keys, CacheKv x, OpVertex after) {
  if (h.kv_heads == h.heads) return x;
  Op repeat =
      strided(repeat_kv_op(h.batch * h.heads * keys * h.head_dim, h.heads / h.kv_heads, e.act));
  x.k = e.emit(role::of(RoleKind::CacheRepeat), "k_repeat_kv", repeat, distinct({x.k, after}));
  x.v = e.emit(role::of(RoleKind::CacheRepeat), "v_repeat_kv", repeat, {x.v});
  return x;
}

}  // namespace ridgeline
