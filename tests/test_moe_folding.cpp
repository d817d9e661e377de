// Megatron's MoE parallel folding (ParallelConfig::etp 1 under tp > 1): the checks on both sides of
// each limit, the per-rank graph (routed experts whole on the rank's sequence shard, no TP
// collective around them, the all-to-all a tp-th of the bytes), the expert-parallel group's layout
// and the memory per GPU against hand-computed cases, and the published rows it lets in.
#include "model/parallel_memory.h"
#include "parallel_fixture.h"
#include "sharding_helpers.h"
#include "test_helpers.h"
#include "training_runs_fixture.h"
#include "workloads/sharding.h"

using namespace ridgeline;
using ridgeline::test::collectives;
using ridgeline::test::find;
using ridgeline::test::section;

namespace {

// tiny-llama with 8 experts, top-2, 128 wide: h 256, 4 heads, 2 KV heads, 2 layers.
ModelConfig tiny_moe() {
  ModelConfig m = test::tiny();
  m.moe = {8, 2, 128};
  return m;
}

RunConfig train_run() {
  return test::train_run(128);
}

// tp 2 with sequence parallelism, dp ranks, ep over them, experts split (etp 0) or whole (etp 1).
ParallelConfig strategy(int64_t dp, int64_t ep, int64_t etp) {
  ParallelConfig p = test::strategy(2, 1, dp, dp);
  p.ep = ep, p.etp = etp, p.sp = true;
  return p;
}

const ClusterLimits node8{"dgx-h100", 8, 64};

double ep_bytes(const GraphSection& s) {
  for (OpVertex v : launch_order(s))
    if (s.dag()[v].role.kind == RoleKind::Collective && s.dag()[v].role.group == CommGroup::Ep)
      return std::get<CollectiveOp>(s.dag()[v].op.shape).bytes;
  FAIL("no expert-parallel collective");
  return 0;
}

void check(const ParallelConfig& p, const ModelConfig& m = tiny_moe()) {
  check_parallel_config(p, m, train_run(), node8);
}

}  // namespace

TEST_CASE("moe folding: etp is the tp or 1, on a MoE model, with sp", "[parallel][moe][errors]") {
  check(strategy(2, 2, 1));  // folded
  check(strategy(2, 2, 2));  // etp = tp: as without --etp
  test::require_input_error([] { check(strategy(2, 2, 3)); }, {"--etp", "got --etp 3"});
  ParallelConfig no_sp = strategy(2, 2, 1);
  no_sp.sp = false;
  test::require_input_error([&] { check(no_sp); }, {"--etp", "needs --sp"});
  ParallelConfig dense = strategy(2, 1, 1);
  test::require_input_error([&] { check(dense, test::tiny()); }, {"--etp", "no experts"});
}

TEST_CASE("moe folding: EP out of tp x cp x dp folded, out of dp otherwise",
          "[parallel][moe][errors]") {
  check(strategy(1, 2, 1));  // ep 2 = tp 2 x dp 1: folded only
  test::require_input_error([] { check(strategy(1, 2, 0)); },
                            {"--ep", "must divide --dp 1", "--etp 1 --sp"});
  check(strategy(2, 4, 1));  // 4 = 2 x 2
  test::require_input_error([] { check(strategy(2, 8, 1)); },
                            {"--ep", "--tp x --cp x --dp", "--ep 8 must divide 4"});
}

TEST_CASE("moe folding: whole experts on the sequence shard, no TP collective around them",
          "[parallel][moe][sharding]") {
  const ModelConfig m = tiny_moe();
  OpGraph split = build_rank_graph(m, train_run(), strategy(2, 2, 0), node8);
  OpGraph folded = build_rank_graph(m, train_run(), strategy(2, 2, 1), node8);
  const GraphSection& fs = section(folded, SectionKind::DecoderBlock);
  const GraphSection& ss = section(split, SectionKind::DecoderBlock);
  const auto& fgu = std::get<GemmOp>(find(fs, role::gemm(Projection::ExpertsGateUp)).op.shape);
  const auto& sgu = std::get<GemmOp>(find(ss, role::gemm(Projection::ExpertsGateUp)).op.shape);
  CHECK(fgu.n == 2 * sgu.n);  // the expert's whole width against half of it
  // 64 tokens of the rank's shard x 2 ranks, top-2 of 8: 32 rows for each of 4 local experts;
  // split, 128 tokens x 2 ranks: 64 rows each.
  CHECK(fgu.groups == Approx(4.0));
  CHECK(fgu.m == Approx(32).margin(1));  // rows rounded as the load model rounds them
  CHECK(sgu.m == 64);
  // Forward TP collectives: split, RS after o_proj and after the MoE, AG after both norms (4);
  // folded, the MoE's RS and the gather of the norm before it go (2).
  CHECK(collectives(ss)[{CommGroup::Tp, CommPurpose::Activations}] == 4);
  CHECK(collectives(fs)[{CommGroup::Tp, CommPurpose::Activations}] == 2);
  // Backward: the experts' gate_up dgrad reduce-scatter goes.
  CHECK(collectives(
            section(folded, SectionKind::BlockBackward))[{CommGroup::Tp, CommPurpose::InputGrad}] ==
        collectives(
            section(split, SectionKind::BlockBackward))[{CommGroup::Tp, CommPurpose::InputGrad}] -
            1);
  // The all-to-alls carry the shard: a tp-th of the bytes.
  CHECK(ep_bytes(fs) == Approx(ep_bytes(ss) / 2));
  CHECK(collectives(fs)[{CommGroup::Ep, CommPurpose::Tokens}] == 2);
}

