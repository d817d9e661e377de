// The MoE MLP of a decoder block (Mixtral-style: a router, top-k of E SwiGLU experts, the
// weighted sum), as each runtime launches it. Only experts that receive tokens run and read
// their weights (moe_routing.h); each projection of all experts is one grouped GEMM. The
// runtime profile's "moe" "impl" picks one of the two kernel sets below (and transformers'
// Llama 4 experts, which run every expert on every token, under hf_grouped_mm), or
// megatron_te, Megatron-Core's MoE layer with Transformer Engine (moe_megatron.cpp).
//
// hf_grouped_mm (pytorch-eager): Hugging Face transformers' grouped_mm experts backend, the
//   default of transformers 5.17 for Mixtral (transformers/integrations/moe.py): 40 kernels a layer
//   whatever the experts, as every profile of validate/data/h200-sxm-moe-2026-12-01.json lists
//   them: router Linear, logits to fp32, softmax, top-k (gather + sort), renormalise (sum, div);
//   torch.sort of the expert ids (copies, arange, sort), perm // k, the row and weight gathers,
//   ids to int, histc (fill + histogram) and cumsum (two scans) for the group offsets, the
//   expert-parallel sentinel masks (compare, clamp, masked_fill around each GEMM), the gate_up
//   and down torch._grouped_mm (CUTLASS, each after a prepare kernel), silu and mul, the
//   routing weights applied in fp32, the inverse permutation (arange, index_put), the
//   un-permute gather, the fp32 sum of each token's k rows and the cast back.
// hf_batched_mm: transformers' batched_mm experts backend, which a grouped_mm model switches to for
//   generate()'s decode steps on a GPU (transformers docs, experts_interface.md, "Decode-stage
//   switching"; generate_predict.h): every token-expert pair's weights gathered out of the
//   expert tables (gate_up and down: copies of 2I x H and H x I per pair), the pair's hidden row
//   gathered, the two projections as torch.bmm over the pairs (one row each, reading the gathered
//   weights), then the routing weights in fp32, the expert-parallel validity mask, the sum of
//   each token's k rows and the cast back (integrations/moe.py batched_mm_experts_forward).
// fused_moe (fused): a serving engine's fused-MoE kernels (vLLM's fused_moe): router GEMM,
//   one fused softmax + top-k kernel, one alignment kernel that sorts token ids by expert, the
//   gate_up grouped GEMM reading rows through those ids (no gather), silu_mul, the down grouped
//   GEMM with the routing weights in its epilogue, and moe_sum over each token's k rows.
#include "workloads/mla_forward.h"
#include "workloads/moe_ops.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

Op grouped_gemm(const ExpertLoad& load, int64_t n, int64_t k, const RunConfig& run) {
  Op op = expert_weight_gemm((int64_t)std::ceil(load.tokens_per_active), n, k, run);
  GemmOp& g = std::get<GemmOp>(op.shape);
  g.groups = load.active;
  if (load.draw_p > 0) {  // each expert's rows a draw: tiled unevenly
    g.routed = {(int64_t)std::llround(load.experts), load.draw_tokens, load.draw_p};
  }
  return op;
}

Op moe_index_op(int64_t n) {
  return ew_op(ElementwiseKind::Copy, n, DType::Fp32);
}

ExpertLoad rank_expert_load(const ModelConfig& m, const RunConfig& run, int64_t T) {
  ExpertLoad load =
      expert_load(m.moe.experts, m.moe.top_k, T * run.expert_ranks, run.moe_imbalance);
  load.active /= (double)run.expert_ranks;
  load.experts /= (double)run.expert_ranks;  // this rank's
  return load;
}

