// The kernels TorchInductor (torch.compile) generates for transformers' Llama code, where a
// runtime profile chooses them (workloads/runtimes/torch-compile.json, docs/runtimes.md). Each
// list is what the H200 profiles of torch.compile'd transformers 5.17 LlamaForCausalLM show
// (validate/data/h200-sxm-hf-compile-2026-12-01.json, Llama-3-8B shape, 8 layers), per layer:
//   rope "inductor"          triton_poi_fused_..._cos_..._sin_...: RoPE on k (in a StaticCache
//                            decode also index_copy'ing K into the cache), RoPE on q; cos/sin
//                            computed inside; decode: V's index_copy and the cache position's
//                            add/copy_ (triton_poi_fused_add_copy_) as their own kernels
//   mask "inductor_sdpa"     the compiled mask (where/le/scalar_tensor) once a layer and
//                            repeat_kv's expand+clone of K and of V (SDPA gets every head and a
//                            mask, in prefill and decode); attention spans the masked length
//                            without causal block skipping
//   rope_tables "inline_per_forward"  inv_freq @ positions, an fp32 bmm (cuBLAS/CUTLASS extern
//                            call), once a forward
// The norms (embedding and residual adds fused in: triton_red_fused_..._add_mean_mul_pow_rsqrt),
// silu*mul (triton_poi_fused_mul_silu) and the GEMMs (aten::mm extern calls, cuBLAS nvjet) are the
// profile's one-kernel norm with the residual add fused, fused activation and separate GEMMs.
// Inductor also fuses the embedding gather into the first layer's norm and launches
// inv_freq's expand/cast (triton_poi_fused__to_copy_bmm_expand_unsqueeze, ~1 us); ridgeline
// keeps embed_tokens as its own kernel for the first and leaves out the second, so the count
// per step is the profile's. Library kernels inside one call (cuBLASLt split-K reduce, cuDNN's
// lean reduction, memsets) are not kernels of the graph.
#include "workloads/builder_ops.h"

namespace ridgeline {

bool inductor_attention(const BlockChoices& c) {
  return c.mask == AttentionMask::InductorSdpa;
}

InductorQkv emit_inductor_positions(Emitter& e, const ModelConfig& m, const RunConfig& run,
                                    const BlockShape& s, InductorQkv x) {
  int64_t T = s.tokens, d = m.head_dim;
  bool write = s.cache_write && run.phase != Phase::Train;
  if (m.position == PositionKind::Rope) {
    x.k = e.emit(role::rope(write ? RopePart::FusedWithCacheWrite : RopePart::Fused, Tensor::K),
                 write ? "k_rope_cache_write" : "k_rope",
                 ew_op(ElementwiseKind::Copy, T * m.kv_heads * d, e.act), {x.k});
  } else if (write) {
    x.k = e.emit(role::cache_write(Tensor::K), "k_cache_write",
                 ew_op(ElementwiseKind::Copy, T * m.kv_heads * d, e.act), {x.k});
  }
  if (write) {
    x.v = e.emit(role::cache_write(Tensor::V), "v_cache_write",
                 ew_op(ElementwiseKind::Copy, T * m.kv_heads * d, e.act), {x.v});
  }
  if (m.position == PositionKind::Rope)
    x.q = e.emit(role::rope(RopePart::Fused, Tensor::Q), "q_rope",
                 ew_op(ElementwiseKind::Copy, T * m.heads * d, e.act), {x.q});
  return x;
}

InductorQkv emit_inductor_mask(Emitter& e, const ModelConfig& m, const RunConfig& run,
                               const BlockShape& s, InductorQkv x) {
  int64_t span = inductor_span(run, s);
  if (m.kv_heads < m.heads) {  // repeat_kv(n_rep 1) returns K and V as they are: no kernel
    // The fused clone reads each cached element once and writes it to its n_rep heads.
    Op repeat = repeat_kv_op(s.batch * m.heads * span * m.head_dim, m.heads / m.kv_heads, e.act);
    x.k = e.emit(role::of(RoleKind::CacheRepeat), "k_repeat_kv", repeat, {x.k});
    x.v = e.emit(role::of(RoleKind::CacheRepeat), "v_repeat_kv", repeat, {x.v});
  }
  OpVertex mask = e.emit(role::of(RoleKind::Mask), "mask",
                         ew_op(ElementwiseKind::Copy, s.batch * s.q_len * span, e.act), {x.v});
  x.v = mask;
  if (s.cache_write && run.phase == Phase::Decode)  // the cache position's add and copy_
    x.v = e.emit(role::of(RoleKind::Mask), "cache_position_update",
                 ew_op(ElementwiseKind::Add, run.batch, DType::Fp32), {mask});
  return x;
}

int64_t inductor_span(const RunConfig& run, const BlockShape& s) {
  // A StaticCache decode attends over the whole cache; a prompt over its own tokens.
  if (run.phase == Phase::Decode) return std::max(hf_cache_capacity(run), s.kv_len);
  return s.kv_len;
}

void emit_inductor_forward_prologue(Emitter& e, const ModelConfig& m, const RunConfig& run) {
  const BlockChoices& c = run.runtime.choices_for(m);
  if (c.rope_tables != RopeTables::InlinePerForward || m.position != PositionKind::Rope) return;
  int64_t T = run.phase == Phase::Decode ? 1 : run.seq;
  e.emit(role::of(RoleKind::RopeTable), "rope_freqs",
         gemm_op(m.head_dim / 2, T, 1, DType::Fp32, run.batch));
}

}  // namespace ridgeline
