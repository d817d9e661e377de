// Kernel implementations as choices (issue 11 item 2): which implementation an op line names or
// PyTorch picks on a GPU, the limits of each (both sides), what each one's structure does to the
// cost, and one test per error message.
#include "hardware/derived.h"
#include "model/attention_impl.h"
#include "test_helpers.h"
#include "workloads/op_parse.h"
#include "workloads/runtime_profile.h"

#include <fstream>
#include <iterator>
#include <map>

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

const GpuSpec& gpu(const std::string& name) {
  static std::map<std::string, GpuSpec> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, load_gpu(name)).first;
  return it->second;
}

Op parse(const std::string& text) {
  return parse_op(nlohmann::json::parse(text), "ops.jsonl line 1", "line 1");
}

// An attention op line with `extra` fields (`, "impl": "flash2"`).
std::string attention_line(const std::string& extra, int head_dim = 128,
                           const std::string& dtype = "bf16", int q = 2048) {
  return R"({"op":"attention","batch":1,"heads":32,"kv_heads":8,"head_dim":)" +
         std::to_string(head_dim) + R"(,"q_len":)" + std::to_string(q) + R"(,"kv_len":2048,)" +
         R"("causal":)" + (q > 1 ? "true" : "false") + R"(,"dtype":")" + dtype + "\"" + extra + "}";
}

Op attention(const std::string& impl, int64_t batch, int64_t q, int64_t kv, bool causal) {
  Op op = test::attention(batch, 32, 8, q, kv, causal);
  if (!impl.empty()) std::get<AttentionOp>(op.shape).impl = *attention_impls().parse(impl);
  return op;
}

std::string impl_of(const Op& op, const std::string& g) {
  return predict_op(op, gpu(g)).impl;
}

}  // namespace

TEST_CASE("impl: SDPA's pick is cuDNN on Hopper and FlashAttention-2 on Ampere", "[impl][rule]") {
  Op a = attention("", 1, 2048, 2048, true);
  CHECK(impl_of(a, "h200-sxm") == "cudnn");
  CHECK(impl_of(a, "h100-sxm") == "cudnn");
  CHECK(impl_of(a, "a100-sxm-80gb") == "flash2");
  // the default costs what the named cuDNN kernel costs (the existing model, byte for byte)
  CHECK(predict_op(a, gpu("h200-sxm")).time_us ==
        predict_op(attention("cudnn", 1, 2048, 2048, true), gpu("h200-sxm")).time_us);
}

TEST_CASE("impl: fp32 and head_dim over 256 fall back to the memory-efficient kernel",
          "[impl][rule]") {
  CHECK(impl_of(parse(attention_line("", 256)), "h200-sxm") == "cudnn");
  CHECK(impl_of(parse(attention_line("", 257)), "h200-sxm") == "efficient");
  CHECK(impl_of(parse(attention_line("", 128, "bf16")), "h200-sxm") == "cudnn");
  CHECK(impl_of(parse(attention_line("", 128, "fp32")), "h200-sxm") == "efficient");
}

TEST_CASE("impl: flash2 and flash3 take head_dim up to 256, efficient and math more",
          "[impl][rule]") {
  for (std::string impl : {"flash2", "flash3", "cudnn"}) {
    CHECK_NOTHROW(parse(attention_line(R"(,"impl":")" + impl + "\"", 256)));
    require_input_error([&] { parse(attention_line(R"(,"impl":")" + impl + "\"", 264)); },
                        {"/head_dim: " + impl + " supports head_dim up to 256", "got 264"});
  }
  CHECK_NOTHROW(parse(attention_line(R"(,"impl":"efficient")", 264)));
  CHECK_NOTHROW(parse(attention_line(R"(,"impl":"math")", 264)));
}

TEST_CASE("impl: the fused kernels refuse fp32, efficient and math take it", "[impl][rule]") {
  require_input_error([&] { parse(attention_line(R"(,"impl":"flash2")", 128, "fp32")); },
                      {"/impl: flash2 runs in bf16 or fp16, not fp32"});
  CHECK_NOTHROW(parse(attention_line(R"(,"impl":"flash2")", 128, "bf16")));
  CHECK_NOTHROW(parse(attention_line(R"(,"impl":"efficient")", 128, "fp32")));
  CHECK_NOTHROW(parse(attention_line(R"(,"impl":"math")", 128, "fp32")));
}

