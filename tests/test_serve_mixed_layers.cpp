// Serving models whose layers differ (sliding or chunked windows beside full attention, dense and
// MoE MLPs) and models with multi-head latent attention: each kind's attention priced with its
// window, the windowed layers' KV kept for their window only (kv_pool.h), absorbed MLA's
// per-group part (a decode's absorb GEMMs and FlashMLA, a prefill's decompression), its latent
// cache a token, and the refusals where engine and model do not meet.
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "model/prediction.h"
#include "model/serving_step.h"
#include "serve/gpu_step_model.h"
#include "serve/kv_pool.h"
#include "serve/kv_sizing.h"
#include "serve/memo_step_model.h"
#include "serve/parallel_step_model.h"
#include "serve/serve_run.h"
#include "serve_test_helpers.h"
#include "test_helpers.h"
#include "workloads/graph_builder.h"
#include "workloads/runtime_profile.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace ridgeline;
using test::require_input_error;

namespace {

RunConfig fused() {
  RunConfig run;
  run.runtime = load_runtime("fused");
  run.launch = LaunchMode::Graph;
  return run;
}

bool has_op(const OpGraph& g, const std::string& name) {
  for (const auto& s : g.sections)
    for (auto v : boost::make_iterator_range(boost::vertices(s.dag())))
      if (s.dag()[v].name == name) return true;
  return false;
}

}  // namespace

TEST_CASE("serving MLA: the step graph keeps the shared part, the group graph the rest",
          "[serve][mla]") {
  ModelConfig m = load_model("deepseek-v3");
  RunConfig run = fused();
  OpGraph step = build_serving_step_graph(m, run, 64, 64);
  CHECK(has_op(step, "rope_and_cache_write"));
  CHECK(has_op(step, "q_b_proj"));
  CHECK_FALSE(has_op(step, "attention"));
  CHECK_FALSE(has_op(step, "q_absorb_uk"));
  CHECK_FALSE(has_op(step, "kv_b_proj"));
  OpGraph decode = build_serving_mla_attention_graph(m, run, 64, 1, 2048);
  CHECK(has_op(decode, "q_absorb_uk"));
  CHECK(has_op(decode, "o_absorb_uv"));
  CHECK_FALSE(has_op(decode, "kv_b_proj"));
  OpGraph prefill = build_serving_mla_attention_graph(m, run, 1, 512, 2048);
  CHECK(has_op(prefill, "kv_b_proj"));
  CHECK(has_op(prefill, "k_cat"));
  CHECK_FALSE(has_op(prefill, "q_absorb_uk"));
  CHECK(decode.sections.at(0).repeat == m.layers);
}

TEST_CASE("serving MLA: a decode step's parts add up to the predicted decode step",
          "[serve][mla]") {
  // The same kernels either way: the step graph over 16 tokens plus one group of 16 decodes at
  // kv 2049 against ridgeline's decode step of batch 16 at kv 2048.
  ModelConfig m = load_model("deepseek-v2-lite");
  GpuSpec gpu = load_gpu("h200-sxm");
  RunConfig run = fused();
  double parts =
      serving_dense_us(gpu, m, run, 16, 16) + serving_attention_us(gpu, m, run, 16, 1, 2049);
  RunConfig d = run;
  d.phase = Phase::Decode;
  d.batch = 16;
  d.kv_len = 2048;
  double whole = predict_workload(build_graph(m, d), m, d, gpu).total_us;
  CHECK(std::abs(parts / whole - 1) < 0.03);
  // Attention over a longer cache costs more; a prefill chunk decompresses its keys.
  CHECK(serving_attention_us(gpu, m, run, 16, 1, 8192) >
        serving_attention_us(gpu, m, run, 16, 1, 2048));
  CHECK(serving_attention_us(gpu, m, run, 1, 512, 4096) >
        serving_attention_us(gpu, m, run, 1, 512, 512));
}

TEST_CASE("serving MLA: a token's KV is the latent and the RoPE key, on every rank",
          "[serve][mla]") {
  ModelConfig m = load_model("deepseek-v3");
  RunConfig run = fused();
  run.kv_cache = DType::Bf16;
  ServingMemory s = serving_memory(load_gpu("h200-sxm"), m, run);
  CHECK(s.kv_bytes_per_token == Approx(61.0 * (512 + 64) * 2));
  CHECK(s.kv_window_tokens == 0);
}

