// ParallelStepModel (see parallel_step_model.h).
#include "serve/parallel_step_model.h"

#include "common/errors.h"
#include "model/serving_parallel_step.h"
#include "serve/gpu_step_model.h"

#include <algorithm>

namespace ridgeline {

ParallelStepModel::ParallelStepModel(GpuSpec gpu, ClusterSpec cluster, ModelConfig model,
                                     RunConfig run, ParallelConfig parallel)
    : gpu_(std::move(gpu)),
      cluster_(std::move(cluster)),
      model_(std::move(model)),
      run_(std::move(run)),
      parallel_(std::move(parallel)) {
  if (parallel_.pp != 1)
    throw InputError("--pp " + std::to_string(parallel_.pp) +
                     ": pipeline-parallel serving is not simulated yet (it needs pp batches in "
                     "flight); use --tp");
  if (parallel_.ep != 1)
    throw InputError("--ep " + std::to_string(parallel_.ep) +
                     ": expert-parallel serving (attention data parallel, experts over the ranks) "
                     "is not simulated yet; a MoE model's experts are split over --tp");
  parallel_.dp = 1;
  parallel_.gpus = parallel_.tp * parallel_.pp;
  check_serving_parallel(model_, run_, parallel_, cluster_);
  ServingMemory m = serving_rank_memory(gpu_, model_, run_, parallel_);
  memory_ = {m.capacity_bytes, m.weights_bytes, m.reserved_bytes, m.kv_bytes_per_token,
             model_.max_positions};
}

double ParallelStepModel::activation_peak_bytes(int64_t tokens) {
  return serving_rank_activation_peak_bytes(gpu_, model_, run_, parallel_, tokens);
}

const ParallelStepModel::Dense& ParallelStepModel::dense(int64_t tokens, int64_t sequences) {
  int64_t t = GpuStepModel::bucket_tokens(tokens);
  int64_t s = std::min(GpuStepModel::bucket_tokens(sequences), t);
  auto key = std::make_pair(t, s);
  auto it = dense_.find(key);
  if (it != dense_.end()) return it->second;
  RankStepTime r = serving_rank_dense_us(gpu_, cluster_, model_, run_, parallel_, t, s);
  return dense_.emplace(key, Dense{r.total_us, r.tp_comm_us}).first->second;
}

double ParallelStepModel::tp_comm_us(int64_t tokens, int64_t sequences) {
  return dense(tokens, sequences).tp_comm_us;
}

double ParallelStepModel::attention_us(const AttentionGroup& g) {
  int64_t kv = std::max(GpuStepModel::bucket_kv(g.kv_len), g.q_len);
  if (model_.sliding_window > 0) kv = std::min(kv, std::max(model_.sliding_window, g.q_len));
  auto key = std::make_tuple(g.requests, g.q_len, kv);
  auto it = attention_.find(key);
  if (it != attention_.end()) return it->second;
  double us = serving_rank_attention_us(gpu_, model_, run_, parallel_, g.requests, g.q_len, kv);
  attention_.emplace(key, us);
  return us;
}

double ParallelStepModel::step_us(const StepShape& shape) {
  require_invariant(shape.tokens >= 1 && shape.sequences >= 1, "a step has work");
  double us = dense(shape.tokens, shape.sequences).total_us;
  for (const AttentionGroup& g : shape.groups) us += attention_us(g);
  return us;
}

}  // namespace ridgeline
