// The serving metrics' definitions on a hand-computed 3-request trace (TTFT, TPOT, ITL, E2E,
// percentiles by linear interpolation, throughput over first arrival to last finish, goodput),
// a long prompt chunked over steps, and determinism: the same seed gives the same run.
#include "serve/arrivals.h"
#include "serve/metrics.h"
#include "serve/serve_run.h"
#include "serve/workload.h"
#include "serve_test_helpers.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace ridgeline;
using namespace ridgeline::test;
using Approx = Catch::Detail::Approx;

namespace {

// r0: arrives 0, first token 0.1 s, done 0.5 s, 5 tokens;  r1: 0.2, 0.4, 1.0, 3 tokens;
// r2: 0.3, 0.9, 0.9, 1 token.
SimResult three_requests() {
  SimResult s;
  s.requests = {{0, 10, 5, 0, 0.0, 0.0, 0.1, 0.5, 0.1},
                {1, 20, 3, 0, 0.2, 0.3, 0.4, 1.0, 0.3},
                {2, 30, 1, 0, 0.3, 0.8, 0.9, 0.9, 0.0}};
  s.itl_gaps = {{0.1, 4}, {0.3, 2}};
  s.duration_s = 1.0;
  return s;
}

}  // namespace

TEST_CASE("metrics: TTFT, TPOT, E2E, ITL and queue on a hand-computed trace") {
  ServeReport r = make_report(three_requests(), 1, {});
  // TTFT 100, 200, 600 ms: p90 at position 1.8 = 200 + 0.8 x 400.
  CHECK(r.ttft_ms.mean == Approx(300));
  CHECK(r.ttft_ms.p50 == Approx(200));
  CHECK(r.ttft_ms.p90 == Approx(520));
  CHECK(r.ttft_ms.p99 == Approx(592));
  // TPOT (e2e - ttft) / (output - 1): 400/4 = 100, 600/2 = 300; r2 (1 token) has none.
  CHECK(r.tpot_ms.count == 2);
  CHECK(r.tpot_ms.mean == Approx(200));
  CHECK(r.tpot_ms.p90 == Approx(280));
  CHECK(r.e2e_ms.mean == Approx(1900.0 / 3));
  CHECK(r.e2e_ms.p90 == Approx(760));
  CHECK(r.itl_ms.p50 == Approx(100));  // six gaps, pooled
  CHECK(r.itl_ms.mean == Approx(1000.0 / 6));
  CHECK(r.queue_ms.mean == Approx((0 + 100 + 500) / 3.0));
  CHECK(r.requests_per_s == Approx(3));
  CHECK(r.output_tokens_per_s == Approx(9));
  CHECK(r.input_tokens_per_s == Approx(60));
}

TEST_CASE("metrics: goodput counts the requests inside every bound, the SLO reads percentiles") {
  ServeReport r =
      make_report(three_requests(), 1, parse_slo("--slo", "ttft_p50=250ms,tpot_p99=300ms"));
  CHECK(r.goodput_requests_per_s == Approx(2));  // r2's TTFT of 600 ms is over 250
  CHECK(r.slo_met);                              // p50 TTFT 200 <= 250, p99 TPOT 298 <= 300
  ServeReport tight = make_report(three_requests(), 1, parse_slo("--slo", "ttft_p99=500ms"));
  CHECK_FALSE(tight.slo_met);  // p99 592 > 500
  REQUIRE(tight.slo_failures.size() == 1);
  CHECK(tight.slo_failures[0].find("ttft_p99 592 ms > 500 ms") != std::string::npos);
}

TEST_CASE("metrics: percentiles interpolate between order statistics") {
  CHECK(percentile({1, 2, 3, 4}, 50) == Approx(2.5));
  CHECK(percentile({1, 2, 3, 4}, 100) == Approx(4));
  CHECK(percentile({7}, 99) == Approx(7));
}

TEST_CASE("simulator: a long prompt is chunked over steps, the first token ends the last chunk") {
  EngineConfig e = engine_json("vllm_v1", 512, 100, 16, "", 0);
  FixedStepModel model(1000, 0);  // every step 1 ms
  ServeSetup setup;
  setup.engine = &e;
  setup.model = &model;
  setup.arrivals.kind = ArrivalSpec::Kind::AllAtOnce;
  setup.record_steps = true;
  Workload w =
      generate_workload({LengthSpec::Kind::Fixed, 1300, 0}, {LengthSpec::Kind::Fixed, 2, 0}, 1, 0);
  KvSizing kv;
  kv.blocks = 1000;
  ServeRun run = run_serving(w, setup, kv);
  REQUIRE(run.sim.steps.size() == 4);
  CHECK(run.sim.steps[0].tokens == 512);
  CHECK(run.sim.steps[1].tokens == 512);
  CHECK(run.sim.steps[2].tokens == 276);
  CHECK(run.sim.steps[3].tokens == 1);
  CHECK(run.report.ttft_ms.mean == Approx(3));
  CHECK(run.report.e2e_ms.mean == Approx(4));
  CHECK(run.report.tpot_ms.mean == Approx(1));
}

