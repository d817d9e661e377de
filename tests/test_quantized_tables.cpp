// The embedding table and the LM head under quantized weights (workloads/run_config.h
// table_weight_dtype): fp8, int8 and int4 decoder weights leave both in 16 bits, in memory (one
// GPU, a TP rank of a serving replica) and in the LM head's GEMM; 16-bit weights are unchanged.
#include "model/prediction.h"
#include "model/serving_parallel_step.h"
#include "model/serving_step.h"
#include "test_helpers.h"
#include "workloads/graph_builder.h"

using namespace ridgeline;

namespace {

const ModelConfig& llama8() {
  static const ModelConfig m = load_model("llama-3-8b");
  return m;
}

RunConfig decode(DType weights, int bits = 0) {
  RunConfig r;
  r.phase = Phase::Decode;
  r.batch = 8;
  r.kv_len = 1024;
  r.weights = weights;
  r.weight_bits = bits;
  return r;
}

const GemmOp& lm_head(const OpGraph& g) {
  for (const auto& s : g.sections)
    for (OpVertex v : launch_order(s))
      if (s.dag()[v].role == role::gemm(Projection::LmHead))
        return std::get<GemmOp>(s.dag()[v].op.shape);
  FAIL("no lm_head");
  return std::get<GemmOp>(g.sections[0].dag()[0].op.shape);
}

double weights_bytes(const RunConfig& run) {
  return memory_footprint(build_graph(llama8(), run), llama8(), run, test::h100()).weights_bytes;
}

}  // namespace

TEST_CASE("quantized weights: the embedding and LM head stay 16-bit in memory",
          "[memory][quantization]") {
  const double params = (double)parameter_count(llama8());
  const double tables = 2.0 * 128256 * 4096;  // untied: embed_tokens and lm_head
  CHECK(table_parameter_count(llama8(), 0) == Approx(tables));
  CHECK(table_parameter_count(llama8(), 2) == 0);  // decoder blocks only
  CHECK(weights_bytes(decode(DType::Bf16)) == Approx(2 * params));
  CHECK(weights_bytes(decode(DType::Fp8)) == Approx((params - tables) + 2 * tables));
  // weight-only int4: 0.5 bytes a decoder weight, 2 a table entry
  RunConfig int4 = decode(DType::Bf16, 4);
  CHECK(weights_bytes(int4) == Approx(0.5 * (params - tables) + 2 * tables));
}

TEST_CASE("quantized weights: the LM head's GEMM runs in 16 bits", "[gemm][quantization]") {
  CHECK(lm_head(build_graph(llama8(), decode(DType::Fp8))).dtype == DType::Bf16);
  CHECK(lm_head(build_graph(llama8(), decode(DType::Bf16, 8))).weight_bits == 0);
  CHECK(lm_head(build_graph(llama8(), decode(DType::Bf16))).dtype == DType::Bf16);
  RunConfig fp16 = decode(DType::Fp8);
  fp16.activations = DType::Fp16;
  CHECK(lm_head(build_graph(llama8(), fp16)).dtype == DType::Fp16);
  // the decoder's own GEMMs keep the quantized dtype
  const OpGraph g = build_graph(llama8(), decode(DType::Fp8));
  bool fp8_gemm = false;
  for (const auto& s : g.sections)
    for (OpVertex v : launch_order(s))
      if (s.dag()[v].role == role::gemm(Projection::Down))
        fp8_gemm = std::get<GemmOp>(s.dag()[v].op.shape).dtype == DType::Fp8;
  CHECK(fp8_gemm);
}

TEST_CASE("quantized weights: a TP rank holds its share of the 16-bit tables",
          "[serve][tp][quantization]") {
  const ClusterSpec c = load_cluster("hgx-h200");
  const GpuSpec g = load_gpu(c.gpu);
  ParallelConfig p;
  p.tp = 2;
  RunConfig fp8 = decode(DType::Fp8), bf16 = decode(DType::Bf16);
  fp8.runtime = bf16.runtime = load_runtime("fused");
  double q = serving_rank_memory(g, llama8(), fp8, p).weights_bytes;
  double full = serving_rank_memory(g, llama8(), bf16, p).weights_bytes;
  const double tables = 2.0 * 128256 * 4096 / 2;  // per rank
  // bf16 everywhere against fp8 but the tables: the difference is the rest's second byte
  CHECK(full - q == Approx(full / 2 - tables).epsilon(1e-3));
}
