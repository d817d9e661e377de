// One test per error message of serve/: length flags, rates, SLOs, trace lines (rejected with
// file:line:field while the other lines run), engine files (file + JSON path), KV sizing, and
// requests that can never fit.
#include "serve/arrivals.h"
#include "serve/engine.h"
#include "serve/kv_sizing.h"
#include "serve/metrics.h"
#include "serve/serve_run.h"
#include "serve/workload.h"
#include "serve_test_helpers.h"
#include "test_helpers.h"

#include <catch2/catch.hpp>

using namespace ridgeline;
using namespace ridgeline::test;

TEST_CASE("serve errors: length flags") {
  require_input_error([] { parse_length_spec("--input-len", "0"); },
                      {"--input-len 0", "expected a whole number of tokens >= 1"});
  require_input_error([] { parse_length_spec("--input-len", "uniform:9:3"); },
                      {"uniform needs whole numbers 1 <= MIN <= MAX"});
  require_input_error([] { parse_length_spec("--output-len", "normal:0:3"); },
                      {"--output-len", "normal needs MEAN >= 1 and SD >= 0"});
  require_input_error([] { parse_length_spec("--output-len", "lognormal:10:-1"); },
                      {"lognormal needs MEDIAN >= 1 and SIGMA >= 0"});
  require_input_error([] { parse_length_spec("--input-len", "zipf:1:2"); },
                      {"unknown distribution \"zipf\""});
  require_input_error([] { parse_length_spec("--input-len", "uniform:1"); }, {"expected KIND:A:B"});
  require_input_error([] { parse_length_spec("--input-len", "uniform:a:b"); },
                      {"expected two numbers after the kind"});
  CHECK(parse_length_spec("--input-len", "1").a == 1);  // the other side of the limit
}

TEST_CASE("serve errors: rates and arrivals") {
  require_input_error([] { parse_rate("0", "poisson", 1, false); },
                      {"--rate 0", "must be > 0 requests per second"});
  require_input_error([] { parse_rate("-2", "poisson", 1, false); }, {"must be > 0"});
  require_input_error([] { parse_rate("fast", "poisson", 1, false); },
                      {"--rate fast", "expected requests per second (a number) or inf"});
  require_input_error([] { parse_rate("inf", "gamma", 2, true); },
                      {"--rate inf", "--arrival and --cv do not apply"});
  require_input_error([] { parse_rate("4", "bursty", 1, false); },
                      {"--arrival bursty", "expected poisson, gamma or fixed"});
  require_input_error([] { parse_rate("4", "poisson", 2, true); },
                      {"--cv: applies to --arrival gamma only"});
  require_input_error([] { parse_rate("4", "gamma", 1, false); }, {"--arrival gamma: needs --cv"});
  require_input_error([] { parse_rate("4", "gamma", 0, true); }, {"--cv: must be > 0"});
  CHECK(parse_rate("0.001", "poisson", 1, false).rate_per_s == 0.001);
}

TEST_CASE("serve errors: SLO terms") {
  require_input_error([] { parse_slo("--slo", "latency_p99=2s"); },
                      {"--slo latency_p99=2s", "unknown metric \"latency\""});
  require_input_error([] { parse_slo("--slo", "ttft_p95=2s"); }, {"unknown statistic \"p95\""});
  require_input_error([] { parse_slo("--slo", "ttft_p99=2"); },
                      {"expected a duration with a unit (2s, 100ms)"});
  require_input_error([] { parse_slo("--slo", "ttft_p99=-2s"); }, {"expected a positive duration"});
  require_input_error([] { parse_slo("--slo", "ttft"); }, {"expected METRIC_STAT=DURATION"});
  require_input_error([] { parse_slo("--slo", ""); }, {"--slo: empty SLO"});
  CHECK(parse_slo("--slo", "tpot_p99=100ms")[0].limit_ms == 100);
}

