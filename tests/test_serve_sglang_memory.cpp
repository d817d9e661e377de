// SGLang's KV pool: the mem_fraction_static its server computes from the GPU's memory when none is
// given (serve/engine.h SglangReserved), both sides of each limit (tensor parallelism 4, a GPU
// above 60 GiB, a CUDA graph batch above 300 with attention data parallelism), the preset's
// fraction on the H100 and H200, and the engine file's errors.
#include "serve/engine.h"
#include "serve/kv_sizing.h"
#include "serve_test_helpers.h"
#include "test_helpers.h"

#include <catch2/catch.hpp>

using namespace ridgeline;
using namespace ridgeline::test;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// A step model of one GPU of `gpu_mib` MiB holding `weights` bytes, `gpus` GPUs a replica.
class MemoryStepModel : public FixedStepModel {
 public:
  MemoryStepModel(double gpu_mib, double weights, int64_t gpus = 1, int64_t stages = 1,
                  int64_t dp = 1)
      : FixedStepModel(1, 0),
        gpu_mib_(gpu_mib),
        weights_(weights),
        gpus_(gpus),
        stages_(stages),
        dp_(dp) {}
  StepMemory memory() const override { return {gpu_mib_ * kMiB, weights_, 1e9, 131072, 131072}; }
  int64_t gpus() const override { return gpus_; }
  int64_t pipeline_stages() const override { return stages_; }
  int64_t data_parallel_ranks() const override { return dp_; }

 private:
  double gpu_mib_, weights_;
  int64_t gpus_, stages_, dp_;
};

}  // namespace

TEST_CASE("sglang memory: mem_fraction_static as SGLang computes it") {
  SglangReserved s;  // SGLang's constants at its 80-160 GB defaults (chunk 8192, graphs 256/512)
  // H100 80 GB (81559 MiB): 512 + 8192 x 1.5 + 256 x 2 + 1/8 x 1024 = 13440 MiB reserved.
  CHECK(s.fraction(81559 * kMiB, 1, 1, 1) == Approx(0.835));
  // H200 (143771 MiB), the same reserve.
  CHECK(s.fraction(143771 * kMiB, 1, 1, 1) == Approx(0.907));
  // Tensor parallelism 3 keeps 256 graph batches; 4 takes 512 (+512 MiB) and 4/8 x 1024.
  CHECK(s.fraction(81559 * kMiB, 3, 1, 1) ==
        Approx(std::round((81559.0 - 13696) / 81559 * 1000) / 1000));
  CHECK(s.fraction(81559 * kMiB, 4, 1, 1) ==
        Approx(std::round((81559.0 - 14336) / 81559 * 1000) / 1000));
  // Four GPUs over two pipeline stages are tensor parallelism 2: 256 graph batches.
  CHECK(s.fraction(81559 * kMiB, 4, 2, 1) ==
        Approx(std::round((81559.0 - 13824) / 81559 * 1000) / 1000));
  // The 10 GiB floor applies above 60 GiB only: a 2048-token chunk reserves 4224 MiB.
  s.chunk_tokens = 2048;
  CHECK(s.fraction(61440 * kMiB, 1, 1, 1) ==
        Approx(std::round((61440.0 - 4224) / 61440 * 1000) / 1000));
  CHECK(s.fraction(61441 * kMiB, 1, 1, 1) ==
        Approx(std::round((61441.0 - 10240) / 61441 * 1000) / 1000));
  // Chunks under 2048 tokens reserve as 2048.
  s.chunk_tokens = 1024;
  CHECK(s.fraction(61440 * kMiB, 1, 1, 1) ==
        Approx(std::round((61440.0 - 4224) / 61440 * 1000) / 1000));
  s.chunk_tokens = 8192;
  // Attention data parallelism: + graph batches x ranks x 3, and x 1.5 more above 300 batches.
  s.cuda_graph_max_bs = s.cuda_graph_max_bs_tp4 = 300;  // not above 300
  double r300 = 512 + 12288 + 600 + 1024 + 300.0 * 8 * 3;
  CHECK(s.fraction(143771 * kMiB, 8, 1, 8) ==
        Approx(std::round((143771 - r300) / 143771 * 1000) / 1000));
  s.cuda_graph_max_bs = s.cuda_graph_max_bs_tp4 = 301;
  double r301 = 512 + 12288 + 602 + 1024 + 301.0 * 8 * 3 + 301.0 * 8 * 1.5;
  CHECK(s.fraction(143771 * kMiB, 8, 1, 8) ==
        Approx(std::round((143771 - r301) / 143771 * 1000) / 1000));
}

