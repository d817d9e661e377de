// megatron_te: the routed experts of Megatron-Core's MoELayer with Transformer Engine, as the
// published NeMo and Megatron-Bridge training recipes run it (alltoall token dispatcher,
// moe_grouped_gemm, moe_permute_fusion, TE's fused router), one rank's kernels:
//   router              the gating GEMM, T x E x H (Router.gating, router_gating_linear)
//   router_topk_softmax TE's fused_topk_with_score_function: softmax, top-k, probs and the
//                       routing map in one kernel over T x E (TopKRouter.routing,
//                       topk_softmax_with_capacity(fused=True))
//   router_aux_scores   TE's fused_compute_score_for_moe_aux_loss: the dense scores of the
//                       load-balancing loss (compute_routing_scores_for_aux_loss)
//   router_tokens_per_expert  routing_map.sum(dim=0) (switch_load_balancing_loss_func's count)
//   router_aux_loss     TE's fused_moe_aux_loss over the T x E scores
//   permute_row_id_map_1, _2  TE's make_row_id_map (Triton _row_id_map_pass_1/_2: a block cumsum
//                       of the routing map, then its offsets), the token dispatcher's preprocess
//   permute             TE's moe_permute (map_type "mask": Triton permute_with_mask_map), T x k
//                       rows of H copied into expert order, their probs beside them
//   sort_chunks_map, sort_chunks  with expert parallelism and several local experts, the received
//                       chunks sorted by local expert (sort_chunks_by_idxs(fused=True): TE's
//                       moe_sort_chunks_by_index)
//   experts.linear_fc1  TEGroupedMLP's fc1, one grouped GEMM of 2 x I over the active experts
//                       (TE GroupedLinear; the legacy GroupedMLP's grouped_gemm CUTLASS kernel
//                       prices the same)
//   experts.swiglu      Megatron's fused bias_swiglu (bias_activation_fusion), one kernel
//   experts.linear_fc2  fc2, one grouped GEMM of H
//   unsort_chunks_map, unsort_chunks  the chunks back into rank order (expert parallelism)
//   unpermute           TE's moe_unpermute with merging_probs (Triton unpermute_with_mask_map):
//                       each token's k rows weighted by their probs and summed, one kernel
// The backward (train_builder.cpp) gives the GEMMs their dgrad and wgrad, the fused router and
// the aux scores TE's backward kernels (fused_topk_with_score_function_bwd,
// fused_compute_score_for_moe_aux_loss_bwd: softmax backward over T x E), the aux loss TE's
// fused_moe_aux_loss_bwd, swiglu bias_swiglu_back, and to the typed MoE parts (MoePart) theirs:
// permute's is unpermute_with_mask_map (k rows summed), unpermute's
// unpermute_with_mask_map_bwd_with_merging_probs (the rows' gradient and the probs' in one
// kernel), sort_chunks' the same sort again. The all-to-alls over the expert-parallel group are
// the sharding's (sharding.cpp). Sources (Megatron-LM main, megatron/core/transformer/moe/):
// moe_layer.py (MoELayer.forward: router_and_preprocess, dispatch, routed_experts_compute,
// combine), router.py (TopKRouter), token_dispatcher.py (MoEAlltoAllTokenDispatcher), moe_utils.py
// (permute, unpermute, sort_chunks_by_idxs with fused=True), experts.py (TEGroupedMLP); Transformer
// Engine transformer_engine/pytorch/permutation.py (_moe_permute_mask_map, _moe_unpermute_mask_map
// and their backward), transformer_engine/pytorch/triton/permutation.py (make_row_id_map's
// passes), transformer_engine/pytorch/router.py (fused_topk_with_score_function,
// fused_compute_score_for_moe_aux_loss, fused_moe_aux_loss). The probs are applied in the
// unpermute, as Megatron-Core's unpermute(probs=...) does; its later releases can weight the
// swiglu instead (permuted_probs into TEGroupedMLP), which moves no bytes of note. Not measured by
// this project: no Megatron-Core run has been profiled here.
#include "workloads/moe_ops.h"

