// transformers' paged|sdpa attention layout ("attention": {"layout": "packed_masked"} in an
// engine file): how the engine reads it, the step shape the simulator hands the step model (all
// of the batch's keys in one masked attention, padded as CUDA graphs pad them), how it is priced
// (model/serving_step.h serving_packed_attention_us), and the additive-mask attention rule it
// rests on (masked_block_slowdown; flash kernels refuse a mask).
#include "common/errors.h"
#include "hardware/gpu_load.h"
#include "model/op_cost.h"
#include "model/serving_step.h"
#include "serve/kv_sizing.h"
#include "serve/simulator.h"
#include "serve_test_helpers.h"
#include "test_helpers.h"
#include "workloads/model_config.h"
#include "workloads/op_parse.h"
#include "workloads/runtime_profile.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace ridgeline;
using namespace ridgeline::test;

namespace {

// Records every step's shape; costs 1 ms a step.
class ShapeLog : public StepModel {
 public:
  double step_us(const StepShape& s) override {
    shapes.push_back(s);
    return 1000;
  }
  StepMemory memory() const override { return {80e9, 16e9, 1e9, 131072, 131072}; }
  double activation_peak_bytes(int64_t) override { return 0; }
  int64_t gpus() const override { return 1; }
  std::vector<StepShape> shapes;
};

std::string attention(const std::string& body) {
  return R"(, "attention": {)" + body + R"(, "source": "test"})";
}

// engine_json with an attention block spliced in after "host".
EngineConfig packed_engine(const std::string& body) {
  std::string text = R"({"description": "test", "source": "test", "runtime": "fused",
    "launch": "graph", "scheduler": {"policy": "hf_cb", "max_num_batched_tokens": 256,
      "max_num_seqs": 64, "chunked_prefill": true, "safety_margin": 0.0},
    "kv_cache": {"block_size_tokens": 16, "memory": "fraction_of_total", "memory_fraction": 0.9,
      "subtract_activation_peak": false, "max_blocks": 0, "prefix_caching": false,
      "dtype": "weights"},
    "cuda_graphs": null, "host": {"overhead_us_per_step": 0, "source": "test"})" +
                     attention(body) + "}";
  return load_engine_text(text, "packed.json");
}

std::vector<StepShape> run(const EngineConfig& e, const std::vector<Request>& r) {
  ShapeLog log;
  SimOptions opt;
  opt.arrivals.kind = ArrivalSpec::Kind::Trace;
  opt.kv_blocks = 1000;
  simulate(r, e, log, opt);
  return log.shapes;
}

AttentionOp masked(int64_t q, int64_t kv) {
  AttentionOp a;
  a.heads = 32;
  a.kv_heads = 32;
  a.head_dim = 128;
  a.q_len = q;
  a.kv_len = kv;
  a.additive_mask = true;
  return a;
}

}  // namespace

TEST_CASE("packed attention: the engine reads the layout and its key padding") {
  EngineConfig e = packed_engine(R"("layout": "packed_masked", "kv_padding_tokens": 16384)");
  CHECK(e.packed_attention);
  CHECK(e.kv_padding_tokens == 16384);
  CHECK_FALSE(engine_json("hf_cb", 256, 64, 16, R"(, "safety_margin": 0.0)")
                  .packed_attention);  // no block: per request
  CHECK_FALSE(packed_engine(R"("layout": "per_request")").packed_attention);
}

TEST_CASE("packed attention: key padding on a per-request layout is refused") {
  require_input_error([] { packed_engine(R"("layout": "per_request", "kv_padding_tokens": 64)"); },
                      {"packed.json: /attention/kv_padding_tokens: pads a packed_masked layout's "
                       "keys only"});
}

// A sliding-window model's layers mask different keys: refused where the engine meets the model
// (sizing its KV cache, before any request runs), not at the first step.
class SlidingLog : public ShapeLog {
 public:
  int64_t sliding_window_tokens() const override { return 4096; }
};

