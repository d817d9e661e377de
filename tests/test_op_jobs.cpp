// `ridgeline op --input --jobs N` (cli/op_stream_jobs.cpp): the batch predicted on N threads
// prints the bytes and errors one thread prints, on a mixed batch spanning many of its 128 KiB
// line batches (good, strict-path and bad lines, blank and CRLF lines, a line longer than a batch,
// no newline at the end); a bad --jobs, or --jobs where the batch is not streamed, is an error
// naming the flag.
#include "cli/commands.h"
#include "cli/cout_capture.h"
#include "cli/op_stream.h"
#include "common/errors.h"
#include "test_helpers.h"

#include <cstdio>
#include <fstream>
#include <sstream>

using namespace ridgeline;

namespace {

// ~2 MB of op lines with a bad or odd line every so often.
std::string mixed_batch() {
  std::string text = "\n";
  for (int i = 0; i < 12000; ++i) {
    const std::string n = std::to_string(1 + (i * 7919) % 100000);
    switch (i % 10) {
      case 0:
        text += R"({"id":"g)" + n + R"(","op":"gemm","m":)" + n +
                R"(,"n":4096,"k":4096,"dtype":"bf16"})";
        break;
      case 1:
        text +=
            R"({"op":"attention","batch":2,"heads":32,"kv_heads":8,"head_dim":128,"q_len":1,"kv_len":)" +
            n + R"(,"causal":true,"dtype":"bf16"})";
        break;
      case 2:
        text += R"({"id":"strict","op":"gemm","m":)" + n + R"(.0,"n":1,"k":1,"dtype":"bf16"})";
        break;
      case 3:
        text += i % 30 == 3 ? "not json" : R"({"op":"gemm","m":1,"n":1,"k":1,"dtype":"tf16"})";
        break;
      case 4:
        text += i % 40 == 4
                    ? "  "
                    : R"({"op":"rmsnorm","rows":)" + n + R"(,"cols":4096,"dtype":"bf16"})" + "\r";
        break;
      default:
        text += R"({"op":"elementwise","kind":"silu_mul","numel":)" + n + R"(,"dtype":"bf16"})";
    }
    text += "\n";
    if (i == 5000)  // one line longer than a batch
      text += R"({"id":")" + std::string(300000, 'x') +
              R"(","op":"reduce","kind":"sum","numel":9,"dtype":"fp32"})" + "\n";
  }
  text += R"({"op":"layernorm","rows":3,"cols":5,"dtype":"fp16"})";  // no newline at the end
  return text;
}

// `ridgeline op` as main() runs it: its stdout, or the InputError it throws.
std::string run_op(std::vector<std::string> args) {
  CLI::App app{"ridgeline"};
  Command op = add_op_command(app);
  args.insert(args.begin(), {"ridgeline", "op"});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  app.parse(static_cast<int>(argv.size()), argv.data());
  CoutCapture out;
  op();
  return out.text();
}

}  // namespace

TEST_CASE("op --jobs N prints the bytes and errors of one thread", "[op][batch][jobs]") {
  const std::string text = mixed_batch();
  std::istringstream in1(text);
  std::ostringstream one;
  const OpStreamSummary s1 = stream_op_jsonl(in1, "ops.jsonl", test::h100(), one, 1);
  REQUIRE(s1.errors.size() > 1000);
  for (int jobs : {2, 3, 8}) {
    INFO("jobs " << jobs);
    std::istringstream in(text);
    std::ostringstream many;
    const OpStreamSummary s = stream_op_jsonl(in, "ops.jsonl", test::h100(), many, jobs);
    CHECK(many.str() == one.str());
    CHECK(s.ops == s1.ops);
    CHECK(s.errors == s1.errors);
  }
  // Each bad line's message names its own line, counted over the whole input.
  CHECK(s1.errors.front().rfind("ops.jsonl line 5: ", 0) == 0);
  // The last bad line: i = 11993, after the blank first line and the long line.
  CHECK(s1.errors.back().rfind("ops.jsonl line 11996: ", 0) == 0);
}

TEST_CASE("op --jobs on an empty input or one line prints what one thread prints", "[op][jobs]") {
  for (std::string text : {std::string(), std::string("\n\n"),
                           std::string(R"({"op":"gemm","m":8,"n":8,"k":8,"dtype":"bf16"})")}) {
    std::istringstream in1(text), in2(text);
    std::ostringstream one, two;
    const OpStreamSummary a = stream_op_jsonl(in1, "ops.jsonl", test::h100(), one, 1);
    const OpStreamSummary b = stream_op_jsonl(in2, "ops.jsonl", test::h100(), two, 2);
    CHECK(two.str() == one.str());
    CHECK(b.ops == a.ops);
  }
}

TEST_CASE("op error: a bad --jobs", "[op][jobs]") {
  const std::string path = "test_op_jobs_input.jsonl";
  std::ofstream(path) << R"({"op":"gemm","m":8,"n":8,"k":8,"dtype":"bf16"})"
                      << "\n";
  CHECK(run_op({"--input", path, "--jobs", "2"}) == run_op({"--input", path}));
  auto error_of = [](std::vector<std::string> args) {
    try {
      run_op(std::move(args));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of({"--input", path, "--jobs", "0"}) == "--jobs 0: must be at least 1 (threads)");
  CHECK(error_of({"--input", path, "--jobs", "5000"}) == "--jobs 5000: at most 1024 threads");
  CHECK(error_of({"--input", path, "--jobs", "2", "--format", "csv"}) ==
        "--jobs 2: only with --input in JSONL (its default --format); --format csv (one result "
        "list) runs on one thread");
  CHECK(error_of({"--op", "gemm", "--m", "8", "--n", "8", "--k", "8", "--jobs", "2"}) ==
        "--jobs 2: only with --input in JSONL (its default --format); one op from flags runs on "
        "one thread");
  std::remove(path.c_str());
}
