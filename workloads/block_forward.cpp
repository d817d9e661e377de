// The forward kernels of one decoder block, as each runtime launches them.
//
// pytorch-eager (a Hugging Face-style model in eager PyTorch), per block:
//   input_norm, q/k/v_proj, RoPE on q and k as mul, neg, cat, mul, add (rotate_half),
//   [decode: k/v cache writes as copies], attention (SDPA: cuDNN's flash kernels), o_proj,
//   residual add,
//   post_norm, gate_proj, up_proj, silu, mul, down_proj, residual add.
// fused (a serving engine): fused add+norm, one qkv_proj, one RoPE kernel that also writes the
//   KV cache, attention, o_proj, fused add+norm, one gate_up_proj, silu_mul, down_proj.
// GPT-2 (LayerNorm, fused c_attn, GELU MLP, biases in the GEMM epilogues) and Mixtral-style
// MoE MLPs (moe_forward.cpp) share the same structure.
#include "workloads/builder_ops.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

Op gemm_op(int64_t m, int64_t n, int64_t k, DType d, int64_t batch) {
  return Op{"", GemmOp{m, n, k, batch, d, 0, 0}, false};
}

Op weight_gemm(int64_t m, int64_t n, int64_t k, const RunConfig& run) {
  Op op = gemm_op(m, n, k, run.weights);
  std::get<GemmOp>(op.shape).weight_bits = run.weight_bits;
  return op;
}
Op ew_op(ElementwiseKind kind, int64_t numel, DType d) {
  return Op{"", ElementwiseOp{kind, numel, d, false, {}}, false};
}
Op row_op(RowOpKind kind, int64_t rows, int64_t cols, DType d) {
  return Op{"", RowOp{kind, rows, cols, d}, false};
}

Op strided(Op op) {
  std::get<ElementwiseOp>(op.shape).strided = true;
  return op;
}

Op norm_op(const ModelConfig& m, const RunConfig& run, int64_t rows, int64_t cols, DType d) {
  Op op = row_op(norm_kind(m), rows, cols, d);
  if (run.runtime == Runtime::PytorchEager) std::get<RowOp>(op.shape).impl = RowImpl::PyTorch;
  return op;
}

RowOpKind norm_kind(const ModelConfig& m) {
  return m.norm == NormKind::LayerNorm ? RowOpKind::LayerNorm : RowOpKind::RmsNorm;
}

OpVertex Emitter::emit(const std::string& name, const Op& op, std::vector<OpVertex> after) {
  if (after.empty() && any) after.push_back(last);
  last = add_kernel(section, name, op, after);
  any = true;
  return last;
}

