// The per-rank graph of a parallel strategy (workloads/sharding.h): Megatron's shapes (q_proj's n
// is heads * head_dim / tp, o_proj's k the same, the MLP and vocabulary split by tp) and the
// collectives each rule puts in, found by role (group, purpose), never by name.
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "model/parallel_predict.h"
#include "sharding_helpers.h"
#include "test_helpers.h"
#include "workloads/sharding.h"

#include <map>

using namespace ridgeline;
using ridgeline::test::collectives;
using ridgeline::test::find;
using ridgeline::test::section;

namespace {

const ModelConfig& tiny() {  // h 256, I 512, 2 layers, 4 heads, 2 KV heads, head_dim 64, vocab 1000
  static const ModelConfig m = load_model(RIDGELINE_SOURCE_DIR "/examples/models/tiny-llama.json");
  return m;
}

RunConfig train_run(int64_t seq = 128) {
  RunConfig r;
  r.phase = Phase::Train;
  r.seq = seq;
  return r;
}

ParallelConfig strategy(int64_t tp, int64_t pp = 1, int64_t dp = 1) {
  ParallelConfig p;
  p.tp = tp, p.pp = pp, p.dp = dp, p.gpus = tp * pp * dp, p.microbatch = 1, p.global_batch = dp;
  return p;
}

const ClusterLimits node8{"dgx-h100", 8, 64};

const GemmOp& gemm_of(const GraphNode& n) {
  return std::get<GemmOp>(n.op.shape);
}

}  // namespace

TEST_CASE("sharding: Megatron's column and row splits under TP", "[parallel][sharding]") {
  OpGraph g = build_rank_graph(tiny(), train_run(), strategy(2), node8);
  const GraphSection& block = section(g, SectionKind::DecoderBlock);
  CHECK(gemm_of(find(block, role::gemm(Projection::Q))).n == 4 * 64 / 2);
  CHECK(gemm_of(find(block, role::gemm(Projection::K))).n == 2 * 64 / 2);
  CHECK(gemm_of(find(block, role::gemm(Projection::O))).k == 4 * 64 / 2);
  CHECK(gemm_of(find(block, role::gemm(Projection::O))).n == 256);
  CHECK(gemm_of(find(block, role::gemm(Projection::Gate))).n == 512 / 2);
  CHECK(gemm_of(find(block, role::gemm(Projection::Down))).k == 512 / 2);
  const AttentionOp& a = std::get<AttentionOp>(find(block, role::attention()).op.shape);
  CHECK(a.heads == 2);
  CHECK(a.kv_heads == 1);
  CHECK(gemm_of(find(section(g, SectionKind::Head), role::gemm(Projection::LmHead))).n == 1024 / 2);
  CHECK(block.repeat == 2);
}

TEST_CASE("sharding: KV heads fewer than TP are replicated", "[parallel][sharding]") {
  OpGraph g = build_rank_graph(tiny(), train_run(), strategy(4), node8);
  const GraphSection& block = section(g, SectionKind::DecoderBlock);
  CHECK(gemm_of(find(block, role::gemm(Projection::Q))).n == 64);
  CHECK(gemm_of(find(block, role::gemm(Projection::K))).n == 64);  // 2 KV heads over 4 ranks
}

TEST_CASE("sharding: TP all-reduces after row-parallel GEMMs and column-parallel dgrads",
          "[parallel][sharding]") {
  OpGraph g = build_rank_graph(tiny(), train_run(), strategy(2), node8);
  auto fwd = collectives(section(g, SectionKind::DecoderBlock));
  CHECK(fwd[{CommGroup::Tp, CommPurpose::Activations}] == 2);  // after o_proj and down_proj
  CHECK(fwd.size() == 1);
  auto bwd = collectives(section(g, SectionKind::BlockBackward));
  CHECK(bwd[{CommGroup::Tp, CommPurpose::InputGrad}] == 2);  // after q and gate dgrads
  CHECK(collectives(
            section(g, SectionKind::Embedding))[{CommGroup::Tp, CommPurpose::Activations}] == 1);
  CHECK(collectives(section(g, SectionKind::Loss))[{CommGroup::Tp, CommPurpose::Activations}] == 1);
  CHECK(collectives(
            section(g, SectionKind::HeadBackward))[{CommGroup::Tp, CommPurpose::InputGrad}] == 1);
  // Without TP, no collective at all.
  OpGraph one = build_rank_graph(tiny(), train_run(), strategy(1, 1, 2), node8);
  for (const auto& s : one.sections) CHECK(collectives(s).empty());
}

TEST_CASE("sharding: the TP all-reduce blocks the next kernel, the dgrad's runs beside the wgrad",
          "[parallel][sharding]") {
  OpGraph g = build_rank_graph(tiny(), train_run(), strategy(2), node8);
  for (SectionKind k : {SectionKind::DecoderBlock, SectionKind::BlockBackward}) {
    const GraphSection& s = section(g, k);
    const OpDag& d = s.dag();
    for (OpVertex v : launch_order(s)) {
      if (d[v].role.kind != RoleKind::Collective) continue;
      OpVertex producer = boost::source(*boost::in_edges(v, d).first, d);
      auto [e, end] = boost::out_edges(v, d);
      REQUIRE(e != end);  // something waits for it
      for (; e != end; ++e) {
        OpVertex c = boost::target(*e, d);
        if (k == SectionKind::DecoderBlock) {
          CHECK(boost::edge(producer, c, d).second == false);  // only through the all-reduce
        } else {
          CHECK(d[producer].role.grad == GradKind::Dgrad);
          // The wgrad after the dgrad does not wait for the all-reduce.
          auto [w, wend] = boost::out_edges(producer, d);
          for (; w != wend; ++w)
            if (d[boost::target(*w, d)].role.grad == GradKind::Wgrad)
              CHECK_FALSE(boost::edge(v, boost::target(*w, d), d).second);
        }
      }
    }
  }
}

