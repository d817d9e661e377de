// NVFP4 weights (--weights nvfp4, serve --precision nvfp4): 4.5 bits an element (E2M1 values, an
// E4M3 scale a block of 16); on FP4 tensor cores (B200, GB200, B300, GB300) a W4A4 GEMM at the fp4
// rate, elsewhere the dequantising path (bf16 activations against 4.5-bit weights); the
// embedding and LM head stay 16-bit; the KV cache an NVFP4 checkpoint ships is FP8; inference
// only; one test per error message.
#include "common/errors.h"
#include "hardware/derived.h"
#include "hardware/gpu_load.h"
#include "model/op_cost.h"
#include "model/prediction.h"
#include "serve/engine.h"
#include "test_helpers.h"
#include "workloads/graph_builder.h"
#include "workloads/op_math.h"

using namespace ridgeline;

namespace {

RunConfig decode_run(DType weights) {
  RunConfig r;
  r.phase = Phase::Decode;
  r.batch = 8;
  r.kv_len = 1024;
  r.weights = weights;
  return r;
}

double step_us(const ModelConfig& m, const RunConfig& r, const GpuSpec& g) {
  return predict_workload(build_graph(m, r), m, r, g).total_us;
}

}  // namespace

TEST_CASE("nvfp4: 4.5 bits an element, named nvfp4", "[dtype][nvfp4]") {
  CHECK(dtype_bytes(DType::Fp4) == Approx(0.5625));
  CHECK(std::string(dtype_name(DType::Fp4)) == "nvfp4");
  CHECK(parse_dtype("nvfp4") == DType::Fp4);
  CHECK(gemm_output_bytes(DType::Fp4) == 2);  // the output is bf16
}

TEST_CASE("nvfp4: the Blackwell presets' dense FP4 peaks", "[hardware][nvfp4]") {
  CHECK(peak_tflops(load_gpu("b200"), MathUnit::TensorFp4) == Approx(9000).epsilon(0.01));
  CHECK(peak_tflops(load_gpu("gb200"), MathUnit::TensorFp4) == Approx(10000).epsilon(0.01));
  CHECK(peak_tflops(load_gpu("b300"), MathUnit::TensorFp4) == Approx(13500).epsilon(0.01));
  CHECK(peak_tflops(load_gpu("gb300"), MathUnit::TensorFp4) == Approx(15000).epsilon(0.01));
  // Blackwell: twice the fp8 rate per SM; Blackwell Ultra: three times
  const GpuSpec b200 = load_gpu("b200"), b300 = load_gpu("b300");
  CHECK(b200.compute.ops_per_clk_per_sm[(int)MathUnit::TensorFp4]->value ==
        2 * b200.compute.ops_per_clk_per_sm[(int)MathUnit::TensorFp8]->value);
  CHECK(b300.compute.ops_per_clk_per_sm[(int)MathUnit::TensorFp4]->value ==
        3 * b300.compute.ops_per_clk_per_sm[(int)MathUnit::TensorFp8]->value);
  CHECK_FALSE(has_unit(test::h100(), MathUnit::TensorFp4));
}

TEST_CASE("nvfp4: a compute-bound GEMM on B200 runs at about twice its fp8 speed",
          "[gemm][nvfp4]") {
  const GpuSpec b200 = load_gpu("b200");
  double fp8 = predict_op(test::gemm(8192, 8192, 8192, DType::Fp8), b200).time_us;
  double fp4 = predict_op(test::gemm(8192, 8192, 8192, DType::Fp4), b200).time_us;
  CHECK(fp4 < 0.65 * fp8);
  CHECK(fp4 > 0.45 * fp8);
}

TEST_CASE("nvfp4: a decode GEMM streams 4.5-bit weights, under a third of bf16's time",
          "[gemm][nvfp4]") {
  // M = 8 tokens against a 8192 x 8192 weight: memory-bound, B's bytes rule
  const GpuSpec b200 = load_gpu("b200");
  double bf16 = predict_op(test::gemm(8, 8192, 8192), b200).time_us;
  double fp4 = predict_op(test::gemm(8, 8192, 8192, DType::Fp4), b200).time_us;
  CHECK(fp4 < 0.4 * bf16);
  CHECK(fp4 > 0.2 * bf16);
}

