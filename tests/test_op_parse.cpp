// Op parsing: the contract's examples parse, and one test per error message.
#include "test_helpers.h"
#include "workloads/op_math.h"
#include "workloads/op_parse.h"

using namespace ridgeline;
using ridgeline::test::require_input_error;

namespace {

Op parse(const std::string& text) {
  return parse_op(nlohmann::json::parse(text), "ops.jsonl line 1", "line 1");
}

void expect_error(const std::string& text, std::initializer_list<std::string> parts) {
  require_input_error([&] { parse(text); }, parts);
}

}  // namespace

TEST_CASE("the contract's example ops parse", "[op]") {
  Op a = parse(R"({"id":"a","op":"gemm","m":4096,"n":4096,"k":4096,"dtype":"bf16"})");
  CHECK(a.id == "a");
  CHECK(std::get<GemmOp>(a.shape).batch == 1);
  Op b = parse(
      R"({"id":"b","op":"attention","batch":1,"heads":32,"kv_heads":8,"head_dim":128,"q_len":2048,"kv_len":2048,"causal":true,"dtype":"bf16"})");
  CHECK(std::get<AttentionOp>(b.shape).causal);
  Op c = parse(R"({"id":"c","op":"elementwise","kind":"silu_mul","numel":1048576,"dtype":"bf16"})");
  CHECK(std::get<ElementwiseOp>(c.shape).kind == ElementwiseKind::SiluMul);
  Op d = parse(R"({"id":"d","op":"reduce","kind":"sum","numel":1048576,"dtype":"bf16"})");
  CHECK(std::get<ReduceOp>(d.shape).numel == 1048576);
  Op e = parse(R"({"id":"e","op":"rmsnorm","rows":2048,"cols":4096,"dtype":"bf16"})");
  CHECK(std::string(op_family(e)) == "rmsnorm");
  Op f = parse(R"({"op":"softmax","rows":2,"cols":4,"dtype":"fp32","warm_l2":true})");
  CHECK(f.id == "line 1");
  CHECK(f.warm_l2);
  CHECK(f.l2_working_set_bytes == 0);
  Op w = parse(R"({"op":"elementwise","kind":"add","numel":8,"dtype":"bf16","warm_l2":true,
                   "l2_working_set_bytes":4e7})");
  CHECK(w.l2_working_set_bytes == 4e7);
  Op st = parse(R"({"op":"elementwise","kind":"mul","numel":8,"dtype":"bf16","strided":true})");
  CHECK(std::get<ElementwiseOp>(st.shape).strided);
}

TEST_CASE("op FLOPs and bytes follow the standard formulas", "[op]") {
  OpWork g = op_work(test::gemm(4096, 2048, 1024, DType::Bf16, 3));
  CHECK(g.matrix_flops == 2.0 * 3 * 4096 * 2048 * 1024);
  CHECK(g.bytes_read == 3.0 * (4096 * 1024 + 2048 * 1024) * 2);
  CHECK(g.bytes_written == 3.0 * 4096 * 2048 * 2);
  OpWork f8 = op_work(test::gemm(64, 64, 64, DType::Fp8));
  CHECK(f8.bytes_read == 2.0 * 64 * 64);
  CHECK(f8.bytes_written == 2.0 * 64 * 64);  // bf16 output
  OpWork full = op_work(test::attention(2, 32, 8, 1024, 1024, false));
  CHECK(full.matrix_flops == 4.0 * 2 * 32 * 1024 * 1024 * 128);
  OpWork causal = op_work(test::attention(2, 32, 8, 1024, 1024, true));
  CHECK(causal.matrix_flops == 4.0 * 2 * 32 * (1024.0 * 1025 / 2) * 128);
  AttentionOp chunk = std::get<AttentionOp>(test::attention(1, 1, 1, 128, 4096, true).shape);
  CHECK(attention_pairs(chunk) == 128.0 * (4096 - 128) + 128.0 * 129 / 2);
}

