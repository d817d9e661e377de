// The streamed JSONL path of `ridgeline op --input` prints what the result list and its view
// print: json_double_to_chars gives nlohmann's bytes for every double, the interval memo's
// by-reference answer is kernel_interval's, and stream_op_jsonl's output and errors are those of
// run_op_lines + print_op_jsonl on the same lines (good, strict-path, bad and blank lines).
#include "cli/op_runner.h"
#include "cli/op_stream.h"
#include "cli/views/json_double.h"
#include "cli/views/views.h"
#include "test_helpers.h"
#include "validate/intervals.h"
#include "workloads/op_parse.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

using namespace ridgeline;

namespace {

std::string nlohmann_text(double x) {
  char buf[64];
  return std::string(buf, nlohmann::detail::to_chars(buf, buf + sizeof buf, x));
}

std::string our_text(double x) {
  char buf[64];
  return std::string(buf, json_double_to_chars(buf, x));
}

}  // namespace

TEST_CASE("json_double_to_chars prints nlohmann's bytes", "[op][batch]") {
  std::vector<double> xs = {0.0,
                            -0.0,
                            0.1,
                            0.8,
                            1.0,
                            1.5,
                            100.0,
                            1e15,
                            1e16,
                            1e-5,
                            1e-4,
                            123456789012345678.0,
                            0.015151515151515152,
                            14.522103064126949,
                            std::numeric_limits<double>::max(),
                            std::numeric_limits<double>::min(),
                            std::numeric_limits<double>::denorm_min(),
                            std::numeric_limits<double>::epsilon()};
  for (int e = -320; e <= 308; ++e) xs.push_back(std::pow(10.0, e));
  std::mt19937_64 rng(20261202);
  std::uniform_real_distribution<double> decade(-12, 16);
  for (int i = 0; i < 300000; ++i) {
    uint64_t bits = rng();
    double x;
    std::memcpy(&x, &bits, sizeof x);
    if (std::isfinite(x)) xs.push_back(x);      // any exponent
    xs.push_back(std::pow(10.0, decade(rng)));  // the sizes and times ops have
    xs.push_back(double(rng() % 1000000) / double(1 + rng() % 997));  // short decimals, ratios
  }
  size_t differ = 0;
  for (double x : xs) {
    if (nlohmann_text(x) != our_text(x) && differ++ < 5) {
      INFO(nlohmann_text(x) << " vs " << our_text(x));
      CHECK(false);
    }
  }
  CHECK(differ == 0);
}

TEST_CASE("the interval memo's reference is kernel_interval's interval", "[op][batch]") {
  const IntervalTable& table = builtin_interval_table();
  KernelIntervalMemo memo(table, test::h100());
  for (
      const char* line : {
          R"({"op":"gemm","m":64,"n":64,"k":64,"dtype":"bf16"})",
          R"({"op":"gemm","m":64,"n":64,"k":64,"dtype":"bf16","groups":8})",
          R"({"op":"attention","batch":1,"heads":8,"kv_heads":8,"head_dim":64,"q_len":1,"kv_len":8,"causal":false,"dtype":"bf16"})",
          R"({"op":"attention","batch":1,"heads":8,"kv_heads":8,"head_dim":64,"q_len":1,"kv_len":8,"causal":false,"dtype":"bf16","impl":"flash2"})",
          R"({"op":"rmsnorm","rows":8,"cols":8,"dtype":"bf16"})",
          R"({"op":"softmax","rows":8,"cols":8,"dtype":"bf16"})",
          R"({"op":"gemm","m":640,"n":64,"k":64,"dtype":"bf16"})",
      }) {
    INFO(line);
    Op op = parse_op(nlohmann::json::parse(line), "x", "line 1");
    for (double t : {1.0, 37.5}) {
      auto want = kernel_interval(table, test::h100(), op, t);
      const PredictionInterval* got = memo.interval_ref(op, t);
      REQUIRE((got != nullptr) == want.has_value());
      if (!got) continue;
      CHECK(got->p10_us == want->p10_us);
      CHECK(got->p90_us == want->p90_us);
      CHECK(got->category == want->category);
      CHECK(got->calibration == want->calibration);
      CHECK(got->basis == want->basis);
      CHECK(got->count == want->count);
    }
  }
}

TEST_CASE("stream_op_jsonl prints what run_op_lines and print_op_jsonl print", "[op][batch]") {
  std::string text =
      "\n"
      R"({"id":"a","op":"gemm","m":4096,"n":4096,"k":4096,"dtype":"bf16"})"
      "\n"
      R"({"op":"attention","batch":1,"heads":32,"kv_heads":8,"head_dim":128,"q_len":1,"kv_len":4096,"causal":true,"dtype":"bf16","impl":"flash3"})"
      "\n"
      R"({"id":"strict","op":"gemm","m":4096.0,"n":1,"k":1,"dtype":"bf16"})"  // strict path
      "\n  \n"
      R"({"id":"bad","op":"gemm","m":1,"n":1,"k":1,"dtype":"tf16"})"
      "\nnot json\n"
      R"({"id":"q\"uote","op":"reduce","kind":"max","numel":77,"dtype":"fp32"})"
      "\n";
  for (int i = 0; i < 500; ++i)
    text += R"({"op":"elementwise","kind":"silu_mul","numel":)" + std::to_string(1 + i * 7919) +
            R"(,"dtype":"bf16"})" + "\n";
  text += R"({"op":"layernorm","rows":3,"cols":5,"dtype":"fp16"})";  // no newline at the end

  std::istringstream in1(text), in2(text);
  std::ostringstream listed, streamed;
  std::vector<OpResult> results = run_op_lines(in1, "ops.jsonl", test::h100());
  print_op_jsonl(listed, results);
  OpStreamSummary s = stream_op_jsonl(in2, "ops.jsonl", test::h100(), streamed);
  CHECK(streamed.str() == listed.str());
  CHECK(s.ops == results.size());
  std::vector<std::string> errors;
  for (const auto& r : results) {
    if (!r.error.empty()) errors.push_back(r.error);
  }
  CHECK(s.errors == errors);
  REQUIRE(s.errors.size() == 2);
  CHECK(s.errors[0].rfind("ops.jsonl line 6", 0) == 0);
  CHECK(s.errors[1].rfind("ops.jsonl line 7: invalid JSON", 0) == 0);
}
