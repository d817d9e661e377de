// Workload rules: the kernels each phase and runtime launches, FLOP counts against the standard
// formulas (2·N per token in inference, 6·N per token for training matmuls, the attention
// terms), memory footprints, and one test per run-config error message.
#include "model/prediction.h"
#include "test_helpers.h"
#include "workloads/graph_builder.h"
#include "workloads/op_math.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

ModelConfig tiny() {
  static const ModelConfig m =
      load_model(std::string(RIDGELINE_SOURCE_DIR) + "/examples/models/tiny-llama.json");
  return m;
}

RunConfig run(Phase p, int64_t batch, int64_t seq, int64_t kv = 0) {
  RunConfig r;
  r.phase = p;
  r.batch = batch;
  r.seq = seq;
  r.kv_len = kv;
  return r;
}

std::vector<std::string> kernel_names(const OpGraph& g, const std::string& section) {
  std::vector<std::string> out;
  for (const auto& s : g.sections) {
    if (s.name != section) continue;
    for (OpVertex v : launch_order(s)) out.push_back(s.dag()[v].name);
  }
  return out;
}

// Sums a quantity over every kernel of every section, repeats included.
template <class F>
double sum_over(const OpGraph& g, F&& f) {
  double total = 0;
  for (const auto& s : g.sections) {
    for (OpVertex v : launch_order(s)) total += s.repeat * f(s.dag()[v]);
  }
  return total;
}

double gemm_flops(const GraphNode& n) {
  auto* g = std::get_if<GemmOp>(&n.op.shape);
  return g ? op_work(n.op).matrix_flops : 0.0;
}

// Weights of one block: q, k, v, o, gate, up, down.
double block_params(const ModelConfig& m) {
  double d = m.head_dim;
  return m.hidden * (m.heads * d) * 2 + m.hidden * (m.kv_heads * d) * 2 +
         3.0 * m.hidden * m.intermediate;
}

}  // namespace

TEST_CASE("workload: a pytorch-eager prefill block launches Hugging Face's kernels", "[workload]") {
  OpGraph g = build_graph(tiny(), run(Phase::Prefill, 1, 128));
  REQUIRE(g.sections.size() == 3);
  CHECK(g.sections[0].name == "embedding");
  CHECK(g.sections[1].repeat == 2);
  CHECK(g.sections[2].name == "head");
  std::vector<std::string> expected = {"input_norm",     "q_proj",
                                       "k_proj",         "v_proj",
                                       "q_rope_mul_cos", "q_rope_neg",
                                       "q_rope_cat",     "q_rope_mul_sin",
                                       "q_rope_add",     "k_rope_mul_cos",
                                       "k_rope_neg",     "k_rope_cat",
                                       "k_rope_mul_sin", "k_rope_add",
                                       "attention",      "o_proj",
                                       "residual_add_1", "post_norm",
                                       "gate_proj",      "silu",
                                       "up_proj",        "mul",
                                       "down_proj",      "residual_add_2"};
  CHECK(kernel_names(g, "decoder_block") == expected);
  CHECK(kernel_names(g, "head") == std::vector<std::string>{"final_norm", "lm_head"});
}

TEST_CASE("workload: a fused runtime launches fewer, fused kernels", "[workload]") {
  RunConfig r = run(Phase::Decode, 8, 0, 512);
  r.runtime = load_runtime("fused");
  OpGraph g = build_graph(tiny(), r);
  std::vector<std::string> expected = {"fused_add_input_norm",
                                       "qkv_proj",
                                       "rope_and_cache_write",
                                       "attention",
                                       "o_proj",
                                       "fused_add_post_norm",
                                       "gate_up_proj",
                                       "silu_mul",
                                       "down_proj"};
  CHECK(kernel_names(g, "decoder_block") == expected);
}

TEST_CASE("workload: decode writes the KV cache and attends over it", "[workload]") {
  OpGraph g = build_graph(tiny(), run(Phase::Decode, 8, 0, 512));
  auto names = kernel_names(g, "decoder_block");
  CHECK(std::count(names.begin(), names.end(), "k_cache_write") == 1);
  CHECK(std::count(names.begin(), names.end(), "v_cache_write") == 1);
  for (OpVertex v : launch_order(g.sections[1])) {
    if (auto* a = std::get_if<AttentionOp>(&g.sections[1].dag()[v].op.shape)) {
      CHECK(a->q_len == 1);
      CHECK(a->kv_len == 513);
      CHECK(!a->causal);
      CHECK(a->batch == 8);
    }
  }
}

