// MoE and KV-cache rules: only experts that receive tokens run (the expected number of distinct
// experts, checked against a simulation of random top-k routing), one grouped GEMM per
// projection whatever the expert count, weight memory counts every expert, the imbalance is
// bounded by E/k; the KV-cache dtype (not the activations') sets what attention reads; grouped
// GEMMs are priced as their measured CUTLASS kernels are (no split-K, a setup cost), with each
// expert's routed rows (a binomial draw) rounded up to its own tiles.
#include "model/cost_models.h"
#include "model/prediction.h"
#include "test_helpers.h"
#include "workloads/graph_builder.h"
#include "workloads/moe_ops.h"
#include "workloads/moe_routing.h"
#include "workloads/op_math.h"

#include <random>
#include <set>

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

RunConfig decode(int64_t batch, int64_t kv, const std::string& rt = "pytorch-eager") {
  RunConfig r;
  r.phase = Phase::Decode;
  r.batch = batch;
  r.kv_len = kv;
  r.blocks = 1;
  r.runtime = load_runtime(rt);
  return r;
}

const GraphNode* find(const OpGraph& g, const std::string& name) {
  for (const auto& s : g.sections)
    for (OpVertex v : launch_order(s))
      if (s.dag()[v].name == name) return &s.dag()[v];
  return nullptr;
}

size_t kernels(const OpGraph& g) {
  size_t n = 0;
  for (const auto& s : g.sections) n += launch_order(s).size();
  return n;
}

// Mean distinct experts over `trials` random routings of T tokens to top_k distinct of E.
double simulated_active(int E, int k, int T, int trials) {
  std::mt19937 rng(7);
  double sum = 0;
  std::vector<int> ids(E);
  for (int t = 0; t < trials; ++t) {
    std::set<int> hit;
    for (int tok = 0; tok < T; ++tok) {
      for (int i = 0; i < E; ++i) ids[i] = i;
      std::shuffle(ids.begin(), ids.end(), rng);
      for (int j = 0; j < k; ++j) hit.insert(ids[j]);
    }
    sum += (double)hit.size();
  }
  return sum / trials;
}

}  // namespace

TEST_CASE("moe: expected distinct experts match random top-k routing", "[moe]") {
  for (auto [E, k, T] : {std::tuple{8, 2, 1}, {8, 2, 4}, {8, 2, 64}, {128, 8, 8}, {128, 8, 64}}) {
    INFO("E " << E << " k " << k << " T " << T);
    double sim = simulated_active(E, k, T, 2000);
    CHECK(expert_load(E, k, T, 1.0).active == Approx(sim).epsilon(0.01));
  }
  CHECK(expert_load(8, 2, 1, 1.0).active == Approx(2.0));  // one token: exactly its top-k
}

TEST_CASE("moe: decode of one token reads top-k experts, not all of them", "[moe]") {
  ModelConfig m = load_model("mixtral-8x7b");
  OpGraph g = build_graph(m, decode(1, 2048, "fused"));
  const auto& gu = std::get<GemmOp>(find(g, "experts.gate_up_proj")->op.shape);
  CHECK(gu.groups == Approx(2.0));
  CHECK(gu.m == 1);
  // Weight bytes the step reads: 2 of 8 experts' gate_up (2 x 14336 x 4096 bf16 each).
  CHECK(op_work(find(g, "experts.gate_up_proj")->op).bytes_read ==
        Approx(2.0 * (2 * 14336.0 * 4096 * 2 + 4096 * 2)));
  // At batch 64 nearly every expert has tokens.
  OpGraph big = build_graph(m, decode(64, 2048, "fused"));
  CHECK(std::get<GemmOp>(find(big, "experts.gate_up_proj")->op.shape).groups > 7.9);
}

TEST_CASE("moe: kernels per layer do not grow with the number of experts", "[moe]") {
  ModelConfig m = load_model("mixtral-8x7b");
  ModelConfig wide = m;
  wide.moe.experts = 128;
  wide.moe.top_k = 8;
  for (const std::string rt : {"pytorch-eager", "fused"}) {
    CHECK(kernels(build_graph(m, decode(8, 512, rt))) ==
          kernels(build_graph(wide, decode(8, 512, rt))));
  }
  // Hugging Face's grouped_mm backend launches 40 kernels a layer (profiled on the H200).
  OpGraph g = build_graph(m, decode(1, 512));
  size_t moe = 0;
  for (OpVertex v : launch_order(g.sections[0])) {
    const std::string& n = g.sections[0].dag()[v].name;
    if (n.rfind("router", 0) == 0 || n.rfind("experts.", 0) == 0) {
      moe += (size_t)predict_op(g.sections[0].dag()[v].op, test::h100()).detail.kernels;
    }
  }
  CHECK(moe == 40);
}

