// The kernels of multi-head latent attention and of DeepSeek's router and shared experts; see
// mla_config.h for the math and mla_forward.h for the entry points. Two forms of MLA, chosen by
// the runtime profile's attention/mla:
//
// hf_expand_kv: transformers 5.17's DeepseekV3Attention (measured on an H200:
// validate/data/h200-sxm-families-2026-12-01.json, whose kv_shapes_per_layer show the cache
// holding K[b, 1, s, kv_lora_rank] and V[b, 1, s, qk_rope_head_dim]): q_a_proj, q_a_layernorm
// (LlamaRMSNorm's eight kernels under hf_fp32_decomposed), q_b_proj (or q_proj),
// kv_a_proj_with_mqa, kv_a_layernorm, the interleaved RoPE (q_rot and k_rot copied into rotate_half
// order, then rotate_half's five kernels each), the cache update of the latent and the RoPE key
// (DynamicCache cats, StaticCache index copies), the query cat (q_pass, q_rot), then expand_kv over
// EVERY cached token, every step: kv_b_proj (cached tokens x heads * (nope + v) x kv_lora_rank),
// k_nope and the expanded k_rot copied into the key (V left a view), and SDPA with q/k head dim
// nope + rope and v head dim v_head_dim. Nothing is absorbed; the full K/V per head live
// only for the step (activations), the cache holds the latent.
//
// absorbed: a serving engine's MLA (vLLM/SGLang with FlashMLA). q_a and kv_a as one GEMM
// (qkv_a_proj), the two norms, q_b_proj; in a decode q_nope is multiplied by W_UK per head
// (q_absorb_uk, a batched GEMM into kv_lora_rank channels), one kernel applies RoPE and writes the
// latent and RoPE key to the cache, attention runs over the latent cache (MQA: one KV head of
// kv_lora_rank + rope channels shared by all heads, V the latent's first kv_lora_rank channels,
// read once), and W_UV maps each head's output back to v_head_dim (o_absorb_uv). A prefill
// decompresses K/V for its tokens (kv_b_proj, one cat of the key) and runs flash attention.
//
// Under tensor parallelism heads are split (shard_model divides m.heads); the latent projection
// and the latent cache are replicated on every rank (mla_config.h).
#include "workloads/mla_forward.h"

#include "common/errors.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace ridgeline {