TEST_CASE("packed attention: a sliding-window model is refused at setup") {
  EngineConfig e = packed_engine(R"("layout": "packed_masked")");
  SlidingLog sliding;
  require_input_error([&] { size_kv_cache(e, sliding); },
                      {"--engine: a packed_masked attention layout with a sliding-window model is "
                       "not modelled"});
  ShapeLog full;  // every layer attends to all keys: sized as usual
  CHECK(size_kv_cache(e, full).blocks > 0);
  EngineConfig per_request = packed_engine(R"("layout": "per_request")");
  CHECK(size_kv_cache(per_request, sliding).blocks > 0);
}

// A model whose layers differ (sliding beside full attention): its memory says so.
class WindowedLog : public ShapeLog {
 public:
  StepMemory memory() const override {
    StepMemory m = ShapeLog::memory();
    m.kv_window_tokens = 1024;
    m.kv_windowed_share = 0.8;
    return m;
  }
};

TEST_CASE("packed attention: a model with windowed layers is refused at setup") {
  EngineConfig e = packed_engine(R"("layout": "packed_masked")");
  WindowedLog windowed;
  require_input_error([&] { size_kv_cache(e, windowed); },
                      {"--engine: a packed_masked attention layout with a sliding-window model is "
                       "not modelled"});
}

TEST_CASE("packed attention: an unknown layout is refused") {
  require_input_error([] { packed_engine(R"("layout": "paged")"); },
                      {"packed.json: /attention/layout: expected one of"});
}

TEST_CASE("packed attention: a step attends over the batch's keys in one, with no groups") {
  // Two prompts of 100 and 60 tokens in one step (160 keys), then two decodes over 101 and 61.
  std::vector<Request> r = {{0, 0, 100, 2}, {1, 0, 60, 2}};
  std::vector<StepShape> packed = run(packed_engine(R"("layout": "packed_masked")"), r);
  REQUIRE(packed.size() == 2);
  CHECK(packed[0].groups.empty());
  CHECK(packed[0].tokens == 160);
  CHECK(packed[0].packed_kv_tokens == 160);
  CHECK(packed[1].tokens == 2);
  CHECK(packed[1].packed_kv_tokens == 101 + 61);
  std::vector<StepShape> plain =
      run(engine_json("hf_cb", 256, 64, 16, R"(, "safety_margin": 0.0)"), r);
  REQUIRE(plain.size() == 2);
  CHECK(plain[0].packed_kv_tokens == 0);
  CHECK(plain[0].groups.size() == 2);  // each prompt its own group
}

TEST_CASE("packed attention: keys pad up to the engine's multiple, never down") {
  std::vector<Request> r = {{0, 0, 100, 2}};
  auto s = run(packed_engine(R"("layout": "packed_masked", "kv_padding_tokens": 128)"), r);
  REQUIRE(s.size() == 2);
  CHECK(s[0].packed_kv_tokens == 128);  // 100 keys
  CHECK(s[1].packed_kv_tokens == 128);  // 101
  auto exact = run(packed_engine(R"("layout": "packed_masked", "kv_padding_tokens": 50)"), r);
  CHECK(exact[0].packed_kv_tokens == 100);  // already a multiple
  CHECK(exact[1].packed_kv_tokens == 150);
}

TEST_CASE(
    "packed attention: priced as two gathers, two strided copies and one masked SDPA a layer") {
  GpuSpec gpu = load_gpu("h200-sxm");
  ModelConfig m = load_model("llama-3-8b");
  RunConfig run;
  run.runtime = load_runtime("pytorch-eager");
  run.launch = LaunchMode::Graph;
  auto kernel = [&](const OpShape& s) { return predict_op(Op{"", s, false}, gpu).time_us; };
  ElementwiseOp gather, expand;
  gather.numel = 16384 * 8 * 128;
  expand.numel = 16384 * 32 * 128;
  expand.strided = true;
  double layer = 2 * kernel(gather) + 2 * kernel(expand) + kernel(masked(64, 16384));
  CHECK(serving_packed_attention_us(gpu, m, run, 64, 16384) == Approx(32 * layer));
  // Linear in the keys at a small query count: twice the keys, about twice the time.
  double twice = serving_packed_attention_us(gpu, m, run, 64, 32768);
  CHECK(twice / serving_packed_attention_us(gpu, m, run, 64, 16384) == Approx(2).epsilon(0.1));
}

