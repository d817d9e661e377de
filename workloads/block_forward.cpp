// The forward kernels of one decoder block, as the run's runtime profile (runtime_profile.h,
// docs/runtimes.md) launches them. Each part of the block is a choice of the profile:
//   norm            input_norm ... post_norm (ATen's kernel or a single pass); with the residual
//                   add fused into the norm, fused_add_input_norm / fused_add_post_norm read the
//                   residual too and no residual_add kernels run
//   qkv_projection  q_proj, k_proj, v_proj, or one qkv_proj (GPT-2's weights are one c_attn)
//   rope            HF's rotate_half on q and on k (mul_cos, neg, cat, mul_sin, add), or one
//                   fused kernel (which may also write the KV cache)
//   kv_cache        k/v_cache_write copies, the rope kernel's write, or none; an fp8 cache read
//                   as k/v_cache_dequant before attention or inside the attention kernel
//   mlp             gate_proj + up_proj or one gate_up_proj; silu + mul or one silu_mul
//   moe             moe_forward.cpp
// pytorch-eager (workloads/runtimes/pytorch-eager.json), per block:
//   input_norm, q/k/v_proj, RoPE on q and k as mul, neg, cat, mul, add (rotate_half),
//   [decode: k/v cache writes as copies], attention (SDPA: cuDNN's flash kernels), o_proj,
//   residual add, post_norm, gate_proj, silu, up_proj, mul, down_proj, residual add.
// fused (fused.json): fused add+norm, one qkv_proj, one RoPE kernel that also writes the KV
//   cache, attention, o_proj, fused add+norm, one gate_up_proj, silu_mul, down_proj.
// GPT-2 (LayerNorm, fused c_attn, GELU MLP, biases in the GEMM epilogues), Nemotron (LayerNorm,
// ungated up_proj, relu2, down_proj) and Mixtral-style MoE MLPs (moe_forward.cpp) share the same
// structure.
#include "workloads/builder_ops.h"
#include "workloads/mla_forward.h"
#include "workloads/op_math.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