namespace {

// expand_kv's copies into the key: [B, h, kv, width] slices of [B, h, kv, qk], read from the
// transposed kv_b output or the expanded rotated key, keep 4 dims after coalescing (3 when B is 1).
int mla_copy_dims(int64_t batch) {
  return batch > 1 ? 4 : 3;
}

struct Mla {
  int64_t B, T, q_len, kv_len, heads, hidden;
  const MlaConfig& a;
};

Op batched_weight_gemm(int64_t m, int64_t n, int64_t k, int64_t batch, const RunConfig& run) {
  Op op = weight_gemm(m, n, k, run);
  std::get<GemmOp>(op.shape).batch = batch;
  return op;
}

// An RMSNorm over `cols` channels that is not one of the block's two (q_a_layernorm,
// kv_a_layernorm): transformers' eight fp32 kernels, or the runtime's one kernel.
OpVertex emit_sub_norm(Emitter& e, const ModelConfig& m, const RunConfig& run, const std::string& p,
                       int64_t rows, int64_t cols, OpVertex in) {
  const BlockChoices& c = run.runtime.choices_for(m);
  auto part = [&](NormPart k) { return role::norm_part(NormSite::None, k); };
  int64_t n = rows * cols;
  if (c.norm_kernels != NormKernels::HfFp32Decomposed) {
    Op op = row_op(RowOpKind::RmsNorm, rows, cols, e.act, run.runtime.launch.rows);
    std::get<RowOp>(op.shape).impl = c.norm_impl;
    return e.emit(role::norm(NormSite::None), p, op, {in});
  }
  // The input is a split view of kv_a's output (or q_a's whole output): to(fp32) reads it strided.
  e.emit(part(NormPart::ToFp32), p + ".to_fp32", strided(cast_op(n, e.act, DType::Fp32)), {in});
  e.emit(part(NormPart::Pow), p + ".pow", ew_op(ElementwiseKind::MulScalar, n, DType::Fp32));
  e.emit(part(NormPart::Mean), p + ".mean",
         Op{"", ReduceOp{ReduceKind::Sum, n, DType::Fp32, run.runtime.launch.reduction}, false});
  e.emit(part(NormPart::AddEps), p + ".add_eps",
         ew_op(ElementwiseKind::MulScalar, rows, DType::Fp32));
  e.emit(part(NormPart::Rsqrt), p + ".rsqrt", ew_op(ElementwiseKind::MulScalar, rows, DType::Fp32));
  e.emit(part(NormPart::Scale), p + ".scale", strided(ew_op(ElementwiseKind::Mul, n, DType::Fp32)));
  e.emit(part(NormPart::ToInput), p + ".to_input", cast_op(n, DType::Fp32, e.act));
  Op weight = ew_op(ElementwiseKind::Mul, n, e.act);
  return e.emit(part(NormPart::Weight), p + ".weight", rows > 1 ? strided(weight) : weight);
}

// rotate_half RoPE on `numel` channels of tensor t (five kernels), after transformers' interleave
// copy (view, transpose, reshape of a non-contiguous slice).
OpVertex emit_hf_rope(Emitter& e, Tensor t, int64_t numel, OpVertex x) {
  std::string p = t == Tensor::Q ? "q_rot" : "k_rot";
  auto part = [&](RopePart r) { return role::rope(r, t); };
  OpVertex il = e.emit(part(RopePart::Cat), p + "_interleave",
                       strided(ew_op(ElementwiseKind::Copy, numel, e.act)), {x});
  OpVertex c = e.emit(part(RopePart::MulCos), p + "_mul_cos",
                      strided(ew_op(ElementwiseKind::Mul, numel, e.act)), {il});
  OpVertex n = e.emit(part(RopePart::Neg), p + "_neg",
                      strided(ew_op(ElementwiseKind::MulScalar, numel / 2, e.act)), {il});
  OpVertex cat = e.emit(part(RopePart::Cat), p + "_cat",
                        strided(ew_op(ElementwiseKind::Copy, numel, e.act)), {n});
  OpVertex s = e.emit(part(RopePart::MulSin), p + "_mul_sin",
                      strided(ew_op(ElementwiseKind::Mul, numel, e.act)), {cat});
  return e.emit(part(RopePart::Add), p + "_add", ew_op(ElementwiseKind::Add, numel, e.act), {c, s});
}

// q (heads x (nope + rope) per token) from the normed hidden state; returns {q, kv_a's output}.
std::pair<OpVertex, OpVertex> emit_down_projections(Emitter& e, const ModelConfig& m,
                                                    const RunConfig& run, const Mla& x,
                                                    bool fused_a, OpVertex norm) {
  const MlaConfig& a = x.a;
  int64_t qk = a.qk_head_dim(), H = x.hidden, T = x.T;
  if (a.q_lora_rank == 0) {
    OpVertex q =
        e.emit(role::gemm(Projection::Q), "q_proj", weight_gemm(T, x.heads * qk, H, run), {norm});
    OpVertex kv = e.emit(role::gemm(Projection::KvA), "kv_a_proj",
                         weight_gemm(T, a.latent_per_token(), H, run), {norm});
    return {q, emit_sub_norm(e, m, run, "kv_a_norm", T, a.kv_lora_rank, kv)};
  }
  OpVertex qa, kva;
  if (fused_a) {  // q_a and kv_a as one GEMM over the concatenated weights
    qa = kva = e.emit(role::gemm(Projection::QA), "qkv_a_proj",
                      weight_gemm(T, a.q_lora_rank + a.latent_per_token(), H, run), {norm});
  } else {
    qa = e.emit(role::gemm(Projection::QA), "q_a_proj", weight_gemm(T, a.q_lora_rank, H, run),
                {norm});
  }
  OpVertex qn = emit_sub_norm(e, m, run, "q_a_norm", T, a.q_lora_rank, qa);
  OpVertex q = e.emit(role::gemm(Projection::QB), "q_b_proj",
                      weight_gemm(T, x.heads * qk, a.q_lora_rank, run), {qn});
  if (!fused_a)
    kva = e.emit(role::gemm(Projection::KvA), "kv_a_proj",
                 weight_gemm(T, a.latent_per_token(), H, run), {norm});
  return {q, emit_sub_norm(e, m, run, "kv_a_norm", T, a.kv_lora_rank, kva)};
}

// The latent and the RoPE key into transformers' cache; returns the cache's last kernel.
OpVertex emit_hf_latent_cache(Emitter& e, const RunConfig& run, const BlockChoices& c, const Mla& x,
                              OpVertex k) {
  int64_t L = x.a.kv_lora_rank, R = x.a.qk_rope_head_dim;
  if (c.cache_update == CacheUpdate::DynamicCat) {
    auto cat = [&](int64_t width) {
      Op op = ew_op(ElementwiseKind::Cat, x.B * x.kv_len * width, e.act);
      return run.cache_cropped ? strided(op) : op;
    };
    e.emit(role::cache_write(Tensor::K), "latent_cache_cat", cat(L), {k});
    return e.emit(role::cache_write(Tensor::V), "k_rot_cache_cat", cat(R), {k});
  }
  OpVertex at = k;
  for (int i = 0; i < 3; ++i)
    at = e.emit(role::of(RoleKind::Mask), "cache_position_" + std::to_string(i + 1),
                ew_op(ElementwiseKind::Add, std::max<int64_t>(1, x.q_len), DType::Fp32), {at});
  e.emit(role::cache_write(Tensor::K), "latent_cache_index_copy",
         strided(ew_op(ElementwiseKind::Copy, x.T * L, e.act)), {at});
  OpVertex last = e.emit(role::cache_write(Tensor::V), "k_rot_cache_index_copy",
                         strided(ew_op(ElementwiseKind::Copy, x.T * R, e.act)), {at});
  if (!hf_mask_reaches_attention(c, run)) return last;
  // The boolean mask turned into SDPA's additive one (K/V already have every head: no repeat).
  Op one = ew_op(ElementwiseKind::Add, 1, DType::Fp32);
  last = e.emit(role::of(RoleKind::Mask), "mask_fill_1", one, {last});
  last = e.emit(role::of(RoleKind::Mask), "mask_fill_2", one, {last});
  return e.emit(role::of(RoleKind::Mask), "mask_where",
                strided(ew_op(ElementwiseKind::Copy, x.B * hf_cache_capacity(run), e.act)), {last});
}

AttentionOp mla_attention_op(const Mla& x, const RunConfig& run, const BlockShape& s) {
  AttentionOp a;
  a.batch = x.B;
  a.heads = a.kv_heads = x.heads;
  a.head_dim = x.a.qk_head_dim();
  a.v_head_dim = x.a.v_head_dim;
  a.q_len = s.q_len;
  a.kv_len = s.kv_len;
  a.causal = s.causal;
  a.dtype = run.activations == DType::Fp8 ? DType::Bf16 : run.activations;
  return a;
}

// expand_kv, every step over every cached token, then SDPA (transformers).
OpVertex emit_hf_mla(Emitter& e, const ModelConfig& m, const RunConfig& run, const BlockShape& s,
                     const Mla& x, OpVertex norm) {
  const BlockChoices& c = run.runtime.choices_for(m);
  const MlaConfig& a = x.a;
  auto [q, kv] = emit_down_projections(e, m, run, x, false, norm);
  int64_t R = a.qk_rope_head_dim;
  OpVertex qr, kr;
  if (c.rope == RopeImpl::Fused) {
    qr = kr = e.emit(role::rope(RopePart::Fused, Tensor::Qkv), "rope",
                     ew_op(ElementwiseKind::Copy, x.T * (x.heads + 1) * R, e.act), {q, kv});
  } else {
    qr = emit_hf_rope(e, Tensor::Q, x.T * x.heads * R, q);
    kr = emit_hf_rope(e, Tensor::K, x.T * R, kv);
  }
  OpVertex cached = kr;
  bool hf_cache =
      c.cache_update == CacheUpdate::DynamicCat || c.cache_update == CacheUpdate::StaticIndexCopy;
  if (hf_cache && run.phase != Phase::Train) {
    cached = emit_hf_latent_cache(e, run, c, x, kr);
  } else if (s.cache_write && c.cache_update != CacheUpdate::None) {
    Op write = strided(cast_op(x.T * a.latent_per_token(), e.act, run.kv_cache));
    cached = e.emit(role::cache_write(Tensor::K), "latent_cache_write", write, {kr});
  }
  OpVertex query =
      e.emit(role::rope(RopePart::Cat, Tensor::Q), "query_cat",
             ew_op(ElementwiseKind::Copy, x.T * x.heads * a.qk_head_dim(), e.act), {qr});
  AttentionOp op = mla_attention_op(x, run, s);
  if (hf_mask_reaches_attention(c, run)) op.kv_len = hf_cache_capacity(run);
  int64_t tokens = x.B * op.kv_len;  // every cached token is decompressed
  OpVertex kvb = e.emit(
      role::gemm(Projection::KvB), "kv_b_proj",
      weight_gemm(tokens, x.heads * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank, run),
      {cached});
  // expand_kv assembles the keys in a new [B, h, kv, qk] tensor: k_nope (a [B, h, kv, nope]
  // slice of kv_b's output, viewed [B, kv, h, nope + v] and transposed) and the rotated key
  // expanded over the heads, each copied into its slice: 4 dims each after coalescing
  // (profiled: validate/data/h200-sxm-mla-copy-probe-2026-12-03.json). V stays a view SDPA reads
  // as it is. A copy whose operand spans more than 2^31 bytes runs as ATen's 32-bit-indexed
  // pieces, one kernel each.
  auto copy = [&](const std::string& name, int64_t width, double span_bytes,
                  std::vector<OpVertex> after) {
    int64_t pieces = 1;
    while (span_bytes / (double)pieces > (double)std::numeric_limits<int32_t>::max()) pieces *= 2;
    int64_t numel = tokens * x.heads * width;
    OpVertex last = 0;
    for (int64_t i = 0; i < pieces; ++i) {
      int64_t share = numel / pieces + (i < numel % pieces ? 1 : 0);
      Op piece = strided(ew_op(ElementwiseKind::Copy, share, e.act), mla_copy_dims(x.B));
      last = e.emit(role::cache_write(Tensor::K), name, piece, i ? std::vector<OpVertex>{} : after);
    }
    return last;
  };
  double bytes = dtype_bytes(e.act) * (double)(tokens * x.heads);
  OpVertex kn = copy("k_nope_copy", a.qk_nope_head_dim,
                     bytes * (double)(a.qk_nope_head_dim + a.v_head_dim), {kvb});
  OpVertex k = copy("k_rot_copy", R, bytes * (double)a.qk_head_dim(), {kn, cached});
  return e.emit(role::attention(), "attention", Op{"", op, false}, {query, k, kvb});
}

// W_UK into each head's q_nope (a decode's absorbed query: kv_lora_rank channels a head).
// `after`: its producer (none: the section's first kernel).
OpVertex emit_absorb_uk(Emitter& e, const RunConfig& run, const Mla& x,
                        std::vector<OpVertex> after) {
  return e.emit(role::gemm(Projection::AbsorbUk), "q_absorb_uk",
                batched_weight_gemm(x.T, x.a.kv_lora_rank, x.a.qk_nope_head_dim, x.heads, run),
                std::move(after));
}

// A decode's attention over the latent cache (FlashMLA), then W_UV back to v_head_dim.
OpVertex emit_latent_attention(Emitter& e, const RunConfig& run, const BlockShape& s, const Mla& x,
                               OpVertex r) {
  const MlaConfig& a = x.a;
  AttentionOp op;
  op.batch = x.B;
  op.heads = x.heads;
  op.kv_heads = 1;  // the latent, shared by every head
  op.head_dim = a.latent_per_token();
  op.v_head_dim = a.kv_lora_rank;
  op.v_in_k = true;
  op.q_len = 1;
  op.kv_len = s.kv_len;
  op.dtype = run.activations == DType::Fp8 ? DType::Bf16 : run.activations;
  if (run.kv_cache != op.dtype) op.kv_dtype = run.kv_cache;
  OpVertex att = e.emit(role::attention(), "attention", Op{"", op, false}, {r});
  return e.emit(role::gemm(Projection::AbsorbUv), "o_absorb_uv",
                batched_weight_gemm(x.T, a.v_head_dim, a.kv_lora_rank, x.heads, run), {att});
}

// A prefill's K/V decompressed for every key it attends to (kv_b_proj, the key cat), then flash
// attention. `after`: the RoPE and cache-write kernel (none: the section's first kernel).
OpVertex emit_decompressed_attention(Emitter& e, const RunConfig& run, const BlockShape& s,
                                     const Mla& x, std::vector<OpVertex> after) {
  const MlaConfig& a = x.a;
  AttentionOp op = mla_attention_op(x, run, s);
  int64_t tokens = x.B * s.kv_len;
  OpVertex kvb = e.emit(
      role::gemm(Projection::KvB), "kv_b_proj",
      weight_gemm(tokens, x.heads * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank, run),
      after);
  OpVertex k =
      e.emit(role::rope(RopePart::Cat, Tensor::K), "k_cat",
             ew_op(ElementwiseKind::Copy, tokens * x.heads * a.qk_head_dim(), e.act), {kvb});
  after.push_back(k);
  return e.emit(role::attention(), "attention", Op{"", op, false}, after);
}

bool absorbed_decode(const BlockShape& s) {
  return s.q_len == 1 && s.kv_len > 1;
}

// FlashMLA-style: W_UK into q, attention over the latent cache, W_UV after (a decode); a prefill
// decompresses its K/V once.
OpVertex emit_absorbed_mla(Emitter& e, const ModelConfig& m, const RunConfig& run,
                           const BlockShape& s, const Mla& x, OpVertex norm) {
  const MlaConfig& a = x.a;
  auto [q, kv] = emit_down_projections(e, m, run, x, true, norm);
  bool decode = absorbed_decode(s);
  OpVertex qa = decode ? emit_absorb_uk(e, run, x, {q}) : q;
  // RoPE on q_rot and k_rot, and the latent + RoPE key written to the cache, in one kernel.
  OpVertex r =
      e.emit(role::rope(RopePart::FusedWithCacheWrite, Tensor::Qkv), "rope_and_cache_write",
             ew_op(ElementwiseKind::Copy,
                   x.T * (x.heads * a.qk_rope_head_dim + a.latent_per_token()), e.act),
             {qa, kv});
  if (!s.attention) return r;
  return decode ? emit_latent_attention(e, run, s, x, r)
                : emit_decompressed_attention(e, run, s, x, {r});
}

}  // namespace