TEST_CASE("simulator: the same seed gives the same run, another seed another") {
  EngineConfig e = engine_json("vllm_v1", 256, 64, 16, "", 50);
  FixedStepModel model(2000, 1.5);
  auto run = [&](uint64_t seed) {
    ServeSetup setup;
    setup.engine = &e;
    setup.model = &model;
    setup.seed = seed;
    setup.arrivals = parse_rate("20", "gamma", 2.0, true);
    Workload w =
        generate_workload(parse_length_spec("--input-len", "uniform:10:400"),
                          parse_length_spec("--output-len", "lognormal:50:0.5"), 300, seed);
    KvSizing kv;
    kv.blocks = 100;
    return run_serving(w, setup, kv);
  };
  ServeRun a = run(7), b = run(7), c = run(8);
  REQUIRE(a.sim.requests.size() == b.sim.requests.size());
  bool same = true;
  for (size_t i = 0; i < a.sim.requests.size(); ++i)
    same = same && a.sim.requests[i].finish_s == b.sim.requests[i].finish_s &&
           a.sim.requests[i].input_tokens == b.sim.requests[i].input_tokens;
  CHECK(same);
  CHECK(a.report.ttft_ms.p99 == b.report.ttft_ms.p99);
  CHECK(a.report.ttft_ms.p99 != c.report.ttft_ms.p99);
  CHECK(a.sim.preemptions > 0);  // 100 blocks are too few for this load: preemption is exercised
}

TEST_CASE(
    "arrivals: Poisson gaps average 1/rate, gamma gaps have the asked coefficient of variation") {
  auto gaps_cv = [](const ArrivalSpec& spec) {
    Workload w = generate_workload({LengthSpec::Kind::Fixed, 1, 0}, {LengthSpec::Kind::Fixed, 1, 0},
                                   20001, 0);
    assign_arrivals(w, spec, 3);
    double sum = 0, sq = 0;
    for (size_t i = 1; i < w.requests.size(); ++i) {
      double g = w.requests[i].arrival_s - w.requests[i - 1].arrival_s;
      sum += g;
      sq += g * g;
    }
    double n = (double)w.requests.size() - 1, mean = sum / n;
    return std::make_pair(mean, std::sqrt(sq / n - mean * mean) / mean);
  };
  auto [pm, pcv] = gaps_cv(parse_rate("4", "poisson", 1, false));
  CHECK(pm == Approx(0.25).epsilon(0.03));
  CHECK(pcv == Approx(1).epsilon(0.05));
  auto [gm, gcv] = gaps_cv(parse_rate("4", "gamma", 3, true));
  CHECK(gm == Approx(0.25).epsilon(0.06));
  CHECK(gcv == Approx(3).epsilon(0.1));
  auto [fm, fcv] = gaps_cv(parse_rate("4", "fixed", 1, false));
  CHECK(fm == Approx(0.25));
  CHECK(fcv < 1e-6);
}

TEST_CASE("simulator: a closed loop keeps C requests in flight, the next sent at a finish") {
  EngineConfig e = engine_json("vllm_v1", 512, 100, 16, "", 0);
  FixedStepModel model(1000, 0);
  ServeSetup setup;
  setup.engine = &e;
  setup.model = &model;
  setup.arrivals = ArrivalSpec{ArrivalSpec::Kind::ClosedLoop, 0, 1, 2};
  setup.record_steps = true;
  KvSizing kv;
  kv.blocks = 1000;
  Workload w =
      generate_workload({LengthSpec::Kind::Fixed, 10, 0}, {LengthSpec::Kind::Fixed, 3, 0}, 5, 0);
  ServeRun run = run_serving(w, setup, kv);
  const auto& r = run.sim.requests;
  CHECK(r[0].arrival_s == 0);
  CHECK(r[1].arrival_s == 0);
  CHECK(r[2].arrival_s == Approx(r[0].finish_s));  // 3 steps of 1 ms: prefill, 2 decodes
  CHECK(r[2].arrival_s == Approx(0.003));
  CHECK(r[4].arrival_s == Approx(r[2].finish_s));
  for (const StepRecord& s : run.sim.steps) CHECK(s.running <= 2);
}

TEST_CASE("metrics: warm-up requests are left out of every statistic and of throughput") {
  SimResult s = three_requests();
  ServeReport all = make_report(s, 1, {}, 0);
  ServeReport w = make_report(s, 1, {}, 1);  // r0 is warm-up
  CHECK(all.requests == 3);
  CHECK(w.requests == 2);
  CHECK(w.warmup_requests == 1);
  // TTFT of r1, r2: 200 and 600 ms.
  CHECK(w.ttft_ms.mean == Approx(400));
  CHECK(w.ttft_ms.count == 2);
  // Throughput over r1's arrival (0.2 s) to the last finish (1.0 s): 4 output tokens.
  CHECK(w.duration_s == Approx(0.8));
  CHECK(w.output_tokens_per_s == Approx(4 / 0.8));
  CHECK(all.duration_s == Approx(1.0));
}
