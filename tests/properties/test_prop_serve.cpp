// Properties of serving runs (`ridgeline serve`): small request sets on random GPUs, engines
// (vllm, trtllm, sglang, hf-cb) and models, with every request queued at t = 0 (--rate inf) or a
// closed loop. Both schedules are independent of time (a step's batch depends on the engine's
// state, not the clock), so a faster GPU must bring every token earlier. Every metric is finite
// and positive and each request's timestamps are in order.
#include "generators.h"

#include "cli/serve_options.h"
#include "hardware/derived.h"
#include "serve/gpu_step_model.h"
#include "serve/serve_run.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace ridgeline;
using namespace ridgeline::prop;

namespace {

struct ServeCase {
  std::string gpu, engine;
  ModelConfig model;
  Workload workload;
  ArrivalSpec arrivals;
  std::string describe() const {
    return model.name + " (h " + std::to_string(model.hidden) + ") on " + gpu + " with " + engine +
           ", " + std::to_string(workload.requests.size()) + " requests, " +
           ridgeline::describe(arrivals);
  }
};

ServeCase random_serve_case(Property& p) {
  ServeCase c;
  c.gpu = p.pick(gpu_names());
  c.engine = p.pick(engine_preset_names());
  c.model = p.coin(0.7) ? small_model(p, p.coin(0.2)) : model_preset("llama-3-8b");
  c.workload = small_workload(p, (int)p.uniform(4, 24), 16, 2048);
  if (p.coin())
    c.arrivals = ArrivalSpec{ArrivalSpec::Kind::AllAtOnce, 0, 1, 0};
  else
    c.arrivals = ArrivalSpec{ArrivalSpec::Kind::ClosedLoop, 0, 1, p.uniform(1, 8)};
  return c;
}

ServeRun serve(const ServeCase& c, const GpuSpec& g) {
  EngineConfig engine = load_engine(c.engine);
  GpuStepModel step(g, c.model, serve_run_config("bf16", engine));
  ServeSetup setup;
  setup.engine = &engine;
  setup.model = &step;
  setup.arrivals = c.arrivals;
  setup.seed = 1;
  KvSizing kv = engine_kv(engine, step);
  return run_serving(c.workload, setup, kv);
}

bool finite_positive(const Stat& s) {
  return std::isfinite(s.mean) && s.mean > 0 && std::isfinite(s.p99) && s.p99 >= s.p50 && s.p50 > 0;
}

}  // namespace

TEST_CASE("property: every serving run is finite and positive, in order", "[property]") {
  Property p("serving metrics finite, positive; arrival <= scheduled <= first token <= finish", 12);
  for (int i = 0; i < p.cases(); ++i) {
    ServeCase c = random_serve_case(p);
    INFO("case " << i << ": " << c.describe());
    ServeRun r = serve(c, gpu(c.gpu));
    const ServeReport& s = r.report;
    REQUIRE(s.requests == (int64_t)c.workload.requests.size());
    REQUIRE((std::isfinite(s.duration_s) && s.duration_s > 0));
    REQUIRE(s.requests_per_s > 0);
    REQUIRE(s.output_tokens_per_s > 0);
    REQUIRE(finite_positive(s.ttft_ms));
    REQUIRE(finite_positive(s.e2e_ms));
    REQUIRE(s.e2e_ms.mean >= s.ttft_ms.mean);
    int64_t out = 0;
    for (const RequestRecord& q : r.sim.requests) {
      REQUIRE(q.first_scheduled_s >= q.arrival_s);
      REQUIRE(q.first_token_s > q.first_scheduled_s);
      REQUIRE(q.finish_s >= q.first_token_s);
      out += q.output_tokens;
    }
    REQUIRE(out == s.output_tokens);
    REQUIRE(s.output_tokens_per_s == Approx((double)out / s.duration_s).epsilon(1e-9));
  }
}

TEST_CASE("property: a faster GPU never makes a serving run slower", "[property]") {
  Property p("faster HBM/L2/clock/peak/launch never delays a request's tokens", 12);
  for (int i = 0; i < p.cases(); ++i) {
    ServeCase c = random_serve_case(p);
    Knob knob =
        p.pick(std::vector<Knob>{Knob::Hbm, Knob::L2, Knob::Clock, Knob::Peak, Knob::Launch});
    double factor = p.real(1.05, 3);
    INFO("case " << i << ": " << c.describe() << ", " << knob_name(knob) << " x" << factor);
    ServeRun a = serve(c, gpu(c.gpu)), b = serve(c, faster(gpu(c.gpu), knob, factor));
    REQUIRE(b.sim.step_count == a.sim.step_count);
    REQUIRE(b.report.duration_s <= a.report.duration_s * (1 + 1e-9));
    for (size_t q = 0; q < a.sim.requests.size(); ++q) {
      INFO("request " << q);
      REQUIRE(b.sim.requests[q].first_token_s <= a.sim.requests[q].first_token_s * (1 + 1e-9));
      REQUIRE(b.sim.requests[q].finish_s <= a.sim.requests[q].finish_s * (1 + 1e-9));
    }
  }
}