TEST_CASE("serving MLA: a runtime of transformers' expand_kv is refused", "[serve][mla][errors]") {
  ModelConfig m = load_model("deepseek-v2-lite");
  RunConfig run;
  run.runtime = load_runtime("pytorch-eager");
  require_input_error([&] { GpuStepModel(load_gpu("h200-sxm"), m, run); },
                      {"deepseek-v2-lite.json: multi-head latent attention (deepseek_v2) is "
                       "served in its absorbed form only",
                       "runtime pytorch-eager runs transformers' expand_kv"});
}

TEST_CASE("serving mixed layers: each layer kind attends within its own window", "[serve]") {
  ModelConfig m = load_model("gpt-oss-20b");  // 12 sliding layers of 128, 12 full
  GpuSpec gpu = load_gpu("h200-sxm");
  RunConfig run = fused();
  REQUIRE_FALSE(m.layer_kinds.empty());
  auto one_kind = [&](int64_t requests, int64_t q_len, int64_t kv) {  // 12 layers, one kind
    ModelConfig u = m;
    u.layer_kinds.clear();
    u.sliding_window = 0;
    u.layers = 12;
    return serving_attention_us(gpu, u, run, requests, q_len, kv);
  };
  // Past the window the sliding layers read 128 keys, the full layers all of them.
  CHECK(serving_attention_us(gpu, m, run, 32, 1, 4096) ==
        Approx(one_kind(32, 1, 4096) + one_kind(32, 1, 128)));
  // Inside the window every layer reads every key.
  CHECK(serving_attention_us(gpu, m, run, 32, 1, 100) == Approx(2 * one_kind(32, 1, 100)));
  // A prefill chunk longer than the window is priced over its own queries' keys.
  CHECK(serving_attention_us(gpu, m, run, 1, 512, 512) == Approx(2 * one_kind(1, 512, 512)));
  CHECK(serving_attention_us(gpu, m, run, 1, 512, 4096) ==
        Approx(one_kind(1, 512, 4096) + one_kind(1, 512, 512)));
}

TEST_CASE("serving mixed layers: the windowed layers' KV is held for the window", "[serve]") {
  ModelConfig m = load_model("gpt-oss-20b");
  RunConfig run = fused();
  run.kv_cache = DType::Bf16;
  ServingMemory s = serving_memory(load_gpu("h200-sxm"), m, run);
  CHECK(s.kv_window_tokens == 128);
  CHECK(s.kv_windowed_share == Approx(0.5));
  CHECK(s.kv_bytes_per_token == Approx(24.0 * 2 * m.kv_heads * m.head_dim * 2));
  // A uniform window (Mistral) keeps every token, as before.
  ServingMemory u = serving_memory(load_gpu("h200-sxm"), load_model("mistral-7b"), run);
  CHECK(u.kv_window_tokens == 0);
}

TEST_CASE("KV blocks a request holds with windowed layers", "[serve]") {
  KvWindow none;
  CHECK(kv_blocks_for(1600, 16, none) == 100);
  KvWindow half{128, 0.5};
  // Within the window and one block: every layer holds every block.
  CHECK(kv_blocks_for(100, 16, half) == 7);
  CHECK(kv_blocks_for(144, 16, half) == 9);
  // Past it the windowed half holds 9 blocks: 0.5 x 100 + 0.5 x 9 = 54.5 -> 55.
  CHECK(kv_blocks_for(1600, 16, half) == 55);
  CHECK(kv_blocks_for(160, 16, half) == 10);  // 0.5 x 10 + 0.5 x 9 = 9.5 -> 10
  // Every layer windowed: the window's blocks only.
  CHECK(kv_blocks_for(1600, 16, KvWindow{128, 1.0}) == 9);
  KvPool pool(60, 16, true, half);
  Sequence s;
  CHECK(pool.grow(s, 1600));
  CHECK(s.blocks == 55);
  CHECK(pool.free_blocks() == 5);
  pool.preempt(s);  // no prefix kept with windowed layers
  CHECK(pool.free_blocks() == 60);
}