namespace {

// transformers' expert-parallel sentinel mask on `n` elements: masked_fill(_) with the [rows, 1]
// mask broadcast over each row, so ATen's TensorIterator cannot vectorize it and runs its
// non-vectorized elementwise_kernel<128, 4> over every element (as the H200 profiles of the
// families' fit records name it: gpu_kernel_impl_nocast<masked_fill_kernel>), priced on the
// generic, strided path.
Op sentinel_fill(int64_t n, DType d) {
  return strided(ew_op(ElementwiseKind::MulScalar, n, d));
}

const KernelRole routing = role::of(RoleKind::MoeRouting);
const KernelRole dispatch = role::of(RoleKind::MoeDispatch);
const KernelRole combine = role::of(RoleKind::MoeCombine);

struct Moe {
  int64_t T, E, H, I, pairs;
  ExpertLoad load;
  const MoeConfig& cfg;
};

OpVertex emit_fused(Emitter& e, const Moe& x, const RunConfig& run, OpVertex in) {
  OpVertex logits =
      e.emit(role::gemm(Projection::Router), "router", weight_gemm(x.T, x.E, x.H, run), {in});
  OpVertex routed =
      e.emit(routing, "router_topk_softmax",
             row_op(RowOpKind::Softmax, x.T, x.E, DType::Fp32, run.runtime.launch.rows), {logits});
  OpVertex align = e.emit(dispatch, "moe_align", moe_index_op(x.pairs), {routed});
  OpVertex gu = e.emit(role::gemm(Projection::ExpertsGateUp), "experts.gate_up_proj",
                       grouped_gemm(x.load, 2 * x.I, x.H, run), {align});
  OpVertex act = e.emit(role::activation(Activation::SiluMul), "experts.silu_mul",
                        ew_op(ElementwiseKind::SiluMul, x.pairs * x.I, e.act), {gu});
  OpVertex down = e.emit(role::gemm(Projection::ExpertsDown), "experts.down_proj",
                         grouped_gemm(x.load, x.H, x.I, run), {act});
  // k rows per token summed into one: read as k/2 adds of two rows each.
  return e.emit(combine, "moe_sum", ew_op(ElementwiseKind::Add, x.pairs * x.H / 2, e.act), {down});
}

// Hugging Face: the router and the renormalised top-k weights (8 kernels with the GEMM's
// split-K reduction).
OpVertex emit_hf_router(Emitter& e, const Moe& x, const RunConfig& run, OpVertex in) {
  OpVertex logits =
      e.emit(role::gemm(Projection::Router), "router", weight_gemm(x.T, x.E, x.H, run), {in});
  e.emit(routing, "router_logits_fp32", cast_op(x.T * x.E, e.act, DType::Fp32), {logits});
  e.emit(routing, "router_softmax",
         row_op(RowOpKind::Softmax, x.T, x.E, DType::Fp32, run.runtime.launch.rows));
  e.emit(routing, "router_topk", moe_index_op(x.T * x.E));
  OpVertex top = e.emit(routing, "router_topk_sort", moe_index_op(x.pairs));
  if (x.cfg.sigmoid_router)  // Llama 4: sigmoid of the top-k logits, no renormalisation
    return e.emit(routing, "router_sigmoid", ew_op(ElementwiseKind::Silu, x.pairs, DType::Fp32));
  if (!x.cfg.norm_topk) return top;  // norm_topk_prob false (Qwen2-MoE's default)
  e.emit(routing, "router_weight_sum", moe_index_op(x.pairs));
  return e.emit(routing, "router_weight_div", ew_op(ElementwiseKind::Mul, x.pairs, DType::Fp32));
}

// Hugging Face: the token-expert pairs sorted by expert, their rows gathered, the group offsets
// and the sentinel masks (16 kernels).
OpVertex emit_hf_dispatch(Emitter& e, const Moe& x, OpVertex in) {
  for (const char* step : {"copy", "arange", "copy_keys", "copy_values", "sort"})
    e.emit(dispatch, std::string("experts.ids_") + step, moe_index_op(2 * x.pairs));
  e.emit(dispatch, "experts.perm_div", moe_index_op(x.pairs));
  OpVertex sorted = e.last;
  e.emit(dispatch, "experts.gather", ew_op(ElementwiseKind::Copy, x.pairs * x.H, e.act),
         {in, sorted});
  e.emit(dispatch, "experts.weight_gather", moe_index_op(x.pairs));
  e.emit(dispatch, "experts.ids_to_int", moe_index_op(x.pairs));
  e.emit(dispatch, "experts.histc_fill", moe_index_op(x.E));
  e.emit(dispatch, "experts.histc", moe_index_op(x.pairs));
  e.emit(dispatch, "experts.offsets_init", moe_index_op(x.E));
  e.emit(dispatch, "experts.offsets", moe_index_op(x.E));
  e.emit(dispatch, "experts.sentinel_compare", moe_index_op(x.pairs));
  e.emit(dispatch, "experts.sentinel_clamp", moe_index_op(x.pairs));
  return e.emit(dispatch, "experts.sentinel_fill", sentinel_fill(x.pairs * x.H, e.act));
}

// gpt-oss's activation on the interleaved gate and up halves: gate.clamp(max=limit),
// up.clamp(-limit, limit), gate * sigmoid(gate * alpha), (up + 1) * glu: seven kernels over
// strided halves.
void emit_clamped_swiglu(Emitter& e, int64_t n) {
  KernelRole act = role::activation(Activation::Silu);
  e.emit(act, "experts.gate_clamp", strided(ew_op(ElementwiseKind::MulScalar, n, e.act)));
  e.emit(act, "experts.up_clamp", strided(ew_op(ElementwiseKind::MulScalar, n, e.act)));
  e.emit(act, "experts.gate_alpha", ew_op(ElementwiseKind::MulScalar, n, e.act));
  e.emit(act, "experts.sigmoid", ew_op(ElementwiseKind::Silu, n, e.act));
  e.emit(act, "experts.glu", ew_op(ElementwiseKind::Mul, n, e.act));
  e.emit(act, "experts.up_plus_one", ew_op(ElementwiseKind::MulScalar, n, e.act));
  e.emit(role::activation(Activation::GateMul), "experts.mul",
         ew_op(ElementwiseKind::Mul, n, e.act));
}

// Hugging Face: the two grouped GEMMs with their masks, the gate, and the weighted,
// un-permuted sum (16 kernels, the GEMMs' prepare kernels included).
OpVertex emit_hf_experts(Emitter& e, const Moe& x, const RunConfig& run) {
  int64_t P = x.pairs;
  OpVertex gu = e.emit(role::gemm(Projection::ExpertsGateUp), "experts.gate_up_proj",
                       grouped_gemm(x.load, 2 * x.I, x.H, run));
  // masked_fill out of place clones its input first (a device-to-device copy of every row).
  e.emit(dispatch, "experts.gate_up_mask_copy", ew_op(ElementwiseKind::Copy, P * 2 * x.I, e.act));
  e.emit(dispatch, "experts.gate_up_mask", sentinel_fill(P * 2 * x.I, e.act));
  if (x.cfg.expert_bias)  // gpt-oss: each row's expert bias gathered and added
    e.emit(combine, "experts.gate_up_bias",
           strided(ew_op(ElementwiseKind::Add, P * 2 * x.I, e.act)));
  if (x.cfg.clamped_swiglu) {
    emit_clamped_swiglu(e, P * x.I);
  } else {
    // gate and up are chunk(2, dim=-1) views of the grouped GEMM's output (rows of 2I): both
    // kernels take ATen's generic path over a 2-dim view (the fit split's profiles of every
    // grouped_mm family: elementwise_kernel<128, 4> silu and mul, no vectorized kernel).
    OpVertex silu = e.emit(role::activation(Activation::Silu), "experts.silu",
                           strided(ew_op(ElementwiseKind::Silu, P * x.I, e.act), 2));
    e.emit(role::activation(Activation::GateMul), "experts.mul",
           strided(ew_op(ElementwiseKind::Mul, P * x.I, e.act), 2), {silu, gu});
  }
  e.emit(role::gemm(Projection::ExpertsDown), "experts.down_proj",
         grouped_gemm(x.load, x.H, x.I, run));
  if (x.cfg.expert_bias)
    e.emit(combine, "experts.down_bias", strided(ew_op(ElementwiseKind::Add, P * x.H, e.act)));
  e.emit(dispatch, "experts.down_mask_copy", ew_op(ElementwiseKind::Copy, P * x.H, e.act));
  e.emit(dispatch, "experts.down_mask", sentinel_fill(P * x.H, e.act));
  // x its routing weight, a [P, 1] column broadcast over the row: ATen's generic path (the fit
  // split's profiles: elementwise_kernel<128, 4>, DeepSeek's casting to fp32 on the way)
  e.emit(combine, "experts.scale", strided(cast_op(P * x.H, e.act, DType::Fp32), 2));
  e.emit(combine, "experts.inverse_arange", moe_index_op(P));
  e.emit(combine, "experts.inverse_index_put", moe_index_op(P));
  e.emit(combine, "experts.unpermute", ew_op(ElementwiseKind::Copy, P * x.H, DType::Fp32));
  // k rows per token summed into one: read as k/2 adds of two rows each.
  e.emit(combine, "experts.sum", ew_op(ElementwiseKind::Add, P * x.H / 2, DType::Fp32));
  return e.emit(combine, "experts.to_dtype", cast_op(x.T * x.H, DType::Fp32, e.act));
}

// Hugging Face batched_mm (the header): the weight gathers, two bmm over the token-expert pairs.
OpVertex emit_hf_batched_experts(Emitter& e, const Moe& x, const RunConfig& run, OpVertex in) {
  int64_t P = x.pairs;
  e.emit(dispatch, "experts.valid_mask", moe_index_op(P));
  e.emit(dispatch, "experts.ids_clamp", moe_index_op(P));
  e.emit(dispatch, "experts.hidden_gather", ew_op(ElementwiseKind::Copy, P * x.H, e.act), {in});
  OpVertex gu_w = e.emit(dispatch, "experts.gate_up_weight_gather",
                         ew_op(ElementwiseKind::Copy, P * 2 * x.I * x.H, e.act));
  OpVertex down_w = e.emit(dispatch, "experts.down_weight_gather",
                           ew_op(ElementwiseKind::Copy, P * x.H * x.I, e.act));
  if (x.cfg.expert_bias) {  // gpt-oss: each pair's biases gathered too
    e.emit(dispatch, "experts.gate_up_bias_gather",
           ew_op(ElementwiseKind::Copy, P * 2 * x.I, e.act));
    e.emit(dispatch, "experts.down_bias_gather", ew_op(ElementwiseKind::Copy, P * x.H, e.act));
  }
  auto bmm = [&](int64_t n, int64_t k) {  // torch.bmm: one row against each pair's weights
    Op op = expert_weight_gemm(1, n, k, run);
    std::get<GemmOp>(op.shape).batch = P;
    return op;
  };
  OpVertex gu = e.emit(role::gemm(Projection::ExpertsGateUp), "experts.gate_up_proj",
                       bmm(2 * x.I, x.H), {e.last, gu_w});
  if (x.cfg.expert_bias)
    e.emit(combine, "experts.gate_up_bias", ew_op(ElementwiseKind::Add, P * 2 * x.I, e.act));
  if (x.cfg.clamped_swiglu) {
    emit_clamped_swiglu(e, P * x.I);
  } else {  // gate and up: chunk(2) views of the bmm's output, ATen's generic path
    OpVertex silu = e.emit(role::activation(Activation::Silu), "experts.silu",
                           strided(ew_op(ElementwiseKind::Silu, P * x.I, e.act), 2));
    e.emit(role::activation(Activation::GateMul), "experts.mul",
           strided(ew_op(ElementwiseKind::Mul, P * x.I, e.act), 2), {silu, gu});
  }
  e.emit(role::gemm(Projection::ExpertsDown), "experts.down_proj", bmm(x.H, x.I), {e.last, down_w});
  if (x.cfg.expert_bias)
    e.emit(combine, "experts.down_bias", ew_op(ElementwiseKind::Add, P * x.H, e.act));
  // x its routing weight ([P, 1] broadcast, to fp32), x the validity mask, k rows summed, cast
  e.emit(combine, "experts.scale", strided(cast_op(P * x.H, e.act, DType::Fp32), 2));
  e.emit(combine, "experts.valid_scale", ew_op(ElementwiseKind::Mul, P * x.H, DType::Fp32));
  e.emit(combine, "experts.sum", ew_op(ElementwiseKind::Add, P * x.H / 2, DType::Fp32));
  return e.emit(combine, "experts.to_dtype", cast_op(x.T * x.H, DType::Fp32, e.act));
}

// transformers' Llama 4 experts (Llama4TextMoe + Llama4TextExperts, the "eager" experts
// implementation): the router's top-k scattered into a -inf row of E scores and put through a
// sigmoid, the input repeated once per expert and scaled by its score, then every expert runs
// on every token: gate_up and down as bmm over all E experts (T rows each, every weight read),
// the gate's SiLU on its strided half, the gating mul, and the E outputs summed. The kernels
// (and their times) as the H200 profiles of Llama4ForCausalLM list them
// (validate/data/h200-sxm-families-2026-12-01b.json, fit records).
OpVertex emit_hf_dense_experts(Emitter& e, const Moe& x, const RunConfig& run, OpVertex in) {
  int64_t TE = x.T * x.E;
  OpVertex logits =
      e.emit(role::gemm(Projection::Router), "router", weight_gemm(x.T, x.E, x.H, run), {in});
  e.emit(routing, "router_topk", moe_index_op(TE), {logits});
  e.emit(routing, "router_scores_fill", ew_op(ElementwiseKind::MulScalar, TE, e.act));
  e.emit(routing, "router_scores_scatter", moe_index_op(x.pairs));
  e.emit(routing, "router_sigmoid", ew_op(ElementwiseKind::Silu, TE, DType::Fp32));
  OpVertex scores = e.emit(routing, "router_scores_to_dtype", cast_op(TE, DType::Fp32, e.act));
  e.emit(dispatch, "experts.repeat", ew_op(ElementwiseKind::Copy, TE * x.H, e.act), {in});
  e.emit(dispatch, "experts.scale_input", ew_op(ElementwiseKind::Mul, TE * x.H, e.act),
         {e.last, scores});
  // With expert parallelism a rank holds E / ep experts and runs them on the tokens of all ep
  // ranks it exchanges with.
  int64_t ep = std::max<int64_t>(1, run.expert_ranks);
  auto bmm = [&](int64_t n, int64_t k) {  // torch.bmm: cuBLAS's batched GEMM, one per expert
    Op op = expert_weight_gemm(x.T * ep, n, k, run);
    std::get<GemmOp>(op.shape).batch = x.E / ep;
    return op;
  };
  OpVertex gu =
      e.emit(role::gemm(Projection::ExpertsGateUp), "experts.gate_up_proj", bmm(2 * x.I, x.H));
  OpVertex silu = e.emit(role::activation(Activation::Silu), "experts.silu",
                         strided(ew_op(ElementwiseKind::Silu, TE * x.I, e.act)), {gu});
  e.emit(role::activation(Activation::GateMul), "experts.mul",
         ew_op(ElementwiseKind::Mul, TE * x.I, e.act), {silu, gu});
  e.emit(role::gemm(Projection::ExpertsDown), "experts.down_proj", bmm(x.H, x.I));
  // E rows per token summed into one: read as E/2 adds of two rows each.
  return e.emit(combine, "experts.sum", ew_op(ElementwiseKind::Add, TE * x.H / 2, e.act));
}

}  // namespace