TEST_CASE("impl: only cudnn and flash3 read fp8", "[impl][rule]") {
  require_input_error([&] { parse(attention_line(R"(,"impl":"efficient")", 128, "fp8")); },
                      {"/impl: efficient does not read fp8 (cudnn and flash3 do)"});
  CHECK_NOTHROW(parse(attention_line(R"(,"impl":"flash3")", 128, "fp8")));
}

TEST_CASE("impl: flash3 runs on Hopper only", "[impl][rule]") {
  Op fa3 = attention("flash3", 1, 2048, 2048, true);
  CHECK(impl_of(fa3, "h100-sxm") == "flash3");
  require_input_error([&] { predict_op(fa3, gpu("a100-sxm-80gb")); },
                      {"/impl: flash3 (FlashAttention-3) runs only on Hopper GPUs (sm_90)",
                       "a100-sxm-80gb is ampere"});
}

TEST_CASE("impl: cuDNN is not on AMD GPUs", "[impl][rule]") {
  require_input_error([&] { predict_op(attention("cudnn", 1, 512, 512, true), gpu("mi300x")); },
                      {"/impl: cudnn is NVIDIA's library; mi300x (cdna3)"});
  CHECK(impl_of(attention("flash2", 1, 512, 512, true), "mi300x") == "flash2");
}

TEST_CASE("impl: FlashAttention-2's mma.sync loop is slower than cuDNN's wgmma on Hopper",
          "[impl][rule]") {
  for (int64_t s : {512, 8192}) {
    double cudnn = predict_op(attention("cudnn", 1, s, s, true), gpu("h200-sxm")).time_us;
    double fa2 = predict_op(attention("flash2", 1, s, s, true), gpu("h200-sxm")).time_us;
    CHECK(fa2 > 1.3 * cudnn);
  }
}

TEST_CASE("impl: FlashAttention-2 decode splits the keys and combines them in a second kernel",
          "[impl][rule]") {
  // 8 (batch, KV head) items leave SMs idle: split; 256 fill them: no split, one kernel
  OpCost few = predict_op(attention("flash2", 1, 1, 8192, false), gpu("h200-sxm"));
  CHECK(few.detail.split > 1);
  CHECK(few.detail.kernels == 2);
  OpCost many = predict_op(attention("flash2", 32, 1, 8192, false), gpu("h200-sxm"));
  CHECK(many.detail.split == 1);
  CHECK(many.detail.kernels == 1);
}

TEST_CASE("impl: the memory-efficient kernel neither packs GQA heads nor splits keys in decode",
          "[impl][rule]") {
  OpCost e = predict_op(attention("efficient", 1, 1, 8192, false), gpu("h200-sxm"));
  CHECK(e.detail.ctas == 32);  // one CTA per (batch, query head), not per KV head
  CHECK(e.detail.split == 1);
  OpCost c = predict_op(attention("cudnn", 1, 1, 8192, false), gpu("h200-sxm"));
  CHECK(e.time_us > 5 * c.time_us);  // each CTA walks all 8192 keys alone
}

TEST_CASE("impl: math runs as separate kernels, more with a causal mask and with GQA",
          "[impl][rule]") {
  auto kernels = [](int64_t kv_heads, bool causal) {
    Op op = test::attention(1, 32, kv_heads, causal ? 512 : 1, 512, causal);
    std::get<AttentionOp>(op.shape).impl = AttentionImpl::Math;
    return predict_op(op, gpu("h200-sxm")).detail.kernels;
  };
  CHECK(kernels(32, false) == 13);
  CHECK(kernels(8, false) == 15);  // k and v repeated to the query heads
  CHECK(kernels(8, true) == 19);   // the mask built and added
}

TEST_CASE("impl: norms and softmax run ATen's kernels unless an op line says triton",
          "[impl][rule]") {
  for (std::string op : {"rmsnorm", "layernorm", "softmax"}) {
    std::string line = R"({"op":")" + op + R"(","rows":4096,"cols":4096,"dtype":"bf16")";
    Op aten = parse(line + "}");
    Op triton = parse(line + R"(,"impl":"triton"})");
    CHECK(std::get<RowOp>(aten.shape).impl == RowImpl::PyTorch);
    CHECK(std::get<RowOp>(triton.shape).impl == RowImpl::SinglePass);
    CHECK(std::string(predict_op(aten, gpu("h200-sxm")).impl) == "aten");
    CHECK(std::string(predict_op(triton, gpu("h200-sxm")).impl) == "triton");
    CHECK(predict_op(aten, gpu("h200-sxm")).time_us > predict_op(triton, gpu("h200-sxm")).time_us);
  }
}

