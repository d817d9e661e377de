// ParallelStepModel (see parallel_step_model.h).
#include "serve/parallel_step_model.h"

#include "common/errors.h"
#include "model/serving_parallel_step.h"
#include "workloads/graph_builder.h"

namespace ridgeline {

ParallelStepModel::ParallelStepModel(GpuSpec gpu, ClusterSpec cluster, ModelConfig model,
                                     RunConfig run, ParallelConfig parallel)
    : MemoStepModel(model.layer_kinds.empty() ? model.sliding_window : 0, parallel.ep),
      gpu_(std::move(gpu)),
      cluster_(std::move(cluster)),
      model_(std::move(model)),
      run_(std::move(run)),
      parallel_(std::move(parallel)) {
  if (parallel_.pp != 1)
    throw InputError("--pp " + std::to_string(parallel_.pp) +
                     ": pipeline-parallel serving is not simulated yet (it needs pp batches in "
                     "flight); use --tp");
  if (parallel_.ep > 1 && parallel_.tp > 1)
    throw InputError("--ep " + std::to_string(parallel_.ep) + " with --tp " +
                     std::to_string(parallel_.tp) +
                     ": expert parallelism is served with attention data parallelism over the same "
                     "ranks (--tp 1); tensor-parallel attention beside it is not simulated");
  if (parallel_.ep > 1 && model_.moe.experts == 0)
    throw InputError("--ep " + std::to_string(parallel_.ep) + ": " + model_.name +
                     " has no experts to spread");
  // Attention data parallel: each of the ep ranks runs its own requests (its own KV pool and
  // batch); the MoE layers' experts are spread over them (all-to-all dispatch and combine).
  parallel_.dp = parallel_.ep;
  parallel_.gpus = parallel_.tp * parallel_.pp * parallel_.dp;
  check_serving_parallel(model_, run_, parallel_, cluster_);
  check_serving_mla(model_, run_);
  // Serving engines keep the checkpoint's MXFP4 experts (gpt-oss) as they are.
  run_.mxfp4_experts = model_.moe.mxfp4_experts;
  ServingMemory m = serving_rank_memory(gpu_, model_, run_, parallel_);
  memory_ = {m.capacity_bytes,     m.weights_bytes,    m.reserved_bytes,   m.kv_bytes_per_token,
             model_.max_positions, m.kv_window_tokens, m.kv_windowed_share};
}

double ParallelStepModel::activation_peak_bytes(int64_t tokens) {
  return serving_rank_activation_peak_bytes(gpu_, model_, run_, parallel_, tokens);
}

MemoStepModel::DenseCost ParallelStepModel::price_dense(int64_t tokens, int64_t sequences) {
  RankStepTime r =
      serving_rank_dense_us(gpu_, cluster_, model_, run_, parallel_, tokens, sequences);
  return {r.total_us, r.tp_comm_us};
}

double ParallelStepModel::price_attention(int64_t requests, int64_t q_len, int64_t kv_len) {
  return serving_rank_attention_us(gpu_, model_, run_, parallel_, requests, q_len, kv_len);
}

double ParallelStepModel::price_packed_attention(int64_t q_tokens, int64_t kv_tokens) {
  return serving_rank_packed_attention_us(gpu_, model_, run_, parallel_, q_tokens, kv_tokens);
}

}  // namespace ridgeline