TEST_CASE("serve errors: a bad trace line is rejected with file:line:field, the others run") {
  std::string csv =
      "arrival_s,input_tokens,output_tokens\n0.3,100,10\n0.5,,10\n0.7,-3,10\n0.2,100,10\n"
      "0.9,100,x\n1.0,100\n1.5,100,20\n";
  Workload w = parse_trace_text(csv, "t.csv", false);
  CHECK(w.requests.size() == 2);
  REQUIRE(w.rejected.size() == 5);
  CHECK(w.rejected[0].where == "t.csv:3: input_tokens");
  CHECK(w.rejected[0].reason == "missing or not a number");
  CHECK(w.rejected[1].where == "t.csv:4: input_tokens");
  CHECK(w.rejected[1].reason == "expected a whole number >= 1");
  CHECK(w.rejected[2].reason == "before the previous line's arrival");
  CHECK(w.rejected[3].where == "t.csv:6: output_tokens");
  CHECK(w.rejected[4].reason == "expected 3 comma-separated fields, got 2");
  Workload j = parse_trace_text(
      "{\"arrival_s\": -1, \"input_tokens\": 5, \"output_tokens\": 5}\n"
      "{\"arrival_s\": 0, \"input_tokens\": 5, \"output_tokens\": 5, \"prio\": 1}\nnot json\n"
      "{\"arrival_s\": 1, \"input_tokens\": 5, \"output_tokens\": 5}\n",
      "t.jsonl", true);
  CHECK(j.requests.size() == 1);
  REQUIRE(j.rejected.size() == 3);
  CHECK(j.rejected[0].where == "t.jsonl:1: arrival_s");
  CHECK(j.rejected[0].reason == "negative");
  CHECK(j.rejected[1].where == "t.jsonl:2: prio");
  CHECK(j.rejected[1].reason == "unknown key");
  CHECK(j.rejected[2].reason == "not a JSON object");
  require_input_error([] { parse_trace_text("a,b,c\n", "h.csv", false); },
                      {"h.csv:1", "expected the header arrival_s,input_tokens,output_tokens"});
  require_input_error([] { parse_trace_text("\n", "e.jsonl", true); }, {"e.jsonl: no requests"});
  require_input_error([] { read_trace("--workload", "trace.txt"); },
                      {"--workload trace.txt", "expected a .csv or .jsonl trace file"});
  require_input_error([] { read_trace("--workload", "/nonexistent/t.csv"); }, {"cannot read file"});
}

TEST_CASE("serve errors: engine files name the file and the JSON path") {
  std::string good = R"({"description": "d", "source": "s", "runtime": "fused", "launch": "graph",
    "scheduler": {"policy": "vllm_v1", "max_num_batched_tokens": 64, "max_num_seqs": 8, "chunked_prefill": true},
    "kv_cache": {"block_size_tokens": 16, "memory": "fraction_of_total", "memory_fraction": 0.9,
      "subtract_activation_peak": true, "max_blocks": 0, "prefix_caching": false,
      "dtype": "weights"},
    "cuda_graphs": {"sizes": [1, 2], "step": 8, "max_batch_size": 32},
    "host": {"overhead_us_per_step": 10, "source": "s"}})";
  EngineConfig e = load_engine_text(good, "e.json");
  CHECK(e.padded_batch(3) == 8);
  CHECK(e.padded_batch(33) == 33);
  auto with = [&](const std::string& from, const std::string& to) {
    return with_replaced(good, from, to);
  };
  require_input_error(
      [&] {
        load_engine_text(
            with("\"chunked_prefill\": true", "\"chunked_prefill\": true, \"safety_margin\": 0.2"),
            "e.json");
      },
      {"e.json: /scheduler/safety_margin: unknown key"});
  require_input_error([&] { load_engine_text(with("vllm_v1", "orca"), "e.json"); },
                      {"e.json: /scheduler/policy"});
  require_input_error(
      [&] { load_engine_text(with("\"max_num_seqs\": 8", "\"max_num_seqs\": 0"), "e.json"); },
      {"e.json: /scheduler/max_num_seqs"});
  require_input_error([&] { load_engine_text(with("[1, 2]", "[2, 1]"), "e.json"); },
                      {"e.json: /cuda_graphs/sizes/1: expected ascending whole numbers >= 1"});
  std::string trt = with("vllm_v1", "trtllm");
  trt.replace(trt.find("\"chunked_prefill\": true"), 23,
              "\"chunked_prefill\": true, \"capacity_policy\": \"guaranteed_no_evict\"");
  trt.replace(trt.find("\"prefix_caching\": false"), 23, "\"prefix_caching\": true");
  require_input_error([&] { load_engine_text(trt, "t.json"); },
                      {"t.json: /kv_cache/prefix_caching: modelled for the vllm_v1 policy only"});
  require_input_error([] { load_engine("nope"); }, {"--engine nope: unknown engine", "vllm"});
  for (const std::string& name : engine_preset_names()) CHECK_NOTHROW(load_engine(name));
}

