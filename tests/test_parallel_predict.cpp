// predict_parallel (model/parallel_predict.h) end to end, by rule: one GPU on a cluster is the
// single-GPU prediction; an even pipeline's bubble is the schedule's (p-1)/m; data-parallel
// gradient reduction overlaps the last backward and only its tail is exposed; ZeRO, recomputation
// and TP move time the way they must; MFU follows its stated formula.
#include "hardware/cluster_spec.h"
#include "model/parallel_predict.h"
#include "model/prediction.h"
#include "parallel_fixture.h"
#include "test_helpers.h"
#include "workloads/graph_builder.h"
#include "workloads/runtime_profile.h"

using namespace ridgeline;
using ridgeline::test::dgx;
using ridgeline::test::dgx_gpu;
using ridgeline::test::strategy;
using ridgeline::test::tiny;
using ridgeline::test::train_run;

namespace {

ParallelPrediction predict(const ModelConfig& m, RunConfig r, const ParallelConfig& p) {
  r.batch = p.microbatch;
  return predict_parallel(m, r, p, dgx(), dgx_gpu());
}

}  // namespace

TEST_CASE("parallel predict: one GPU is the single-GPU step", "[parallel][predict]") {
  ModelConfig m = tiny();
  m.vocab = 1024;  // a multiple of 128: Megatron's padding changes nothing
  RunConfig r = train_run();
  ParallelPrediction p = predict(m, r, strategy(1, 1, 1, 1));
  Prediction one = predict_workload(build_graph(m, r), m, r, dgx_gpu());
  CHECK(p.total_us == Approx(one.total_us).epsilon(1e-9));
  CHECK(p.bubble_fraction == 0);
  for (double e : p.exposed_comm_us) CHECK(e == 0);
}

TEST_CASE("parallel predict: one GPU is the single-GPU step under every launch",
          "[parallel][predict]") {
  // hf-transformers in eager launch (a host table per op kind, per-block and per-forward time)
  // and torch-compile's CUDA graphs (the replay lead before the first kernel) schedule as the
  // single-GPU prediction does.
  ModelConfig m = tiny();
  m.vocab = 1024;
  for (const char* rt : {"hf-transformers", "torch-compile"}) {
    RunConfig r;
    r.phase = Phase::Decode;
    r.batch = 4;
    r.kv_len = 256;
    r.runtime = load_runtime(rt);
    r.launch = std::string(rt) == "torch-compile" ? LaunchMode::Graph : LaunchMode::Eager;
    INFO(rt);
    ParallelConfig one_gpu = strategy(1, 1, 1, 4);
    one_gpu.microbatch = 4;
    ParallelPrediction p = predict_parallel(m, r, one_gpu, dgx(), dgx_gpu());
    Prediction one = predict_workload(build_graph(m, r), m, r, dgx_gpu());
    CHECK(p.total_us == Approx(one.total_us).epsilon(1e-9));
    if (r.launch == LaunchMode::Graph) {  // the lead is in both
      REQUIRE(r.runtime.graph_replay_us > 0);
      RunConfig none = r;
      none.runtime.graph_replay_us = 0;
      double without = predict_parallel(m, none, one_gpu, dgx(), dgx_gpu()).total_us;
      CHECK(p.total_us - without == Approx(r.runtime.graph_replay_us).epsilon(1e-9));
    }
  }
}

TEST_CASE("parallel predict: gradient accumulation runs the micro-batches one after another",
          "[parallel][predict]") {
  double one = predict(tiny(), train_run(), strategy(1, 1, 1, 1)).total_us;
  CHECK(predict(tiny(), train_run(), strategy(1, 1, 1, 4)).total_us == Approx(4 * one));
}

TEST_CASE("parallel predict: an even pipeline's bubble is (p-1)/m", "[parallel][predict]") {
  ModelConfig m = load_model("llama-3-8b");  // layers of ms, sends of us
  RunConfig r = train_run(2048);
  r.blocks = 8;  // no embedding or head: every stage the same
  for (int64_t mb : {3, 4, 8}) {
    ParallelPrediction p = predict(m, r, strategy(1, 4, 1, mb));
    INFO("m=" << mb);
    // The sends between stages add a little to the ideal (p-1)/m.
    CHECK(p.bubble_fraction >= ideal_bubble_fraction(PipelineSchedule::OneFOneB, 4, 1, mb));
    CHECK(p.bubble_fraction == Approx(3.0 / mb).epsilon(0.03));
  }
}

TEST_CASE("parallel predict: interleaving shrinks the bubble", "[parallel][predict]") {
  ModelConfig m = tiny();
  m.layers = 8;
  RunConfig r = train_run();
  r.blocks = 8;
  ParallelConfig plain = strategy(1, 4, 1, 8), inter = plain;
  inter.schedule = PipelineSchedule::Interleaved;
  inter.vp = 2;
  CHECK(predict(m, r, inter).bubble_fraction < predict(m, r, plain).bubble_fraction);
}

TEST_CASE("parallel predict: data parallelism hides most of the gradient all-reduce",
          "[parallel][predict]") {
  ModelConfig m = load_model("llama-3-8b");
  RunConfig r = train_run(4096);
  r.blocks = 2;
  ParallelPrediction p = predict(m, r, strategy(1, 1, 8, 8));
  int dp = (int)CommGroup::Dp;
  CHECK(p.comm_us[dp] > 0);
  CHECK(p.exposed_comm_us[dp] < p.comm_us[dp]);
  CHECK(p.exposed_comm_us[dp] >= 0);
  ParallelPrediction alone = predict(m, r, strategy(1, 1, 1, 1));
  CHECK(p.total_us > alone.total_us);  // the exposed tail and the slowdown
  CHECK(p.total_us < alone.total_us + p.comm_us[dp]);
}