TEST_CASE("additive mask: a masked key block costs masked_block_slowdown times an unmasked one") {
  GpuSpec gpu = load_gpu("h200-sxm");
  AttentionOp plain = masked(2048, 65536);
  plain.additive_mask = false;
  double s = gpu.model.attention.masked_block_slowdown.value;
  double ratio = predict_op(Op{"", masked(2048, 65536), false}, gpu).time_us /
                 predict_op(Op{"", plain, false}, gpu).time_us;
  CHECK(ratio > 0.9 * s);  // the main loop dominates a long non-causal attention
  CHECK(ratio <= s * 1.01);
  GpuSpec unit = gpu;
  unit.model.attention.masked_block_slowdown.value = 1;  // no slowdown: only the mask's bytes
  CHECK(predict_op(Op{"", masked(2048, 65536), false}, unit).time_us ==
        Approx(predict_op(Op{"", plain, false}, unit).time_us).epsilon(0.02));
}

TEST_CASE("additive mask: SDPA picks cuDNN on Hopper and the memory-efficient kernel elsewhere") {
  CHECK(std::string(predict_op(Op{"", masked(128, 4096), false}, load_gpu("h200-sxm")).impl) ==
        "cudnn");
  CHECK(std::string(predict_op(Op{"", masked(128, 4096), false}, load_gpu("a100-sxm-80gb")).impl) ==
        "efficient");
}

TEST_CASE("additive mask: flash kernels take none (op line)") {
  nlohmann::json j = {{"op", "attention"}, {"batch", 1},           {"heads", 32},
                      {"kv_heads", 32},    {"head_dim", 128},      {"q_len", 64},
                      {"kv_len", 4096},    {"causal", false},      {"dtype", "bf16"},
                      {"impl", "flash2"},  {"additive_mask", true}};
  require_input_error([&] { parse_op(j, "ops.jsonl line 1", "1"); },
                      {"ops.jsonl line 1: /impl: flash2 takes no additive mask"});
}

TEST_CASE("engine: a uniform sliding window runs full where the engine says so", "[serve]") {
  ModelConfig mistral = load_model("mistral-7b");  // sliding_window 4096 on every layer
  REQUIRE(mistral.sliding_window == 4096);
  REQUIRE(mistral.layer_kinds.empty());
  EngineConfig full = packed_engine(R"("uniform_sliding_window": "full")");
  CHECK(full.uniform_window_full);
  CHECK_FALSE(full.packed_attention);  // the layout defaults to per_request
  CHECK(engine_model(full, mistral).sliding_window == 0);
  // "model" (and no key at all) keeps the config's window.
  CHECK(
      engine_model(packed_engine(R"("uniform_sliding_window": "model")"), mistral).sliding_window ==
      4096);
  CHECK(engine_model(packed_engine(R"("layout": "per_request")"), mistral).sliding_window == 4096);
  // A per-layer pattern is the model's own: gpt-oss keeps its 128-token sliding layers.
  ModelConfig oss = load_model("gpt-oss-20b");
  REQUIRE_FALSE(oss.layer_kinds.empty());
  ModelConfig kept = engine_model(full, oss);
  CHECK(kept.layer_kinds == oss.layer_kinds);
  // The KV a long sequence holds: capped at the window, or its whole length when full.
  double windowed = kv_cache_bytes(mistral, 20000, 0, 2);
  double whole = kv_cache_bytes(engine_model(full, mistral), 20000, 0, 2);
  CHECK(whole == Approx(windowed * 20000.0 / 4096.0));
}

TEST_CASE("engine error: uniform_sliding_window takes model or full", "[serve][errors]") {
  require_input_error([&] { packed_engine(R"("uniform_sliding_window": "half")"); },
                      {"packed.json: /attention/uniform_sliding_window", "model", "full"});
}
