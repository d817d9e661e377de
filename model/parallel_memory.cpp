// Memory per GPU under a parallel strategy; the rules are in parallel_memory.h. The search for the
// smallest change that fits tries, in order, what costs least speed: a higher ZeRO stage (or a
// larger HSDP shard group), more recomputation, a smaller micro-batch, then more tensor, pipeline
// or expert parallelism (taken from the data-parallel degree, so --gpus stays), and names the
// first two that fit.
#include "model/parallel_memory.h"

#include "common/errors.h"
#include "workloads/sharding.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

namespace ridgeline {

namespace {

// A decoder layer's parameters on one rank: dense ones split by tp (a replicated KV head stays
// whole), experts by etp * ep (tp * ep unless the MoE is folded).
struct LayerParams {
  double dense = 0, experts = 0;
};
LayerParams layer_params(const ModelConfig& m, const ParallelConfig& p) {
  double experts = routed_expert_parameters(m);
  double dense = (double)block_parameter_count(m) - experts;
  double kv_weights = 2.0 * m.hidden * m.kv_heads * m.head_dim;
  double kv_rank = 2.0 * m.hidden * kv_heads_per_rank(m, p.tp) * m.head_dim;
  return {(dense - kv_weights) / p.tp + kv_rank, experts / (p.expert_tp() * p.ep)};
}

double bytes_of(DType d) {
  return dtype_bytes(d);
}

int64_t layers_of(const ModelConfig& m, const RunConfig& run) {
  return run.blocks > 0 ? run.blocks : m.layers;
}

// A stage's decoder layers by kind: the layers of its model chunks (one, or vp with the
// interleaved schedule; chunk_layer_groups), each kind counted.
std::vector<LayerGroup> stage_groups(const ModelConfig& m, const RunConfig& run,
                                     const ParallelConfig& p, int stage) {
  std::vector<LayerGroup> out;
  for (int64_t c = 0; c < p.vp; ++c) {
    std::vector<LayerGroup> held = chunk_layer_groups(m, layers_of(m, run), p, c * p.pp + stage);
    if (out.empty()) {
      out = std::move(held);
      continue;
    }
    for (size_t i = 0; i < out.size(); ++i) out[i].count += held[i].count;
  }
  return out;
}

// Tokens one rank holds per micro-batch (training, prefill) or step (decode).
double rank_tokens(const RunConfig& run, const ParallelConfig& p) {
  if (run.phase == Phase::Decode) return (double)run.batch;
  double seqs = run.phase == Phase::Train ? (double)p.microbatch : (double)run.batch;
  return seqs * (double)run.seq / (double)p.cp;
}

// Elements per token one layer keeps for its backward pass (none / selective recomputation).
double saved_elements_per_token(const ModelConfig& m, const ParallelConfig& p) {
  double t = (double)p.tp, h = (double)m.hidden, d = (double)m.head_dim;
  double replicated = 4 * h / (p.sp ? t : 1);
  double heads = (double)m.heads / t, kv = (double)kv_heads_per_rank(m, p.tp);
  double attention = (heads + 2 * kv) * d + heads * d;
  double mlp = 0;
  if (m.moe.experts > 0) {  // folded: whole experts (etp 1) on the rank's sequence shard
    double et = (double)p.expert_tp(), share = p.moe_folded() ? 1.0 / t : 1.0;
    mlp = share * ((double)m.moe.top_k * (2 * h + 4.0 * m.moe.expert_intermediate / et) +
                   2.0 * m.moe.experts);
  } else
    mlp = (m.mlp == MlpKind::GatedSilu ? 4.0 : 2.0) * m.intermediate / t;
  return replicated + attention + mlp;
}

int64_t in_flight(const ParallelConfig& p, int64_t microbatches, int stage) {
  switch (p.schedule) {
    case PipelineSchedule::GPipe:
      return microbatches;
    case PipelineSchedule::OneFOneB:
      return std::min<int64_t>(microbatches, p.pp - stage);
    case PipelineSchedule::Interleaved:
      return std::min<int64_t>(microbatches * p.vp, 2 * (p.pp - stage - 1) + (p.vp - 1) * p.pp + 1);
  }
  return microbatches;
}

void add_state(ParallelMemory& f, const ModelConfig& m, const RunConfig& run,
               const ParallelConfig& p, int stage) {
  StageParams sp = stage_parameters(m, run, p, stage);
  double dense = sp.dense, experts = sp.experts;
  double wb = run.weight_bits > 0 ? run.weight_bits / 8.0 : bytes_of(run.weights);
  // Megatron reduces (and its distributed optimizer shards) over the dp x cp ranks; HSDP shards
  // over its shard group (fsdp_shard x cp; no expert parallelism: check_parallel_config).
  double dp = (double)(p.shard_dp() * p.cp);
  double edp = p.fsdp_shard > 0 ? dp : (double)p.expert_dp();
  auto sharded = [&](double bytes_per_param, bool shard) {
    return bytes_per_param * (shard ? dense / dp + experts / edp : dense + experts);
  };
  double ewb = expert_weight_bytes_per_param(run, wb);  // MXFP4 experts: inference, no ZeRO
  // Quantized weights (inference, no ZeRO) keep the embedding and LM head in 16 bits.
  f.weights_bytes = p.zero >= 3
                        ? sharded(wb, true)
                        : non_expert_weight_bytes(run, dense, sp.tables, wb) + ewb * experts;
  if (run.phase != Phase::Train) return;
  f.gradient_bytes = sharded(wb, p.zero >= 2);
  if (run.optimizer == Optimizer::AdamW) {
    double state = run.weights == DType::Fp32 ? 8 : kAdamStateBytes;
    f.optimizer_bytes = sharded(state, p.zero >= 1);
  }
}

void add_activations(ParallelMemory& f, const ModelConfig& m, const RunConfig& run,
                     const ParallelConfig& p, int stage) {
  double a = bytes_of(run.activations), T = rank_tokens(run, p);
  bool last = stage == p.pp - 1 && run.blocks == 0;
  if (run.phase != Phase::Train) {
    double widest =
        std::max({(double)m.hidden, (double)m.intermediate * 2 / p.tp,
                  ((double)m.heads / p.tp + 2.0 * kv_heads_per_rank(m, p.tp)) * m.head_dim});
    f.activation_bytes = 2 * T * widest * a;
    // A rank's KV heads (MLA's latent whole: mla_config.h) over its stage's layers, each kind's
    // window capping what it holds.
    f.kv_cache_bytes =
        (double)run.batch * kv_cache_bytes(stage_groups(shard_model(m, p), run, p, stage),
                                           (double)step_positions(run), bytes_of(run.kv_cache));
    return;
  }
  f.in_flight = in_flight(p, p.microbatches(), stage);
  double chunk_bytes = 0;  // one model chunk's layers, each kind's own
  for (const LayerGroup& g : stage_groups(m, run, p, stage))
    chunk_bytes += (double)g.count / p.vp * layer_activation_bytes(g.model, run, p);
  f.activation_bytes = (double)f.in_flight * chunk_bytes;
  if (p.recompute == Recompute::Full) {  // one layer's activations while it is recomputed
    ParallelConfig none = p;
    none.recompute = Recompute::None;
    f.activation_bytes += layer_activation_bytes(m, run, none);
  }
  if (last) f.activation_bytes += T * (double)padded_vocab(m, p.tp) / p.tp * 4;  // fp32 logits
}

void add_buffers(ParallelMemory& f, const ModelConfig& m, const RunConfig& run,
                 const ParallelConfig& p) {
  int groups = (p.tp > 1) + (p.pp > 1) + (p.dp > 1) + (p.cp > 1) + (p.ep > 1);
  groups += p.fsdp_shard > 1 && p.replicas() > 1;  // HSDP: a shard and a replica communicator
  f.comm_buffer_bytes = groups * kNcclBufferBytes;
  bool train = run.phase == Phase::Train;
  if (train && p.dp > 1 && p.zero < 3) f.comm_buffer_bytes += 2 * kGradBucketBytes;
  if (train && p.zero >= 3) {
    LayerParams lp = layer_params(m, p);
    f.comm_buffer_bytes += 2 * (lp.dense + lp.experts) * bytes_of(run.weights);
  }
  if (p.pp > 1) {
    double boundary =
        rank_tokens(run, p) * m.hidden * bytes_of(run.activations) / (p.sp ? p.tp : 1);
    f.comm_buffer_bytes += 2 * 2 * boundary;  // send and receive, each way
  }
}

std::string gb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  return buf;
}

// A change of strategy to try, as its flags say it.
struct Change {
  std::string flags;
  ParallelConfig p;
};

std::vector<Change> changes(const ParallelConfig& p) {
  std::vector<Change> out;
  auto add = [&](std::string flags, std::function<void(ParallelConfig&)> edit) {
    ParallelConfig q = p;
    edit(q);
    out.push_back({std::move(flags), q});
  };
  for (int z = p.zero + 1; z <= 3; ++z)
    add("--zero " + std::to_string(z), [z](ParallelConfig& q) { q.zero = z; });
  for (int64_t n = p.fsdp_shard * 2; p.fsdp_shard > 0 && n <= p.dp; n *= 2)  // a larger shard
    add("--fsdp-shard " + std::to_string(n), [n](ParallelConfig& q) { q.fsdp_shard = n; });
  if (p.recompute != Recompute::Full)
    add("--recompute full", [](ParallelConfig& q) { q.recompute = Recompute::Full; });
  for (int64_t mb = p.microbatch / 2; mb >= 1; mb /= 2)
    add("--microbatch " + std::to_string(mb), [mb](ParallelConfig& q) { q.microbatch = mb; });
  for (int64_t f = 2; f <= p.dp; f *= 2) {
    add("--tp " + std::to_string(p.tp * f) + " --dp " + std::to_string(p.dp / f),
        [f](ParallelConfig& q) { q.tp *= f, q.dp /= f, q.ep = std::min(q.ep, q.dp); });
    add("--pp " + std::to_string(p.pp * f) + " --dp " + std::to_string(p.dp / f),
        [f](ParallelConfig& q) { q.pp *= f, q.dp /= f, q.ep = std::min(q.ep, q.dp); });
  }
  for (int64_t e = p.ep * 2; e <= p.dp; e *= 2)
    add("--ep " + std::to_string(e), [e](ParallelConfig& q) { q.ep = e; });
  return out;
}

std::string parts(const ParallelMemory& f) {
  return "weights " + gb(f.weights_bytes) + ", gradients " + gb(f.gradient_bytes) + ", optimizer " +
         gb(f.optimizer_bytes) + ", activations " + gb(f.activation_bytes) +
         (f.kv_cache_bytes > 0 ? ", KV cache " + gb(f.kv_cache_bytes) : "") + ", buffers " +
         gb(f.comm_buffer_bytes) + ", reserved " + gb(f.reserved_bytes);
}

}  // namespace

