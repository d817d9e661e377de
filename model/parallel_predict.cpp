// predict_parallel(); the method is in parallel_predict.h. In order: check the strategy, build and
// time the per-rank graph once (parallel_sections.h), give every model chunk of every stage its
// forward and backward time, place the pipeline, then per stage the data-parallel gradient
// reduction, the optimizer step and the ZeRO parameter gathers, and sum up.
#include "model/parallel_predict.h"

#include "common/errors.h"
#include "hardware/cluster_spec.h"
#include "hardware/derived.h"
#include "model/collective_cost.h"
#include "model/kernel_terms.h"
#include "model/parallel_sections.h"
#include "model/parallel_stage_tail.h"
#include "model/prediction.h"
#include "workloads/sharding.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ridgeline {

using namespace parallel_detail;

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
    case DType::Fp4:
      return MathUnit::TensorFp4;
    case DType::Fp32:
    case DType::Tf32:
      return MathUnit::TensorTf32;
    default:
      return MathUnit::TensorBf16;
  }
}

// What one model chunk of one stage does per micro-batch: its time and what its streams do.
// comm_busy_us: the time some collective of the chunk runs (a section's collectives are on one
// stream; ZeRO-3's gathers, on their own communicator, may run beside them: see add_zero3).
struct ChunkWork {
  double forward_us = 0, backward_us = 0, compute_us = 0, host_us = 0, flops = 0;
  double comm_busy_us = 0;
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
      comm_busy_us += times * s->comm_us[g];
    }
  }
};

double comm_sum_us(const SectionTime* s) {
  double sum = 0;
  if (s)
    for (double c : s->comm_us) sum += c;
  return sum;
}

// ZeRO-3: every layer's parameters all-gathered before its forward and again before its
// backward, its gradients reduce-scattered after; prefetched beside the layer before, so a layer
// takes overlapped_us(compute, comm); the first layer's gather of a chunk is exposed. The gathers
// run on their own communicator beside the layer's own collectives (TP, CP, EP): the comm
// streams are busy for their sum, but never longer than the layer. `chunk_start`: the chunk's
// first layer kind, which carries the chunk's one exposed first gather (later kinds' first
// layers are prefetched behind the layer before, as any other).
void add_zero3(ChunkWork& w, const SectionTime& block, const SectionTime* block_back, double layers,
               const Comm& gather, const Comm& scatter, bool chunk_start) {
  double first = chunk_start ? gather.time_us : 0;
  double f = block.time_us, b = block_back ? block_back->time_us : 0;
  double f3 = overlapped_us(f, gather.time_us, gather.u) + 0;
  double b3 = block_back ? overlapped_us(b, gather.time_us + scatter.time_us, gather.u) : 0;
  w.forward_us += layers * (f3 - f) + first;
  if (block_back) w.backward_us += layers * (b3 - b);
  int dp = (int)CommGroup::Dp;
  w.comm_us[dp] += layers * (2 * gather.time_us + scatter.time_us);
  w.exposed_us[dp] += first + layers * (std::max(0.0, gather.time_us - f) +
                                        std::max(0.0, gather.time_us + scatter.time_us - b));
  w.compute_us += layers * (f3 - f + b3 - b);  // the slowdown, or waiting on the gathers
  double cf = comm_sum_us(&block), cb = comm_sum_us(block_back);
  double busy_f = std::min(f3, cf + gather.time_us) - cf;
  double busy_b = block_back ? std::min(b3, cb + gather.time_us + scatter.time_us) - cb : 0;
  w.comm_busy_us += first + layers * (busy_f + busy_b);
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
  if (p.split_counts_embedding || p.split_counts_loss)
    d << " (split counting the "
      << (p.split_counts_embedding && p.split_counts_loss ? "embedding and the loss"
          : p.split_counts_embedding                      ? "embedding"
                                                          : "loss")
      << ")";
  d << ", DP " << p.dp;
  if (p.cp > 1) d << ", CP " << p.cp;
  if (p.ep > 1) d << ", EP " << p.ep;
  if (p.moe_folded()) d << " (ETP 1, folded)";
  if (s.run.phase == Phase::Train)
    d << ", " << schedule_name(p.schedule) << ", ZeRO " << p.zero
      << (p.fsdp_shard > 0 ? " sharded over " + std::to_string(p.fsdp_shard) + " dp ranks x " +
                                 std::to_string(p.replicas()) + " replicas (HSDP)"
                           : "")
      << ", recompute " << recompute_name(p.recompute);
  return d.str();
}

}  // namespace