namespace {

// RoPE as Hugging Face writes it: x*cos + rotate_half(x)*sin, rotate_half = cat(-x2, x1).
// q and k are transposed views and cos/sin broadcast, so all but the final add are strided.
OpVertex emit_rope(Emitter& e, const std::string& t, int64_t numel, OpVertex x) {
  OpVertex c = e.emit(t + "_rope_mul_cos", strided(ew_op(ElementwiseKind::Mul, numel, e.act)), {x});
  OpVertex n =
      e.emit(t + "_rope_neg", strided(ew_op(ElementwiseKind::MulScalar, numel / 2, e.act)), {x});
  OpVertex cat = e.emit(t + "_rope_cat", strided(ew_op(ElementwiseKind::Copy, numel, e.act)), {n});
  OpVertex s =
      e.emit(t + "_rope_mul_sin", strided(ew_op(ElementwiseKind::Mul, numel, e.act)), {cat});
  return e.emit(t + "_rope_add", ew_op(ElementwiseKind::Add, numel, e.act), {c, s});
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
  return a;
}

// A copy from one dtype to another (a cast), or a plain copy when they agree.
Op cast_op(int64_t numel, DType from, DType to) {
  Op op = ew_op(ElementwiseKind::Copy, numel, from);
  if (to != from) std::get<ElementwiseOp>(op.shape).out_dtype = to;
  return op;
}

OpVertex emit_attention_eager(Emitter& e, const ModelConfig& m, const RunConfig& run,
                              const BlockShape& s, OpVertex norm) {
  int64_t T = s.tokens, d = m.head_dim, H = m.hidden;
  bool gpt2 = m.position == PositionKind::Learned;
  if (gpt2) {
    OpVertex qkv = e.emit("c_attn", weight_gemm(T, 3 * m.heads * d, H, run), {norm});
    return e.emit("attention", Op{"", attention_shape(m, run, s, false), false}, {qkv});
  }
  OpVertex q = e.emit("q_proj", weight_gemm(T, m.heads * d, H, run), {norm});
  OpVertex k = e.emit("k_proj", weight_gemm(T, m.kv_heads * d, H, run), {norm});
  OpVertex v = e.emit("v_proj", weight_gemm(T, m.kv_heads * d, H, run), {norm});
  OpVertex qr = emit_rope(e, "q", T * m.heads * d, q);
  OpVertex kr = emit_rope(e, "k", T * m.kv_heads * d, k);
  DType attn = attention_dtype(run);
  if (s.cache_write) {  // into a slice of the cache, cast to its dtype
    Op write = strided(cast_op(T * m.kv_heads * d, e.act, run.kv_cache));
    kr = e.emit("k_cache_write", write, {kr});
    v = e.emit("v_cache_write", write, {v});
    if (run.kv_cache != attn) {  // SDPA takes K/V in its own dtype: the cache is cast back whole
      Op dequant = cast_op(s.batch * m.kv_heads * s.kv_len * d, run.kv_cache, attn);
      kr = e.emit("k_cache_dequant", dequant, {kr});
      v = e.emit("v_cache_dequant", dequant, {v});
    }
  }
  // cuDNN's attention writes its output as [b, s, h, d] already, so HF's
  // transpose(1, 2).contiguous() launches no copy (seen in the H100 profiles, 2026-11-29).
  return e.emit("attention", Op{"", attention_shape(m, run, s, false), false}, {qr, kr, v});
}

OpVertex emit_attention_fused(Emitter& e, const ModelConfig& m, const RunConfig& run,
                              const BlockShape& s, OpVertex norm) {
  int64_t T = s.tokens, d = m.head_dim;
  int64_t qkv_width = (m.heads + 2 * m.kv_heads) * d;
  OpVertex qkv = e.emit("qkv_proj", weight_gemm(T, qkv_width, m.hidden, run), {norm});
  OpVertex rope =
      e.emit("rope_and_cache_write", ew_op(ElementwiseKind::Copy, T * qkv_width, e.act), {qkv});
  // Paged attention reads the cached keys in the cache's dtype, dequantizing as it loads them.
  return e.emit("attention", Op{"", attention_shape(m, run, s, s.cache_write), false}, {rope});
}

OpVertex emit_dense_mlp(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T,
                        int64_t width, const std::string& prefix, OpVertex in) {
  if (m.mlp == MlpKind::Gelu) {
    OpVertex fc = e.emit(prefix + "c_fc", weight_gemm(T, width, m.hidden, run), {in});
    OpVertex g = e.emit(prefix + "gelu", ew_op(ElementwiseKind::Gelu, T * width, e.act), {fc});
    return e.emit(prefix + "c_proj", weight_gemm(T, m.hidden, width, run), {g});
  }
  if (run.runtime == Runtime::Fused) {
    OpVertex gu = e.emit(prefix + "gate_up_proj", weight_gemm(T, 2 * width, m.hidden, run), {in});
    OpVertex sm =
        e.emit(prefix + "silu_mul", ew_op(ElementwiseKind::SiluMul, T * width, e.act), {gu});
    return e.emit(prefix + "down_proj", weight_gemm(T, m.hidden, width, run), {sm});
  }
  // down(silu(gate(x)) * up(x)): PyTorch evaluates silu(gate(x)) before up(x).
  OpVertex gate = e.emit(prefix + "gate_proj", weight_gemm(T, width, m.hidden, run), {in});
  OpVertex act = e.emit(prefix + "silu", ew_op(ElementwiseKind::Silu, T * width, e.act), {gate});
  OpVertex up = e.emit(prefix + "up_proj", weight_gemm(T, width, m.hidden, run), {in});
  OpVertex mul = e.emit(prefix + "mul", ew_op(ElementwiseKind::Mul, T * width, e.act), {act, up});
  return e.emit(prefix + "down_proj", weight_gemm(T, m.hidden, width, run), {mul});
}

}  // namespace

void emit_block_forward(Emitter& e, const ModelConfig& m, const RunConfig& run,
                        const BlockShape& s) {
  int64_t T = s.tokens, H = m.hidden;
  bool fused = run.runtime == Runtime::Fused;
  // Fused runtimes add the residual inside the next norm: a norm that reads and writes twice.
  Op norm = norm_op(m, run, T, fused ? 2 * H : H, e.act);
  OpVertex n1 = e.emit(fused ? "fused_add_input_norm" : "input_norm", norm);
  OpVertex attn =
      fused ? emit_attention_fused(e, m, run, s, n1) : emit_attention_eager(e, m, run, s, n1);
  bool gpt2 = m.position == PositionKind::Learned;
  OpVertex o =
      e.emit(gpt2 ? "attn_c_proj" : "o_proj", weight_gemm(T, H, m.heads * m.head_dim, run), {attn});
  OpVertex r1 =
      fused ? o : e.emit("residual_add_1", ew_op(ElementwiseKind::Add, T * H, e.act), {o});
  OpVertex n2 = e.emit(fused ? "fused_add_post_norm" : "post_norm", norm, {r1});
  OpVertex mlp = m.moe.experts > 0 ? emit_moe_mlp(e, m, run, T, n2)
                                   : emit_dense_mlp(e, m, run, T, m.intermediate, "", n2);
  if (!fused) e.emit("residual_add_2", ew_op(ElementwiseKind::Add, T * H, e.act), {mlp});
}

}  // namespace ridgeline