TEST_CASE("sglang memory: the preset's KV pool is that fraction less the weights") {
  EngineConfig e = load_engine("sglang");
  REQUIRE(e.memory_rule == KvMemoryRule::SglangReserved);
  MemoryStepModel h100(81559, 65.5e9);
  KvSizing k = size_kv_cache(e, h100);
  CHECK(k.memory_fraction == Approx(0.835));
  CHECK(k.kv_bytes == Approx(0.835 * 81559 * kMiB - 65.5e9).epsilon(1e-4));
  // A fixed fraction (fraction_of_total) ignores the GPU: the other engines are unchanged.
  EngineConfig v = load_engine("vllm");
  CHECK(size_kv_cache(v, h100).memory_fraction == 0.9);
}

TEST_CASE("sglang memory: engine file errors name the file and JSON path") {
  std::string good = R"({"description": "d", "source": "s", "runtime": "fused", "launch": "graph",
    "scheduler": {"policy": "sglang", "max_num_batched_tokens": 8192, "max_num_seqs": 8,
      "chunked_prefill": true, "new_token_ratio": {"init": 0.7, "min_fraction_of_init": 0.14,
      "decay_steps": 600, "clip_max_new_tokens": 4096}, "mixed_chunk": false},
    "kv_cache": {"block_size_tokens": 1, "memory": "sglang_reserved",
      "reserved": {"base_MiB": 512, "chunk_tokens": 8192, "min_chunk_tokens": 2048,
        "MiB_per_chunk_token": 1.5, "cuda_graph_max_bs": 256, "cuda_graph_max_bs_tp4": 512,
        "MiB_per_graph_bs": 2, "MiB_per_8_gpus": 1024, "MiB_per_graph_bs_dp_rank": 3,
        "MiB_per_large_graph_bs_dp_rank": 1.5, "large_graph_bs": 300, "floor_MiB": 10240,
        "floor_above_gpu_MiB": 61440},
      "subtract_activation_peak": false, "max_blocks": 0, "prefix_caching": false,
      "dtype": "activations"},
    "cuda_graphs": null, "host": {"overhead_us_per_step": 10, "source": "s"}})";
  CHECK_NOTHROW(load_engine_text(good, "e.json"));
  auto with = [&](const std::string& from, const std::string& to) {
    return with_replaced(good, from, to);
  };
  // A fixed fraction beside the computed one would be ignored: an unknown key.
  require_input_error(
      [&] {
        load_engine_text(with("\"memory\": \"sglang_reserved\",",
                              "\"memory\": \"sglang_reserved\", \"memory_fraction\": 0.88,"),
                         "e.json");
      },
      {"e.json: /kv_cache/memory_fraction: unknown key"});
  require_input_error([&] { load_engine_text(with("\"base_MiB\": 512, ", ""), "e.json"); },
                      {"e.json: /kv_cache/reserved/base_MiB"});
  require_input_error(
      [&] { load_engine_text(with("\"chunk_tokens\": 8192", "\"chunk_tokens\": 0"), "e.json"); },
      {"e.json: /kv_cache/reserved/chunk_tokens"});
  // A GPU whose computed fraction leaves no block says which rule gave the fraction.
  EngineConfig e = load_engine_text(good, "e.json");
  MemoryStepModel small(81559, 75e9);  // 0.835 x 85.5 GB < 75 GB of weights
  require_input_error([&] { size_kv_cache(e, small); },
                      {"e.json: /kv_cache/reserved: SGLang's mem_fraction_static 0.835 leaves no "
                       "KV block"});
}
