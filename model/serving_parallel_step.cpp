// Multi-GPU serving step prices (see serving_parallel_step.h).
#include "model/serving_parallel_step.h"

#include "model/collective_cost.h"
#include "model/op_cost.h"
#include "model/parallel_memory.h"
#include "model/parallel_sections.h"
#include "model/prediction.h"
#include "workloads/graph_builder.h"
#include "workloads/op_math.h"
#include "workloads/sharding.h"

#include <algorithm>

namespace ridgeline {

namespace {

ClusterLimits limits_of(const ClusterSpec& c) {
  auto per_node = (int64_t)c.gpus_per_node.value;
  return {c.name, per_node, per_node * (int64_t)c.max_nodes.value};
}

// The model one rank holds: heads, KV heads, FFN and vocabulary / tp, layers / pp.
ModelConfig rank_model(const ModelConfig& model, const ParallelConfig& p) {
  ModelConfig m = shard_model(model, p);
  m.layers = model.layers / p.pp;
  return m;
}

}  // namespace

void check_serving_parallel(const ModelConfig& model, const RunConfig& run, const ParallelConfig& p,
                            const ClusterSpec& cluster) {
  RunConfig one = run;
  one.phase = Phase::Decode;
  one.batch = 1;
  one.kv_len = 1;
  ParallelConfig q = p;
  q.global_batch = q.dp;
  check_parallel_config(q, model, one, limits_of(cluster));
}

RankStepTime serving_rank_dense_us(const GpuSpec& gpu, const ClusterSpec& cluster,
                                   const ModelConfig& model, const RunConfig& run,
                                   const ParallelConfig& p, int64_t tokens, int64_t sampled) {
  OpGraph g = build_rank_serving_step_graph(model, run, p, limits_of(cluster), tokens, sampled);
  RankStepTime t;
  for (const SectionTime& s : time_sections(g, gpu, cluster, run)) {
    double n = (double)s.repeat;
    t.total_us += n * s.time_us;
    if (s.kind == SectionKind::Embedding || s.kind == SectionKind::Head) t.edge_us += n * s.time_us;
    t.tp_comm_us += n * s.comm_us[(int)CommGroup::Tp];
    t.ep_comm_us += n * s.comm_us[(int)CommGroup::Ep];
  }
  return t;
}

double serving_stage_send_us(const ClusterSpec& cluster, const ModelConfig& model,
                             const RunConfig& run, const ParallelConfig& p, int64_t tokens) {
  if (p.pp <= 1) return 0;
  double bytes = 2.0 * (double)tokens * (double)model.hidden * dtype_bytes(run.activations);
  int in_node = p.tp * p.pp <= (int64_t)cluster.gpus_per_node.value ? 2 : 1;
  return collective_cost({CollectiveKind::SendRecv, bytes, 2, in_node, run.activations}, cluster)
      .time_us;
}

double serving_rank_attention_us(const GpuSpec& gpu, const ModelConfig& model, const RunConfig& run,
                                 const ParallelConfig& p, int64_t requests, int64_t q_len,
                                 int64_t kv_len) {
  return serving_attention_us(gpu, rank_model(model, p), run, requests, q_len, kv_len);
}

double serving_rank_packed_attention_us(const GpuSpec& gpu, const ModelConfig& model,
                                        const RunConfig& run, const ParallelConfig& p,
                                        int64_t q_tokens, int64_t kv_tokens) {
  return serving_packed_attention_us(gpu, rank_model(model, p), run, q_tokens, kv_tokens);
}

ServingMemory serving_rank_memory(const GpuSpec& gpu, const ModelConfig& model,
                                  const RunConfig& run, const ParallelConfig& p) {
  StageParams sp = stage_parameters(model, run, p, 0);
  for (int s = 1; s < p.pp; ++s) {  // the stage that holds the most
    StageParams o = stage_parameters(model, run, p, s);
    if (o.dense + o.experts > sp.dense + sp.experts) sp = o;
  }
  double wbytes = run.weight_bits > 0 ? run.weight_bits / 8.0 : dtype_bytes(run.weights);
  ModelConfig m = rank_model(model, p);
  bool comm = p.tp * p.pp * p.ep > 1;
  ServingMemory out{gpu.memory.hbm.capacity_bytes.value,
                    non_expert_weight_bytes(run, sp.dense, sp.tables, wbytes) +
                        sp.experts * expert_weight_bytes_per_param(run, wbytes),
                    run.runtime.reserved_bytes + (comm ? kNcclBufferBytes : 0.0),
                    0,
                    0,
                    0};
  set_serving_kv_bytes(out, m, run);
  return out;
}

double serving_rank_activation_peak_bytes(const GpuSpec& gpu, const ModelConfig& model,
                                          const RunConfig& run, const ParallelConfig& p,
                                          int64_t tokens) {
  return serving_activation_peak_bytes(gpu, rank_model(model, p), run, tokens);
}

}  // namespace ridgeline