TEST_CASE("serve errors: an engine whose memory leaves no KV block") {
  EngineConfig e = engine_json("vllm_v1", 64, 8, 16);
  e.memory_fraction = 0.2;  // 0.2 x 80 GB < 16 GB of weights
  FixedStepModel m(1, 0);
  // The fraction as given (not "0.200000"), the block in the unit that shows it (not "0.00 GiB").
  require_input_error([&] { size_kv_cache(e, m); },
                      {"test-engine.json: /kv_cache/memory_fraction: 0.2 leaves no KV block",
                       "capacity 74.51 GiB", "a block needs 2.00 MiB"});
  e.memory_fraction = 0.9;
  CHECK(size_kv_cache(e, m).blocks > 0);
}

TEST_CASE("serve errors: drawn lengths are checked as each request is drawn") {
  EngineConfig e = engine_json("vllm_v1", 64, 8, 16);
  FixedStepModel m(1, 0);
  ServeSetup setup;
  setup.engine = &e;
  setup.model = &m;
  setup.arrivals.kind = ArrivalSpec::Kind::AllAtOnce;
  setup.lengths_from_flags = true;
  KvSizing kv;
  kv.blocks = 10;  // 160 tokens: inputs of 100..200 plus 10 outputs fit only below 151
  GeneratedWorkload g{
      {LengthSpec::Kind::Uniform, 100, 200}, {LengthSpec::Kind::Fixed, 10, 0}, 20, 0};
  auto first_too_long = [&] {  // the first request that can never fit: the one the error names
    LengthDraws draws(g.input, g.output, g.seed);
    for (int64_t i = 0; i < g.count; ++i)
      if (draws.next(i).input_tokens + 10 > 160) return i;
    return (int64_t)-1;
  };
  while (first_too_long() <= 0) ++g.seed;  // a seed whose request 0 fits: a later one is named
  int64_t first = first_too_long();
  require_input_error([&] { run_serving(g, setup, kv); },
                      {"--input-len/--output-len: request " + std::to_string(first) + ": ",
                       "KV blocks; the engine's cache holds 10 blocks of 16 tokens"});
  g.input = {LengthSpec::Kind::Uniform, 100, 150};
  CHECK(run_serving(g, setup, kv).report.requests == 20);
}

TEST_CASE("serve errors: a request longer than the context or than the KV cache") {
  EngineConfig e = engine_json("vllm_v1", 64, 8, 16);
  FixedStepModel m(1, 0);  // context 131072
  ServeSetup setup;
  setup.engine = &e;
  setup.model = &m;
  setup.arrivals.kind = ArrivalSpec::Kind::AllAtOnce;
  KvSizing kv;
  kv.blocks = 10;  // 160 tokens
  auto lengths = [](int64_t in, int64_t out) {
    return generate_workload({LengthSpec::Kind::Fixed, (double)in, 0},
                             {LengthSpec::Kind::Fixed, (double)out, 0}, 2, 0);
  };
  require_input_error(
      [&] { run_serving(lengths(150, 11), setup, kv); },
      {"--input-len/--output-len: request 0", "161 tokens need 11 KV blocks", "holds 10 blocks"});
  CHECK(run_serving(lengths(150, 10), setup, kv).report.requests == 2);
  kv.blocks = 100000;
  require_input_error([&] { run_serving(lengths(131000, 100), setup, kv); },
                      {"exceed the model's context of 131072"});
  setup.lengths_from_flags = false;  // a trace: the request is rejected, the others run
  Workload w = lengths(100, 10);
  w.requests.push_back({2, 0, 131000, 100});
  ServeRun run = run_serving(w, setup, kv);
  CHECK(run.report.requests == 2);
  REQUIRE(run.workload.rejected.size() == 1);
  CHECK(run.workload.rejected[0].where == "request 2");
}

TEST_CASE("serve errors: a trace line with absurd token counts is rejected, not converted") {
  // Found by fuzz_requests: 6e23 input tokens overflowed the conversion to an integer (UB).
  Workload w = parse_trace_text(
      "arrival_s,input_tokens,output_tokens\n0,512,600000000000000000000004\n0.5,100,10\n", "t.csv",
      false);
  CHECK(w.requests.size() == 1);
  REQUIRE(w.rejected.size() == 1);
  CHECK(w.rejected[0].where == "t.csv:2: output_tokens");
  CHECK(w.rejected[0].reason == "more than 10^12 tokens");
}
