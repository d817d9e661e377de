// Rules of the streaming serving metrics and bookkeeping (serve/metrics_stream.h,
// request_source.h, request_log.h): the exact fold is byte-identical to sorting every value, the
// histogram holds above kExactRequests only and stays within kRelativeError, a run that keeps no
// requests reports exactly what a run that keeps them does, requests drawn one at a time are the
// requests generated all at once, and the request log gives records back in id order.
#include "serve/metrics_stream.h"
#include "serve/request_log.h"
#include "serve/request_source.h"
#include "serve/serve_run.h"
#include "serve/workload.h"
#include "serve_test_helpers.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace ridgeline;
using namespace ridgeline::test;

namespace {

bool same_stat(const Stat& a, const Stat& b) {
  return a.count == b.count && a.mean == b.mean && a.p50 == b.p50 && a.p90 == b.p90 &&
         a.p99 == b.p99;
}

}  // namespace

TEST_CASE("stream: the exact fold equals summarise() of every value, bit for bit") {
  Random rng(3);
  std::vector<double> all;
  ValueFold fold(true);
  for (int i = 0; i < 20000; ++i) {
    double v = std::round(rng.exponential(30) * 8) / 8;  // many repeats, as step gaps have
    int64_t n = 1 + (int64_t)(rng.uniform() * 4);
    fold.add(v, n);
    for (int64_t k = 0; k < n; ++k) all.push_back(v);
  }
  CHECK(same_stat(fold.summary(), summarise(all)));
  ValueFold one(true);
  one.add(7.5);
  CHECK(same_stat(one.summary(), summarise({7.5})));
  CHECK(ValueFold(true).summary().count == 0);
}

TEST_CASE("stream: histogram percentiles are within kRelativeError of the exact ones") {
  Random rng(5);
  std::vector<double> all;
  ValueFold hist(false);
  for (int i = 0; i < 50000; ++i) {
    double v = 40 * std::exp(0.8 * rng.normal());
    all.push_back(v);
    hist.add(v);
  }
  hist.add(0.0);  // a zero (a request scheduled on arrival: queue 0) has its own bucket
  all.push_back(0.0);
  Stat h = hist.summary(), e = summarise(all);
  CHECK(h.count == e.count);
  CHECK(h.mean == Approx(e.mean).epsilon(1e-12));
  for (auto [a, b] : {std::pair{h.p50, e.p50}, {h.p90, e.p90}, {h.p99, e.p99}})
    CHECK(std::fabs(a - b) <= kRelativeError * b);
}

TEST_CASE("stream: percentiles are exact up to kExactRequests measured requests, not above") {
  SimResult sim;
  MetricsFold at({}, 0, kExactRequests), above({}, 0, kExactRequests + 1);
  RequestRecord r{0, 10, 2, 0, 0, 0.1, 0.2, 0.3, 0.1};
  at.finished(r);
  above.finished(r);
  CHECK(at.report(sim, 1).percentiles_exact);
  CHECK_FALSE(above.report(sim, 1).percentiles_exact);
  MetricsFold warm({}, 5, kExactRequests);  // warm-up requests do not count toward the limit
  CHECK(warm.report(sim, 1).percentiles_exact);
}

TEST_CASE("stream: requests drawn one at a time are the requests generated at once") {
  LengthSpec in = parse_length_spec("--input-len", "uniform:10:4000");
  LengthSpec out = parse_length_spec("--output-len", "lognormal:100:0.7");
  for (const char* rate : {"3", "inf"}) {
    ArrivalSpec arr = parse_rate(rate, "poisson", 1, false);
    Workload w = generate_workload(in, out, 500, 11);
    assign_arrivals(w, arr, 11);
    DrawnSource src(in, out, 500, 11, arr);
    Request r;
    int64_t index = -1;
    bool same = true;
    for (const Request& q : w.requests) {
      REQUIRE(src.next(r, index));
      same = same && index == q.id && r.id == q.id && r.arrival_s == q.arrival_s &&
             r.input_tokens == q.input_tokens && r.output_tokens == q.output_tokens;
    }
    CHECK(same);
    CHECK_FALSE(src.next(r, index));
  }
}