TEST_CASE("op error: unknown op", "[op][errors]") {
  expect_error(R"({"op":"conv","dtype":"bf16"})", {"ops.jsonl line 1: /op: expected one of gemm"});
}
TEST_CASE("op error: missing dimension", "[op][errors]") {
  expect_error(R"({"op":"gemm","m":1,"n":1,"dtype":"bf16"})", {"ops.jsonl line 1: /k: missing"});
}
TEST_CASE("op error: negative dimension", "[op][errors]") {
  expect_error(R"({"op":"gemm","m":-4,"n":1,"k":1,"dtype":"bf16"})",
               {"/m: expected an integer >= 1, got -4"});
}
TEST_CASE("op error: fractional dimension", "[op][errors]") {
  expect_error(R"({"op":"gemm","m":1.5,"n":1,"k":1,"dtype":"bf16"})",
               {"/m: expected an integer, got 1.5"});
}
TEST_CASE("op error: dimension too large", "[op][errors]") {
  expect_error(R"({"op":"elementwise","kind":"copy","numel":1e15,"dtype":"bf16"})",
               {"/numel: too large"});
}
TEST_CASE("op error: unknown dtype", "[op][errors]") {
  expect_error(R"({"op":"gemm","m":1,"n":1,"k":1,"dtype":"bf32"})",
               {"/dtype: unknown dtype \"bf32\""});
}
TEST_CASE("op error: attention in fp32", "[op][errors]") {
  expect_error(
      R"({"op":"attention","batch":1,"heads":8,"kv_heads":8,"head_dim":64,"q_len":8,"kv_len":8,"causal":false,"dtype":"fp32","impl":"cudnn"})",
      {"/impl: cudnn runs in bf16 or fp16, not fp32"});
}
TEST_CASE("op error: heads not a multiple of kv_heads", "[op][errors]") {
  expect_error(
      R"({"op":"attention","batch":1,"heads":32,"kv_heads":6,"head_dim":128,"q_len":8,"kv_len":8,"causal":false,"dtype":"bf16"})",
      {"/kv_heads: heads (32) must be a multiple of kv_heads (6)"});
}
TEST_CASE("op error: head_dim beyond flash attention", "[op][errors]") {
  expect_error(
      R"({"op":"attention","batch":1,"heads":8,"kv_heads":8,"head_dim":512,"q_len":8,"kv_len":8,"causal":false,"dtype":"bf16","impl":"flash2"})",
      {"/head_dim: flash2 supports head_dim up to 256"});
}
TEST_CASE("op error: causal missing", "[op][errors]") {
  expect_error(
      R"({"op":"attention","batch":1,"heads":8,"kv_heads":8,"head_dim":64,"q_len":8,"kv_len":8,"dtype":"bf16"})",
      {"/causal: missing; expected true or false"});
}
TEST_CASE("op error: tf32 storage", "[op][errors]") {
  expect_error(R"({"op":"elementwise","kind":"copy","numel":8,"dtype":"tf32"})",
               {"/dtype: tf32 is a tensor-core mode"});
}
TEST_CASE("op error: norm in fp8", "[op][errors]") {
  expect_error(R"({"op":"rmsnorm","rows":8,"cols":8,"dtype":"fp8"})",
               {"/dtype: normalizations run in fp32, bf16 or fp16"});
}
TEST_CASE("op error: unknown elementwise kind", "[op][errors]") {
  expect_error(R"({"op":"elementwise","kind":"relu6","numel":8,"dtype":"bf16"})",
               {"/kind: expected one of copy"});
}
TEST_CASE("op error: unknown key", "[op][errors]") {
  expect_error(R"({"op":"gemm","m":1,"n":1,"k":1,"dtype":"bf16","transpose":true})",
               {"/transpose: unknown key"});
}
TEST_CASE("op error: warm_l2 on a GEMM", "[op][errors]") {
  expect_error(R"({"op":"gemm","m":1,"n":1,"k":1,"dtype":"bf16","warm_l2":true})",
               {"/warm_l2: only memory-bound ops"});
}
TEST_CASE("op error: strided on an op that is not elementwise", "[op][errors]") {
  expect_error(R"({"op":"rmsnorm","rows":2,"cols":8,"dtype":"bf16","strided":true})",
               {"/strided: only elementwise ops take strided"});
}
TEST_CASE("op error: view_dims on an op that is not elementwise", "[op][errors]") {
  expect_error(R"({"op":"rmsnorm","rows":2,"cols":8,"dtype":"bf16","view_dims":2})",
               {"/view_dims: only elementwise ops take view_dims"});
}
TEST_CASE("op error: view_dims without strided", "[op][errors]") {
  expect_error(R"({"op":"elementwise","kind":"copy","numel":8,"dtype":"bf16","view_dims":2})",
               {"/view_dims: only a strided op"});
}
TEST_CASE("op error: view_dims past ATen's 25", "[op][errors]") {
  expect_error(
      R"({"op":"elementwise","kind":"copy","numel":8,"dtype":"bf16","strided":true,"view_dims":26})",
      {"/view_dims: at most 25 (ATen's MAX_DIMS), got 26"});
}
TEST_CASE("op error: view_dims below 1", "[op][errors]") {
  expect_error(
      R"({"op":"elementwise","kind":"copy","numel":8,"dtype":"bf16","strided":true,"view_dims":0})",
      {"/view_dims"});
}
TEST_CASE("op error: view_dims on an AdamW step", "[op][errors]") {
  expect_error(
      R"({"op":"elementwise","kind":"adamw","numel":8,"tensors":1,"dtype":"fp32","view_dims":2})",
      {"/view_dims: an AdamW step has no view dims"});
}
TEST_CASE("op: view_dims of a strided op", "[op]") {
  Op op = parse(
      R"({"op":"elementwise","kind":"mul","numel":64,"dtype":"bf16","strided":true,"view_dims":5})");
  CHECK(std::get<ElementwiseOp>(op.shape).view_dims == 5);
}
TEST_CASE("op error: masked_fraction on a norm", "[op][errors]") {
  expect_error(R"({"op":"rmsnorm","rows":2,"cols":8,"dtype":"bf16","masked_fraction":0.5})",
               {"/masked_fraction: only softmax takes masked_fraction"});
}
TEST_CASE("op error: masked_fraction on the triton softmax", "[op][errors]") {
  expect_error(
      R"({"op":"softmax","rows":2,"cols":8,"dtype":"bf16","impl":"triton","masked_fraction":0.5})",
      {"/masked_fraction: only ATen's softmax (impl aten) pays for masked values"});
}
TEST_CASE("op error: masked_fraction above 1", "[op][errors]") {
  expect_error(R"({"op":"softmax","rows":2,"cols":8,"dtype":"bf16","masked_fraction":1.5})",
               {"/masked_fraction: a fraction of each row: at most 1"});
}
TEST_CASE("op error: a negative masked_fraction", "[op][errors]") {
  expect_error(R"({"op":"softmax","rows":2,"cols":8,"dtype":"bf16","masked_fraction":-0.1})",
               {"/masked_fraction:"});
}
TEST_CASE("op: masked_fraction of ATen's softmax", "[op]") {
  Op op = parse(R"({"op":"softmax","rows":2,"cols":8,"dtype":"fp32","masked_fraction":0.25})");
  CHECK(std::get<RowOp>(op.shape).masked_fraction == 0.25);
  CHECK(std::get<RowOp>(op.shape).impl == RowImpl::PyTorch);
}
TEST_CASE("op error: an L2 working set without warm_l2", "[op][errors]") {
  expect_error(R"({"op":"reduce","kind":"sum","numel":8,"dtype":"bf16","l2_working_set_bytes":1})",
               {"/l2_working_set_bytes: only with \"warm_l2\": true"});
}
TEST_CASE("op error: a negative L2 working set", "[op][errors]") {
  expect_error(R"({"op":"reduce","kind":"sum","numel":8,"dtype":"bf16","warm_l2":true,
                   "l2_working_set_bytes":-1})",
               {"/l2_working_set_bytes:"});
}
TEST_CASE("op error: id of the wrong type", "[op][errors]") {
  expect_error(R"({"id":[1],"op":"gemm","m":1,"n":1,"k":1,"dtype":"bf16"})",
               {"/id: expected a string or an integer"});
}
TEST_CASE("op error: not an object", "[op][errors]") {
  require_input_error([] { parse_op(nlohmann::json::parse("[1,2]"), "ops.jsonl line 4", "x"); },
                      {"ops.jsonl line 4: /: expected an object"});
}
TEST_CASE("op error: a GPU without the dtype's units", "[op][errors]") {
  GpuSpec g = test::h100();
  g.compute.ops_per_clk_per_sm[(int)MathUnit::TensorFp8].reset();
  require_input_error([&] { predict_op(test::gemm(64, 64, 64, DType::Fp8), g); },
                      {"/dtype: h100-sxm has no fp8 tensor cores"});
}
TEST_CASE("op: routed rows of a grouped GEMM", "[op]") {
  Op op = parse(
      R"({"op":"gemm","m":256,"n":5760,"k":2880,"dtype":"bf16","groups":32,"routed_tokens":2048,"top_k":4})");
  const GemmOp& g = std::get<GemmOp>(op.shape);
  CHECK(g.routed.experts == 32);
  CHECK(g.routed.tokens == 2048);
  CHECK(g.routed.p == 0.125);
}
TEST_CASE("op error: routed_tokens without top_k", "[op][errors]") {
  expect_error(
      R"({"op":"gemm","m":256,"n":64,"k":64,"dtype":"bf16","groups":32,"routed_tokens":2048})",
      {"/top_k: routed rows take routed_tokens and top_k together"});
}
TEST_CASE("op error: routed rows without groups", "[op][errors]") {
  expect_error(
      R"({"op":"gemm","m":256,"n":64,"k":64,"dtype":"bf16","routed_tokens":2048,"top_k":4})",
      {"/routed_tokens: routed rows are a grouped GEMM's (give groups)"});
}
TEST_CASE("op error: routed rows over a fractional expert count", "[op][errors]") {
  expect_error(
      R"({"op":"gemm","m":256,"n":64,"k":64,"dtype":"bf16","groups":31.5,"routed_tokens":2048,"top_k":4})",
      {"/groups: with routed rows, groups is the experts: a whole number"});
}
TEST_CASE("op error: top_k above the experts", "[op][errors]") {
  expect_error(
      R"({"op":"gemm","m":256,"n":64,"k":64,"dtype":"bf16","groups":4,"routed_tokens":2048,"top_k":8})",
      {"/top_k: 8 is more than the 4 experts (groups)"});
}
TEST_CASE("op error: m that is not the routed mean", "[op][errors]") {
  expect_error(
      R"({"op":"gemm","m":200,"n":64,"k":64,"dtype":"bf16","groups":32,"routed_tokens":2048,"top_k":4})",
      {"/m: with routed rows m is an expert's mean rows, ceil(routed_tokens x top_k / groups) = "
       "256; got 200"});
}