TEST_CASE("workload: inference GEMMs do 2 FLOPs per weight per token", "[workload][flops]") {
  const ModelConfig m = tiny();
  int64_t T = 4 * 256;
  OpGraph g = build_graph(m, run(Phase::Prefill, 4, 256));
  double expected = 2.0 * T * block_params(m) * m.layers +
                    2.0 * 4 * m.vocab * m.hidden;  // LM head: last positions
  CHECK(sum_over(g, gemm_flops) == Approx(expected).epsilon(1e-12));
}

TEST_CASE("workload: training GEMMs do 6 FLOPs per weight per token", "[workload][flops]") {
  const ModelConfig m = tiny();
  RunConfig r = run(Phase::Train, 2, 256);
  r.blocks = 2;
  double T = 512;
  CHECK(sum_over(build_graph(m, r), gemm_flops) ==
        Approx(6.0 * T * block_params(m) * 2).epsilon(1e-12));
  r.blocks = 0;  // whole model: the LM head over every position joins in
  double whole = 6.0 * T * (block_params(m) * m.layers + (double)m.vocab * m.hidden);
  CHECK(sum_over(build_graph(m, r), gemm_flops) == Approx(whole).epsilon(1e-12));
}

TEST_CASE("workload: attention FLOPs are 4·b·h·d per attended pair, backward 2.5x",
          "[workload][flops]") {
  const ModelConfig m = tiny();
  RunConfig r = run(Phase::Train, 2, 256);
  r.blocks = 1;
  double attn = sum_over(build_graph(m, r), [](const GraphNode& n) {
    auto* a = std::get_if<AttentionOp>(&n.op.shape);
    return a ? op_work(n.op).matrix_flops : 0.0;
  });
  double forward = 4.0 * 2 * m.heads * m.head_dim * (256.0 * 257 / 2);
  CHECK(attn == Approx(forward * 3.5));
}

TEST_CASE("workload: recomputation runs the block's forward again", "[workload]") {
  RunConfig r = run(Phase::Train, 1, 128);
  r.blocks = 2;
  size_t plain = kernel_names(build_graph(tiny(), r), "decoder_block_backward").size();
  r.recompute = Recompute::Full;
  size_t again = kernel_names(build_graph(tiny(), r), "decoder_block_backward").size();
  CHECK(again == plain + kernel_names(build_graph(tiny(), r), "decoder_block").size());
}
TEST_CASE("workload: selective recomputation runs the attention kernel again", "[workload]") {
  RunConfig r = run(Phase::Train, 1, 128);
  r.blocks = 2;
  size_t plain = kernel_names(build_graph(tiny(), r), "decoder_block_backward").size();
  r.recompute = Recompute::Selective;
  std::vector<std::string> names = kernel_names(build_graph(tiny(), r), "decoder_block_backward");
  CHECK(names.size() == plain + 1);
  CHECK(names.front() == "recompute.attention");
}

TEST_CASE("workload: AdamW updates every weight once", "[workload]") {
  RunConfig r = run(Phase::Train, 1, 128);
  r.optimizer = Optimizer::AdamW;
  OpGraph g = build_graph(tiny(), r);
  REQUIRE(g.sections.back().name == "optimizer");
  const auto& s = g.sections.back();
  auto* adam = std::get_if<ElementwiseOp>(&s.dag()[*boost::vertices(s.dag()).first].op.shape);
  REQUIRE(adam);
  CHECK(adam->numel == parameter_count(tiny()));
}

TEST_CASE("workload: KV cache and training memory follow their formulas", "[workload][memory]") {
  const ModelConfig m = load_model("llama-3-8b");
  OpGraph g = build_graph(m, run(Phase::Decode, 16, 0, 4095));
  MemoryFootprint f = memory_footprint(g, m, run(Phase::Decode, 16, 0, 4095), test::h100());
  CHECK(f.kv_cache_bytes == 2.0 * 32 * 16 * 4096 * 8 * 128 * 2);
  CHECK(f.weights_bytes == Approx(parameter_count(m) * 2.0).epsilon(1e-3));
  CHECK(f.fits());
  CHECK(f.max_batch > 16);
  RunConfig t = run(Phase::Train, 1, 2048);
  t.optimizer = Optimizer::AdamW;
  MemoryFootprint tf = memory_footprint(build_graph(m, t), m, t, test::h100());
  CHECK(tf.gradient_bytes == tf.weights_bytes);
  CHECK(tf.optimizer_bytes == 2 * tf.weights_bytes);
  CHECK(!tf.fits());  // an 8B model with AdamW in bf16 needs more than 80 GB
}

