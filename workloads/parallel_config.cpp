// Names and checks of parallel strategies; see parallel_config.h. Each check throws one
// InputError naming the flag and the numbers that disagree, in the order the flags are read: the
// degrees, the GPU count, the model's divisibility, the batch, then the cluster.
#include "workloads/parallel_config.h"

#include "common/errors.h"
#include "workloads/mla_config.h"

#include <string>

namespace ridgeline {

const char* schedule_name(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::GPipe:
      return "gpipe";
    case PipelineSchedule::OneFOneB:
      return "1f1b";
    case PipelineSchedule::Interleaved:
      return "interleaved";
  }
  return "?";
}

int64_t kv_heads_per_rank(const ModelConfig& model, int64_t tp) {
  return model.kv_heads >= tp ? model.kv_heads / tp : 1;
}

int64_t padded_vocab(const ModelConfig& model, int64_t tp) {
  int64_t unit = 128 * tp;
  return (model.vocab + unit - 1) / unit * unit;
}

namespace {

[[noreturn]] void fail(const std::string& flag, const std::string& msg) {
  throw InputError(flag + ": " + msg);
}

std::string num(int64_t x) {
  return std::to_string(x);
}

// HSDP: ZeRO-3 over fsdp_shard of the dp ranks, replicated over the rest.
void check_fsdp_shard(const ParallelConfig& p) {
  if (p.fsdp_shard == 0) return;
  if (p.fsdp_shard < 0)
    fail("--fsdp-shard",
         "a shard group of at least 1 data-parallel rank, got " + num(p.fsdp_shard));
  if (p.zero != 3)
    fail("--fsdp-shard",
         "shards the parameters over part of the data-parallel group: needs --zero "
         "3, got --zero " +
             num(p.zero));
  if (p.dp % p.fsdp_shard != 0)
    fail("--fsdp-shard", num(p.fsdp_shard) + " does not divide --dp " + num(p.dp) +
                             " into replicas of the shard group");
  if (p.ep > 1 && p.fsdp_shard < p.dp)
    fail("--fsdp-shard", "a shard group (" + num(p.fsdp_shard) + ") smaller than --dp " +
                             num(p.dp) + " with --ep " + num(p.ep) +
                             " (experts sharded over dp / ep) is not modelled");
}

void check_degrees(const ParallelConfig& p) {
  const std::pair<const char*, int64_t> degrees[] = {{"--gpus", p.gpus},
                                                     {"--tp", p.tp},
                                                     {"--pp", p.pp},
                                                     {"--vp", p.vp},
                                                     {"--dp", p.dp},
                                                     {"--cp", p.cp},
                                                     {"--ep", p.ep},
                                                     {"--microbatch", p.microbatch},
                                                     {"--global-batch", p.global_batch}};
  for (const auto& [flag, v] : degrees)
    if (v < 1) fail(flag, "must be at least 1, got " + num(v));
  if (p.zero < 0 || p.zero > 3) fail("--zero", "a ZeRO stage is 0, 1, 2 or 3, got " + num(p.zero));
  check_fsdp_shard(p);
  int64_t product = p.tp * p.pp * p.dp * p.cp;
  if (product != p.gpus)
    fail("--gpus", num(p.gpus) + " GPUs, but --tp " + num(p.tp) + " x --pp " + num(p.pp) +
                       " x --dp " + num(p.dp) + " x --cp " + num(p.cp) + " = " + num(product));
  if (p.sp && p.tp < 2)
    fail("--sp", "sequence parallelism splits a TP group's tokens; needs --tp > 1");
  if (p.vp > 1 && p.schedule != PipelineSchedule::Interleaved)
    fail("--vp", "virtual stages (" + num(p.vp) + ") need --schedule interleaved, got --schedule " +
                     schedule_name(p.schedule));
  if (p.schedule == PipelineSchedule::Interleaved && p.pp < 2)
    fail("--schedule", "interleaved needs a pipeline (--pp > 1), got --pp " + num(p.pp));
}

void check_model(const ParallelConfig& p, const ModelConfig& m, const RunConfig& run) {
  if (m.heads % p.tp != 0)
    fail("--tp", num(p.tp) + " does not divide " + m.name + "'s " + num(m.heads) + " heads");
  bool kv_split = m.kv_heads >= p.tp ? m.kv_heads % p.tp == 0 : p.tp % m.kv_heads == 0;
  if (!kv_split)
    fail("--tp", num(p.tp) + " does not divide " + m.name + "'s " + num(m.kv_heads) +
                     " KV heads (nor do they divide it, to be replicated)");
  int64_t layers = run.blocks > 0 ? run.blocks : m.layers;
  const int64_t counted = p.split_counts_embedding + p.split_counts_loss, chunks = p.pp * p.vp;
  if (counted > 0 && chunks < 2)
    fail("--pipeline-split-counts",
         "the embedding and the loss count in a split over pipeline stages; needs --pp > 1");
  if ((layers + counted) % chunks != 0) {
    std::string by = p.vp > 1 ? "--pp " + num(p.pp) + " x --vp " + num(p.vp) + " = " + num(chunks) +
                                    " (model chunks)"
                              : num(chunks) + " (stages)";
    if (counted > 0)
      fail("--pipeline-split-counts", m.name + "'s " + num(layers) + " layers and " + num(counted) +
                                          " counted (embedding, loss) do not divide into " + by);
    std::string hint = p.divides_only_counting_embedding_and_loss(layers)
                           ? " (counting the embedding and the loss as layers, as Megatron's "
                             "account_for_*_in_pipeline_split do, would: --pipeline-split-counts "
                             "embedding,loss)"
                           : "";
    fail(p.vp > 1 ? "--vp" : "--pp",
         m.name + "'s " + num(layers) + " layers do not divide into " + by + hint);
  }
  if (p.ep > 1 && m.moe.experts == 0)
    fail("--ep", m.name + " has no experts to spread over " + num(p.ep) + " GPUs");
  if (m.moe.experts > 0 && m.moe.experts % p.ep != 0)
    fail("--ep",
         num(p.ep) + " does not divide " + m.name + "'s " + num(m.moe.experts) + " experts");
  if (p.etp != 0 && p.etp != 1 && p.etp != p.tp)
    fail("--etp", "experts split like the MLP (--etp " + num(p.tp) +
                      ", the --tp) or whole on each rank (--etp 1), got --etp " + num(p.etp));
  if (p.etp > 0 && m.moe.experts == 0) fail("--etp", m.name + " has no experts to split");
  const int64_t stage_ranks = p.tp * p.cp * p.dp;  // what a folded EP group is carved from
  if (p.moe_folded()) {
    if (!p.sp)
      fail("--etp", "--etp 1 under --tp " + num(p.tp) +
                        " runs the MoE layer on each rank's sequence shard: needs --sp");
    if (p.fsdp_shard > 0 && p.fsdp_shard < p.dp)
      fail("--etp", "--etp 1 with an --fsdp-shard group smaller than --dp is not modelled");
    if (stage_ranks % p.ep != 0)
      fail("--ep",
           "with --etp 1 the expert-parallel groups are carved out of the --tp x --cp x "
           "--dp ranks: --ep " +
               num(p.ep) + " must divide " + num(stage_ranks));
  } else if (p.dp % p.ep != 0) {
    std::string hint =
        p.tp > 1 && m.moe.experts > 0 && stage_ranks % p.ep == 0
            ? " (Megatron's MoE parallel folding, --etp 1 --sp, carves them out of --tp x --cp x "
              "--dp)"
            : "";
    fail("--ep", "expert-parallel groups are carved out of the data-parallel ranks: --ep " +
                     num(p.ep) + " must divide --dp " + num(p.dp) + hint);
  }
  int64_t seq = run.phase == Phase::Decode ? 0 : run.seq;
  if (p.cp > 1 && run.phase == Phase::Decode)
    fail("--cp", "context parallelism splits a sequence; decode has one new token");
  if (p.cp > 1 && seq % (2 * p.cp) != 0)
    fail("--cp", "ring attention gives each of " + num(p.cp) + " ranks two chunks: --seq " +
                     num(seq) + " is not a multiple of 2 x " + num(p.cp));
  if (p.sp && run.phase != Phase::Decode && (seq / p.cp) % p.tp != 0)
    fail("--sp", "each rank's " + num(seq / p.cp) + " tokens do not divide over --tp " + num(p.tp));
}

void check_batch(const ParallelConfig& p, const RunConfig& run) {
  if (run.phase != Phase::Train) {
    if (p.zero != 0) fail("--zero", "ZeRO shards training state; inference has none");
    if (p.schedule != PipelineSchedule::OneFOneB || p.vp > 1)
      fail("--schedule", "pipeline schedules are for training (forward and backward)");
    return;
  }
  int64_t per_step = p.microbatch * p.dp;
  if (p.global_batch % per_step != 0)
    fail("--global-batch", num(p.global_batch) + " is not a multiple of --microbatch " +
                               num(p.microbatch) + " x --dp " + num(p.dp) + " = " + num(per_step));
  int64_t m = p.microbatches();
  if (p.schedule == PipelineSchedule::Interleaved && m % p.pp != 0)
    fail("--global-batch", "the interleaved schedule runs micro-batches in groups of --pp " +
                               num(p.pp) + "; " + num(m) +
                               " micro-batches per pipeline is not a multiple");
}

void check_cluster(const ParallelConfig& p, const ClusterLimits& c) {
  if (p.gpus > c.max_gpus)
    fail("--gpus", num(p.gpus) + " GPUs, but " + c.name + " has at most " + num(c.max_gpus));
  if (p.tp > c.gpus_per_node)
    fail("--tp", "a TP group of " + num(p.tp) + " is larger than a " + c.name + " node (" +
                     num(c.gpus_per_node) + " GPUs): its all-reduces would cross the network");
}

}  // namespace

void check_parallel_config(const ParallelConfig& p, const ModelConfig& model, const RunConfig& run,
                           const ClusterLimits& cluster) {
  check_degrees(p);
  check_model(p, model, run);
  check_batch(p, run);
  check_cluster(p, cluster);
}

std::vector<LayerGroup> chunk_layer_groups(const ModelConfig& m, int64_t layers,
                                           const ParallelConfig& p, int64_t g) {
  ParallelConfig::LayerRange r = p.chunk_range(layers, g);
  return layer_groups_in(m, layers, r.first, r.end);
}

}  // namespace ridgeline