std::vector<OpVertex> distinct(std::vector<OpVertex> producers) {
  std::vector<OpVertex> out;
  for (OpVertex v : producers) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

RowOpKind norm_kind(const ModelConfig& m) {
  return m.norm == NormKind::LayerNorm ? RowOpKind::LayerNorm : RowOpKind::RmsNorm;
}

OpVertex emit_norm(Emitter& e, const ModelConfig& m, const RunConfig& run, NormSite site,
                   int64_t rows, std::vector<OpVertex> after) {
  const BlockChoices& c = run.runtime.choices_for(m);
  if (c.norm_kernels == NormKernels::HfFp32Decomposed && m.norm == NormKind::RmsNorm)
    return emit_hf_norm(e, m, run, site, rows, std::move(after));
  // Only the norms that follow a residual add read the residual (QK-norm and post-norms don't).
  bool fused_add = c.residual_add == ResidualAdd::FusedIntoNorm &&
                   (site == NormSite::Input || site == NormSite::Post || site == NormSite::Final) &&
                   m.norm_placement != NormPlacement::Post;
  // A norm that also adds the residual reads and writes twice the row.
  Op op = row_op(norm_kind(m), rows, fused_add ? 2 * m.hidden : m.hidden, e.act,
                 run.runtime.launch.rows);
  std::get<RowOp>(op.shape).impl = c.norm_impl;
  std::string name = norm_name_of(site);
  return e.emit(role::norm(site), fused_add ? "fused_add_" + name : name, op, std::move(after));
}

std::string norm_name_of(NormSite site) {
  switch (site) {
    case NormSite::Input:
      return "input_norm";
    case NormSite::Post:
      return "post_norm";
    case NormSite::PostAttention:
      return "post_attention_norm";
    case NormSite::PostMlp:
      return "post_mlp_norm";
    case NormSite::Q:
      return "q_norm";
    case NormSite::K:
      return "k_norm";
    default:
      return "final_norm";
  }
}

OpVertex Emitter::emit(const KernelRole& role, const std::string& name, const Op& op,
                       std::vector<OpVertex> after) {
  if (after.empty() && any) after.push_back(last);
  last = add_kernel(section, role, name, op, after);
  any = true;
  return last;
}

Op cast_op(int64_t numel, DType from, DType to) {
  Op op = ew_op(ElementwiseKind::Copy, numel, from);
  if (to != from) std::get<ElementwiseOp>(op.shape).out_dtype = to;
  return op;
}

namespace {

// RoPE as Hugging Face writes it: x*cos + rotate_half(x)*sin, rotate_half = cat(-x2, x1).
// q and k are transposed views and cos/sin broadcast, so all but the final add are strided.
OpVertex emit_rope(Emitter& e, Tensor t, int64_t numel, OpVertex x) {
  std::string p = t == Tensor::Q ? "q" : "k";
  auto part = [&](RopePart r) { return role::rope(r, t); };
  OpVertex c = e.emit(part(RopePart::MulCos), p + "_rope_mul_cos",
                      strided(ew_op(ElementwiseKind::Mul, numel, e.act)), {x});
  OpVertex n = e.emit(part(RopePart::Neg), p + "_rope_neg",
                      strided(ew_op(ElementwiseKind::MulScalar, numel / 2, e.act)), {x});
  OpVertex cat = e.emit(part(RopePart::Cat), p + "_rope_cat",
                        strided(ew_op(ElementwiseKind::Copy, numel, e.act)), {n});
  OpVertex s = e.emit(part(RopePart::MulSin), p + "_rope_mul_sin",
                      strided(ew_op(ElementwiseKind::Mul, numel, e.act)), {cat});
  return e.emit(part(RopePart::Add), p + "_rope_add", ew_op(ElementwiseKind::Add, numel, e.act),
                {c, s});
}

// The attention kernel's math (and Q/O) dtype: 16-bit unless both the activations and the KV
// cache are fp8 (an fp8 activation with a 16-bit cache meets K/V in 16 bits).
DType attention_dtype(const RunConfig& run) {
  if (run.activations != DType::Fp8) return run.activations;
  return run.kv_cache == DType::Fp8 ? DType::Fp8 : run.kv_cache;
}

AttentionOp attention_shape(const ModelConfig& m, const RunConfig& run, const BlockShape& s,
                            bool kv_from_cache) {
  AttentionOp a;
  a.batch = s.batch;
  a.heads = m.heads;
  a.kv_heads = m.kv_heads;
  a.head_dim = m.head_dim;
  a.q_len = s.q_len;
  a.kv_len = m.sliding_window > 0 ? std::min(s.kv_len, m.sliding_window) : s.kv_len;
  a.causal = s.causal;
  a.dtype = attention_dtype(run);
  if (kv_from_cache && run.kv_cache != a.dtype) a.kv_dtype = run.kv_cache;
  a.impl = run.runtime.choices_for(m).attention_impl;  // unset: what SDPA picks on the GPU
  return a;
}

// The producers of q, k and v as attention (or the cache) meets them.
struct Qkv {
  OpVertex q, k, v;
};

// `in`: the block's input as the projections read it (empty: the kernel before, as OLMo 2's
// block starts without a norm).
Qkv emit_projections(Emitter& e, const ModelConfig& m, const RunConfig& run, const BlockChoices& c,
                     int64_t T, std::vector<OpVertex> in) {
  int64_t d = m.head_dim, H = m.hidden;
  if (c.qkv_projection == QkvProjection::Fused || m.fused_qkv_weight) {
    int64_t width = (m.heads + 2 * m.kv_heads) * d;
    bool gpt2 = c.qkv_projection != QkvProjection::Fused && m.position == PositionKind::Learned;
    OpVertex qkv = e.emit(role::gemm(Projection::Qkv), gpt2 ? "c_attn" : "qkv_proj",
                          weight_gemm(T, width, H, run), in);
    if (m.qk_norm != QkNorm::None && m.qk_norm != QkNorm::L2) {
      QkProducers n = emit_qk_norm(e, m, run, T, {qkv, qkv});
      return {n.q, n.k, qkv};
    }
    return {qkv, qkv, qkv};
  }
  if (in.empty() && e.any) in = {e.last};
  OpVertex q = e.emit(role::gemm(Projection::Q), "q_proj", weight_gemm(T, m.heads * d, H, run), in);
  OpVertex k =
      e.emit(role::gemm(Projection::K), "k_proj", weight_gemm(T, m.kv_heads * d, H, run), in);
  OpVertex v =
      e.emit(role::gemm(Projection::V), "v_proj", weight_gemm(T, m.kv_heads * d, H, run), in);
  if (m.qk_norm != QkNorm::None && m.qk_norm != QkNorm::L2) {  // before RoPE
    QkProducers n = emit_qk_norm(e, m, run, T, {q, k});
    return {n.q, n.k, v};
  }
  return {q, k, v};
}

// RoPE on q and k (and, fused with the cache write, K and V into the cache).
Qkv emit_positions(Emitter& e, const ModelConfig& m, const BlockChoices& c, int64_t T, Qkv x) {
  int64_t d = m.head_dim;
  if (c.cache_update == CacheUpdate::FusedWithRope) {  // the cache write even without RoPE
    OpVertex r =
        e.emit(role::rope(RopePart::FusedWithCacheWrite, Tensor::Qkv), "rope_and_cache_write",
               ew_op(ElementwiseKind::Copy, T * (m.heads + 2 * m.kv_heads) * d, e.act),
               distinct({x.q, x.k, x.v}));
    return {r, r, r};
  }
  if (m.position != PositionKind::Rope) return x;
  if (c.rope == RopeImpl::Fused) {
    OpVertex r = e.emit(role::rope(RopePart::Fused, Tensor::Qkv), "rope",
                        ew_op(ElementwiseKind::Copy, T * (m.heads + m.kv_heads) * d, e.act),
                        distinct({x.q, x.k}));
    return {r, r, x.v};
  }
  OpVertex q = emit_rope(e, Tensor::Q, T * m.heads * d, x.q);
  OpVertex k = emit_rope(e, Tensor::K, T * m.kv_heads * d, x.k);
  return {q, k, x.v};
}

// torch.compile's attention (inductor_kernels.cpp): projections, Inductor's RoPE and cache
// writes, K/V repeated to every head and a mask, then SDPA over the masked span.
OpVertex emit_inductor_attention(Emitter& e, const ModelConfig& m, const RunConfig& run,
                                 const BlockShape& s, std::vector<OpVertex> in) {
  const BlockChoices& c = run.runtime.choices_for(m);
  Qkv p = emit_projections(e, m, run, c, s.tokens, std::move(in));
  InductorQkv x = emit_inductor_positions(e, m, run, s, {p.q, p.k, p.v});
  if (!s.attention) return e.last;
  x = emit_inductor_mask(e, m, run, s, x);
  AttentionOp a = attention_shape(m, run, s, false);
  a.kv_heads = m.heads;
  a.kv_len = inductor_span(run, s);
  a.causal = false;  // a mask, not is_causal: no causal block skipping
  return e.emit(role::attention(), "attention", Op{"", a, false}, distinct({x.q, x.k, x.v}));
}

OpVertex emit_attention(Emitter& e, const ModelConfig& m, const RunConfig& run, const BlockShape& s,
                        std::vector<OpVertex> in) {
  const BlockChoices& c = run.runtime.choices_for(m);
  int64_t T = s.tokens, d = m.head_dim;
  if (inductor_attention(c)) return emit_inductor_attention(e, m, run, s, std::move(in));
  Qkv x = emit_positions(e, m, c, T, emit_projections(e, m, run, c, T, std::move(in)));
  if (m.qk_norm == QkNorm::L2) {  // Llama 4: after RoPE
    QkProducers n = emit_qk_norm(e, m, run, T, {x.q, x.k});
    x.q = n.q;
    x.k = n.k;
  }
  bool cache = s.cache_write && c.cache_update != CacheUpdate::None;
  DType attn = attention_dtype(run);
  bool hf_cache =
      c.cache_update == CacheUpdate::DynamicCat || c.cache_update == CacheUpdate::StaticIndexCopy;
  if (hf_cache && run.phase != Phase::Train) {  // transformers' caches, also in a prefill
    CacheKv kv = emit_hf_cache_update(e, m, run, s, {x.k, x.v});
    x.k = kv.k;
    x.v = kv.v;
  }
  if (cache && c.cache_update == CacheUpdate::CopyPerKv) {  // into a slice, cast to its dtype
    Op write = strided(cast_op(T * m.kv_heads * d, e.act, run.kv_cache));
    x.k = e.emit(role::cache_write(Tensor::K), "k_cache_write", write, {x.k});
    x.v = e.emit(role::cache_write(Tensor::V), "v_cache_write", write, {x.v});
  }
  if (cache && c.cache_read == CacheRead::DequantizeBefore && run.kv_cache != attn) {
    // SDPA takes K/V in its own dtype: the cache is cast back whole.
    Op dequant = cast_op(s.batch * m.kv_heads * s.kv_len * d, run.kv_cache, attn);
    x.k = e.emit(role::cache_dequant(Tensor::K), "k_cache_dequant", dequant, {x.k});
    x.v = e.emit(role::cache_dequant(Tensor::V), "v_cache_dequant", dequant, {x.v});
  }
  if (!s.attention) return e.last;  // priced by the caller, per request group
  // Paged attention reads the cached keys in the cache's dtype, dequantizing as it loads them.
  // cuDNN's attention writes its output as [b, s, h, d] already, so HF's
  // transpose(1, 2).contiguous() launches no copy (seen in the H100 profiles, 2026-11-29).
  bool in_kernel = cache && c.cache_read == CacheRead::InKernel;
  AttentionOp a = attention_shape(m, run, s, in_kernel);
  if (hf_mask_reaches_attention(c, run)) {  // a StaticCache decode: the whole cache, every head
    a.kv_len = hf_cache_capacity(run);
    a.kv_heads = m.heads;
  }
  bool eager = eager_attention(m, run);
  int64_t window_span = hf_window_mask_span(m, run, s.q_len, s.kv_len);
  if (window_span > 0) {  // transformers' window mask: every key, masked, no causal skipping
    a.kv_len = window_span;
    a.causal = false;
    a.additive_mask = !eager;  // SDPA's kernel adds the mask's bias tile
  }
  if (eager) {
    // The keys transformers' mask hides in each score row (eager softmax pays for them): a static
    // cache's unfilled tail, the window, or the causal triangle.
    double masked =
        hf_mask_reaches_attention(c, run)
            ? masked_keys_per_row(a.q_len, a.kv_len, std::min(s.kv_len, a.kv_len), false, 0)
        : window_span > 0 ? masked_keys_per_row(a.q_len, a.kv_len, a.kv_len, true, m.sliding_window)
                          : masked_keys_per_row(a.q_len, a.kv_len, a.kv_len, a.causal, 0);
    return emit_eager_attention(e, m, run, a, masked, distinct({x.q, x.k, x.v}));
  }
  std::vector<OpVertex> qkv = distinct({x.q, x.k, x.v});
  if (window_span > 0) {
    // With a mask transformers takes no GQA path (use_gqa_in_sdpa): repeat_kv copies K and V to
    // every head; SDPA turns the bool mask into an additive one (ATen's where).
    CacheKv kv = emit_hf_repeat_kv(e, {s.batch, a.heads, a.kv_heads, a.head_dim}, window_span,
                                   {x.k, x.v}, x.k);
    a.kv_heads = a.heads;
    qkv = {e.emit(role::of(RoleKind::Mask), "window_mask_where",
                  strided(ew_op(ElementwiseKind::Copy, s.batch * s.q_len * window_span, a.dtype)),
                  distinct({x.q, kv.k, kv.v}))};
  }
  return e.emit(role::attention(), "attention", Op{"", a, false}, qkv);
}

OpVertex emit_dense_mlp(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T,
                        OpVertex in) {
  int64_t width = m.intermediate;
  if (gated_mlp(m.mlp)) return emit_gated_mlp_named(e, m, run, T, width, in, "");
  // Ungated: GPT-2's c_fc, gelu, c_proj; Nemotron's up_proj, relu2, down_proj (the same roles:
  // the column-parallel first GEMM and the row-parallel second, Megatron's linear_fc1 and _fc2).
  bool relu2 = m.mlp == MlpKind::Relu2;
  OpVertex fc = e.emit(role::gemm(Projection::Fc), relu2 ? "up_proj" : "c_fc",
                       weight_gemm(T, width, m.hidden, run), {in});
  OpVertex g = e.emit(
      role::activation(relu2 ? Activation::Relu2 : Activation::Gelu), relu2 ? "relu2" : "gelu",
      ew_op(relu2 ? ElementwiseKind::Relu2 : ElementwiseKind::Gelu, T * width, e.act), {fc});
  return e.emit(role::gemm(Projection::Proj), relu2 ? "down_proj" : "c_proj",
                weight_gemm(T, m.hidden, width, run), {g});
}

}  // namespace

OpVertex emit_gated_mlp_named(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T,
                              int64_t width, OpVertex in, const std::string& p) {
  const BlockChoices& c = run.runtime.choices_for(m);
  bool one_gemm = c.gate_up == GateUpProjection::Fused || m.fused_gate_up_weight;
  bool gelu = m.mlp == MlpKind::GatedGelu;
  auto up_proj = [&] {
    return e.emit(role::gemm(Projection::Up), p + "up_proj", weight_gemm(T, width, m.hidden, run),
                  {in});
  };
  OpVertex gate = one_gemm ? e.emit(role::gemm(Projection::GateUp), p + "gate_up_proj",
                                    weight_gemm(T, 2 * width, m.hidden, run), {in})
                           : e.emit(role::gemm(Projection::Gate), p + "gate_proj",
                                    weight_gemm(T, width, m.hidden, run), {in});
  OpVertex act;
  if (c.activation == MlpActivation::Fused) {
    OpVertex up = one_gemm ? gate : up_proj();
    act = e.emit(role::activation(Activation::SiluMul), p + (gelu ? "gelu_mul" : "silu_mul"),
                 ew_op(ElementwiseKind::SiluMul, T * width, e.act), distinct({gate, up}));
  } else {
    // down(act(gate(x)) * up(x)): PyTorch evaluates act(gate(x)) before up(x). A fused gate_up
    // weight (Phi-3) is chunked: the activation reads half of each row.
    Op a = ew_op(gelu ? ElementwiseKind::Gelu : ElementwiseKind::Silu, T * width, e.act);
    OpVertex g =
        e.emit(role::activation(gelu ? Activation::Gelu : Activation::Silu),
               p + (gelu ? "gelu" : "silu"), m.fused_gate_up_weight ? strided(a) : a, {gate});
    OpVertex up = one_gemm ? gate : up_proj();
    Op mul = ew_op(ElementwiseKind::Mul, T * width, e.act);
    act = e.emit(role::activation(Activation::GateMul), p + "mul",
                 m.fused_gate_up_weight ? strided(mul) : mul, {g, up});
  }
  return e.emit(role::gemm(Projection::Down), p + "down_proj", weight_gemm(T, m.hidden, width, run),
                {act});
}

void emit_block_forward(Emitter& e, const ModelConfig& m, const RunConfig& run,
                        const BlockShape& s) {
  int64_t T = s.tokens, H = m.hidden;
  // OLMo 2 normalises after attention and the MLP only; Gemma before and after both.
  bool pre = m.norm_placement != NormPlacement::Post;
  bool post = m.norm_placement != NormPlacement::Pre;
  bool separate_add = run.runtime.choices_for(m).residual_add == ResidualAdd::Separate || !pre;
  std::vector<OpVertex> in;
  if (pre) in.push_back(emit_norm(e, m, run, NormSite::Input, T, {}));
  OpVertex attn = m.deepseek.mla.enabled() ? emit_mla_attention(e, m, run, s, in.at(0))
                                           : emit_attention(e, m, run, s, in);
  bool gpt2 = m.position == PositionKind::Learned;
  OpVertex o = e.emit(role::gemm(Projection::O), gpt2 ? "attn_c_proj" : "o_proj",
                      weight_gemm(T, H, m.heads * m.head_dim, run), {attn});
  if (post) o = emit_norm(e, m, run, NormSite::PostAttention, T, {o});
  OpVertex r1 = separate_add ? e.emit(role::residual_add(), "residual_add_1",
                                      ew_op(ElementwiseKind::Add, T * H, e.act), {o})
                             : o;
  OpVertex n2 = pre ? emit_norm(e, m, run, NormSite::Post, T, {r1}) : r1;
  OpVertex mlp =
      m.moe.experts > 0 ? emit_moe_mlp(e, m, run, T, n2) : emit_dense_mlp(e, m, run, T, n2);
  if (post) emit_norm(e, m, run, NormSite::PostMlp, T, {mlp});
  if (separate_add)
    e.emit(role::residual_add(), "residual_add_2", ew_op(ElementwiseKind::Add, T * H, e.act),
           {mlp});
}

}  // namespace ridgeline
