// generate() predictions (model/generate_predict.h): the call is the prompt's prefill plus
// new_tokens - 1 decode steps priced at the mean cache length, its memory the last step's, and
// each bad input names the flag to change.
#include "model/generate_predict.h"
#include "test_helpers.h"
#include "workloads/graph_builder.h"
#include "workloads/runtime_profile.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

using namespace ridgeline;
using test::require_input_error;

namespace {

RunConfig prompt(int64_t seq) {
  RunConfig r;
  r.phase = Phase::Prefill;
  r.seq = seq;
  return r;
}

ModelConfig llama() {
  return load_model("llama-3-8b");
}

}  // namespace

TEST_CASE("generate: total is the first token plus new_tokens - 1 decode steps", "[generate]") {
  GenerateSteps g = predict_generate_steps(llama(), prompt(512), 33, test::h100());
  REQUIRE(g.decode);
  CHECK(g.times.ttft_us == g.prefill.total_us);
  CHECK(g.times.per_token_us == g.decode->total_us);
  CHECK(g.times.total_us == Approx(g.times.ttft_us + 32 * g.times.per_token_us));
  // Decode steps over 512 .. 543 cached tokens, priced at their mean.
  CHECK(g.decode_kv_first == 512);
  CHECK(g.decode_kv_last == 543);
  CHECK(g.decode->run.kv_len == 527);
  CHECK(g.tokens_per_s == Approx(33 / (g.times.total_us * 1e-6)));
}

namespace {

bool launches(const Prediction& p, const std::string& kernel) {
  for (const SectionPrediction& s : p.sections)
    for (const KernelPrediction& k : s.kernels)
      if (k.name.find(kernel) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("generate: transformers' grouped_mm experts run batched_mm in the decode steps",
          "[generate]") {
  // transformers switches grouped_mm to batched_mm for generate()'s decode stage on a GPU; the
  // prompt's prefill keeps grouped_mm, and a serving engine's fused MoE never switches.
  ModelConfig m = load_model("mixtral-8x7b");
  m.layers = 2;
  RunConfig hf = prompt(512);
  hf.runtime = load_runtime("hf-transformers");
  hf.launch = LaunchMode::Eager;
  GenerateSteps g = predict_generate_steps(m, hf, 8, test::h100());
  REQUIRE(g.decode);
  CHECK(launches(*g.decode, "experts.gate_up_weight_gather"));
  CHECK_FALSE(launches(*g.decode, "experts.ids_sort"));
  CHECK(launches(g.prefill, "experts.ids_sort"));
  CHECK_FALSE(launches(g.prefill, "experts.gate_up_weight_gather"));
  // batched_mm copies every pair's weights: at 8 sequences (16 pairs of Mixtral's top-2) the
  // step reads and writes ~5.6 GB a layer, far slower than the grouped GEMM over 8 experts
  RunConfig eight = hf;
  eight.batch = 8;
  GenerateSteps g8 = predict_generate_steps(m, eight, 8, test::h100());
  RunConfig grouped = g8.decode->run;
  grouped.runtime.block.moe = MoeImpl::HfGroupedMm;
  double grouped_us = predict_workload(build_graph(m, grouped), m, grouped, test::h100()).total_us;
  CHECK(g8.decode->total_us > 2 * grouped_us);
  RunConfig fused = prompt(512);
  fused.runtime = load_runtime("fused");
  GenerateSteps f = predict_generate_steps(m, fused, 8, test::h100());
  CHECK_FALSE(launches(*f.decode, "experts.gate_up_weight_gather"));
}

TEST_CASE("generate: a runtime's generate() setup comes before the first token", "[generate]") {
  RunConfig hf = prompt(512);
  hf.runtime = load_runtime("hf-transformers");
  hf.launch = LaunchMode::Eager;
  REQUIRE(hf.runtime.generate_setup_us > 0);
  GenerateSteps g = predict_generate_steps(llama(), hf, 4, test::h100());
  CHECK(g.times.ttft_us == Approx(hf.runtime.generate_setup_us + g.prefill.total_us));
  CHECK(g.times.total_us == Approx(g.times.ttft_us + 3 * g.times.per_token_us));
  hf.runtime.generate_setup_us = 0;
  CHECK(predict_generate_steps(llama(), hf, 4, test::h100()).times.ttft_us ==
        Approx(g.prefill.total_us));
}

TEST_CASE("generate error: a negative generate() setup names the runtime's field",
          "[generate][errors]") {
  std::ifstream in(std::string(RIDGELINE_SOURCE_DIR) + "/workloads/runtimes/hf-transformers.json");
  std::stringstream text;
  text << in.rdbuf();
  std::string t = text.str();
  t.replace(t.find("\"generate_setup_us\": 1748.5"), 26, "\"generate_setup_us\": -1");
  require_input_error([&] { load_runtime_text(t, "t.json"); },
                      {"t.json: /host/generate_setup_us: expected a number >= 0, got -1"});
}

TEST_CASE("generate: one new token is the prefill alone, two add one decode step", "[generate]") {
  GenerateSteps one = predict_generate_steps(llama(), prompt(512), 1, test::h100());
  CHECK_FALSE(one.decode);
  CHECK(one.times.per_token_us == 0);
  CHECK(one.times.total_us == one.times.ttft_us);
  GenerateSteps two = predict_generate_steps(llama(), prompt(512), 2, test::h100());
  REQUIRE(two.decode);
  CHECK(two.decode->run.kv_len == 512);
  CHECK(two.times.total_us == Approx(two.times.ttft_us + two.times.per_token_us));
}

TEST_CASE("generate: a longer call needs the memory of its longer last step", "[generate]") {
  GenerateSteps s = predict_generate_steps(llama(), prompt(1024), 2, test::h100());
  GenerateSteps l = predict_generate_steps(llama(), prompt(1024), 4096, test::h100());
  CHECK(l.memory.kv_cache_bytes > s.memory.kv_cache_bytes);
  CHECK(l.times.per_token_us > s.times.per_token_us);  // a longer mean cache
  CHECK(predict_generate(llama(), prompt(1024), 4096, test::h100()).total_us == l.times.total_us);
}

TEST_CASE("generate error: no prompt names --seq", "[generate][errors]") {
  require_input_error([&] { predict_generate_steps(llama(), prompt(0), 4, test::h100()); },
                      {"--seq: generate needs a prompt of at least one token"});
}

TEST_CASE("generate error: fewer than one new token names --new-tokens", "[generate][errors]") {
  require_input_error([&] { predict_generate_steps(llama(), prompt(8), 0, test::h100()); },
                      {"--new-tokens: generate needs at least one new token, got 0"});
}

TEST_CASE("generate error: positions past the model's name --new-tokens", "[generate][errors]") {
  ModelConfig m = llama();  // 8192 positions: 4096 + 4097 reach 8192, one more is over
  predict_generate_steps(m, prompt(4096), 4097, test::h100());
  require_input_error(
      [&] { predict_generate_steps(m, prompt(4096), 4098, test::h100()); },
      {"--new-tokens: 4096 prompt tokens and 4098 new tokens reach 8193 positions, over the "
       "model's 8192 (max_position_embeddings)"});
}