TEST_CASE("sharding: sequence parallelism splits norms and swaps all-reduces for RS + AG",
          "[parallel][sharding]") {
  ParallelConfig p = strategy(2);
  p.sp = true;
  OpGraph g = build_rank_graph(tiny(), train_run(), p, node8);
  const GraphSection& block = section(g, SectionKind::DecoderBlock);
  CHECK(std::get<RowOp>(find(block, role::norm(NormSite::Input)).op.shape).rows == 64);
  CHECK(std::get<ElementwiseOp>(find(block, role::residual_add()).op.shape).numel == 64 * 256);
  // Two reduce-scatters (o, down) and two all-gathers (after each norm): 4 TP collectives.
  CHECK(collectives(block)[{CommGroup::Tp, CommPurpose::Activations}] == 4);
  // Backward: a reduce-scatter per column-parallel dgrad, an all-gather per row-parallel dgrad.
  CHECK(collectives(
            section(g, SectionKind::BlockBackward))[{CommGroup::Tp, CommPurpose::InputGrad}] == 4);
}

TEST_CASE("sharding: context parallelism runs ring attention over cp steps",
          "[parallel][sharding]") {
  ParallelConfig p = strategy(1);
  p.cp = 4, p.gpus = 4;
  OpGraph g = build_rank_graph(tiny(), train_run(256), p, node8);
  const GraphSection& block = section(g, SectionKind::DecoderBlock);
  int steps = 0;
  for (OpVertex v : launch_order(block))
    if (block.dag()[v].role.kind == RoleKind::Attention) ++steps;
  CHECK(steps == 4);
  CHECK(collectives(block)[{CommGroup::Cp, CommPurpose::KvChunk}] == 3);
  CHECK(collectives(
            section(g, SectionKind::BlockBackward))[{CommGroup::Cp, CommPurpose::KvChunk}] == 3);
  CHECK(std::get<RowOp>(find(block, role::norm(NormSite::Input)).op.shape).rows == 64);  // 256 / 4
}

TEST_CASE("sharding: a ring hop is a send/recv of 2 ranks, across the network once cp spans nodes",
          "[parallel][sharding]") {
  auto hop = [](int64_t tp, int64_t cp) {
    ParallelConfig p = strategy(tp);
    p.cp = cp, p.gpus = tp * cp;
    OpGraph g = build_rank_graph(tiny(), train_run(256), p, node8);
    const GraphSection& block = section(g, SectionKind::DecoderBlock);
    for (OpVertex v : launch_order(block))
      if (block.dag()[v].role.purpose == CommPurpose::KvChunk)
        return std::get<CollectiveOp>(block.dag()[v].op.shape);
    FAIL("no ring hop");
    return CollectiveOp{};
  };
  CollectiveOp in_node = hop(2, 4);  // 8 GPUs: the ring inside one node
  CHECK(in_node.ranks == 2);
  CHECK(in_node.ranks_per_node == 2);
  CollectiveOp across = hop(4, 4);  // 16 GPUs: 2 of the 4 cp ranks a node
  CHECK(across.ranks == 2);
  CHECK(across.ranks_per_node == 1);
  // cp 4 and 8 are predicted end to end (send/recv takes 2 ranks; cp > 2 once failed here)
  const ClusterSpec dgx = load_cluster("dgx-h100");
  for (int64_t cp : {4, 8}) {
    ParallelConfig p = strategy(1);
    p.cp = cp, p.gpus = cp;
    ParallelPrediction out = predict_parallel(tiny(), train_run(1024), p, dgx, load_gpu(dgx.gpu));
    CHECK(out.total_us > 0);
  }
}

TEST_CASE("sharding: expert parallelism dispatches and combines tokens by all-to-all",
          "[parallel][sharding]") {
  ModelConfig m = tiny();
  m.moe = {8, 2, 128};
  ParallelConfig p = strategy(1, 1, 4);
  p.ep = 4;
  p.global_batch = 4;
  OpGraph g = build_rank_graph(m, train_run(), p, node8);
  CHECK(collectives(section(g, SectionKind::DecoderBlock))[{CommGroup::Ep, CommPurpose::Tokens}] ==
        2);
  CHECK(collectives(section(g, SectionKind::BlockBackward))[{CommGroup::Ep, CommPurpose::Tokens}] ==
        2);
  // 128 tokens x 4 ranks, top-2 of 8 experts: all 8 receive tokens, 2 per rank, 128 rows each.
  const GemmOp& gu =
      gemm_of(find(section(g, SectionKind::DecoderBlock), role::gemm(Projection::ExpertsGateUp)));
  CHECK(gu.groups == Approx(2.0));
  CHECK(gu.m == 128);
}

TEST_CASE("sharding: group sizes and their ranks per node", "[parallel][sharding]") {
  ParallelConfig p = strategy(4, 4, 8);  // 128 GPUs, 8 a node
  p.cp = 1;
  CHECK(group_ranks_per_node(CommGroup::Tp, p, 8) == 4);
  CHECK(group_ranks_per_node(CommGroup::Dp, p, 8) == 2);  // stride 4
  CHECK(group_ranks_per_node(CommGroup::Pp, p, 8) == 1);  // stride 32
  CHECK(group_ranks(CommGroup::Dp, p) == 8);
}