TEST_CASE("impl: elementwise generic is the strided path, vectorized the default", "[impl][rule]") {
  std::string line = R"({"op":"elementwise","kind":"copy","numel":1048576,"dtype":"bf16")";
  CHECK_FALSE(std::get<ElementwiseOp>(parse(line + "}").shape).strided);
  CHECK(std::get<ElementwiseOp>(parse(line + R"(,"impl":"generic"})").shape).strided);
  CHECK_FALSE(std::get<ElementwiseOp>(parse(line + R"(,"impl":"vectorized"})").shape).strided);
  CHECK(std::string(predict_op(parse(line + R"(,"strided":true})"), gpu("h200-sxm")).impl) ==
        "generic");
  require_input_error([&] { parse(line + R"(,"strided":true,"impl":"vectorized"})"); },
                      {"/impl: vectorized contradicts \"strided\": true"});
}

TEST_CASE("impl: AdamW runs foreach by default, foreach moves 20 element streams in 8 passes",
          "[impl][rule]") {
  std::string line = R"({"op":"elementwise","kind":"adamw","numel":2795573248,"dtype":"bf16",)"
                     R"("tensors":75)";
  Op foreach = parse(line + "}");
  CHECK(std::get<ElementwiseOp>(foreach.shape).adamw == AdamwImpl::Foreach);
  Op fused = parse(line + R"(,"impl":"fused"})");
  Op loop = parse(line + R"(,"impl":"for-loop"})");
  OpCost f = predict_op(foreach, gpu("h200-sxm")), u = predict_op(fused, gpu("h200-sxm"));
  CHECK(std::string(f.impl) == "foreach");
  CHECK(std::string(u.impl) == "fused");
  CHECK(f.bytes.hbm == Approx(20.0 / 7 * u.bytes.hbm));
  CHECK(f.detail.kernels == 8 * 134);  // a launch per 320 chunks of 65536 elements per pass
  CHECK(f.time_us > 1.5 * u.time_us);
  CHECK(predict_op(loop, gpu("h200-sxm")).detail.kernels == 8 * 75);
}

TEST_CASE("impl: an AdamW op names its tensors, no more than its parameters", "[impl][rule]") {
  std::string head = R"({"op":"elementwise","kind":"adamw","numel":75,"dtype":"fp32")";
  CHECK_NOTHROW(parse(head + R"(,"tensors":75})"));
  require_input_error([&] { parse(head + R"(,"tensors":76})"); },
                      {"/tensors: more tensors than parameters (numel)"});
  require_input_error([&] { parse(head + "}"); }, {"/tensors: missing"});
  require_input_error(
      [&] { parse(R"({"op":"elementwise","kind":"add","numel":8,"dtype":"bf16","tensors":2})"); },
      {"/tensors: only an AdamW step (\"kind\": \"adamw\") takes tensors"});
}

TEST_CASE("impl: an unknown implementation names the field and the choices", "[impl][error]") {
  require_input_error([&] { parse(attention_line(R"(,"impl":"flash9")")); },
                      {"ops.jsonl line 1", "/impl: unknown implementation \"flash9\"",
                       "attention takes cudnn, flash2, flash3, efficient, math"});
}

TEST_CASE("impl: another op kind's implementation is refused", "[impl][error]") {
  require_input_error(
      [&] { parse(R"({"op":"rmsnorm","rows":8,"cols":8,"dtype":"bf16","impl":"flash2"})"); },
      {"/impl: \"flash2\" is not an implementation of rmsnorm; rmsnorm takes aten, triton"});
}

TEST_CASE("impl: an op kind without implementations refuses impl", "[impl][error]") {
  require_input_error(
      [&] { parse(R"({"op":"gemm","m":8,"n":8,"k":8,"dtype":"bf16","impl":"aten"})"); },
      {"/impl: gemm has no implementation choice"});
}

TEST_CASE("impl: a runtime's attention backend is one of SDPA's", "[impl][runtimes]") {
  RuntimeProfile r = load_runtime("hf-transformers");
  CHECK_FALSE(r.block.attention_impl.has_value());  // "sdpa": what PyTorch picks
  select_attention_backend(r, "flash2", "--attention-backend");
  CHECK(r.block.attention_impl == AttentionImpl::Flash2);
  select_attention_backend(r, "sdpa", "--attention-backend");
  CHECK_FALSE(r.block.attention_impl.has_value());
  require_input_error([&] { select_attention_backend(r, "xformers", "--attention-backend"); },
                      {"--attention-backend xformers: unknown attention backend; expected one of "
                       "sdpa, cudnn, flash2, flash3, efficient, math"});
}