TEST_CASE("workload: eager launch makes the GPU wait for a CPU that launches slower than it runs",
          "[workload]") {
  const ModelConfig m = tiny();
  RunConfig r = run(Phase::Decode, 1, 0, 128);
  OpGraph g = build_graph(m, r);
  Prediction graph = predict_workload(g, m, r, test::h100());
  r.launch = LaunchMode::Eager;
  Prediction eager = predict_workload(g, m, r, test::h100());
  CHECK(eager.total_us > 2 * graph.total_us);
  CHECK(eager.time_by_class_us[kLaunchClass] > 0);
  CHECK(graph.time_by_class_us[kLaunchClass] == 0);
  double sum = 0;
  for (double t : eager.time_by_class_us) sum += t;
  CHECK(sum == Approx(eager.total_us));
}

TEST_CASE("workload: a decoder block is predicted once and repeated", "[workload]") {
  const ModelConfig m = load_model("llama-3-70b");
  RunConfig r = run(Phase::Decode, 8, 0, 1024);
  Prediction p = predict_workload(build_graph(m, r), m, r, test::h100());
  REQUIRE(p.sections[1].repeat == 80);
  double sum = 0;
  for (const auto& s : p.sections) sum += s.repeat * s.repeat_us;
  CHECK(p.total_us == Approx(sum));
  CHECK(p.tokens_per_s == Approx(8 / (p.total_us * 1e-6)));
}

