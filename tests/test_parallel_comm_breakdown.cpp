// The communication breakdown of predict_parallel (parallel_predict.h), both sides of each cap:
//  - pipeline group: the sends delay the step by the sends on its critical path; one GPU's
//    exposed share is that delay up to its own transfers (the rest is its wait on other stages);
//  - comm stream: collectives of different communicators (ZeRO-3's gathers beside TP) that run
//    at once count once, so it never exceeds the iteration; when nothing runs at once it is the
//    sum of the groups' times;
//  - a group that a node's share does not divide (NVL72: 72 GPUs) takes the largest even share;
//  - the GB200 GPU file the NVL72 cluster uses.
#include "hardware/cluster_spec.h"
#include "hardware/derived.h"
#include "model/parallel_predict.h"
#include "parallel_fixture.h"
#include "test_helpers.h"
#include "workloads/sharding.h"

#include <numeric>

using namespace ridgeline;
using ridgeline::test::dgx;
using ridgeline::test::dgx_gpu;

namespace {

// Llama-shaped, 8 layers of h 1024, 16 heads (8 KV heads): TP 8 and PP 4 divide it.
const ModelConfig& model8() {
  static const ModelConfig m = load_model_text(R"({"model_type": "llama", "hidden_size": 1024,
      "intermediate_size": 4096, "num_hidden_layers": 8, "num_attention_heads": 16,
      "num_key_value_heads": 8, "vocab_size": 32000, "max_position_embeddings": 4096,
      "hidden_act": "silu", "tie_word_embeddings": false})",
                                               "model8");
  return m;
}

double sum(const GroupTimes& t) {
  return std::accumulate(t.begin(), t.end(), 0.0);
}

ParallelPrediction run(RunConfig r, ParallelConfig p) {
  p.gpus = p.tp * p.pp * p.dp * p.cp;
  return predict_parallel(model8(), r, p, dgx(), dgx_gpu());
}

}  // namespace

TEST_CASE("parallel comm: a prefill pipeline's exposed sends stop at the GPU's own transfer",
          "[parallel][predict]") {
  RunConfig r;
  r.phase = Phase::Prefill, r.batch = 1, r.seq = 512;
  ParallelConfig p;
  p.pp = 4;
  ParallelPrediction x = run(r, p);
  const int pp = (int)CommGroup::Pp;
  double send = x.stages[0].send_us;
  REQUIRE(send > 0);
  // The last stage receives one activation, but the step waits on 3 sends, one per hop.
  double work = 0;
  for (const StageTime& s : x.stages) work += s.forward_us;
  CHECK(x.total_us == Approx(work + 3 * send).epsilon(1e-9));
  CHECK(x.comm_us[pp] == Approx(send).epsilon(1e-12));
  CHECK(x.exposed_comm_us[pp] == Approx(x.comm_us[pp]).epsilon(1e-12));  // capped: 1 of 3
}

TEST_CASE("parallel comm: a long 1F1B pipeline hides most of its sends", "[parallel][predict]") {
  RunConfig r;
  r.phase = Phase::Train, r.batch = 1, r.seq = 512;
  ParallelConfig p;
  p.pp = 4, p.microbatch = 1, p.global_batch = 32;
  ParallelPrediction x = run(r, p);
  const int pp = (int)CommGroup::Pp;
  double send = x.stages[0].send_us;
  CHECK(x.comm_us[pp] == Approx(2 * 32 * send).epsilon(1e-12));  // each micro-batch's 2 sends
  CHECK(x.exposed_comm_us[pp] > 0);                              // the warm-up's are not hidden
  CHECK(x.exposed_comm_us[pp] < 0.5 * x.comm_us[pp]);            // below the cap
}

TEST_CASE("parallel comm: ZeRO-3 gathers beside TP count once on the comm stream",
          "[parallel][predict]") {
  RunConfig r;
  r.phase = Phase::Train, r.batch = 2, r.seq = 512;
  ParallelConfig p;
  p.tp = 8, p.dp = 4, p.cp = 2, p.zero = 3, p.microbatch = 2, p.global_batch = 64;
  ParallelPrediction x = run(r, p);
  const double comm = x.time_by_stream_us[(int)Stream::Comm];
  CHECK(sum(x.comm_us) > x.total_us);  // the groups' collectives overlap one another
  CHECK(comm <= x.total_us);
  for (double g : x.comm_us) CHECK(comm >= g);  // at least each group's own busy time
}

TEST_CASE("parallel comm: without ZeRO-3 the comm stream is the groups' sum",
          "[parallel][predict]") {
  RunConfig r;
  r.phase = Phase::Train, r.batch = 1, r.seq = 128;
  ParallelConfig p;
  p.tp = 2, p.sp = true, p.pp = 2, p.dp = 2, p.zero = 1, p.microbatch = 1, p.global_batch = 8;
  ParallelPrediction x = run(r, p);
  CHECK(x.time_by_stream_us[(int)Stream::Comm] == Approx(sum(x.comm_us)).epsilon(1e-12));
  CHECK(x.time_by_stream_us[(int)Stream::Comm] < x.total_us);
}

TEST_CASE("parallel: a group a node's share does not divide takes the largest even share",
          "[parallel][sharding]") {
  CHECK(even_ranks_per_node(32, 8) == 8);    // divides: the node's share as it is
  CHECK(even_ranks_per_node(4, 8) == 4);     // the group fits in a node
  CHECK(even_ranks_per_node(32, 18) == 16);  // 72 GPUs / stride 4 = 18 of 32: 16 per node
  CHECK(even_ranks_per_node(7, 6) == 1);     // a prime group: one per node
  CHECK(even_ranks_per_node(5, 0) == 1);     // a stride above the node: one per node
  ParallelConfig p;
  p.tp = 4, p.dp = 32, p.gpus = 128;
  CHECK(group_ranks_per_node(CommGroup::Dp, p, 72) == 16);
  CHECK(group_ranks_per_node(CommGroup::Dp, p, 8) == 2);
}

TEST_CASE("gb200: the NVL72 cluster's GPU, with the 1200 W GB200 peaks", "[hardware]") {
  const ClusterSpec c = load_cluster("gb200-nvl72");
  CHECK(c.gpu == "gb200");
  const GpuSpec g = load_gpu(c.gpu);
  CHECK(peak_tflops(g, MathUnit::TensorBf16) == Approx(2500).epsilon(0.01));
  CHECK(peak_tflops(g, MathUnit::TensorFp8) == Approx(5000).epsilon(0.01));
  CHECK(g.memory.hbm.bandwidth_GBps.value == 8000);
  CHECK(g.memory.hbm.capacity_bytes.value == 186e9);
}
