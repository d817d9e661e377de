// predict_parallel(); the method is in parallel_predict.h. In order: check the strategy, build and
// time the per-rank graph once (parallel_sections.h), give every model chunk of every stage its
// forward and backward time, place the pipeline, then per stage the data-parallel gradient
// reduction, the optimizer step and the ZeRO parameter gathers, and sum up.
#include "model/parallel_predict.h"

#include "hardware/cluster_spec.h"
#include "hardware/derived.h"
#include "model/collective_cost.h"
#include "model/parallel_sections.h"
#include "model/prediction.h"
#include "workloads/sharding.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ridgeline {

namespace {

ClusterLimits limits_of(const ClusterSpec& c) {
  auto per_node = (int64_t)c.gpus_per_node.value;
  return {c.name, per_node, per_node * (int64_t)c.max_nodes.value};
}

MathUnit tensor_unit(DType d) {
  switch (d) {
    case DType::Fp16:
      return MathUnit::TensorFp16;
    case DType::Fp8:
      return MathUnit::TensorFp8;
    case DType::Fp32:
    case DType::Tf32:
      return MathUnit::TensorTf32;
    default:
      return MathUnit::TensorBf16;
  }
}

// A collective over `ranks` GPUs, `per_node` of them in a node: its time and SM share.
struct Comm {
  double time_us = 0, u = 0;
};
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

// The sections of the rank graph a stage's chunks are made of (absent ones stay null).
struct Parts {
  const SectionTime *embedding = nullptr, *block = nullptr, *head = nullptr, *loss = nullptr;
  const SectionTime *head_back = nullptr, *block_back = nullptr, *embedding_back = nullptr;
};
Parts parts_of(const std::vector<SectionTime>& sections) {
  Parts p;
  for (const SectionTime& s : sections) {
    const SectionTime** slot = nullptr;
    switch (s.kind) {
      case SectionKind::Embedding:
        slot = &p.embedding;
        break;
      case SectionKind::DecoderBlock:
        slot = &p.block;
        break;
      case SectionKind::Head:
        slot = &p.head;
        break;
      case SectionKind::Loss:
        slot = &p.loss;
        break;
      case SectionKind::HeadBackward:
        slot = &p.head_back;
        break;
      case SectionKind::BlockBackward:
        slot = &p.block_back;
        break;
      case SectionKind::EmbeddingBackward:
        slot = &p.embedding_back;
        break;
      case SectionKind::Optimizer:
        break;
    }
    if (slot) *slot = &s;
  }
  return p;
}

// What one model chunk of one stage does per micro-batch: its time and what its streams do.
struct ChunkWork {
  double forward_us = 0, backward_us = 0, compute_us = 0, host_us = 0, flops = 0;
  GroupTimes comm_us{}, exposed_us{};
  void add(const SectionTime* s, double times, bool backward) {
    if (!s) return;
    (backward ? backward_us : forward_us) += times * s->time_us;
    compute_us += times * (s->compute_us + s->slowdown_us);
    host_us += times * s->host_us;
    flops += times * s->flops;
    for (int g = 0; g < kCommGroups; ++g) {
      comm_us[g] += times * s->comm_us[g];
      exposed_us[g] += times * s->exposed_us[g];
    }
  }
};

// ZeRO-3: every layer's parameters all-gathered before its forward and again before its
// backward, its gradients reduce-scattered after; prefetched beside the layer before, so a layer
// takes overlapped_us(compute, comm); the first layer's gather of a chunk is exposed.
void add_zero3(ChunkWork& w, const SectionTime& block, const SectionTime* block_back, double layers,
               const Comm& gather, const Comm& scatter) {
  double f = block.time_us, b = block_back ? block_back->time_us : 0;
  double f3 = overlapped_us(f, gather.time_us, gather.u) + 0;
  double b3 = block_back ? overlapped_us(b, gather.time_us + scatter.time_us, gather.u) : 0;
  w.forward_us += layers * (f3 - f) + gather.time_us;
  if (block_back) w.backward_us += layers * (b3 - b);
  int dp = (int)CommGroup::Dp;
  w.comm_us[dp] += layers * (2 * gather.time_us + scatter.time_us);
  w.exposed_us[dp] +=
      gather.time_us + layers * (std::max(0.0, gather.time_us - f) +
                                 std::max(0.0, gather.time_us + scatter.time_us - b));
  w.compute_us += layers * (f3 - f + b3 - b);  // the slowdown, or waiting on the gathers
}

struct Strategy {
  const ModelConfig& model;
  const RunConfig& run;
  const ParallelConfig& p;
  const ClusterSpec& cluster;
  const GpuSpec& gpu;
  int64_t gpn;
};

// The data-parallel group (dp x cp ranks; dp / ep x cp for experts) and its ranks in a node.
struct Group {
  int64_t ranks, per_node;
};
Group dp_group(const Strategy& s, bool experts) {
  int64_t ranks = (experts ? s.p.dp / s.p.ep : s.p.dp) * s.p.cp;
  int64_t stride = experts ? s.p.tp * s.p.ep : s.p.tp;
  return {ranks, std::min(ranks, std::max<int64_t>(1, s.gpn / stride))};
}

// One stage's end of iteration after its last backward: the gradients' reduction in buckets,
// launched as the last micro-batch's backward (`window_us` long, ending at `end_us`) produces
// them, then the optimizer step and ZeRO 1-2's parameter all-gather. Appends their slots.
double finish_stage(const Strategy& s, int stage, double end_us, double window_us,
                    PipelineTimeline& tl, GroupTimes& comm_us, GroupTimes& exposed_us,
                    double& compute_us, bool record) {
  StageParams sp = stage_parameters(s.model, s.run, s.p, stage);
  double wbytes = dtype_bytes(s.run.weights);
  double t = end_us, slow = 0;
  int dp = (int)CommGroup::Dp;
  if (s.p.zero < 3 && s.p.dp * s.p.cp > 1) {
    CollectiveKind kind = s.p.zero == 0 ? CollectiveKind::AllReduce : CollectiveKind::ReduceScatter;
    struct Bucket {
      double bytes;
      Group g;
    };
    std::vector<Bucket> buckets;
    for (bool experts : {false, true}) {
      double bytes = (experts ? sp.experts : sp.dense) * wbytes;
      Group g = dp_group(s, experts);
      for (; bytes > 0; bytes -= kGradBucketBytes)
        buckets.push_back({std::min(bytes, kGradBucketBytes), g});
    }
    double start = end_us - window_us, free = start;
    Comm c;
    const Bucket* priced = nullptr;  // buckets are mostly of one size: price each size once
    for (size_t i = 0; i < buckets.size(); ++i) {
      if (!priced || priced->bytes != buckets[i].bytes || priced->g.ranks != buckets[i].g.ranks) {
        priced = &buckets[i];
        c = comm(kind, priced->bytes, priced->g.ranks, priced->g.per_node, s.cluster, s.gpu);
      }
      double ready = start + window_us * (double)(i + 1) / (double)buckets.size();
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
    double shard = s.p.zero >= 1
                       ? sp.dense / dp_group(s, false).ranks + sp.experts / dp_group(s, true).ranks
                       : sp.dense + sp.experts;
    Op adam{"adamw",
            ElementwiseOp{ElementwiseKind::AdamW, (int64_t)shard, s.run.weights, false, {}}, false};
    double us = predict_op(adam, s.gpu).time_us;
    if (record) tl.slots.push_back({stage, 0, 0, SlotKind::Optimizer, t, t + us});
    compute_us += us;
    t += us;
  }
  if (s.p.zero >= 1 && s.p.zero < 3 && s.p.dp * s.p.cp > 1) {  // the updated shards gathered
    Group g = dp_group(s, false);
    Comm c = comm(CollectiveKind::AllGather, (sp.dense + sp.experts) * wbytes, g.ranks, g.per_node,
                  s.cluster, s.gpu);
    if (record) tl.slots.push_back({stage, 0, 0, SlotKind::ParamGather, t, t + c.time_us});
    comm_us[dp] += c.time_us;
    exposed_us[dp] += c.time_us;
    t += c.time_us;
  }
  return t;
}

std::string describe(const Strategy& s, int64_t m) {
  const ParallelConfig& p = s.p;
  std::ostringstream d;
  d << s.model.name << " " << phase_name(s.run.phase);
  if (s.run.phase == Phase::Train)
    d << ", global batch " << p.global_batch << " (micro-batch " << p.microbatch << ", " << m
      << " per pipeline), seq " << s.run.seq;
  else if (s.run.phase == Phase::Decode)
    d << ", batch " << s.run.batch << ", kv " << s.run.kv_len;
  else
    d << ", batch " << s.run.batch << ", seq " << s.run.seq;
  d << " on " << p.gpus << " x " << s.gpu.name << " (" << s.cluster.name << "): TP " << p.tp
    << (p.sp ? "+SP" : "") << ", PP " << p.pp;
  if (p.vp > 1) d << "x" << p.vp;
  d << ", DP " << p.dp;
  if (p.cp > 1) d << ", CP " << p.cp;
  if (p.ep > 1) d << ", EP " << p.ep;
  if (s.run.phase == Phase::Train)
    d << ", " << schedule_name(p.schedule) << ", ZeRO " << p.zero << ", recompute "
      << recompute_name(p.recompute);
  return d.str();
}

}  // namespace

double model_flops(const ModelConfig& m, const RunConfig& run, const ParallelConfig& p) {
  ModelConfig none = m;
  none.layers = 0;
  double outside = (double)active_parameter_count(none);
  double per_layer = ((double)active_parameter_count(m) - outside) / (double)m.layers;
  double table = (double)m.vocab * m.hidden;
  int64_t layers = run.blocks > 0 ? run.blocks : m.layers;
  // The LM head's GEMM counts (once, tied or not); looking up the embedding does not.
  double n = per_layer * (double)layers + (run.blocks > 0 ? 0 : table);
  double attn = (double)m.heads * m.head_dim;
  bool train = run.phase == Phase::Train;
  double seqs = train ? (double)p.global_batch : (double)run.batch * p.dp;
  double tokens = run.phase == Phase::Decode ? seqs : seqs * run.seq;
  double keys = run.phase == Phase::Decode ? (double)run.kv_len + 1 : (double)run.seq;
  if (m.sliding_window > 0) keys = std::min(keys, (double)m.sliding_window);
  double causal = run.phase == Phase::Decode ? 1 : 0.5;
  // Forward: 2 N per token, and 4 * keys * heads * head_dim per token and layer for QK^T and PV;
  // training triples both (backward = 2 x forward).
  double forward = 2 * n * tokens + 4 * (double)layers * tokens * keys * attn * causal;
  return train ? 3 * forward : forward;
}

ParallelPrediction predict_parallel(const ModelConfig& model, const RunConfig& run,
                                    const ParallelConfig& parallel, const ClusterSpec& cluster,
                                    const GpuSpec& gpu, const ParallelOptions& options) {
  const ClusterLimits limits = limits_of(cluster);
  check_run_config(run, model);
  check_parallel_config(parallel, model, run, limits);
  const ParallelConfig& p = parallel;
  const bool train = run.phase == Phase::Train;
  const Strategy s{model, run, p, cluster, gpu, limits.gpus_per_node};
  const int64_t P = p.pp, V = train ? p.vp : 1, m = train ? p.microbatches() : 1, G = P * V;

  const double host_issue = run.launch == LaunchMode::Eager ? gpu.launch.python_eager_us.value : 0;
  OpGraph graph = build_rank_graph(model, run, p, limits);
  std::vector<SectionTime> sections = time_sections(graph, gpu, cluster, host_issue);
  Parts parts = parts_of(sections);

  // Every model chunk g = chunk * P + stage: one micro-batch's forward and backward.
  const double layers = parts.block ? (double)parts.block->repeat : 0;
  StageParams sp0 = stage_parameters(model, run, p, 0);
  double layer_bytes = (sp0.layer_dense + sp0.layer_experts) * dtype_bytes(run.weights);
  Group dpg = dp_group(s, false);
  Comm gather = comm(CollectiveKind::AllGather, layer_bytes, dpg.ranks, dpg.per_node, cluster, gpu);
  Comm scatter =
      comm(CollectiveKind::ReduceScatter, layer_bytes, dpg.ranks, dpg.per_node, cluster, gpu);
  std::vector<ChunkWork> chunks(G);
  for (int64_t g = 0; g < G; ++g) {
    ChunkWork& w = chunks[g];
    w.add(parts.block, layers, false);
    if (train) w.add(parts.block_back, layers, true);
    if (train && p.zero == 3 && parts.block)
      add_zero3(w, *parts.block, parts.block_back, layers, gather, scatter);
    if (g == 0) w.add(parts.embedding, 1, false), w.add(parts.embedding_back, 1, true);
    if (g == G - 1) {
      w.add(parts.head, 1, false), w.add(parts.loss, 1, false);
      w.add(parts.head_back, 1, true);
    }
  }

  // The pipeline, with and without the sends (their exposed share).
  PipelineInput in;
  in.stages = P, in.chunks = V, in.microbatches = m, in.schedule = p.schedule, in.backward = train;
  in.record_slots = options.timeline;
  for (const ChunkWork& w : chunks)
    in.forward_us.push_back(w.forward_us), in.backward_us.push_back(w.backward_us);
  double boundary = (double)step_tokens(shard_run(run, p)) * model.hidden *
                    dtype_bytes(run.activations) / (p.sp ? p.tp : 1);
  Comm send =
      comm(CollectiveKind::SendRecv, boundary, P > 1 ? 2 : 1,
           group_ranks_per_node(CommGroup::Pp, p, limits.gpus_per_node) > 1 ? 2 : 1, cluster, gpu);
  in.send_us = send.time_us;
  ParallelPrediction out;
  out.pipeline = schedule_pipeline(in);  // placed once: also times it with free sends
  const double no_send_end = P > 1 ? out.pipeline.end_without_send_us : out.pipeline.end_us;
  out.bubble_fraction = out.pipeline.bubble_fraction();
  const double pipeline_end = out.pipeline.end_us;

  // Each stage's tail, and the stage that ends last.
  int critical = 0;
  double total = 0;
  std::vector<GroupTimes> comm_us(P), exposed_us(P);
  std::vector<double> compute_us(P, 0), host_us(P, 0), flops(P, 0);
  for (int64_t st = 0; st < P; ++st) {
    double window = 0;
    for (int64_t c = 0; c < V; ++c) {
      const ChunkWork& w = chunks[c * P + st];
      window += w.backward_us;
      compute_us[st] += (double)m * w.compute_us;
      host_us[st] += (double)m * w.host_us;
      flops[st] += (double)m * w.flops;
      for (int g = 0; g < kCommGroups; ++g) {
        comm_us[st][g] += (double)m * w.comm_us[g];
        exposed_us[st][g] += (double)m * w.exposed_us[g];
      }
    }
    StageTime t;
    for (int64_t c = 0; c < V; ++c) {
      t.forward_us += chunks[c * P + st].forward_us;
      t.backward_us += chunks[c * P + st].backward_us;
    }
    t.send_us = send.time_us;
    out.stages.push_back(t);
    double end = train
                     ? finish_stage(s, (int)st, out.pipeline.stage_end_us[st], window, out.pipeline,
                                    comm_us[st], exposed_us[st], compute_us[st], options.timeline)
                     : out.pipeline.stage_end_us[st];
    if (end > total) total = end, critical = (int)st;
  }
  int pp = (int)CommGroup::Pp;
  comm_us[critical][pp] += (double)(train ? 2 : 1) * (double)m * (double)V * send.time_us * (P > 1);
  exposed_us[critical][pp] += pipeline_end - no_send_end;

  out.gpu = gpu.name;
  out.cluster = cluster.name;
  out.model = model.name;
  out.description = describe(s, m);
  out.run = run;
  out.parallel = p;
  out.microbatches = m;
  out.total_us = total;
  out.comm_us = comm_us[critical];
  out.exposed_comm_us = exposed_us[critical];
  out.time_by_stream_us[(int)Stream::Compute] = compute_us[critical];
  double comm_total = 0;
  for (double c : out.comm_us) comm_total += c;
  out.time_by_stream_us[(int)Stream::Comm] = comm_total;
  out.time_by_stream_us[(int)Stream::Host] = host_us[critical];
  out.nccl_sm_share = 0;
  for (const SectionTime& st : sections)
    out.nccl_sm_share = std::max(out.nccl_sm_share, st.max_sm_share);
  out.nccl_sm_share = std::max({out.nccl_sm_share, gather.u, send.u});
  double seqs = train ? (double)p.global_batch : (double)run.batch * p.dp;
  double tokens = run.phase == Phase::Decode ? seqs : seqs * run.seq;
  out.tokens_per_s = tokens / (total * 1e-6);
  out.model_flops = model_flops(model, run, p);
  out.peak_flops_per_s = peak_flops_per_s(gpu, tensor_unit(run.weights));
  out.mfu = out.model_flops / (total * 1e-6 * (double)p.gpus * out.peak_flops_per_s);
  out.hardware_flops_per_s = flops[critical] / (total * 1e-6);
  out.memory = parallel_memory(model, run, p, gpu.memory.hbm.capacity_bytes.value,
                               run.runtime.reserved_bytes, limits);
  return out;
}

}  // namespace ridgeline