TEST_CASE("moe: weight memory counts every expert whatever the routing", "[moe]") {
  ModelConfig m = load_model("mixtral-8x7b");
  RunConfig even = decode(64, 2048), skewed = decode(64, 2048);
  skewed.moe_imbalance = 4.0;
  MemoryFootprint a = memory_footprint(build_graph(m, even), m, even, test::h100());
  MemoryFootprint b = memory_footprint(build_graph(m, skewed), m, skewed, test::h100());
  CHECK(a.weights_bytes == b.weights_bytes);
  CHECK(a.weights_bytes == Approx(2.0 * block_parameter_count(m)));
}

TEST_CASE("moe: the imbalance is bounded by E/k (the busiest expert gets each token once)",
          "[moe]") {
  ModelConfig m = load_model("mixtral-8x7b");
  RunConfig r = decode(64, 2048);
  r.moe_imbalance = 4.0;  // E/k: the busiest gets all 64 tokens
  CHECK_NOTHROW(check_run_config(r, m));
  ExpertLoad l = expert_load(8, 2, 64, 4.0);
  CHECK(l.busiest == 64);
  CHECK(l.active == Approx(8.0).epsilon(0.01));
  CHECK(expert_load(8, 2, 64, 2.0).busiest == 32);
  r.moe_imbalance = 4.5;
  require_input_error([&] { check_run_config(r, m); },
                      {"--moe-imbalance: 4.5 is impossible for top-2 of 8 experts",
                       "at most 4 times the mean"});
}

TEST_CASE("kv cache: its dtype sets the bytes decode attention reads, in every runtime",
          "[attention][kv]") {
  ModelConfig m = load_model("llama-3-8b");
  for (const std::string rt : {"pytorch-eager", "fused"}) {
    RunConfig bf16 = decode(8, 4096, rt), fp8 = decode(8, 4096, rt);
    fp8.kv_cache = DType::Fp8;
    OpGraph a = build_graph(m, bf16), b = build_graph(m, fp8);
    double kv_bytes = 2.0 * 8 * 8 * 4097 * 128;  // K and V elements
    double read_a = op_work(find(a, "attention")->op).bytes_read;
    double read_b = op_work(find(b, "attention")->op).bytes_read;
    if (rt == "fused") {  // paged attention reads the fp8 cache itself
      CHECK(read_a - read_b == Approx(kv_bytes));
    } else {  // SDPA takes 16-bit K/V: the cache is dequantized before it, each step
      CHECK(find(b, "k_cache_dequant") != nullptr);
      CHECK(op_work(find(b, "k_cache_dequant")->op).bytes_read == Approx(kv_bytes / 2));
    }
  }
}

TEST_CASE("kv cache: fp8 activations do not change what a 16-bit cache's attention reads",
          "[attention][kv]") {
  ModelConfig m = load_model("llama-3-8b");
  RunConfig bf16 = decode(8, 4096, "fused"), act8 = bf16;
  act8.activations = DType::Fp8;
  double kv_a = op_work(find(build_graph(m, bf16), "attention")->op).bytes_read;
  double kv_b = op_work(find(build_graph(m, act8), "attention")->op).bytes_read;
  CHECK(kv_a == kv_b);
}

TEST_CASE("grouped gemm: never splits K, costs its setup, streams weights slower than cuBLAS",
          "[gemm][moe]") {
  const GpuSpec& g = test::h100();
  Op plain = test::gemm(1, 2048, 768);
  Op grouped = plain;
  std::get<GemmOp>(grouped.shape).groups = 1;
  OpCost p = predict_op(plain, g), q = predict_op(grouped, g);
  CHECK(q.detail.split == 1);
  CHECK(q.detail.kernels == 2);
  CHECK(q.time_us - p.time_us > g.model.gemm.grouped_overhead_us.value);
  // Many large experts: weight-streaming bound at grouped_hbm_efficiency.
  Op many = test::gemm(4, 4096, 14336);
  std::get<GemmOp>(many.shape).groups = 32;
  OpCost c = predict_op(many, g);
  double weights = 32.0 * 4096 * 14336 * 2;
  double bw = weights / ((c.time_us - c.overhead_us) * 1e-6);
  CHECK(bw == Approx(g.model.gemm.grouped_hbm_efficiency.value * 3350e9).epsilon(0.05));
}

