// trtllm-bench's engine sizing (serve/trtllm_bench.h): finetune_setting's rounding on both sides
// of each step, a whole sizing worked by hand, the engine key that asks for it, and one test per
// error message.
#include "hardware/gpu_load.h"
#include "serve/engine.h"
#include "serve/published.h"
#include "serve/trtllm_bench.h"
#include "serve/workload.h"
#include "test_helpers.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

using namespace ridgeline;
using test::require_input_error;

namespace {

std::string bench_engine(const std::string& scheduler_extra, const std::string& policy = "trtllm") {
  return R"({"description": "test", "source": "test", "runtime": "fused", "launch": "graph",
    "scheduler": {"policy": ")" +
         policy + R"(", "chunked_prefill": true)" + scheduler_extra + R"(},
    "kv_cache": {"block_size_tokens": 32, "memory": "fraction_of_free", "memory_fraction": 0.95,
      "subtract_activation_peak": true, "max_blocks": 0, "prefix_caching": false,
      "dtype": "weights"},
    "cuda_graphs": null, "host": {"overhead_us_per_step": 100, "source": "test"}})";
}

EngineConfig sized_engine() {
  return load_engine_text(
      bench_engine(R"(, "capacity_policy": "guaranteed_no_evict", "limits": "trtllm_bench")"),
      "bench.json");
}

// Weights and KV cache in FP8 (what the sizing reads of a run).
RunConfig fp8_run() {
  RunConfig r;
  r.weights = r.kv_cache = DType::Fp8;
  return r;
}

}  // namespace

TEST_CASE("trtllm-bench: max batch size rounds up by its range", "[serve]") {
  CHECK(trtllm_bench_finetune(10, 1000, 1000, 1).max_batch_size == 64);  // at least 64
  CHECK(trtllm_bench_finetune(70, 1000, 1000, 1).max_batch_size == 96);  // to 32 below 256
  CHECK(trtllm_bench_finetune(255, 1000, 1000, 1).max_batch_size == 256);
  CHECK(trtllm_bench_finetune(300, 1000, 1000, 1).max_batch_size == 384);    // to 128 below 1024
  CHECK(trtllm_bench_finetune(1500, 1000, 1000, 1).max_batch_size == 1536);  // to 256
  CHECK(trtllm_bench_finetune(9000, 1000, 1000, 1).max_batch_size == 4096);  // capped at 4096
  CHECK(trtllm_bench_finetune(9000, 1000, 1000, 2).max_batch_size == 2048);  // over pp stages
}

TEST_CASE("trtllm-bench: max num tokens rounds up by its range", "[serve]") {
  CHECK(trtllm_bench_finetune(40, 1000, 1000, 1).max_num_tokens == 2048);    // at least 2048
  CHECK(trtllm_bench_finetune(1500, 1000, 1000, 1).max_num_tokens == 3072);  // 3000, to 256
  CHECK(trtllm_bench_finetune(3000, 1000, 1000, 1).max_num_tokens == 6144);  // 6000, to 512
  CHECK(trtllm_bench_finetune(3000, 2000, 1000, 1).max_num_tokens == 9216);  // 9000, to 1024
  CHECK(trtllm_bench_finetune(4096, 2048, 128, 1).max_num_tokens == 32768);  // capped
}