StageParams stage_parameters(const ModelConfig& m, const RunConfig& run, const ParallelConfig& p,
                             int stage) {
  double layers = 0, dense = 0, experts = 0;
  for (const LayerGroup& g : stage_groups(m, run, p, stage)) {  // each kind's own parameters
    layers += (double)g.count;
    LayerParams lp = layer_params(g.model, p);
    dense += lp.dense * (double)g.count;
    experts += lp.experts * (double)g.count;
  }
  // per layer: the stage's mean (what ZeRO-3 gathers a layer)
  StageParams out{dense, experts, layers > 0 ? dense / layers : 0,
                  layers > 0 ? experts / layers : 0};
  bool whole = run.blocks == 0;
  double table = (double)padded_vocab(m, p.tp) * m.hidden / p.tp;
  if (whole && stage == 0) out.tables += table;
  if (whole && stage == p.pp - 1 && (!m.tied_embeddings || p.pp > 1)) out.tables += table;
  out.dense += out.tables;
  if (whole && stage == p.pp - 1) out.dense += m.hidden;  // the final norm
  return out;
}

double layer_activation_bytes(const ModelConfig& m, const RunConfig& run, const ParallelConfig& p) {
  double a = bytes_of(run.activations), T = rank_tokens(run, p);
  if (p.recompute == Recompute::Full) return T * m.hidden / (p.sp ? p.tp : 1) * a;
  double bytes = T * saved_elements_per_token(m, p) * a;
  if (p.recompute == Recompute::None) bytes += T * (double)m.heads / p.tp * 4;  // softmax stats
  return bytes;
}