TEST_CASE("stream: a run that keeps no requests reports what a run that keeps them does") {
  EngineConfig e = engine_json("vllm_v1", 256, 64, 16, "", 50);
  FixedStepModel model(2000, 1.5);
  GeneratedWorkload g{parse_length_spec("--input-len", "uniform:10:400"),
                      parse_length_spec("--output-len", "lognormal:50:0.5"), 400, 9};
  auto run = [&](bool keep, bool drawn) {
    ServeSetup setup;
    setup.engine = &e;
    setup.model = &model;
    setup.seed = 9;
    setup.arrivals = parse_rate("20", "gamma", 2.0, true);
    setup.slo = parse_slo("--slo", "ttft_p99=2s,itl_p50=40ms");
    setup.warmup_requests = 10;
    setup.keep_requests = keep;
    setup.log_requests = !keep;
    KvSizing kv;
    kv.blocks = 100;  // preemptions: requests leave and rejoin the queue
    return drawn ? run_serving(g, setup, kv)
                 : run_serving(generate_workload(g.input, g.output, g.count, g.seed), setup, kv);
  };
  ServeRun kept = run(true, false), streamed = run(false, true);
  CHECK(kept.sim.preemptions > 0);
  CHECK(streamed.sim.requests.empty());
  CHECK(streamed.sim.itl_gaps.empty());
  const ServeReport &a = kept.report, &b = streamed.report;
  CHECK(same_stat(a.ttft_ms, b.ttft_ms));
  CHECK(same_stat(a.tpot_ms, b.tpot_ms));
  CHECK(same_stat(a.itl_ms, b.itl_ms));
  CHECK(same_stat(a.e2e_ms, b.e2e_ms));
  CHECK(same_stat(a.queue_ms, b.queue_ms));
  CHECK(a.goodput_requests_per_s == b.goodput_requests_per_s);
  CHECK(a.duration_s == b.duration_s);
  CHECK(a.steps == b.steps);
  CHECK(a.itl_ms.count > (int64_t)kept.sim.itl_gaps.size());  // gaps are counted, not listed
  std::vector<RequestRecord> logged;
  streamed.request_log->for_each([&](const RequestRecord& r) { logged.push_back(r); });
  REQUIRE(logged.size() == kept.sim.requests.size());
  bool same = true;
  for (size_t i = 0; i < logged.size(); ++i)
    same = same && logged[i].id == (int64_t)i &&
           logged[i].finish_s == kept.sim.requests[i].finish_s &&
           logged[i].preemptions == kept.sim.requests[i].preemptions;
  CHECK(same);
}

TEST_CASE("stream: the request log gives records back in id order, whatever the finish order") {
  RequestLog log(5);
  for (int64_t id : {3, 0, 4, 1, 2}) log.finished({id, id * 10, 1, 0, 0, 0, 0, (double)id, 0});
  std::vector<int64_t> ids, inputs;
  log.for_each(
      [&](const RequestRecord& r) { ids.push_back(r.id), inputs.push_back(r.input_tokens); });
  CHECK(ids == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(inputs == std::vector<int64_t>{0, 10, 20, 30, 40});
}

TEST_CASE("stream: a handed-off request (a decode pool's) starts decoding, prompt computed") {
  EngineConfig e = engine_json("vllm_v1", 256, 64, 16, "", 0);
  FixedStepModel model(1000, 0);  // 1 ms a step
  std::vector<Request> r = {{0, 0.5, 100, 3}};
  SimOptions opt;
  opt.arrivals.kind = ArrivalSpec::Kind::Trace;
  opt.kv_blocks = 100;
  SimResult s = simulate(r, e, model, opt, Handoff{{0.4}});
  REQUIRE(s.requests.size() == 1);
  CHECK(s.step_count == 2);  // two decodes, no prefill step
  CHECK(s.requests[0].first_token_s == 0.4);
  CHECK(s.requests[0].finish_s == Approx(0.502));
  CHECK(s.requests[0].max_itl_s == Approx(0.101));  // the first decode's gap from the handoff
}