TEST_CASE("trtllm-bench: Llama-3.1-70B in FP8 on one H100 at 1000/1000", "[serve]") {
  // By hand: 79.65 GiB - 70.55e9 B of FP8 weights = 13.94 GiB free; an FP8 token's KV is
  // 2 x 80 x 8 x 128 B; 0.95 x 13.94 GiB / (160 KiB x 2000) = 43.4 requests -> batch 64, and
  // 43.4 x 2 = 87 tokens -> 2048.
  EngineConfig e = with_workload_limits(sized_engine(), load_model("llama-3.1-70b"),
                                        load_gpu("h100-sxm"), 1, fp8_run(), 1000, 1000);
  CHECK(e.max_num_seqs == 64);
  CHECK(e.max_num_batched_tokens == 2048);
  // Llama-3.1-8B in FP8 on an H200 at 128/128: the 4096 cap; 8192 tokens.
  EngineConfig s = with_workload_limits(sized_engine(), load_model("llama-3.1-8b"),
                                        load_gpu("h200-sxm"), 1, fp8_run(), 128, 128);
  CHECK(s.max_num_seqs == 4096);
  CHECK(s.max_num_batched_tokens == 8192);
  // An engine with fixed limits keeps them.
  EngineConfig fixed = load_engine("trtllm");
  EngineConfig same = with_workload_limits(fixed, load_model("llama-3.1-8b"), load_gpu("h200-sxm"),
                                           1, fp8_run(), 128, 128);
  CHECK(same.max_num_seqs == fixed.max_num_seqs);
}

TEST_CASE("trtllm-bench: the mean lengths a spec draws", "[serve]") {
  CHECK(mean_length(parse_length_spec("--input-len", "1000")) == 1000);
  CHECK(mean_length(parse_length_spec("--input-len", "uniform:100:900")) == 500);
  CHECK(mean_length(parse_length_spec("--input-len", "normal:300:50")) == 300);
  CHECK(mean_length(parse_length_spec("--input-len", "lognormal:100:1")) ==
        Approx(100 * std::exp(0.5)));
}

TEST_CASE("trtllm-bench: engine file errors", "[serve][errors]") {
  CHECK(sized_engine().limits_from_workload);
  require_input_error(
      [] { load_engine_text(bench_engine(R"(, "limits": "trtllm_bench")", "vllm_v1"), "b.json"); },
      {"b.json: /scheduler/limits: trtllm_bench applies to the trtllm policy only"});
  require_input_error(
      [] {
        load_engine_text(bench_engine(R"(, "capacity_policy": "guaranteed_no_evict", )"
                                      R"("limits": "trtllm_bench", "max_num_seqs": 8)"),
                         "b.json");
      },
      {"b.json: /scheduler/max_num_seqs: set by \"limits\": \"trtllm_bench\" from the workload; "
       "not both"});
  require_input_error(
      [] {
        load_engine_text(bench_engine(R"(, "capacity_policy": "guaranteed_no_evict", )"
                                      R"("limits": "heuristic")"),
                         "b.json");
      },
      {"b.json: /scheduler/limits", "trtllm_bench"});
}

TEST_CASE("trtllm-bench: no room for one request", "[serve][errors]") {
  require_input_error(
      [] {
        with_workload_limits(sized_engine(), load_model("llama-3.1-70b"), load_gpu("h100-sxm"), 1,
                             fp8_run(), 500000, 500000);
      },
      {"bench.json: /scheduler/limits: trtllm_bench finds no room for one request"});
}

TEST_CASE("trtllm-bench: a closed-loop published row is refused", "[serve][errors]") {
  PublishedRow p;
  p.id = "row#1";
  p.split = "fit";
  p.family = "trtllm-perf";
  p.gpu = "h200-sxm";
  p.model = "llama-3.1-8b";
  p.precision = "fp8";
  p.engine = "trtllm";
  p.input_tokens = 128;
  p.output_tokens = 128;
  p.concurrency = 8;
  p.measured["ttft_ms"] = 10;
  std::string path =
      (std::filesystem::temp_directory_path() / "ridgeline-bench-sized.json").string();
  std::ofstream(path) << bench_engine(
      R"(, "capacity_policy": "guaranteed_no_evict", "limits": "trtllm_bench")");
  PublishedScorecard c = score_published({p}, "all", {{"trtllm-perf", path}});
  REQUIRE(c.failed == 1);
  CHECK(c.rows.at(0).failure.find("row#1: ") == 0);
  CHECK(c.rows.at(0).failure.find("sizes itself as trtllm-bench throughput does, for an offline "
                                  "(rate inf) row only") != std::string::npos);
}
