// Rule tests of pipeline-parallel serving: a request whose batch is still in the pipeline keeps
// its seat and its KV but is neither scheduled nor preempted (vLLM, TensorRT-LLM, SGLang); the
// simulator keeps up to pp batches in flight, each passing the pp stages in turn (the last with
// the LM head), requests riding in the batch they joined (vLLM's natural grouping); one stage is
// exactly the one-step loop; the multi-GPU step model prices one stage (layers / pp, the send to
// the next stage) and holds 1/pp of the layers' weights and KV a GPU.
#include "common/errors.h"
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "model/serving_parallel_step.h"
#include "serve/parallel_step_model.h"
#include "serve/simulator.h"
#include "serve_test_helpers.h"

#include <catch2/catch.hpp>

using namespace ridgeline;
using namespace ridgeline::test;

namespace {

using Work = std::vector<std::pair<int, int64_t>>;

// A step model of fixed stage time, `stages` pipeline stages, `edge_us` of it the last stage's.
class StagedModel : public FixedStepModel {
 public:
  StagedModel(double stage_us, int64_t stages, double edge_us = 0)
      : FixedStepModel(stage_us, 0), stages_(stages), edge_(edge_us) {}
  int64_t pipeline_stages() const override { return stages_; }
  double pipeline_edge_us(const StepShape&) override { return edge_; }

 private:
  int64_t stages_;
  double edge_;
};

SimResult run(StepModel& m, const std::vector<Request>& r, double host_us = 0) {
  EngineConfig e = engine_json("vllm_v1", 1024, 64, 16, "", host_us);
  SimOptions opt;
  opt.arrivals.kind = ArrivalSpec::Kind::Trace;
  opt.kv_blocks = 1000;
  opt.record_steps = true;
  return simulate(r, e, m, opt);
}

}  // namespace

TEST_CASE("pipeline: a request in flight keeps its seat but is not scheduled", "[serve][pp]") {
  std::vector<Request> r = {{0, 0, 4, 5}, {1, 0, 4, 5}, {2, 0, 4, 5}, {3, 0, 4, 5}};
  const std::string sglang = R"(, "new_token_ratio": {"init": 0.7, "min_fraction_of_init": 0.14,
    "decay_steps": 600, "clip_max_new_tokens": 4096}, "mixed_chunk": false)";
  const std::vector<std::pair<std::string, std::string>> policies = {
      {"vllm_v1", ""},
      {"trtllm", R"(, "capacity_policy": "guaranteed_no_evict")"},
      {"sglang", sglang}};
  for (const auto& [policy, knobs] : policies) {
    CAPTURE(policy);
    EngineConfig e = engine_json(policy, 100, 3, 16, knobs);
    EngineState s = state_for(r, 100, 16);
    auto p = make_policy(e);
    StepPlan first = p->schedule(s);  // admits three (max_num_seqs 3), their prompts
    REQUIRE(first.work.size() == 3);
    s.seqs[0].in_flight = s.seqs[1].in_flight = true;
    s.seqs[2].computed = 4, s.seqs[2].generated = 1;  // back: decoding
    s.seqs[0].computed = s.seqs[1].computed = 4, s.seqs[0].generated = s.seqs[1].generated = 1;
    StepPlan next = p->schedule(s);
    CHECK(next.work == Work{{2, 1}});  // only the request not in flight
    CHECK(s.running.size() == 3);      // in flight still holds its seat: 3 is the cap
    s.seqs[0].in_flight = s.seqs[1].in_flight = false;  // back
    CHECK(p->schedule(s).work.size() == 3);             // all three decode again
  }
}

TEST_CASE("pipeline: preemption takes the newest request not in flight", "[serve][pp]") {
  // Two running requests fill both blocks; the newer one is in flight. The older needs a block
  // for its next token: with the newer in flight, nothing can be preempted but itself.
  std::vector<Request> r = {{0, 0, 16, 5}, {1, 0, 16, 5}};
  EngineConfig e = engine_json("vllm_v1", 100, 10, 16);
  for (bool newer_in_flight : {false, true}) {
    CAPTURE(newer_in_flight);
    EngineState s = state_for(r, 2, 16);
    auto p = make_policy(e);
    REQUIRE(p->schedule(s).work == Work{{0, 16}, {1, 16}});
    for (int i : {0, 1}) s.seqs[(size_t)i].computed = 16, s.seqs[(size_t)i].generated = 1;
    s.seqs[1].in_flight = newer_in_flight;
    StepPlan plan = p->schedule(s);
    CHECK(s.preemptions == 1);
    if (newer_in_flight) {
      CHECK(plan.empty());  // the older one preempted itself; the newer is untouched
      CHECK(s.seqs[1].blocks == 1);
      CHECK(s.seqs[0].blocks == 0);
    } else {
      CHECK(plan.work == Work{{0, 1}});  // the newer one made room
      CHECK(s.seqs[1].blocks == 0);
    }
  }
}

TEST_CASE("pipeline: one stage is the one-step loop", "[serve][pp]") {
  std::vector<Request> r = {{0, 0, 64, 4}, {1, 0.0002, 64, 4}};
  FixedStepModel flat(100, 0);
  StagedModel one(100, 1);
  SimResult a = run(flat, r, 10), b = run(one, r, 10);
  REQUIRE(a.steps.size() == b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    CHECK(a.steps[i].start_s == b.steps[i].start_s);
    CHECK(a.steps[i].end_s == b.steps[i].end_s);
  }
  CHECK(a.requests[1].finish_s == b.requests[1].finish_s);
}

