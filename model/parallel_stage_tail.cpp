// A collective's price and a pipeline stage's end of iteration for predict_parallel; see
// parallel_stage_tail.h.
#include "model/parallel_stage_tail.h"

#include "model/collective_cost.h"
#include "model/prediction.h"
#include "workloads/sharding.h"

#include <algorithm>

namespace ridgeline::parallel_detail {

Comm comm(CollectiveKind kind, double bytes, int64_t ranks, int64_t per_node,
          const ClusterSpec& cluster, const GpuSpec& gpu) {
  if (ranks < 2 || bytes <= 0) return {};
  CollectiveOp op;
  op.kind = kind;
  op.bytes = bytes;
  op.ranks = (int)ranks;
  op.ranks_per_node = (int)std::min(per_node, ranks);
  op.dtype = DType::Bf16;
  CollectiveCost c = collective_cost(op, cluster);
  return {c.time_us, std::min(1.0, c.channels / gpu.compute.sm_count.value)};
}

Group dp_group(const Strategy& s, bool experts) {
  int64_t ranks = experts ? s.p.expert_dp() : s.p.dp * s.p.cp;
  int64_t stride = experts ? s.p.expert_tp() * s.p.ep : s.p.tp;
  return {ranks, even_ranks_per_node(ranks, s.gpn / stride)};
}

Group zero3_shard_group(const Strategy& s) {
  int64_t ranks = s.p.shard_dp() * s.p.cp;
  return {ranks, even_ranks_per_node(ranks, s.gpn / s.p.tp)};
}

Group zero3_replica_group(const Strategy& s) {
  int64_t ranks = s.p.replicas(), stride = s.p.tp * s.p.cp * s.p.shard_dp();
  return {ranks, even_ranks_per_node(ranks, std::max<int64_t>(1, s.gpn / stride))};
}

namespace {

const StageTail& stage_tail(const Strategy& s, const StageParams& sp, StageTail& memo) {
  if (memo.dense == sp.dense && memo.experts == sp.experts) return memo;
  memo = StageTail{};
  memo.dense = sp.dense, memo.experts = sp.experts;
  double wbytes = dtype_bytes(s.run.weights);
  if (s.p.zero < 3 && s.p.dp * s.p.cp > 1) {
    CollectiveKind kind = s.p.zero == 0 ? CollectiveKind::AllReduce : CollectiveKind::ReduceScatter;
    Comm c;
    double priced_bytes = -1;
    int64_t priced_ranks = -1;
    for (bool experts : {false, true}) {
      double bytes = (experts ? sp.experts : sp.dense) * wbytes;
      Group g = dp_group(s, experts);
      for (; bytes > 0; bytes -= kGradBucketBytes) {
        double b = std::min(bytes, kGradBucketBytes);
        if (priced_bytes != b || priced_ranks != g.ranks) {
          priced_bytes = b, priced_ranks = g.ranks;
          c = comm(kind, b, g.ranks, g.per_node, s.cluster, s.gpu);
        }
        memo.bucket_comm.push_back(c);
      }
    }
  }
  if (s.run.optimizer == Optimizer::AdamW) {
    double shard = s.p.zero >= 1
                       ? sp.dense / dp_group(s, false).ranks + sp.experts / dp_group(s, true).ranks
                       : sp.dense + sp.experts;
    if (s.p.fsdp_shard > 0)  // HSDP (no experts sharded apart: check_parallel_config)
      shard = (sp.dense + sp.experts) / (double)zero3_shard_group(s).ranks;
    Op adam{"adamw",
            ElementwiseOp{ElementwiseKind::AdamW, (int64_t)shard, s.run.weights, false, {}}, false};
    memo.adam_us = predict_op(adam, s.gpu).time_us;
  }
  if (s.p.zero >= 1 && s.p.zero < 3 && s.p.dp * s.p.cp > 1) {
    Group g = dp_group(s, false);
    double bytes = (sp.dense + sp.experts) * wbytes;
    if (s.fp8_param_gather) {  // the decoder blocks' weights as fp8 (1 byte), the rest as they are
      double layers = (double)(s.p.pp > 0 ? s.model.layers / s.p.pp : 0);
      if (s.run.blocks > 0) layers = (double)(s.run.blocks / s.p.pp);
      bytes -= layers * (sp.layer_dense + sp.layer_experts) * (wbytes - 1.0);
    }
    memo.gather = comm(CollectiveKind::AllGather, bytes, g.ranks, g.per_node, s.cluster, s.gpu);
  }
  return memo;
}

}  // namespace

double finish_stage(const Strategy& s, int stage, double end_us, double window_us,
                    PipelineTimeline& tl, GroupTimes& comm_us, GroupTimes& exposed_us,
                    double& compute_us, bool record, StageTail& memo) {
  const StageTail& tail = stage_tail(s, stage_parameters(s.model, s.run, s.p, stage), memo);
  double t = end_us, slow = 0;
  int dp = (int)CommGroup::Dp;
  if (s.p.zero < 3 && s.p.dp * s.p.cp > 1) {
    const size_t n = tail.bucket_comm.size();
    double start = end_us - window_us, free = start;
    for (size_t i = 0; i < n; ++i) {
      const Comm& c = tail.bucket_comm[i];
      double ready = start + window_us * (double)(i + 1) / (double)n;
      double b0 = std::max(free, ready), b1 = b0 + c.time_us;
      slow += c.u * std::max(0.0, std::min(b1, end_us) - b0);
      if (record) tl.slots.push_back({stage, 0, 0, SlotKind::GradReduce, b0, b1});
      comm_us[dp] += c.time_us;
      free = b1;
    }
    t = std::max(free, end_us + slow);
    exposed_us[dp] += std::max(0.0, free - (end_us + slow));
  }
  compute_us += slow;
  if (s.run.optimizer == Optimizer::AdamW) {
    double us = tail.adam_us;
    if (record) tl.slots.push_back({stage, 0, 0, SlotKind::Optimizer, t, t + us});
    compute_us += us;
    t += us;
  }
  if (s.p.zero >= 1 && s.p.zero < 3 && s.p.dp * s.p.cp > 1) {  // the updated shards gathered
    const Comm& c = tail.gather;
    if (record) tl.slots.push_back({stage, 0, 0, SlotKind::ParamGather, t, t + c.time_us});
    comm_us[dp] += c.time_us;
    exposed_us[dp] += c.time_us;
    t += c.time_us;
  }
  return t;
}

}  // namespace ridgeline::parallel_detail
