// The engine file's KV cache precision rule ("kv_cache": {"dtype": "weights" | "activations"}):
// which precision the KV cache takes under --precision, both sides of the rule, the presets'
// choices, its effect on a run's KV pool, and one test per error message of the key.
#include "hardware/gpu_load.h"
#include "serve/engine.h"
#include "serve/gpu_step_model.h"
#include "serve/kv_sizing.h"
#include "serve_test_helpers.h"
#include "test_helpers.h"
#include "workloads/model_config.h"
#include "workloads/runtime_profile.h"

#include <catch2/catch.hpp>

using namespace ridgeline;
using namespace ridgeline::test;

namespace {

std::string engine_with_dtype(const std::string& dtype_entry) {
  return R"({"description": "d", "source": "s", "runtime": "fused", "launch": "graph",
    "scheduler": {"policy": "vllm_v1", "max_num_batched_tokens": 64, "max_num_seqs": 8, "chunked_prefill": true},
    "kv_cache": {"block_size_tokens": 16, "memory": "fraction_of_total", "memory_fraction": 0.9,
      "subtract_activation_peak": true, "max_blocks": 0, "prefix_caching": false)" +
         dtype_entry + R"(},
    "cuda_graphs": null, "host": {"overhead_us_per_step": 10, "source": "s"}})";
}

}  // namespace

TEST_CASE("kv dtype: weights follows the weights, activations the activations") {
  EngineConfig w = load_engine_text(engine_with_dtype(R"(, "dtype": "weights")"), "w.json");
  EngineConfig a = load_engine_text(engine_with_dtype(R"(, "dtype": "activations")"), "a.json");
  CHECK(w.kv_dtype == KvDtypeRule::Weights);
  CHECK(a.kv_dtype == KvDtypeRule::Activations);
  // fp8 weights with bf16 activations: the two rules part
  CHECK(w.kv_cache_dtype(DType::Fp8, DType::Bf16) == DType::Fp8);
  CHECK(a.kv_cache_dtype(DType::Fp8, DType::Bf16) == DType::Bf16);
  // bf16 (and fp16) runs: the same either way
  CHECK(w.kv_cache_dtype(DType::Bf16, DType::Bf16) == DType::Bf16);
  CHECK(a.kv_cache_dtype(DType::Bf16, DType::Bf16) == DType::Bf16);
  CHECK(a.kv_cache_dtype(DType::Fp16, DType::Fp16) == DType::Fp16);
}

TEST_CASE("kv dtype: the presets' choices (SGLang's kv_cache_dtype auto keeps the model dtype)") {
  CHECK(load_engine("sglang").kv_dtype == KvDtypeRule::Activations);
  CHECK(load_engine("trtllm").kv_dtype == KvDtypeRule::Weights);
  CHECK(load_engine("vllm").kv_dtype == KvDtypeRule::Weights);
  CHECK(load_engine("hf-cb").kv_dtype == KvDtypeRule::Weights);
}

TEST_CASE("kv dtype: a bf16 cache under fp8 weights holds half the tokens of an fp8 one") {
  EngineConfig a = load_engine_text(engine_with_dtype(R"(, "dtype": "activations")"), "a.json");
  GpuSpec gpu = load_gpu("h200-sxm");
  ModelConfig model = load_model("llama-3.1-8b");
  auto pool_tokens = [&](DType kv) {
    RunConfig run;
    run.weights = DType::Fp8;
    run.activations = DType::Bf16;
    run.kv_cache = kv;
    run.runtime = load_runtime(a.runtime);
    GpuStepModel step(gpu, model, run);
    return (double)size_kv_cache(a, step).blocks * (double)a.block_size_tokens;
  };
  double fp8 = pool_tokens(a.kv_cache_dtype(DType::Fp8, DType::Fp8));
  double bf16 = pool_tokens(a.kv_cache_dtype(DType::Fp8, DType::Bf16));
  CHECK(bf16 == Approx(fp8 / 2).epsilon(0.001));
}

TEST_CASE("kv dtype errors: the key is required and names its choices") {
  require_input_error([] { load_engine_text(engine_with_dtype(""), "e.json"); },
                      {"e.json: /kv_cache/dtype: missing"});
  require_input_error(
      [] { load_engine_text(engine_with_dtype(R"(, "dtype": "fp8")"), "e.json"); },
      {"e.json: /kv_cache/dtype: expected one of weights, activations; got \"fp8\""});
}
