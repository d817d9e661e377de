// The MoE MLP of a decoder block (Mixtral-style: a router, top-k of E SwiGLU experts, the
// weighted sum), as each runtime launches it. Only experts that receive tokens run and read
// their weights (moe_routing.h); each projection of all experts is one grouped GEMM.
//
// pytorch-eager: Hugging Face transformers' grouped_mm experts backend
//   (transformers/integrations/moe.py, grouped_mm_experts_forward): router Linear, softmax in
//   fp32, top-k, renormalised weights cast back, then sort the token-expert pairs by expert,
//   gather their rows, histc + cumsum for the group offsets, torch._grouped_mm for gate_up,
//   silu(gate) * up as two kernels, torch._grouped_mm for down, scale by the routing weights,
//   un-permute and sum the k rows of each token.
// fused: a serving engine's fused-MoE kernels (vLLM's fused_moe): router GEMM, one fused
//   softmax + top-k kernel, one alignment kernel that sorts token ids by expert, the gate_up
//   grouped GEMM reading rows through those ids (no gather), silu_mul, the down grouped GEMM
//   with the routing weights in its epilogue, and moe_sum over each token's k rows.
#include "workloads/builder_ops.h"
#include "workloads/moe_routing.h"

#include <cmath>

namespace ridgeline {

namespace {

// One grouped GEMM over the experts that receive tokens, m rows each (their mean load).
Op grouped_gemm(const ExpertLoad& load, int64_t n, int64_t k, const RunConfig& run) {
  Op op = weight_gemm((int64_t)std::ceil(load.tokens_per_active), n, k, run);
  std::get<GemmOp>(op.shape).groups = load.active;
  return op;
}

// A small index kernel (sort, histogram, offsets, routing-weight gathers): `n` 4-byte values.
Op index_op(int64_t n) {
  return ew_op(ElementwiseKind::Copy, n, DType::Fp32);
}

OpVertex emit_router(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T,
                     OpVertex in) {
  int64_t E = m.moe.experts;
  OpVertex logits = e.emit("router", weight_gemm(T, E, m.hidden, run), {in});
  if (run.runtime == Runtime::Fused) {
    return e.emit("router_topk_softmax", row_op(RowOpKind::Softmax, T, E, DType::Fp32), {logits});
  }
  Op softmax = row_op(RowOpKind::Softmax, T, E, DType::Fp32);
  std::get<RowOp>(softmax.shape).impl = RowImpl::PyTorch;
  OpVertex probs = e.emit("router_softmax", softmax, {logits});
  OpVertex topk = e.emit("router_topk", row_op(RowOpKind::Softmax, T, E, DType::Fp32), {probs});
  int64_t pairs = T * m.moe.top_k;
  OpVertex sum = e.emit("router_weight_sum", index_op(pairs), {topk});
  OpVertex div = e.emit("router_weight_div", ew_op(ElementwiseKind::Mul, pairs, DType::Fp32), {sum});
  return e.emit("router_weight_cast", index_op(pairs), {div});
}

}  // namespace

OpVertex emit_moe_mlp(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T,
                      OpVertex in) {
  int64_t H = m.hidden, I = m.moe.expert_intermediate, pairs = T * m.moe.top_k;
  ExpertLoad load = expert_load(m.moe.experts, m.moe.top_k, T, run.moe_imbalance);
  OpVertex routed = emit_router(e, m, run, T, in);
  if (run.runtime == Runtime::Fused) {
    OpVertex align = e.emit("moe_align", index_op(pairs), {routed});
    OpVertex gu = e.emit("experts.gate_up_proj", grouped_gemm(load, 2 * I, H, run), {align});
    OpVertex act =
        e.emit("experts.silu_mul", ew_op(ElementwiseKind::SiluMul, pairs * I, e.act), {gu});
    OpVertex down = e.emit("experts.down_proj", grouped_gemm(load, H, I, run), {act});
    // k rows per token summed into one: read as k/2 adds of two rows each.
    return e.emit("moe_sum", ew_op(ElementwiseKind::Add, pairs * H / 2, e.act), {down});
  }
  OpVertex sort = e.emit("experts.sort", index_op(2 * pairs), {routed});
  OpVertex gather =
      e.emit("experts.gather", ew_op(ElementwiseKind::Copy, pairs * H, e.act), {in, sort});
  OpVertex weights = e.emit("experts.weight_gather", index_op(pairs), {sort});
  OpVertex histc = e.emit("experts.histc", index_op(pairs), {sort});
  OpVertex offsets = e.emit("experts.offsets", index_op(m.moe.experts), {histc});
  OpVertex gu = e.emit("experts.gate_up_proj", grouped_gemm(load, 2 * I, H, run), {gather, offsets});
  OpVertex silu = e.emit("experts.silu", ew_op(ElementwiseKind::Silu, pairs * I, e.act), {gu});
  OpVertex mul =
      e.emit("experts.mul", ew_op(ElementwiseKind::Mul, pairs * I, e.act), {silu, gu});
  OpVertex down = e.emit("experts.down_proj", grouped_gemm(load, H, I, run), {mul});
  OpVertex scaled =
      e.emit("experts.scale", ew_op(ElementwiseKind::Mul, pairs * H, e.act), {down, weights});
  OpVertex unperm =
      e.emit("experts.unpermute", ew_op(ElementwiseKind::Copy, pairs * H, e.act), {scaled});
  return e.emit("experts.sum", ew_op(ElementwiseKind::Add, pairs * H / 2, e.act), {unperm});
}

}  // namespace ridgeline
