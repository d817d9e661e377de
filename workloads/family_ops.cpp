// The kernels some model families add to a decoder block or the head (issue 14), as each runtime
// launches them; block_forward.cpp calls them where the family's config says so.
//   QK-norm      an RMSNorm on each q and k head (Qwen3, Gemma 3: rows tokens x heads, width
//                head_dim), over all heads at once (OLMo 2: rows tokens, width heads x head_dim),
//                or Llama 4's weightless L2 norm per head, each written as the runtime writes a
//                norm (transformers: the fp32 decomposition; an engine: one kernel)
//   eager attn   where SDPA cannot run the attention (gpt-oss's sinks; Gemma 2's soft-capped
//                scores outside transformers, whose sdpa path drops the cap),
//                eager_attention_forward: K/V repeated to every head, Q·Kᵀ as a batched GEMM, the
//                scale, [cap * tanh(s / cap) as div, tanh, mul], the mask add, [sinks: cat, max,
//                sub], softmax (fp32 and a cast back without sinks; paying for the masked
//                scores), P·V, the output made contiguous. A serving engine's FlashAttention caps
//                and sinks inside its kernel (vLLM's, FlashInfer's), so the fused runtime keeps one
//                kernel.
//   shared expert a dense SwiGLU MLP beside the routed experts, [Qwen2-MoE: sigmoid(Linear(h, 1))
//                scaling it], added to their output
//   final cap    the same three kernels on the logits (Gemma 2)
//   embed scale  Gemma's embeddings times sqrt(hidden), one kernel
#include "workloads/builder_ops.h"