TEST_CASE("nvfp4: without FP4 tensor cores the GEMM dequantizes: bf16 math, 4.5-bit weights",
          "[gemm][nvfp4]") {
  const GpuSpec h100 = test::h100();
  GemmOp w4a16;
  w4a16.m = 8;
  w4a16.n = 8192;
  w4a16.k = 8192;
  w4a16.weight_bits = kNvfp4BitsPerElement;
  const Op fp4 = test::gemm(8, 8192, 8192, DType::Fp4);
  CHECK(predict_op(fp4, h100).time_us == Approx(predict_op(Op{"", w4a16, false}, h100).time_us));
  // compute-bound: the bf16 rate, not an fp4 one
  double big_fp4 = predict_op(test::gemm(8192, 8192, 8192, DType::Fp4), h100).time_us;
  double big_bf16 = predict_op(test::gemm(8192, 8192, 8192), h100).time_us;
  CHECK(big_fp4 == Approx(big_bf16).epsilon(0.05));
}

TEST_CASE("nvfp4: decoder weights at 4.5 bits, the embedding and LM head at 16",
          "[memory][nvfp4]") {
  const ModelConfig m = load_model("llama-3-8b");
  const double params = (double)parameter_count(m), tables = 2.0 * 128256 * 4096;
  const RunConfig run = decode_run(DType::Fp4);
  CHECK(weights_quantized(run));
  CHECK(table_weight_dtype(run) == DType::Bf16);
  double bytes = memory_footprint(build_graph(m, run), m, run, load_gpu("b200")).weights_bytes;
  CHECK(bytes == Approx(0.5625 * (params - tables) + 2 * tables));
}

TEST_CASE("nvfp4: a Llama decode step on B200 beats fp8's, on H100 it is weight-only",
          "[predict][nvfp4]") {
  const ModelConfig m = load_model("llama-3-70b");
  RunConfig fp4 = decode_run(DType::Fp4), fp8 = decode_run(DType::Fp8);
  fp4.kv_cache = fp8.kv_cache = DType::Fp8;
  const GpuSpec b200 = load_gpu("b200");
  double t4 = step_us(m, fp4, b200), t8 = step_us(m, fp8, b200);
  // decode streams the weights (4.5 against 8 bits); norms, attention and launches do not shrink
  CHECK(t4 < 0.9 * t8);
  CHECK(t4 > 0.5 * t8);
  // H100: no FP4 tensor cores, still faster than fp8 in decode (fewer weight bytes), no error
  CHECK(step_us(m, fp4, test::h100()) < step_us(m, fp8, test::h100()));
}

TEST_CASE("nvfp4: an NVFP4 checkpoint's KV cache is FP8 under the weights rule", "[serve][nvfp4]") {
  EngineConfig e = load_engine("trtllm");
  REQUIRE(e.kv_dtype == KvDtypeRule::Weights);
  CHECK(e.kv_cache_dtype(DType::Fp4, DType::Bf16) == DType::Fp8);
  EngineConfig v = load_engine("vllm");
  if (v.kv_dtype == KvDtypeRule::Activations)
    CHECK(v.kv_cache_dtype(DType::Fp4, DType::Bf16) == DType::Bf16);
}

TEST_CASE("nvfp4: training refuses nvfp4 weights", "[errors][nvfp4]") {
  const ModelConfig m = load_model("llama-3-8b");
  RunConfig r;
  r.phase = Phase::Train;
  r.seq = 1024;
  r.weights = DType::Fp4;
  CHECK_THROWS_WITH(check_run_config(r, m), Catch::Contains("--weights") &&
                                                Catch::Contains("nvfp4 weights are for inference"));
}

TEST_CASE("nvfp4: activations and the KV cache cannot be nvfp4", "[errors][nvfp4]") {
  const ModelConfig m = load_model("llama-3-8b");
  RunConfig a = decode_run(DType::Fp4);
  a.activations = DType::Fp4;
  CHECK_THROWS_WITH(check_run_config(a, m),
                    Catch::Contains("--activations") && Catch::Contains("GEMM operand format"));
  RunConfig k = decode_run(DType::Fp4);
  k.kv_cache = DType::Fp4;
  CHECK_THROWS_WITH(check_run_config(k, m), Catch::Contains("--kv-cache"));
}

TEST_CASE("nvfp4: not with mxfp4 experts", "[errors][nvfp4]") {
  const ModelConfig m = load_model("mixtral-8x7b");
  RunConfig r = decode_run(DType::Fp4);
  r.mxfp4_experts = true;
  CHECK_THROWS_WITH(check_run_config(r, m),
                    Catch::Contains("--expert-weights") && Catch::Contains("NVFP4 already"));
}