namespace ridgeline {

namespace {

struct MegatronMoe {
  int64_t T, E, H, I, pairs;
  ExpertLoad load;
  bool sort_chunks;  // expert parallelism with several local experts
};

void emit_router(Emitter& e, const MegatronMoe& x, const RunConfig& run, OpVertex in) {
  const RowLaunch& rows = run.runtime.launch.rows;
  KernelRole routing = role::of(RoleKind::MoeRouting);
  OpVertex logits =
      e.emit(role::gemm(Projection::Router), "router", weight_gemm(x.T, x.E, x.H, run), {in});
  e.emit(routing, "router_topk_softmax", row_op(RowOpKind::Softmax, x.T, x.E, DType::Fp32, rows),
         {logits});
  e.emit(routing, "router_aux_scores", row_op(RowOpKind::Softmax, x.T, x.E, DType::Fp32, rows),
         {logits});
  e.emit(routing, "router_tokens_per_expert", moe_index_op(x.T * x.E));
  e.emit(role::moe(RoleKind::MoeRouting, MoePart::AuxLoss), "router_aux_loss",
         moe_index_op(x.T * x.E));
}

// Megatron's chunk sort (sort_chunks_by_idxs): the map of the chunks, then their rows moved.
OpVertex emit_sort_chunks(Emitter& e, const MegatronMoe& x, RoleKind kind, const std::string& name,
                          int64_t chunks) {
  e.emit(role::of(kind), name + "_map", moe_index_op(chunks));
  return e.emit(role::moe(kind, MoePart::SortChunks), name,
                ew_op(ElementwiseKind::Copy, x.pairs * x.H, e.act));
}

}  // namespace

OpVertex emit_megatron_moe(Emitter& e, const ModelConfig& m, const RunConfig& run, int64_t T,
                           OpVertex in) {
  int64_t ep = std::max<int64_t>(1, run.expert_ranks);
  int64_t local = m.moe.experts / ep;
  MegatronMoe x{T,
                m.moe.experts,
                m.hidden,
                m.moe.expert_intermediate,
                T * m.moe.top_k,
                rank_expert_load(m, run, T),
                ep > 1 && local > 1};
  emit_router(e, x, run, in);
  KernelRole dispatch = role::of(RoleKind::MoeDispatch);
  e.emit(dispatch, "permute_row_id_map_1", moe_index_op(x.T * x.E));
  e.emit(dispatch, "permute_row_id_map_2", moe_index_op(x.T * x.E));
  e.emit(role::moe(RoleKind::MoeDispatch, MoePart::Permute), "permute",
         ew_op(ElementwiseKind::Copy, x.pairs * x.H, e.act), {in, e.last});
  if (x.sort_chunks) emit_sort_chunks(e, x, RoleKind::MoeDispatch, "sort_chunks", ep * local);
  OpVertex fc1 = e.emit(role::gemm(Projection::ExpertsGateUp), "experts.linear_fc1",
                        grouped_gemm(x.load, 2 * x.I, x.H, run));
  e.emit(role::activation(Activation::SiluMul), "experts.swiglu",
         ew_op(ElementwiseKind::SiluMul, x.pairs * x.I, e.act), {fc1});
  e.emit(role::gemm(Projection::ExpertsDown), "experts.linear_fc2",
         grouped_gemm(x.load, x.H, x.I, run));
  if (x.sort_chunks) emit_sort_chunks(e, x, RoleKind::MoeCombine, "unsort_chunks", ep * local);
  // k rows per token weighted and summed into one: read as k/2 adds of two rows each.
  return e.emit(role::moe(RoleKind::MoeCombine, MoePart::UnpermuteProbs), "unpermute",
                ew_op(ElementwiseKind::Add, x.pairs * x.H / 2, e.act));
}

}  // namespace ridgeline