namespace ridgeline {

namespace {

// cap * tanh(x / cap): three elementwise kernels (tanh costs as GELU's tanh does).
OpVertex emit_softcap(Emitter& e, const std::string& p, int64_t n, DType d, OpVertex in) {
  KernelRole cap = role::of(RoleKind::Softcap);
  e.emit(cap, p + "_softcap_div", ew_op(ElementwiseKind::MulScalar, n, d), {in});
  e.emit(cap, p + "_softcap_tanh", ew_op(ElementwiseKind::Gelu, n, d));
  return e.emit(cap, p + "_softcap_mul", ew_op(ElementwiseKind::MulScalar, n, d));
}

// nn.functional.softmax in eager code: ATen's own row kernel (cunn_SoftMaxForward*), over rows
// with `masked` of their cols set to the dtype's min.
Op aten_softmax(int64_t rows, int64_t cols, double masked, DType d, const RowLaunch& launch) {
  Op op = row_op(RowOpKind::Softmax, rows, cols, d, launch);
  RowOp& r = std::get<RowOp>(op.shape);
  r.impl = RowImpl::PyTorch;
  r.masked_fraction = masked / (double)cols;
  return op;
}

}  // namespace

bool eager_attention(const ModelConfig& m, const RunConfig& run) {
  const BlockChoices& c = run.runtime.choices_for(m);
  // PyTorch-style runtimes (RoPE as rotate_half: pytorch-eager, hf-transformers) call SDPA;
  // an engine with fused RoPE runs FlashAttention with the cap or the sinks inside.
  if (c.rope != RopeImpl::HfRotateHalf) return false;
  if (m.attention_sinks) return true;  // transformers refuses sdpa for gpt-oss
  // Soft-capped scores (Gemma 2): transformers 5's sdpa_attention_forward takes `softcap` and
  // drops it, so transformers' code (mask hf_sdpa) runs SDPA uncapped, as the H200 profiles of
  // Gemma2ForCausalLM show (cuDNN's SDPA kernel, no tanh over the scores:
  // validate/data/h200-sxm-families-2026-12-02.json, fit split); plain PyTorch code caps eagerly.
  return m.attn_softcap > 0 && c.mask != AttentionMask::HfSdpa;
}

QkProducers emit_qk_norm(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T,
                         QkProducers x) {
  if (m.qk_norm == QkNorm::None) return x;
  bool all = m.qk_norm == QkNorm::AllHeads;
  ModelConfig q = m, k = m;  // a norm's width is its model's hidden size
  q.hidden = all ? m.heads * m.head_dim : m.head_dim;
  k.hidden = all ? m.kv_heads * m.head_dim : m.head_dim;
  int64_t q_rows = all ? T : T * m.heads, k_rows = all ? T : T * m.kv_heads;
  OpVertex qn = emit_norm(e, q, run, NormSite::Q, q_rows, {x.q});
  OpVertex kn = emit_norm(e, k, run, NormSite::K, k_rows, {x.k});
  return {qn, kn};
}

OpVertex emit_eager_attention(Emitter& e, const ModelConfig& m, const RunConfig& run,
                              const AttentionOp& a, double masked_keys,
                              std::vector<OpVertex> after) {
  const RowLaunch& rows = run.runtime.launch.rows;
  int64_t BH = a.batch * a.heads, d = a.head_dim;
  int64_t scores = BH * a.q_len * a.kv_len;
  DType t = a.dtype;
  KernelRole sc = role::of(RoleKind::AttentionScores);
  if (a.kv_heads < a.heads) {  // repeat_kv: expand + reshape copies K and V to every head
    Op repeat = strided(repeat_kv_op(BH * a.kv_len * d, a.heads / a.kv_heads, t));
    e.emit(role::of(RoleKind::CacheRepeat), "repeat_kv.k", repeat, after);
    e.emit(role::of(RoleKind::CacheRepeat), "repeat_kv.v", repeat);
    after = {};
  }
  OpVertex s = e.emit(sc, "attn.qk_matmul", gemm_op(a.q_len, a.kv_len, d, t, BH), after);
  s = e.emit(sc, "attn.scale", ew_op(ElementwiseKind::MulScalar, scores, t), {s});
  if (m.attn_softcap > 0) s = emit_softcap(e, "attn", scores, t, s);
  s = e.emit(sc, "attn.mask_add", strided(ew_op(ElementwiseKind::Add, scores, t)), {s});
  if (m.attention_sinks) {  // cat([scores, sinks]), minus the row max, softmax, drop the sink
    int64_t wide = BH * a.q_len * (a.kv_len + 1);
    // The sinks are broadcast to every row: ATen's CatArrayBatchedCopy copies element by element
    // (not its _vectorized variant, in the profiles of the fit split).
    e.emit(sc, "attn.sinks_cat", strided(ew_op(ElementwiseKind::Cat, wide, t)), {s});
    e.emit(sc, "attn.sinks_max",
           Op{"", ReduceOp{ReduceKind::Sum, wide, t, run.runtime.launch.reduction}, false});
    e.emit(sc, "attn.sinks_sub", strided(ew_op(ElementwiseKind::Add, wide, t)));
    s = e.emit(sc, "attn.softmax", aten_softmax(BH * a.q_len, a.kv_len + 1, masked_keys, t, rows));
  } else {
    e.emit(sc, "attn.softmax", aten_softmax(BH * a.q_len, a.kv_len, masked_keys, DType::Fp32, rows),
           {s});
    s = e.emit(sc, "attn.probs_to_dtype", cast_op(scores, DType::Fp32, t));
  }
  Op pv = gemm_op(a.q_len, d, a.kv_len, t, BH);
  // With sinks P is probs[..., :-1], rows of kv_len + 1: the GEMM reads a misaligned A (cuBLAS
  // falls back to a CUTLASS align1 kernel in the fit split's gpt-oss profiles).
  if (m.attention_sinks) std::get<GemmOp>(pv.shape).a_row_pitch = a.kv_len + 1;
  OpVertex o = e.emit(sc, "attn.pv_matmul", pv, {s});
  return e.emit(sc, "attn.output_contiguous",
                strided(ew_op(ElementwiseKind::Copy, BH * a.q_len * d, t)), {o});
}

OpVertex emit_shared_expert(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T,
                            OpVertex in, OpVertex routed) {
  // transformers' module names: Qwen2-MoE's mlp.shared_expert, DeepSeek's mlp.shared_experts.
  std::string p = m.deepseek.moe.shared_experts > 0 ? "shared_experts." : "shared_expert.";
  OpVertex y = emit_gated_mlp_named(e, m, run, T, m.moe.shared_intermediate, in, p);
  if (m.moe.shared_gate) {
    OpVertex g = e.emit(role::gemm(Projection::Router), "shared_expert_gate",
                        weight_gemm(T, 1, m.hidden, run), {in});
    OpVertex sg = e.emit(role::activation(Activation::Silu), "shared_expert_gate.sigmoid",
                         ew_op(ElementwiseKind::Silu, T, e.act), {g});
    y = e.emit(role::activation(Activation::GateMul), "shared_expert.scale",
               strided(ew_op(ElementwiseKind::Mul, T * m.hidden, e.act)), {sg, y});
  }
  return e.emit(role::of(RoleKind::MoeCombine), p + "add",
                ew_op(ElementwiseKind::Add, T * m.hidden, e.act), distinct({routed, y}));
}

OpVertex emit_logit_softcap(Emitter& e, const ModelConfig& m, int64_t rows, OpVertex logits) {
  if (m.final_softcap <= 0) return logits;
  return emit_softcap(e, "logits", rows * m.vocab, e.act, logits);
}

}  // namespace ridgeline
