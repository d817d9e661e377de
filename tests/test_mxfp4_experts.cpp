// Routed experts in MXFP4 (RunConfig::mxfp4_experts): 4.25 bits a weight in memory, read by a
// 16-bit weight-only GEMM; serving engines keep gpt-oss's checkpoint that way; predict takes it
// with --expert-weights mxfp4; one test per error message.
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "model/prediction.h"
#include "model/serving_step.h"
#include "serve/gpu_step_model.h"
#include "serve/parallel_step_model.h"
#include "test_helpers.h"
#include "workloads/graph_builder.h"
#include "workloads/runtime_profile.h"

#include <catch2/catch.hpp>

#include <string>

using namespace ridgeline;
using test::require_input_error;

namespace {

RunConfig decode(bool mxfp4, DType weights = DType::Bf16) {
  RunConfig run;
  run.runtime = load_runtime("fused");
  run.phase = Phase::Decode;
  run.batch = 16;
  run.kv_len = 1024;
  run.weights = weights;
  run.mxfp4_experts = mxfp4;
  return run;
}

const GemmOp* find_gemm(const OpGraph& g, const std::string& name) {
  for (const auto& s : g.sections)
    for (auto v : boost::make_iterator_range(boost::vertices(s.dag())))
      if (s.dag()[v].name == name) return &std::get<GemmOp>(s.dag()[v].op.shape);
  return nullptr;
}

}  // namespace

TEST_CASE("mxfp4 experts: gpt-oss-120b's routed experts, counted by hand", "[moe]") {
  // 36 layers x 128 experts x (gate, up, down) x 2880 x 2880.
  ModelConfig m = load_model("gpt-oss-120b");
  CHECK(routed_expert_parameter_count(m, 0) == Approx(114661785600.0));
  CHECK(routed_expert_parameter_count(m, 2) == Approx(114661785600.0 / 18));
  CHECK(routed_expert_parameter_count(load_model("llama-3-8b"), 0) == 0);
}

TEST_CASE("mxfp4 experts: 4.25 bits a routed expert's weight, the rest at the precision", "[moe]") {
  ModelConfig m = load_model("gpt-oss-120b");
  GpuSpec gpu = load_gpu("h200-sxm");
  double params = (double)parameter_count(m), experts = routed_expert_parameter_count(m, 0);
  RunConfig run = decode(true);
  MemoryFootprint f = memory_footprint(build_graph(m, run), m, run, gpu);
  CHECK(f.weights_bytes == Approx((params - experts) * 2 + experts * 4.25 / 8));
  RunConfig plain = decode(false);
  CHECK(memory_footprint(build_graph(m, plain), m, plain, gpu).weights_bytes == Approx(params * 2));
}

TEST_CASE("mxfp4 experts: a 16-bit GEMM reading 4.25-bit weights", "[moe]") {
  ModelConfig m = load_model("gpt-oss-20b");
  OpGraph g = build_graph(m, decode(true, DType::Fp8));
  const GemmOp* gu = find_gemm(g, "experts.gate_up_proj");
  REQUIRE(gu != nullptr);
  CHECK(gu->weight_bits == 4.25);
  CHECK(gu->dtype == DType::Bf16);  // fp8 elsewhere: W4A16 on Hopper
  CHECK(find_gemm(g, "o_proj")->dtype == DType::Fp8);
  CHECK(find_gemm(g, "o_proj")->weight_bits == 0);
  OpGraph fp8 = build_graph(m, decode(false, DType::Fp8));  // outlives the pointer into it
  const GemmOp* plain = find_gemm(fp8, "experts.gate_up_proj");
  CHECK(plain->weight_bits == 0);
  CHECK(plain->dtype == DType::Fp8);
}

TEST_CASE("mxfp4 experts: serving engines keep gpt-oss's checkpoint format", "[moe][serve]") {
  ModelConfig m = load_model("gpt-oss-120b");
  RunConfig run = decode(false);
  GpuStepModel one(load_gpu("h200-sxm"), m, run);
  double params = (double)parameter_count(m), experts = routed_expert_parameter_count(m, 0);
  CHECK(one.memory().weights_bytes == Approx((params - experts) * 2 + experts * 4.25 / 8));
  // Tensor parallel: each of 2 ranks holds half the experts, still in MXFP4.
  ParallelConfig p;
  p.tp = 2;
  ParallelStepModel two(load_gpu("h200-sxm"), load_cluster("hgx-h200"), m, run, p);
  CHECK(two.memory().weights_bytes < one.memory().weights_bytes * 0.55);
  CHECK(two.memory().weights_bytes > one.memory().weights_bytes * 0.45);
  // A model without MXFP4 experts is served at its precision.
  GpuStepModel mixtral(load_gpu("h200-sxm"), load_model("mixtral-8x7b"), run);
  CHECK(mixtral.memory().weights_bytes ==
        Approx((double)parameter_count(load_model("mixtral-8x7b")) * 2));
}

TEST_CASE("mxfp4 experts: errors", "[moe][errors]") {
  RunConfig run = decode(true);
  require_input_error([&] { check_run_config(run, load_model("llama-3-8b")); },
                      {"--expert-weights", "mxfp4: llama-3-8b has no experts"});
  RunConfig train = decode(true);
  train.phase = Phase::Train;
  train.seq = 128;
  train.kv_len = 0;
  require_input_error([&] { check_run_config(train, load_model("gpt-oss-20b")); },
                      {"--expert-weights", "mxfp4 experts are for inference"});
  RunConfig int4 = decode(true);
  int4.weight_bits = 4;
  require_input_error([&] { check_run_config(int4, load_model("gpt-oss-20b")); },
                      {"--expert-weights", "mxfp4: not with int8/int4 --weights"});
}