namespace {

// Records the shapes a data-parallel replica's memo asks for; each price is its share's size.
class RankLog : public MemoStepModel {
 public:
  explicit RankLog(int64_t ranks) : MemoStepModel(0, ranks) {}
  StepMemory memory() const override { return {80e9, 16e9, 1e9, 131072, 131072}; }
  double activation_peak_bytes(int64_t) override { return 0; }
  int64_t gpus() const override { return data_parallel_ranks(); }
  std::vector<std::pair<int64_t, int64_t>> dense_asked;

 private:
  DenseCost price_dense(int64_t tokens, int64_t sequences) override {
    dense_asked.push_back({tokens, sequences});
    return {(double)tokens, 0};
  }
  double price_attention(int64_t requests, int64_t, int64_t) override {
    return 1000.0 * (double)requests;
  }
  double price_packed_attention(int64_t, int64_t) override { return 0; }
};

}  // namespace

TEST_CASE("attention data parallel: a step is one rank's share of it", "[serve]") {
  RankLog dp(4);
  StepShape s;
  s.tokens = 1100;  // 100 decodes and two prefill chunks of 500
  s.sequences = 102;
  s.groups = {{100, 1, 2048}, {1, 500, 500}, {1, 500, 900}};
  // Dense: ceil(1100 / 4) tokens of ceil(102 / 4) sequences; the decodes split 25 a rank; each
  // chunk runs on one rank of four: a quarter of a one-request price each.
  CHECK(dp.step_us(s) == Approx(275 + 25 * 1000.0 + 2 * 0.25 * 1000.0));
  REQUIRE(dp.dense_asked.size() == 1);
  CHECK(dp.dense_asked[0] == std::make_pair<int64_t, int64_t>(275, 26));
  RankLog one(1);
  CHECK(one.step_us(s) == Approx(1104 + 100 * 1000.0 + 2 * 1000.0));  // 1100 bucketed to 1104
}

TEST_CASE("attention data parallel: the replica's pool and limits are the ranks' sum", "[serve]") {
  RankLog dp(4), one(1);
  EngineConfig e = test::engine_json("vllm_v1", 2048, 256, 16);
  KvSizing k4 = size_kv_cache(e, dp), k1 = size_kv_cache(e, one);
  CHECK(k4.blocks == 4 * k1.blocks);
  CHECK(k4.ranks == 4);
  EngineConfig r = replica_engine(e, dp);
  CHECK(r.max_num_seqs == 4 * 256);
  CHECK(r.max_num_batched_tokens == 4 * 2048);
  CHECK(replica_engine(e, one).max_num_seqs == 256);
}

TEST_CASE("attention data parallel: DeepSeek-V3 over 8 H200s holds an eighth of the experts",
          "[serve][mla]") {
  ParallelConfig p;
  p.ep = 8;
  RunConfig run = fused();
  run.weights = DType::Fp8;
  run.kv_cache = DType::Fp8;
  ModelConfig m = load_model("deepseek-v3");
  ParallelStepModel dep(load_gpu("h200-sxm"), load_cluster("hgx-h200"), m, run, p);
  CHECK(dep.gpus() == 8);
  CHECK(dep.data_parallel_ranks() == 8);
  double experts = routed_expert_parameter_count(m, 0);
  CHECK(dep.memory().weights_bytes ==
        Approx((double)parameter_count(m) - experts + experts / 8).epsilon(0.02));
}

TEST_CASE("attention data parallel: errors", "[serve][errors]") {
  RunConfig run = fused();
  ParallelConfig both;
  both.ep = 4;
  both.tp = 2;
  require_input_error(
      [&] {
        ParallelStepModel(load_gpu("h200-sxm"), load_cluster("hgx-h200"),
                          load_model("qwen3-30b-a3b"), run, both);
      },
      {"--ep 4 with --tp 2: expert parallelism is served with attention data parallelism over the "
       "same ranks (--tp 1)"});
  ParallelConfig dense;
  dense.ep = 4;
  require_input_error(
      [&] {
        ParallelStepModel(load_gpu("h200-sxm"), load_cluster("hgx-h200"), load_model("llama-3-8b"),
                          run, dense);
      },
      {"--ep 4: llama-3-8b has no experts to spread"});
}