OpVertex emit_moe_mlp(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T_all,
                      OpVertex in) {
  const int64_t T = T_all / std::max<int64_t>(1, run.moe_token_split);  // the routed tokens
  Moe x{T,
        m.moe.experts,
        m.hidden,
        m.moe.expert_intermediate,
        T * m.moe.top_k,
        rank_expert_load(m, run, T),
        m.moe};
  OpVertex routed;
  MoeImpl impl = run.runtime.choices_for(m).moe;
  if (impl == MoeImpl::FusedMoe) {
    routed = emit_fused(e, x, run, in);
  } else if (impl == MoeImpl::MegatronTe) {
    routed = emit_megatron_moe(e, m, run, T, in);
  } else if (m.moe.hf_dense_experts) {
    routed = emit_hf_dense_experts(e, x, run, in);
  } else {
    if (m.deepseek.moe.enabled())
      emit_deepseek_hf_router(e, m, run, T, in);  // sigmoid or softmax, group-limited top-k
    else
      emit_hf_router(e, x, run, in);
    if (impl == MoeImpl::HfBatchedMm) {
      routed = emit_hf_batched_experts(e, x, run, in);
    } else {
      emit_hf_dispatch(e, x, in);
      routed = emit_hf_experts(e, x, run);
    }
  }
  if (m.moe.shared_intermediate == 0) return routed;
  return emit_shared_expert(e, m, run, T_all, in, routed);
}

}  // namespace ridgeline