TEST_CASE("pipeline: a batch passes every stage, the last with the head", "[serve][pp]") {
  // One request alone: each token waits for its batch to pass both stages.
  std::vector<Request> r = {{0, 0, 64, 4}};
  StagedModel two(100, 2), edged(100, 2, 30), one(100, 1);
  SimResult a = run(two, r), b = run(edged, r), c = run(one, r);
  CHECK(c.requests[0].finish_s == Approx(4 * 100e-6));
  CHECK(a.requests[0].finish_s == Approx(4 * 200e-6));             // 2 stages of 100 us a token
  CHECK(b.requests[0].finish_s == Approx(4 * (70 + 100) * 1e-6));  // the first stage has no head
  CHECK(a.steps.size() == 4);
}

TEST_CASE("pipeline: requests ride in the batch they joined, pp batches fill the stages",
          "[serve][pp]") {
  StagedModel two(100, 2);
  // Arriving together: one batch, the second slot idle, a token every two stages.
  SimResult together = run(two, {{0, 0, 64, 10}, {1, 0, 64, 10}});
  CHECK(together.requests[1].finish_s == Approx(10 * 200e-6));
  CHECK(together.step_count == 10);
  // Arriving while the first's batch is in flight with nothing else to schedule: the engine
  // waits for that batch (vLLM V1 blocks on the oldest), so the second joins the first's next
  // batch and they ride together from then on: the prefill step alone, then 10 together.
  SimResult late = run(two, {{0, 0, 64, 10}, {1, 50e-6, 64, 10}});
  CHECK(late.step_count == 11);
  CHECK(late.requests[1].first_token_s == Approx(400e-6));
  // Arriving before the host schedules again (10 us a batch): the second gets the other slot and
  // both make a token every two stages, interleaved, the second one stage behind.
  SimResult apart = run(two, {{0, 0, 64, 10}, {1, 5e-6, 64, 10}}, 10);
  CHECK(apart.step_count == 20);
  for (const StepRecord& st : apart.steps) CHECK(st.slot == (&st - apart.steps.data()) % 2);
  double gap = apart.requests[1].finish_s - apart.requests[0].finish_s;
  CHECK(gap > 90e-6);
  CHECK(gap < 120e-6);
  CHECK(apart.requests[0].finish_s < 10 * 230e-6);
  // The same two on one stage of the same total time: one batch after the prefill, slower.
  StagedModel flat(200, 1);
  SimResult serial = run(flat, {{0, 0, 64, 10}, {1, 5e-6, 64, 10}}, 10);
  CHECK(serial.requests[1].finish_s > apart.requests[1].finish_s);
}

TEST_CASE("pipeline: the host schedules the next batch while the first is in flight",
          "[serve][pp]") {
  // Host overhead 10 us a batch: the second batch is launched 10 us after the first and enters
  // the first stage when the first batch has left it.
  StagedModel two(100, 2);
  SimResult s = run(two, {{0, 0, 64, 2}, {1, 5e-6, 64, 2}}, 10);
  REQUIRE(s.steps.size() >= 2);
  CHECK(s.steps[0].start_s == 0);
  CHECK(s.steps[0].end_s == Approx(210e-6));
  CHECK(s.steps[1].start_s == Approx(10e-6));
  CHECK(s.steps[1].end_s == Approx(310e-6));  // stage 0 free at 110, stage 1 at 210
}

namespace {

const ClusterSpec& hgx() {
  static const ClusterSpec c = load_cluster("hgx-h200");
  return c;
}
ParallelStepModel staged(int64_t tp, int64_t pp) {
  static const GpuSpec g = load_gpu(hgx().gpu);
  static const ModelConfig m = load_model("llama-3-70b");
  RunConfig r;
  r.runtime = load_runtime("fused");
  ParallelConfig p;
  p.tp = tp;
  p.pp = pp;
  return ParallelStepModel(g, hgx(), m, r, p);
}

}  // namespace

TEST_CASE("pipeline: a stage is layers / pp with the send, the head only once", "[serve][pp]") {
  ParallelStepModel one = staged(2, 1), two = staged(2, 2);
  CHECK(one.pipeline_stages() == 1);
  CHECK(two.pipeline_stages() == 2);
  CHECK(two.gpus() == 4);
  StepShape s{575, 64, {{1, 512, 1536}, {63, 1, 2000}}};
  CHECK(one.pipeline_edge_us(s) == 0);
  double edge = two.pipeline_edge_us(s), last = two.step_us(s), inner = last - edge;
  CHECK(edge > 0);
  RunConfig r;
  r.runtime = load_runtime("fused");
  ParallelConfig p;
  p.tp = 2;
  p.pp = 2;
  double send = serving_stage_send_us(hgx(), load_model("llama-3-70b"), r, p, 575);
  CHECK(send > 0);
  // Two stages' layers and the head once make the one-stage step, with a send per stage.
  CHECK(inner + last - 2 * send == Approx(one.step_us(s)).epsilon(0.01));
  CHECK(last < 0.6 * one.step_us(s));
}

TEST_CASE("pipeline: a GPU holds 1/pp of the layers' weights and KV", "[serve][pp]") {
  ParallelStepModel one = staged(2, 1), two = staged(2, 2);
  CHECK(two.memory().kv_bytes_per_token == Approx(one.memory().kv_bytes_per_token / 2));
  CHECK(two.memory().weights_bytes < 0.56 * one.memory().weights_bytes);
  CHECK(two.memory().weights_bytes > 0.45 * one.memory().weights_bytes);
  CHECK_THROWS_WITH(staged(2, 3), Catch::Contains("--pp") && Catch::Contains("80 layers"));
}
