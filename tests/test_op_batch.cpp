// The fast batch path of `ridgeline op` agrees with the strict one: FastOpParser (simdjson)
// gives parse_op's Op for a plain line and declines every irregular line (which the strict path
// then reads or rejects with its message), and the JSONL writer prints the bytes of
// op_result_json(r).dump().
#include "cli/op_runner.h"
#include "cli/views/views.h"
#include "test_helpers.h"
#include "workloads/op_parse.h"
#include "workloads/op_parse_fast.h"

#include <sstream>

using namespace ridgeline;

namespace {

// The Op as the JSON view shows it, with its prediction: equal views mean equal ops.
std::string shown(const Op& op) {
  OpResult r{op.id, op, predict_op(op, test::h100()), {}, std::nullopt};
  return op_result_json(r).dump();
}

std::string jsonl_of(const std::string& text) {
  std::istringstream in(text);
  std::ostringstream out;
  print_op_jsonl(out, run_op_lines(in, "ops.jsonl", test::h100()));
  return out.str();
}

std::string dumped_of(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (const auto& r : run_op_lines(in, "ops.jsonl", test::h100()))
    out += op_result_json(r).dump() + "\n";
  return out;
}

const char* kPlainLines[] = {
    R"({"id":"a","op":"gemm","m":4096,"n":4096,"k":4096,"dtype":"bf16"})",
    R"({"op":"gemm","m":8,"n":4096,"k":4096,"dtype":"fp8","batch":4})",
    R"({"id":7,"op":"gemm","m":64,"n":64,"k":64,"dtype":"fp32","groups":8})",
    R"({"id":"b","op":"attention","batch":1,"heads":32,"kv_heads":8,"head_dim":128,"q_len":2048,"kv_len":2048,"causal":true,"dtype":"bf16","kv_dtype":"fp8"})",
    R"({"id":"c","op":"elementwise","kind":"copy","numel":1048576,"dtype":"bf16","out_dtype":"fp32","strided":true})",
    R"({"id":"d","op":"reduce","kind":"sum","numel":1048576,"dtype":"bf16"})",
    R"( {"id":"e\u00e9","op":"rmsnorm","rows":2048,"cols":4096,"dtype":"bf16","warm_l2":true,"l2_working_set_bytes":4e7} )",
};

}  // namespace

TEST_CASE("the fast op parser reads a plain line as parse_op does", "[op][batch]") {
  FastOpParser fast;
  for (const char* line : kPlainLines) {
    INFO(line);
    std::optional<Op> op = fast.parse(line, "line 1");
    REQUIRE(op.has_value());
    CHECK(shown(*op) == shown(parse_op(nlohmann::json::parse(line), "x", "line 1")));
  }
}

TEST_CASE("the fast op parser declines every irregular line", "[op][batch]") {
  FastOpParser fast;
  for (
      const char* line :
      {R"({"op":"gemm","m":4096.0,"n":4096,"k":4096,"dtype":"bf16"})",    // strict path reads it
       R"({"op":"gemm","m":1,"m":2,"n":4096,"k":4096,"dtype":"bf16"})",   // repeated key
       R"({"op":"gemm","m":1,"n":4096,"k":4096,"dtype":"bf16","mm":1})",  // unknown key
       R"({"op":"gemm","m":1,"n":4096,"k":4096,"dtype":"bf16"} x)",       // text after it
       R"({"op":"gemm","m":[1],"n":4096,"k":4096,"dtype":"bf16"})",
       R"({"op":"gemm","m":null,"n":4096,"k":4096,"dtype":"bf16"})",
       R"({"op":"gemm","m":0,"n":4096,"k":4096,"dtype":"bf16"})",
       R"({"op":"gemm","m":18446744073709551615,"n":1,"k":1,"dtype":"bf16"})",
       R"({"id":1.5,"op":"gemm","m":1,"n":1,"k":1,"dtype":"bf16"})",
       R"({"op":"attention","batch":1,"heads":32,"kv_heads":6,"head_dim":128,"q_len":1,"kv_len":8,"causal":false,"dtype":"bf16"})",
       R"({"op":"gemm","m":1,"n":1,"k":1,"dtype":"bf16")", "not json", "[1,2]", "{}"}) {
    INFO(line);
    CHECK_FALSE(fast.parse(line, "line 1").has_value());
  }
}

TEST_CASE("ridgeline op's JSONL view prints the bytes of the JSON view's dump", "[op][batch]") {
  std::string text;
  for (const char* line : kPlainLines) text += std::string(line) + "\n";
  text += R"({"id":"q\"uote\\tab\t","op":"gemm","m":4096.0,"n":1,"k":1,"dtype":"bf16"})"
          "\n\n  \n"
          R"({"id":"bad","op":"gemm","m":1,"n":1,"k":1,"dtype":"tf16"})"
          "\nnot json\n"
          R"({"op":"gemm","m":3,"n":5,"k":7,"dtype":"fp16"})";  // last line without a newline
  CHECK(jsonl_of(text) == dumped_of(text));
}

TEST_CASE("an op batch's line numbers count blank lines and the last line needs no newline",
          "[op][batch]") {
  std::istringstream in("\n{\"op\":\"gemm\",\"m\":1,\"n\":1,\"k\":1,\"dtype\":\"bf16\"}\n\nx");
  auto results = run_op_lines(in, "ops.jsonl", test::h100());
  REQUIRE(results.size() == 2);
  CHECK(results[0].id == "line 2");
  CHECK(results[0].error.empty());
  CHECK(results[1].id == "line 4");
  CHECK(results[1].error.rfind("ops.jsonl line 4: invalid JSON", 0) == 0);
}

TEST_CASE("the JSONL view matches the JSON view's dump on thousands of varied ops", "[op][batch]") {
  std::string text;
  unsigned h = 12345;
  auto next = [&] { return h = h * 1103515245u + 12345u; };
  for (int i = 0; i < 3000; ++i) {
    std::string m = std::to_string(1 + next() % 9000), n = std::to_string(1 + next() % 30000);
    switch (i % 4) {
      case 0:
        text += R"({"op":"gemm","m":)" + m + R"(,"n":)" + n + R"(,"k":4096,"dtype":"fp8"})";
        break;
      case 1:
        text += R"({"op":"attention","batch":)" + std::to_string(1 + next() % 64) +
                R"(,"heads":32,"kv_heads":8,"head_dim":128,"q_len":)" + m + R"(,"kv_len":)" + n +
                R"(,"causal":true,"dtype":"bf16"})";
        break;
      case 2:
        text += R"({"op":"elementwise","kind":"gelu","numel":)" + m + n + R"(,"dtype":"fp32"})";
        break;
      default:
        text += R"({"op":"layernorm","rows":)" + m + R"(,"cols":)" + n + R"(,"dtype":"fp16"})";
    }
    text += "\n";
  }
  CHECK(jsonl_of(text) == dumped_of(text));
}
