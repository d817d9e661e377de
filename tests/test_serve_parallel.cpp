// Rule tests of the multi-GPU serving step model (serve/parallel_step_model.h): TP 1 is the
// single-GPU step model, TP N holds 1/N of the KV heads and about 1/N of the weights a GPU, its
// step carries two all-reduces a layer (and the vocab-parallel embedding's) of the step's tokens
// on the cluster's links, a decode step agrees with predict_parallel's, and the splits it cannot
// take are errors naming the flag.
#include "common/errors.h"
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "model/collective_cost.h"
#include "model/parallel_predict.h"
#include "serve/gpu_step_model.h"
#include "serve/parallel_step_model.h"

#include <catch2/catch.hpp>

using namespace ridgeline;

namespace {

const ClusterSpec& hgx() {
  static const ClusterSpec c = load_cluster("hgx-h200");
  return c;
}
const GpuSpec& h200() {
  static const GpuSpec g = load_gpu(hgx().gpu);
  return g;
}
const ModelConfig& llama70() {
  static const ModelConfig m = load_model("llama-3-70b");
  return m;
}
RunConfig bf16() {
  RunConfig r;
  r.runtime = load_runtime("fused");
  return r;
}
ParallelStepModel tp_model(int64_t tp, int64_t pp = 1, int64_t ep = 1) {
  ParallelConfig p;
  p.tp = tp;
  p.pp = pp;
  p.ep = ep;
  return ParallelStepModel(h200(), hgx(), llama70(), bf16(), p);
}
// A mixed step: a 512-token prefill chunk over 1024 cached and 63 decodes at 2000.
StepShape mixed() {
  return {575, 64, {{1, 512, 1536}, {63, 1, 2000}}};
}

}  // namespace

TEST_CASE("serve tp: TP 1 prices a step as the single-GPU step model", "[serve][tp]") {
  ParallelStepModel one = tp_model(1);
  GpuStepModel gpu(h200(), llama70(), bf16());
  CHECK(one.step_us(mixed()) == Approx(gpu.step_us(mixed())).epsilon(1e-9));
  CHECK(one.memory().kv_bytes_per_token == gpu.memory().kv_bytes_per_token);
  CHECK(one.memory().weights_bytes == Approx(gpu.memory().weights_bytes).epsilon(1e-3));
  CHECK(one.gpus() == 1);
  CHECK(one.tp_comm_us(575, 64) == 0);
}

TEST_CASE("serve tp: a GPU holds 1/tp of the KV heads and about 1/tp of the weights",
          "[serve][tp]") {
  ParallelStepModel one = tp_model(1), two = tp_model(2), four = tp_model(4);
  CHECK(two.memory().kv_bytes_per_token == one.memory().kv_bytes_per_token / 2);
  CHECK(four.memory().kv_bytes_per_token == one.memory().kv_bytes_per_token / 4);
  // Norms are replicated: a little more than half.
  CHECK(two.memory().weights_bytes > one.memory().weights_bytes / 2);
  CHECK(two.memory().weights_bytes < one.memory().weights_bytes / 2 * 1.01);
  CHECK(two.memory().reserved_bytes == one.memory().reserved_bytes + kNcclBufferBytes);
  CHECK(four.gpus() == 4);
  // KV heads fewer than tp (8 heads, tp 8 would still divide): each rank one head.
  CHECK(tp_model(8).memory().kv_bytes_per_token == one.memory().kv_bytes_per_token / 8);
}

TEST_CASE("serve tp: the step carries 2 all-reduces a layer and the embedding's, on the cluster",
          "[serve][tp]") {
  ParallelStepModel two = tp_model(2);
  const int64_t tokens = 512;
  CollectiveOp ar{CollectiveKind::AllReduce, (double)tokens * 8192 * 2, 2, 2, DType::Bf16};
  double one_us = collective_cost(ar, hgx()).time_us;
  CHECK(two.tp_comm_us(tokens, 8) == Approx((2 * 80 + 1) * one_us).epsilon(1e-9));
  // More tokens, more bytes: the all-reduces grow.
  CHECK(two.tp_comm_us(4096, 8) > two.tp_comm_us(tokens, 8));
  // And TP 2 is faster than one GPU but not twice (the all-reduces are on the critical path).
  ParallelStepModel one = tp_model(1);
  double t1 = one.step_us(mixed()), t2 = two.step_us(mixed());
  CHECK(t2 < t1);
  CHECK(t2 > t1 / 2);
}

TEST_CASE("serve tp: a decode step agrees with predict_parallel's decode step", "[serve][tp]") {
  ParallelStepModel two = tp_model(2);
  RunConfig r = bf16();
  r.phase = Phase::Decode;
  r.batch = 64;
  r.kv_len = 2047;
  ParallelConfig p;
  p.tp = 2;
  p.gpus = 2;
  p.global_batch = 1;
  ParallelPrediction want = predict_parallel(llama70(), r, p, hgx(), h200());
  double got = two.step_us({64, 64, {{64, 1, 2048}}});
  CHECK(got == Approx(want.total_us).epsilon(0.05));
}

TEST_CASE("serve tp: splits the model cannot take are errors naming the flag", "[serve][tp]") {
  CHECK_THROWS_WITH(tp_model(3), Catch::Contains("--tp") && Catch::Contains("heads"));
  CHECK_THROWS_WITH(tp_model(16), Catch::Contains("--tp") && Catch::Contains("larger than"));
  CHECK_THROWS_WITH(tp_model(2, 3), Catch::Contains("--pp") && Catch::Contains("do not divide"));
  CHECK_THROWS_WITH(tp_model(2, 1, 2), Catch::Contains("--ep 2 with --tp 2"));
}