TEST_CASE("moe folding: the expert group takes consecutive ranks, TP's among them",
          "[parallel][moe][sharding]") {
  ParallelConfig p = strategy(8, 8, 1);  // 16 GPUs: ep 8 over tp 2 x dp 8
  CHECK(group_ranks_per_node(CommGroup::Ep, p, 8) == 8);
  CHECK(p.expert_dp() == 2);             // 16 ranks / (etp 1 x ep 8)
  ParallelConfig q = strategy(8, 8, 0);  // split: ep 8 of the dp ranks, stride tp
  CHECK(group_ranks_per_node(CommGroup::Ep, q, 8) == 4);
  CHECK(q.expert_dp() == 1);  // dp 8 / ep 8
}

TEST_CASE("moe folding: memory holds experts / ep whole, replicated over tp x dp / ep",
          "[parallel][moe][memory]") {
  const ModelConfig m = tiny_moe();
  // Experts of one layer: 8 x 3 x 256 x 128 = 786432 parameters.
  double experts = routed_expert_parameters(m);
  CHECK(experts == Approx(786432));
  StageParams folded = stage_parameters(m, train_run(), strategy(2, 4, 1), 0);
  StageParams split = stage_parameters(m, train_run(), strategy(2, 2, 0), 0);
  CHECK(folded.layer_experts == Approx(experts / 4));       // 2 of 8 experts, whole
  CHECK(split.layer_experts == Approx(experts / (2 * 2)));  // 4 of 8, half of each
  CHECK(folded.layer_dense == Approx(split.layer_dense));
  // Same tp 2 x dp 2 x ep 2: folded, 4 whole experts a rank (bf16: 2 bytes a parameter); split,
  // 4 halves. Under ZeRO-1 the optimizer state (12 bytes) spreads over the expert-dp ranks:
  // folded 4 / 2 = 2 of them, split dp 2 / ep 2 = 1, so the same bytes a rank.
  ParallelConfig f = strategy(2, 2, 1), s = strategy(2, 2, 0);
  f.zero = s.zero = 1;
  ParallelMemory mf = stage_memory(m, train_run(), f, 0, 80e9, 0);
  ParallelMemory ms = stage_memory(m, train_run(), s, 0, 80e9, 0);
  CHECK(mf.weights_bytes - ms.weights_bytes ==
        Approx(2.0 * m.layers * (experts / 2 - experts / 4)));
  CHECK(mf.optimizer_bytes == Approx(ms.optimizer_bytes));
}

TEST_CASE("moe folding: published rows with EP beyond dp run folded", "[validate][training]") {
  const TrainingRunCase* qwen = test::find_training_case("megatron_bridge_perf#0242");
  REQUIRE(qwen);  // Qwen3-235B-A22B on 256 H100s: tp 2, pp 8, dp 16, ep 32
  CHECK(qwen->parallel.etp == 1);
  CHECK(qwen->parallel.moe_folded());
  const TrainingRunCase* grok = test::find_training_case("dgxc_benchmarking#0647");
  REQUIRE(grok);  // Grok-1 on H100s: etp 1 printed beside tp 4
  CHECK(grok->parallel.etp == 1);
  const TrainingRunCase* split = test::find_training_case("dgxc_benchmarking#0644");
  REQUIRE(split);  // Grok-1 on GB200: etp 4 = tp printed
  CHECK_FALSE(split->parallel.moe_folded());
}
