// Rule tests of disaggregated prefill/decode serving (serve/disaggregated.h) on hand-worked
// cases: a request's TTFT is its prefill plus its KV transfer, it decodes only from when its KV
// has arrived, a prefill replica sends one KV cache at a time, replicas take GPUs in order (the
// link is NVLink inside a node, the network across), and the flag's errors.
#include "common/errors.h"
#include "serve/disaggregated.h"
#include "serve/workload.h"
#include "serve_test_helpers.h"

#include <catch2/catch.hpp>

using namespace ridgeline;
using namespace ridgeline::test;

namespace {

// 1 ms a step; the FixedStepModel's KV is 131072 B a token, so a 1000-token prompt is 131.072 MB:
// 1.31072 ms at 100 GB/s inside a node, 13.1072 ms at 10 GB/s across nodes.
DisaggSpec layout(int64_t p, int64_t d, int64_t gpus_per_node = 8) {
  DisaggSpec s;
  s.prefill = p;
  s.decode = d;
  s.gpus_per_node = gpus_per_node;
  s.transfer_s = [](double bytes, bool same) { return bytes / (same ? 100e9 : 10e9); };
  return s;
}

ServeRun run(const DisaggSpec& spec, int64_t requests, int64_t output, bool steps = false) {
  static EngineConfig e = engine_json("vllm_v1", 4096, 100, 16, "", 0);
  static FixedStepModel model(1000, 0);
  ServeSetup setup;
  setup.engine = &e;
  setup.model = &model;
  setup.arrivals.kind = ArrivalSpec::Kind::AllAtOnce;
  setup.record_steps = steps;
  setup.disaggregate = &spec;
  Workload w = generate_workload({LengthSpec::Kind::Fixed, 1000, 0},
                                 {LengthSpec::Kind::Fixed, (double)output, 0}, requests, 0);
  KvSizing kv;
  kv.blocks = 10000;
  return run_serving(w, setup, kv);
}

}  // namespace

TEST_CASE("disaggregated: one request's TTFT is its prefill plus its KV transfer") {
  DisaggSpec s = layout(1, 1);
  ServeRun r = run(s, 1, 5, true);
  const RequestRecord& q = r.sim.requests[0];
  CHECK(q.first_token_s * 1e3 == Approx(1 + 1.31072));
  CHECK(r.report.ttft_ms.mean == Approx(2.31072));
  // Four more tokens, 1 ms each, from when the KV arrived.
  CHECK(q.finish_s * 1e3 == Approx(2.31072 + 4));
  CHECK(r.report.tpot_ms.mean == Approx(1));
  REQUIRE(r.disaggregated);
  CHECK(r.disaggregated->transfers == 1);
  CHECK(r.disaggregated->cross_node_transfers == 0);
  CHECK(r.disaggregated->kv_MB_mean == Approx(131.072));
  CHECK(r.report.gpus == 2);
}

TEST_CASE("disaggregated: decode starts only when the KV has arrived") {
  DisaggSpec s = layout(1, 1);
  ServeRun r = run(s, 1, 3, true);
  REQUIRE(r.sim.steps.size() == 3);  // one prefill step, two decode steps
  CHECK(r.sim.steps[0].start_s == 0);
  CHECK(r.sim.steps[0].prefill_tokens == 1000);
  CHECK(r.sim.steps[1].start_s * 1e3 == Approx(2.31072));  // not at 1 ms, when prefill ended
  CHECK(r.sim.steps[1].decodes == 1);
  CHECK(r.sim.steps[1].prefill_tokens == 0);  // the prompt is not computed again
}

TEST_CASE("disaggregated: across nodes the KV crosses the network") {
  DisaggSpec s = layout(1, 1, 1);  // one GPU a node: the decode replica is on the next node
  ServeRun r = run(s, 1, 2);
  CHECK(r.report.ttft_ms.mean == Approx(1 + 13.1072));
  CHECK(r.disaggregated->cross_node_transfers == 1);
}

TEST_CASE("disaggregated: a prefill replica sends one KV cache at a time, two replicas at once") {
  DisaggSpec one = layout(1, 1);
  ServeRun a = run(one, 2, 2);  // both prefilled in one step (budget 4096), sent one after another
  CHECK(a.sim.requests[0].first_token_s * 1e3 == Approx(1 + 1.31072));
  CHECK(a.sim.requests[1].first_token_s * 1e3 == Approx(1 + 2 * 1.31072));
  DisaggSpec two = layout(2, 1);
  ServeRun b = run(two, 2, 2);  // round-robin: one request a prefill replica, sent in parallel
  CHECK(b.sim.requests[0].first_token_s * 1e3 == Approx(1 + 1.31072));
  CHECK(b.sim.requests[1].first_token_s * 1e3 == Approx(1 + 1.31072));
  CHECK(b.report.gpus == 3);
}

TEST_CASE("disaggregated: a one-token request is done at its prefill (nothing to send)") {
  DisaggSpec s = layout(1, 1);
  ServeRun r = run(s, 1, 1);
  CHECK(r.report.ttft_ms.mean == Approx(1));
  CHECK(r.disaggregated->transfers == 0);
}

TEST_CASE("disaggregated: replicas take GPUs in order, prefill first, a node holds gpus_per_node") {
  DisaggSpec s = layout(2, 2);
  s.gpus_per_replica = 2;  // p0 0-1, p1 2-3, d0 4-5, d1 6-7: one node
  CHECK(same_node(s, 1, 1));
  s.prefill = 3;  // d0 6-7 (node 0), d1 8-9 (node 1)
  CHECK(same_node(s, 0, 0));
  CHECK_FALSE(same_node(s, 0, 1));
  s = layout(1, 1, 4);
  s.gpus_per_replica = 3;  // p0 0-2, d0 3-5 straddles two nodes
  CHECK_FALSE(same_node(s, 0, 0));
}

TEST_CASE("disaggregated: --disaggregate P:D, both at least 1") {
  DisaggSpec d = parse_disaggregate("--disaggregate", "2:3");
  CHECK(d.prefill == 2);
  CHECK(d.decode == 3);
  for (const char* bad : {"0:1", "1:0", "1", "a:b", "1:2:3", ":2"})
    CHECK_THROWS_WITH(parse_disaggregate("--disaggregate", bad),
                      Catch::Contains("--disaggregate") && Catch::Contains("expected P:D"));
}

TEST_CASE("disaggregated: closed loops and warm-up are refused") {
  static EngineConfig e = engine_json("vllm_v1", 4096, 100, 16, "", 0);
  FixedStepModel model(1000, 0);
  DisaggSpec s = layout(1, 1);
  ServeSetup setup;
  setup.engine = &e;
  setup.model = &model;
  setup.disaggregate = &s;
  Workload w =
      generate_workload({LengthSpec::Kind::Fixed, 100, 0}, {LengthSpec::Kind::Fixed, 4, 0}, 4, 0);
  KvSizing kv;
  kv.blocks = 1000;
  setup.arrivals = ArrivalSpec{ArrivalSpec::Kind::ClosedLoop, 0, 1, 2};
  CHECK_THROWS_WITH(run_serving(w, setup, kv), Catch::Contains("--disaggregate: needs open-loop"));
  setup.arrivals = ArrivalSpec{};
  setup.arrivals.kind = ArrivalSpec::Kind::AllAtOnce;
  setup.warmup_requests = 1;
  CHECK_THROWS_WITH(run_serving(w, setup, kv),
                    Catch::Contains("--warmup: not with --disaggregate"));
}