OpVertex emit_mla_attention(Emitter& e, const ModelConfig& m, const RunConfig& run,
                            const BlockShape& s, OpVertex norm) {
  Mla x{s.batch, s.tokens, s.q_len, s.kv_len, m.heads, m.hidden, m.deepseek.mla};
  if (run.runtime.choices_for(m).mla == MlaImpl::Absorbed)
    return emit_absorbed_mla(e, m, run, s, x, norm);
  return emit_hf_mla(e, m, run, s, x, norm);
}

void emit_absorbed_mla_attention_part(Emitter& e, const ModelConfig& m, const RunConfig& run,
                                      const BlockShape& s) {
  require_invariant(run.runtime.choices_for(m).mla == MlaImpl::Absorbed && m.deepseek.mla.enabled(),
                    "absorbed MLA");
  Mla x{s.batch, s.tokens, s.q_len, s.kv_len, m.heads, m.hidden, m.deepseek.mla};
  if (!absorbed_decode(s)) {
    emit_decompressed_attention(e, run, s, x, {});
    return;
  }
  OpVertex q = emit_absorb_uk(e, run, x, {});
  emit_latent_attention(e, run, s, x, q);
}

OpVertex emit_deepseek_hf_router(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T,
                                 OpVertex in) {
  const DeepseekMoe& d = m.deepseek.moe;
  int64_t E = m.moe.experts, H = m.hidden, k = m.moe.top_k, G = d.groups;
  const KernelRole routing = role::of(RoleKind::MoeRouting);
  auto index = [](int64_t n) {
    return ew_op(ElementwiseKind::Copy, std::max<int64_t>(1, n), DType::Fp32);
  };
  // F.linear(hidden.float(), weight.float()): both operands cast, an fp32 GEMM.
  e.emit(routing, "router_input_fp32", cast_op(T * H, e.act, DType::Fp32), {in});
  e.emit(routing, "router_weight_fp32", cast_op(E * H, run.weights, DType::Fp32));
  e.emit(role::gemm(Projection::Router), "router", gemm_op(T, E, H, DType::Fp32));
  if (d.scoring == "sigmoid") {
    e.emit(routing, "router_sigmoid", ew_op(ElementwiseKind::Silu, T * E, DType::Fp32));
    e.emit(routing, "router_bias", ew_op(ElementwiseKind::Add, T * E, DType::Fp32));
  } else {
    e.emit(routing, "router_softmax",
           row_op(RowOpKind::Softmax, T, E, DType::Fp32, run.runtime.launch.rows));
  }
  if (G > 1) {  // group-limited: the best groups, the other experts masked out
    e.emit(routing, "router_group_top2", index(T * E));
    e.emit(routing, "router_group_sum", index(T * G));
    e.emit(routing, "router_group_topk", index(T * G));
    e.emit(routing, "router_group_mask_zeros", index(T * G));
    e.emit(routing, "router_group_mask_scatter", index(T * G));
    e.emit(routing, "router_group_mask_not", index(T * E));
    e.emit(routing, "router_group_masked_fill", index(T * E));
  }
  e.emit(routing, "router_topk", index(T * E));
  e.emit(routing, "router_topk_gather", index(T * k));
  if (d.norm_topk_prob) {
    e.emit(routing, "router_weight_sum", index(T * k));
    e.emit(routing, "router_weight_add_eps", index(T));
    e.emit(routing, "router_weight_div", ew_op(ElementwiseKind::Mul, T * k, DType::Fp32));
  }
  return e.emit(routing, "router_weight_scale",
                ew_op(ElementwiseKind::MulScalar, T * k, DType::Fp32));
}

}  // namespace ridgeline