void check_fp8_training(const Fp8Training& fp8, const GpuSpec& gpu, const RunConfig& run,
                        const ParallelConfig& p) {
  if (!fp8.on) return;
  if (run.phase != Phase::Train)
    throw InputError(std::string("--precision fp8: Transformer Engine FP8 is a training "
                                 "precision; --phase ") +
                     phase_name(run.phase) + " takes --weights / --activations fp8");
  if (!has_unit(gpu, MathUnit::TensorFp8))
    throw InputError("--precision fp8: " + gpu.name + " has no fp8 tensor cores (" + gpu.file +
                     ")");
  if (fp8.recipe == Fp8Recipe::Mxfp8 && gpu.architecture != "blackwell")
    throw InputError("--fp8-recipe mxfp8: microscaling FP8 needs Blackwell tensor cores; " +
                     gpu.name + " is " + gpu.architecture + " (" + gpu.file + ")");
  if (fp8.param_gather && !(p.zero >= 1 && p.zero <= 2 && p.dp * p.cp > 1))
    throw InputError(
        "--fp8-param-gather: the distributed optimizer's parameter all-gather runs "
        "with --zero 1 or 2 over dp x cp > 1 ranks; got --zero " +
        std::to_string(p.zero) + ", dp x cp " + std::to_string(p.dp * p.cp));
}

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
  const Strategy s{model,
                   run,
                   p,
                   cluster,
                   gpu,
                   limits.gpus_per_node,
                   options.fp8.on && options.fp8.param_gather};
  const int64_t P = p.pp, V = train ? p.vp : 1, m = train ? p.microbatches() : 1, G = P * V;

  OpGraph graph = build_rank_graph(model, run, p, limits);
  const Fp8Training& fp8 = options.fp8;
  int64_t te_gemms = 0;
  if (fp8.on) {
    check_fp8_training(fp8, gpu, run, p);
    // Weights cast once per step (cached over its micro-batches), every micro-batch under ZeRO-3.
    double share = p.zero == 3 ? 1.0 : 1.0 / (double)std::max<int64_t>(1, m);
    Fp8Rewrite r = apply_fp8_training(graph, fp8, share, run.runtime.launch.reduction);
    graph = std::move(r.graph);
    te_gemms = r.block_te_gemms;
  }
  std::vector<SectionTime> sections = time_sections(graph, gpu, cluster, run);
  Parts parts = parts_of(sections);

  // Every model chunk g = chunk * P + stage: one micro-batch's forward and backward, each block
  // section (one a layer kind) repeated as often as the chunk holds layers of its kind.
  const int64_t model_layers = run.blocks > 0 ? run.blocks : model.layers;
  require_invariant(chunk_layer_groups(model, model_layers, p, 0).size() == parts.blocks.size(),
                    "one block section a kind");
  StageParams sp0 = stage_parameters(model, run, p, 0);
  double layer_bytes = (sp0.layer_dense + sp0.layer_experts) * dtype_bytes(run.weights);
  Group shard = zero3_shard_group(s), replicas = zero3_replica_group(s);
  Comm gather =
      comm(CollectiveKind::AllGather, layer_bytes, shard.ranks, shard.per_node, cluster, gpu);
  Comm scatter =
      comm(CollectiveKind::ReduceScatter, layer_bytes, shard.ranks, shard.per_node, cluster, gpu);
  // HSDP: each layer's reduce-scattered gradient shard is then all-reduced over the replicas, on
  // the same stream after the reduce-scatter (FSDP2's default, every micro-batch: PyTorch
  // #126166); priced as one longer gradient collective.
  Comm replicate = comm(CollectiveKind::AllReduce, layer_bytes / (double)shard.ranks,
                        replicas.ranks, replicas.per_node, cluster, gpu);
  scatter.time_us += replicate.time_us;
  scatter.u = std::max(scatter.u, replicate.u);
  // Delayed scaling: the amax history all-reduced over the stage's tp x cp x dp ranks (TE's
  // amax reduction group) after each forward and each backward of a model chunk, 4 bytes for
  // each of the three scaling factors of each TE GEMM; blocking, so exposed.
  Comm amax;
  if (train && fp8.on && fp8.recipe == Fp8Recipe::Delayed) {
    int64_t ranks = p.tp * p.cp * p.dp;
    amax = comm(CollectiveKind::AllReduce,
                12.0 * (double)te_gemms * (double)p.chunk_layers(model_layers), ranks,
                even_ranks_per_node(ranks, limits.gpus_per_node), cluster, gpu);
  }
  std::vector<ChunkWork> chunks(G);
  for (int64_t g = 0; g < G; ++g) {
    ChunkWork& w = chunks[g];
    const std::vector<LayerGroup> held = chunk_layer_groups(model, model_layers, p, g);
    if (amax.time_us > 0) {
      w.forward_us += amax.time_us, w.backward_us += amax.time_us;
      w.comm_us[(int)CommGroup::Dp] += 2 * amax.time_us;
      w.exposed_us[(int)CommGroup::Dp] += 2 * amax.time_us;
      w.comm_busy_us += 2 * amax.time_us;
    }
    bool first_kind = true;  // no layer of the chunk placed yet
    for (size_t b = 0; b < parts.blocks.size(); ++b) {
      const SectionTime* back =
          train && b < parts.block_backs.size() ? parts.block_backs[b] : nullptr;
      // (the first and last chunks one layer short where the split counts the embedding or the
      // loss; a kind the chunk does not hold, 0 times)
      double repeat = (double)held[b].count;
      w.add(parts.blocks[b], repeat, false);
      w.add(back, repeat, true);
      if (train && p.zero == 3 && repeat > 0)
        add_zero3(w, *parts.blocks[b], back, repeat, gather, scatter, first_kind);
      first_kind = first_kind && repeat == 0;
    }
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
  std::vector<double> in_pipeline_comm(P, 0), tail_comm(P, 0);
  StageTail tail_memo;
  std::vector<double> compute_us(P, 0), host_us(P, 0), flops(P, 0), comm_busy_us(P, 0);
  for (int64_t st = 0; st < P; ++st) {
    double window = 0;
    for (int64_t c = 0; c < V; ++c) {
      const ChunkWork& w = chunks[c * P + st];
      window += w.backward_us;
      compute_us[st] += (double)m * w.compute_us;
      host_us[st] += (double)m * w.host_us;
      flops[st] += (double)m * w.flops;
      comm_busy_us[st] += (double)m * w.comm_busy_us;
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
    const int dp = (int)CommGroup::Dp;
    const double dp_comm = comm_us[st][dp], dp_exposed = exposed_us[st][dp];
    double end = train ? finish_stage(s, (int)st, out.pipeline.stage_end_us[st], window,
                                      out.pipeline, comm_us[st], exposed_us[st], compute_us[st],
                                      options.timeline, tail_memo)
                       : out.pipeline.stage_end_us[st];
    // The stage's tail: gradient buckets overlapped with the last backward, the rest after it.
    double tail = exposed_us[st][dp] - dp_exposed;
    in_pipeline_comm[st] = comm_busy_us[st] + (comm_us[st][dp] - dp_comm - tail);
    tail_comm[st] = tail;
    if (end > total) total = end, critical = (int)st;
  }
  // The sends delay the step by pipeline_end - no_send_end, summed over every stage on the
  // critical path; of that delay one GPU's exposed share is at most its own transfers, and the
  // rest is its wait on other stages' transfers: bubble (bubble_fraction counts it).
  int pp = (int)CommGroup::Pp;
  comm_us[critical][pp] += (double)(train ? 2 : 1) * (double)m * (double)V * send.time_us * (P > 1);
  exposed_us[critical][pp] += std::min(comm_us[critical][pp], pipeline_end - no_send_end);

  out.gpu = gpu.name;
  out.cluster = cluster.name;
  out.model = model.name;
  out.description = describe(s, m);
  if (fp8.on)
    out.description += std::string(", FP8 ") + fp8_recipe_name(fp8.recipe) +
                       (fp8.param_gather ? " (fp8 parameter gather)" : "");
  out.run = run;
  out.fp8 = fp8;
  out.parallel = p;
  out.microbatches = m;
  out.total_us = total;
  out.comm_us = comm_us[critical];
  out.exposed_comm_us = exposed_us[critical];
  out.time_by_stream_us[(int)Stream::Compute] = compute_us[critical];
  // The comm streams' busy time: collectives on different communicators (TP beside ZeRO-3's
  // gathers, the sends, the gradient buckets) may run at once, so during the pipeline it is
  // their sum but at most the stage's time there; then the tail after its last backward.
  out.time_by_stream_us[(int)Stream::Comm] =
      std::min(out.pipeline.stage_end_us[critical],
               in_pipeline_comm[critical] + comm_us[critical][pp]) +
      tail_comm[critical];
  out.time_by_stream_us[(int)Stream::Host] = host_us[critical];
  out.nccl_sm_share = 0;
  for (const SectionTime& st : sections)
    out.nccl_sm_share = std::max(out.nccl_sm_share, st.max_sm_share);
  out.nccl_sm_share = std::max({out.nccl_sm_share, gather.u, send.u});
  double seqs = train ? (double)p.global_batch : (double)run.batch * p.dp;
  double tokens = run.phase == Phase::Decode ? seqs : seqs * run.seq;
  out.tokens_per_s = tokens / (total * 1e-6);
  out.model_flops = model_flops(model, run, p);
  // FP8 training: against the fp8 dense peak (the DGX Cloud recipes' MFU convention).
  // NVFP4 weights without FP4 tensor cores: the dequantising path's bf16 peak.
  DType peak_dtype = fp8.on ? DType::Fp8 : run.weights;
  if (fp4_dequantized(gpu, peak_dtype)) peak_dtype = DType::Bf16;
  out.peak_flops_per_s = peak_flops_per_s(gpu, tensor_unit(peak_dtype));
  out.mfu = out.model_flops / (total * 1e-6 * (double)p.gpus * out.peak_flops_per_s);
  out.hardware_flops_per_s = flops[critical] / (total * 1e-6);
  out.memory = parallel_memory(model, run, p, gpu.memory.hbm.capacity_bytes.value,
                               run.runtime.reserved_bytes, limits);
  return out;
}

}  // namespace ridgeline