TEST_CASE("parallel predict: ZeRO 1 adds the parameter all-gather, shrinks the optimizer step",
          "[parallel][predict]") {
  ModelConfig m = load_model("llama-3-8b");
  RunConfig r = train_run(2048);
  r.blocks = 2;
  r.optimizer = Optimizer::AdamW;
  ParallelConfig z0 = strategy(1, 1, 8, 8), z1 = z0;
  z1.zero = 1;
  ParallelPrediction a = predict(m, r, z0), b = predict(m, r, z1);
  CHECK(b.memory.optimizer_bytes == Approx(a.memory.optimizer_bytes / 8));
  CHECK(b.memory.total() < a.memory.total());
}

TEST_CASE("parallel predict: recomputation costs time, saves memory", "[parallel][predict]") {
  RunConfig r = train_run();
  ParallelConfig none = strategy(2, 1, 1, 1), sel = none, full = none;
  sel.recompute = Recompute::Selective;
  full.recompute = Recompute::Full;
  RunConfig rs = r, rf = r;
  rs.recompute = Recompute::Selective;
  rf.recompute = Recompute::Full;
  ParallelPrediction a = predict(tiny(), r, none), b = predict(tiny(), rs, sel),
                     c = predict(tiny(), rf, full);
  CHECK(a.total_us < b.total_us);
  CHECK(b.total_us < c.total_us);
  CHECK(c.memory.activation_bytes < a.memory.activation_bytes);
  CHECK(a.model_flops == c.model_flops);  // recomputation is not model FLOPs
}

TEST_CASE("parallel predict: TP adds exposed all-reduces", "[parallel][predict]") {
  ParallelPrediction p = predict(tiny(), train_run(), strategy(2, 1, 1, 1));
  int tp = (int)CommGroup::Tp;
  CHECK(p.comm_us[tp] > 0);
  CHECK(p.exposed_comm_us[tp] > 0);
  CHECK(p.exposed_comm_us[tp] <= p.comm_us[tp]);
}

TEST_CASE("parallel predict: model FLOPs as stated", "[parallel][predict]") {
  // tiny-llama: a layer has 590336 parameters; 2 layers + the LM head 256000 = 1436672 N.
  RunConfig r = train_run();
  ParallelConfig p = strategy(1, 1, 1, 4);
  double tokens = 4 * 128;
  double attention = 4 * 2 * tokens * 128 * 256 * 0.5;  // 4 layers tokens seq heads*head_dim / 2
  CHECK(model_flops(tiny(), r, p) == Approx(3 * (2 * 1436672 * tokens + attention)));
  ParallelPrediction pr = predict(tiny(), r, p);
  CHECK(pr.mfu == Approx(pr.model_flops / (pr.total_us * 1e-6 * pr.peak_flops_per_s)));
  CHECK(pr.mfu > 0);
  CHECK(pr.mfu < 1);
}

TEST_CASE("parallel predict: decode under TP all-reduces every layer", "[parallel][predict]") {
  ModelConfig m = load_model("llama-3-70b");
  RunConfig r;
  r.phase = Phase::Decode;
  r.batch = 8;
  r.kv_len = 1024;
  ParallelConfig p;
  p.tp = 8, p.gpus = 8, p.microbatch = 8, p.global_batch = 8;
  ParallelPrediction pr = predict_parallel(m, r, p, dgx(), dgx_gpu());
  int tp = (int)CommGroup::Tp;
  CHECK(pr.exposed_comm_us[tp] > 0);
  CHECK(pr.memory.kv_cache_bytes > 0);
  CHECK(pr.memory.fits());
  ParallelConfig p4 = p;
  p4.tp = 4, p4.gpus = 4;
  CHECK(predict_parallel(m, r, p4, dgx(), dgx_gpu()).memory.weights_bytes ==
        Approx(2 * pr.memory.weights_bytes).epsilon(0.01));
}

TEST_CASE(
    "parallel predict: a split counting the embedding and the loss drops a layer from "
    "the first and the last chunk",
    "[parallel][predict][rule]") {
  ModelConfig six = tiny(), eight = tiny();
  six.layers = 6, eight.layers = 8;
  ParallelConfig even = strategy(1, 2, 1, 4), counted = even;
  even.vp = counted.vp = 2;
  even.schedule = counted.schedule = PipelineSchedule::Interleaved;
  counted.split_counts_embedding = counted.split_counts_loss = true;
  // 8 layers: chunks of 2; 6 counted: 1 + embedding, 2, 2, 1 + loss. Each stage loses one layer.
  ParallelPrediction a = predict(eight, train_run(), even), b = predict(six, train_run(), counted);
  double first = a.stages[0].forward_us - b.stages[0].forward_us;
  double last = a.stages[1].forward_us - b.stages[1].forward_us;
  CHECK(first > 0);
  CHECK(first == Approx(last));
  CHECK(a.stages[0].backward_us - b.stages[0].backward_us ==
        Approx(a.stages[1].backward_us - b.stages[1].backward_us));
}