TEST_CASE("impl: a runtime file's unknown attention backend names the path", "[impl][runtimes]") {
  std::ifstream in(std::string(RIDGELINE_SOURCE_DIR) + "/workloads/runtimes/hf-transformers.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string key = "\"backend\": \"sdpa\"";
  REQUIRE(text.find(key) != std::string::npos);
  CHECK_NOTHROW(load_runtime_text(text, "rt.json"));
  text.replace(text.find(key), key.size(), "\"backend\": \"xformers\"");
  require_input_error([&] { load_runtime_text(text, "rt.json"); },
                      {"rt.json",
                       "/attention/backend: expected one of sdpa, cudnn, flash2, "
                       "flash3, efficient, math, flashmla; got \"xformers\""});
}

namespace {

// DeepSeek-V3's absorbed MLA decode (a serving engine's): 128 query heads over one latent of
// 512 + 64 channels, V the latent's first 512 (one read).
Op absorbed_mla(int64_t batch, int64_t kv) {
  AttentionOp a;
  a.batch = batch, a.heads = 128, a.kv_heads = 1, a.head_dim = 576, a.v_head_dim = 512;
  a.v_in_k = true;
  a.q_len = 1, a.kv_len = kv;
  return Op{"mla", a, false};
}

}  // namespace

TEST_CASE("impl: an absorbed MLA decode runs FlashMLA on Hopper and Blackwell, not elsewhere",
          "[impl][rule][mla]") {
  CHECK(impl_of(absorbed_mla(8, 4096), "h200-sxm") == "flashmla");
  CHECK(impl_of(absorbed_mla(8, 4096), "b200") == "flashmla");
  // Ampere: SDPA's pick for a 576-wide head, the memory-efficient kernel
  CHECK(impl_of(absorbed_mla(8, 4096), "a100-sxm-80gb") == "efficient");
  Op e = absorbed_mla(8, 4096);
  std::get<AttentionOp>(e.shape).impl = AttentionImpl::Efficient;
  CHECK(predict_op(e, gpu("h200-sxm")).time_us >
        5 * predict_op(absorbed_mla(8, 4096), gpu("h200-sxm")).time_us);
}

TEST_CASE("impl: FlashMLA is bound by its published main-loop rate at many heads and keys",
          "[impl][rule][mla]") {
  // 128 heads a request: 2 x 128 FLOPs a latent byte, past the H200's ridge: compute-bound at
  // 660/989 of the bf16 peak, never faster
  const GpuSpec& g = gpu("h200-sxm");
  OpCost c = predict_op(absorbed_mla(64, 8192), g);
  double peak = peak_flops_per_s(g, MathUnit::TensorBf16);
  double rate = c.flops() / (c.time_us * 1e-6);
  CHECK(c.bottleneck == Bottleneck::Compute);
  CHECK(rate <= 660.0 / 989.0 * peak * 1.0001);
  CHECK(rate > 0.5 * peak);
  // the latent is read once: K and V are one tensor
  CHECK(c.bytes.hbm < 1.2 * 64.0 * 8192 * 576 * 2);
}

TEST_CASE("impl: flashmla on an op that is not MLA's absorbed decode", "[impl][error][mla]") {
  Op op = attention("", 1, 1, 4096, false);
  std::get<AttentionOp>(op.shape).impl = AttentionImpl::FlashMla;
  require_input_error([&] { predict_op(op, gpu("h200-sxm")); },
                      {"/impl: flashmla runs MLA's absorbed decode over the latent cache only"});
}

TEST_CASE("impl: flashmla off Hopper and Blackwell", "[impl][error][mla]") {
  Op op = absorbed_mla(8, 4096);
  std::get<AttentionOp>(op.shape).impl = AttentionImpl::FlashMla;
  require_input_error(
      [&] { predict_op(op, gpu("a100-sxm-80gb")); },
      {"/impl: flashmla (FlashMLA) runs on Hopper and Blackwell GPUs", "a100-sxm-80gb is ampere"});
}

TEST_CASE("impl: flashmla on an op line", "[impl][error][mla]") {
  require_input_error([&] { parse(attention_line(R"(,"impl":"flashmla")", 576, "bf16", 1)); },
                      {"/impl: flashmla runs MLA's absorbed decode over the latent cache, which op "
                       "lines do not describe"});
}
