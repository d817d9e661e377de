// ParallelStepModel (see parallel_step_model.h).
#include "serve/parallel_step_model.h"

#include "common/errors.h"
#include "model/serving_parallel_step.h"

namespace ridgeline {

ParallelStepModel::ParallelStepModel(GpuSpec gpu, ClusterSpec cluster, ModelConfig model,
                                     RunConfig run, ParallelConfig parallel)
    : MemoStepModel(memo_window(model), parallel.ep),
      gpu_(std::move(gpu)),
      cluster_(std::move(cluster)),
      model_(std::move(model)),
      run_(serving_run(model_, std::move(run))),
      parallel_(std::move(parallel)) {
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
  ServingMemory m = serving_rank_memory(gpu_, model_, run_, parallel_);
  memory_ = step_memory(m, model_);
}

double ParallelStepModel::activation_peak_bytes(int64_t tokens) {
  return serving_rank_activation_peak_bytes(gpu_, model_, run_, parallel_, tokens);
}

MemoStepModel::DenseCost ParallelStepModel::price_dense(int64_t tokens, int64_t sequences) {
  RankStepTime r =
      serving_rank_dense_us(gpu_, cluster_, model_, run_, parallel_, tokens, sequences);
  return {r.total_us + serving_stage_send_us(cluster_, model_, run_, parallel_, tokens),
          r.tp_comm_us, parallel_.pp > 1 ? r.edge_us : 0.0};
}

double ParallelStepModel::price_attention(int64_t requests, int64_t q_len, int64_t kv_len) {
  return serving_rank_attention_us(gpu_, model_, run_, parallel_, requests, q_len, kv_len);
}

double ParallelStepModel::price_packed_attention(int64_t q_tokens, int64_t kv_tokens) {
  return serving_rank_packed_attention_us(gpu_, model_, run_, parallel_, q_tokens, kv_tokens);
}

}  // namespace ridgeline