TEST_CASE("run error: batch below 1", "[workload][errors]") {
  require_input_error([] { check_run_config(run(Phase::Prefill, 0, 128), tiny()); },
                      {"--batch: must be at least 1, got 0"});
}
TEST_CASE("run error: decode without kv-len", "[workload][errors]") {
  require_input_error([] { check_run_config(run(Phase::Decode, 1, 0, 0), tiny()); },
                      {"--kv-len: decode needs"});
}
TEST_CASE("run error: decode with seq", "[workload][errors]") {
  require_input_error([] { check_run_config(run(Phase::Decode, 1, 5, 10), tiny()); },
                      {"--seq: decode takes --kv-len"});
}
TEST_CASE("run error: prefill without seq", "[workload][errors]") {
  require_input_error([] { check_run_config(run(Phase::Prefill, 1, 0), tiny()); },
                      {"--seq: prefill needs --seq >= 1"});
}
TEST_CASE("run error: training with kv-len", "[workload][errors]") {
  require_input_error([] { check_run_config(run(Phase::Train, 1, 8, 8), tiny()); },
                      {"--kv-len: train takes --seq"});
}
TEST_CASE("run error: a negative kv-len", "[workload][errors]") {
  require_input_error([] { check_run_config(run(Phase::Prefill, 1, 8, -2), tiny()); },
                      {"--kv-len: must be at least 0, got -2"});
}
TEST_CASE("run error: logits in training", "[workload][errors]") {
  RunConfig r = run(Phase::Train, 1, 8);
  r.logits_all = true;
  require_input_error([&] { check_run_config(r, tiny()); },
                      {"--logits: training computes logits for every position"});
}
TEST_CASE("run error: logits with --blocks", "[workload][errors]") {
  RunConfig r = run(Phase::Prefill, 1, 8);
  r.logits_all = true;
  r.blocks = 1;
  require_input_error([&] { check_run_config(r, tiny()); },
                      {"--logits: --blocks N runs no LM head"});
}
TEST_CASE("run error: a NaN imbalance", "[workload][errors]") {
  RunConfig r = run(Phase::Prefill, 1, 8);
  r.moe_imbalance = std::nan("");
  require_input_error([&] { check_run_config(r, tiny()); },
                      {"--moe-imbalance: the busiest expert"});
}
TEST_CASE("workload: a prefill chunk over a cached prefix attends to both and writes its K/V",
          "[workload]") {
  RunConfig r = run(Phase::Prefill, 1, 256, 2048);
  r.blocks = 1;
  OpGraph g = build_graph(tiny(), r);
  std::vector<std::string> names = kernel_names(g, "decoder_block");
  CHECK(std::count(names.begin(), names.end(), "k_cache_write") == 1);
  for (OpVertex v : launch_order(g.sections[0])) {
    if (auto* a = std::get_if<AttentionOp>(&g.sections[0].dag()[v].op.shape)) {
      CHECK(a->q_len == 256);
      CHECK(a->kv_len == 2048 + 256);
      CHECK(a->causal);
    }
  }
  MemoryFootprint f = memory_footprint(g, tiny(), r, test::h100());
  RunConfig whole = run(Phase::Prefill, 1, 2048 + 256);
  whole.blocks = 1;
  CHECK(f.kv_cache_bytes ==
        memory_footprint(build_graph(tiny(), whole), tiny(), whole, test::h100()).kv_cache_bytes);
}
TEST_CASE("run error: longer than the model's positions", "[workload][errors]") {
  require_input_error([] { check_run_config(run(Phase::Prefill, 1, 5000), tiny()); },
                      {"--seq: 5000 positions exceed the model's 4096 (max_position_embeddings)"});
}
TEST_CASE("run error: more blocks than layers", "[workload][errors]") {
  RunConfig r = run(Phase::Prefill, 1, 8);
  r.blocks = 3;
  require_input_error([&] { check_run_config(r, tiny()); },
                      {"--blocks: 3 exceeds the model's 2 layers"});
}
TEST_CASE("run error: training fp8 weights", "[workload][errors]") {
  RunConfig r = run(Phase::Train, 1, 8);
  r.weights = DType::Fp8;
  require_input_error([&] { check_run_config(r, tiny()); },
                      {"--weights: fp8 weights are for inference"});
}
TEST_CASE("run error: optimizer outside training", "[workload][errors]") {
  RunConfig r = run(Phase::Prefill, 1, 8);
  r.optimizer = Optimizer::AdamW;
  require_input_error([&] { check_run_config(r, tiny()); },
                      {"--optimizer: an optimizer step belongs to training"});
}
TEST_CASE("run error: recompute outside training", "[workload][errors]") {
  RunConfig r = run(Phase::Decode, 1, 0, 8);
  r.recompute = Recompute::Full;
  require_input_error([&] { check_run_config(r, tiny()); }, {"--recompute: only training"});
}
TEST_CASE("run error: MoE imbalance below 1 or without experts", "[workload][errors]") {
  RunConfig r = run(Phase::Prefill, 1, 8);
  r.moe_imbalance = 0.5;
  require_input_error([&] { check_run_config(r, tiny()); },
                      {"--moe-imbalance: the busiest expert has at least the mean"});
  r.moe_imbalance = 2;
  require_input_error([&] { check_run_config(r, tiny()); },
                      {"--moe-imbalance: tiny-llama has no experts"});
}
TEST_CASE("run error: tf32 storage", "[workload][errors]") {
  RunConfig r = run(Phase::Prefill, 1, 8);
  r.kv_cache = DType::Tf32;
  require_input_error([&] { check_run_config(r, tiny()); }, {"tf32 is a tensor-core mode"});
}

TEST_CASE("workload: weight-only int4 reads a quarter of bf16's decoder weight bytes",
          "[workload]") {
  const ModelConfig m = load_model("llama-3-8b");
  RunConfig r = run(Phase::Decode, 1, 0, 512);
  Prediction bf16 = predict_workload(build_graph(m, r), m, r, test::h100());
  r.weight_bits = 4;
  Prediction int4 = predict_workload(build_graph(m, r), m, r, test::h100());
  // the embedding and LM head stay 16-bit (table_weight_dtype): 2 x 128256 x 4096 x 2 bytes
  double tables = 2.0 * 128256 * 4096 * 2;
  CHECK(int4.memory.weights_bytes == Approx((bf16.memory.weights_bytes - tables) / 4 + tables));
  CHECK(int4.total_us <
        0.55 * bf16.total_us);  // weight reads dominate; small kernels do not shrink
  r.phase = Phase::Train;
  r.kv_len = 0;
  r.seq = 8;
  require_input_error([&] { check_run_config(r, m); },
                      {"--weights: int8/int4 weights are for inference"});
}