ParallelMemory stage_memory(const ModelConfig& m, const RunConfig& run, const ParallelConfig& p,
                            int stage, double capacity_bytes, double reserved_bytes) {
  ParallelMemory f;
  f.stage = stage;
  f.capacity_bytes = capacity_bytes;
  f.reserved_bytes = reserved_bytes;
  add_state(f, m, run, p, stage);
  add_activations(f, m, run, p, stage);
  add_buffers(f, m, run, p);
  return f;
}

namespace {

ParallelMemory worst_stage(const ModelConfig& m, const RunConfig& run, const ParallelConfig& p,
                           double capacity, double reserved) {
  ParallelMemory first = stage_memory(m, run, p, 0, capacity, reserved);
  if (p.pp == 1) return first;
  ParallelMemory last = stage_memory(m, run, p, (int)p.pp - 1, capacity, reserved);
  return last.total() > first.total() ? last : first;
}

}  // namespace

ParallelMemory parallel_memory(const ModelConfig& m, const RunConfig& run, const ParallelConfig& p,
                               double capacity, double reserved, const ClusterLimits& cluster) {
  ParallelMemory f = worst_stage(m, run, p, capacity, reserved);
  if (f.fits()) return f;
  f.reason = "stage " + std::to_string(f.stage) + " needs " + gb(f.total()) + " of " +
             gb(capacity) + " per GPU (" + parts(f) + ")";
  std::vector<std::string> found;
  for (const Change& c : changes(p)) {
    bool spreads = c.flags.rfind("--tp", 0) == 0 || c.flags.rfind("--pp", 0) == 0 ||
                   c.flags.rfind("--ep", 0) == 0;
    if (run.phase != Phase::Train && !spreads) continue;  // no training state or micro-batches
    try {
      check_parallel_config(c.p, m, run, cluster);
    } catch (const InputError&) {
      continue;
    }
    ParallelMemory g = worst_stage(m, run, c.p, capacity, reserved);
    if (g.fits()) found.push_back(c.flags + " (" + gb(g.total()) + ")");
    if (found.size() == 2) break;
  }
  f.reason += found.empty() ? ": no change of --zero, --recompute, --microbatch, --tp, --pp or "
                              "--ep fits; use more GPUs"
                            : ": try " + found[0] + (found.size() > 1 ? " or " + found[1] : "");
  return f;
}

}  // namespace ridgeline