TEST_CASE("moe: training's expert gradients are grouped GEMMs over the same experts", "[moe]") {
  ModelConfig m = load_model("mixtral-8x7b");
  RunConfig r;
  r.phase = Phase::Train;
  r.seq = 512;
  r.blocks = 1;
  OpGraph g = build_graph(m, r);
  const GemmOp& fwd = std::get<GemmOp>(find(g, "experts.down_proj")->op.shape);
  const GemmOp& dgrad = std::get<GemmOp>(find(g, "experts.down_proj.dgrad")->op.shape);
  const GemmOp& wgrad = std::get<GemmOp>(find(g, "experts.down_proj.wgrad")->op.shape);
  CHECK(fwd.groups > 7.9);
  CHECK(dgrad.groups == fwd.groups);
  CHECK(wgrad.groups == fwd.groups);
  // The input gradient's rows are the routed tokens (tiled unevenly); the weight gradient's are
  // the weights' (the tokens are its K).
  CHECK(fwd.routed.experts == 8);
  CHECK(dgrad.routed.experts == 8);
  CHECK(dgrad.routed.p == fwd.routed.p);
  CHECK(wgrad.routed.experts == 0);
}

namespace {

// Mean over `trials` multinomial routings of T tokens (each to top_k distinct of E experts) of
// the row tiles a grouped GEMM runs: the sum over experts of ceil(rows / tm).
double simulated_row_tiles(int E, int k, int T, int tm, int trials) {
  std::mt19937 rng(11);
  std::vector<int> ids(E);
  double sum = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<int> rows(E, 0);
    for (int tok = 0; tok < T; ++tok) {
      for (int i = 0; i < E; ++i) ids[i] = i;
      std::shuffle(ids.begin(), ids.end(), rng);
      for (int j = 0; j < k; ++j) ++rows[ids[j]];
    }
    for (int r : rows) sum += (r + tm - 1) / tm;
  }
  return sum / trials;
}

// The cost of one expert projection (n x k weights) over T routed tokens, with the routing
// draw or with every expert's rows equal (the mean).
OpCost routed_gemm(int64_t E, int64_t k, int64_t T, bool routed) {
  ExpertLoad load = expert_load(E, k, T, 1.0);
  RunConfig r;
  Op op = grouped_gemm(load, 5760, 2880, r);
  if (!routed) std::get<GemmOp>(op.shape).routed.experts = 0;
  return predict_op(op, test::h100());
}

}  // namespace

TEST_CASE("grouped gemm: routed rows fill each expert's own tiles, unevenly", "[gemm][moe]") {
  // The expected tile count matches a simulation of random routing, around a tile boundary.
  for (auto [E, k, T, tm] : {std::tuple{32, 4, 2048, 128}, {32, 4, 2048, 64}, {8, 2, 512, 128},
                             {128, 8, 1024, 128}, {32, 4, 4, 128}}) {
    INFO("E " << E << " k " << k << " T " << T << " tm " << tm);
    ExpertLoad load = expert_load(E, k, T, 1.0);
    RunConfig r;
    Op op = grouped_gemm(load, 64, 64, r);
    const GemmOp& g = std::get<GemmOp>(op.shape);
    double sim = simulated_row_tiles(E, k, T, tm, 400);
    CHECK(expected_routed_row_tiles(g, tm) == Approx(sim).epsilon(0.02));
  }
  // Mean load exactly four 128-row tiles (gpt-oss-20b's 32 experts, top-4, 4096 tokens: compute
  // bound): uneven loads cost more than even ones; at decode (a few rows an expert) the same.
  CHECK(routed_gemm(32, 4, 4096, true).time_us > 1.08 * routed_gemm(32, 4, 4096, false).time_us);
  CHECK(routed_gemm(32, 4, 8, true).time_us == Approx(routed_gemm(32, 4, 8, false).time_us));
  // A given imbalance keeps its own (deterministic) loads.
  CHECK(expert_load(32, 4, 2048, 2.0).draw_p == 0);
}
