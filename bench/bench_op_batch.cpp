// `ridgeline op --input ops.jsonl` end to end (Google Benchmark): the subcommand as main()
// runs it (flags parsed, GPU loaded, 200k JSONL lines read and parsed, predicted, printed as
// JSONL), stdout sent to a sink. items_per_second is ops per second through the CLI path;
// BM_OpBatchLibrary predicts the same ops already parsed (the library's own figure). The CLI
// streams (cli/op_stream.h: each line parsed, predicted and printed before the next); the list
// path that the other views and the Python package take is split in two: BM_OpBatchRun reads,
// parses and predicts the lines with their intervals (run_op_lines), BM_OpBatchPrint writes the
// finished results as JSONL (print_op_jsonl). BM_OpBatchCliJobs/2 runs the CLI with --jobs 2
// (cli/op_stream.h), timed by the wall clock.
//   build/bench/bench_op_batch --benchmark_min_time=1
#include "cli/commands.h"
#include "cli/op_runner.h"
#include "cli/views/views.h"
#include "hardware/gpu_load.h"
#include "model/op_cost.h"
#include "workloads/op_parse.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

namespace {

using namespace ridgeline;

constexpr int kLines = 200000;

// A transformer's kernel mix with varied sizes, so no two neighbouring lines are alike.
std::string op_line(int i) {
  unsigned h = static_cast<unsigned>(i) * 2654435761u;
  auto pick = [&](std::initializer_list<long long> v) {
    return *(v.begin() + (h >> 8) % v.size());
  };
  std::string id = "\"id\":\"op" + std::to_string(i) + "\",";
  switch (i % 5) {
    case 0:
      return "{" + id + "\"op\":\"gemm\",\"m\":" + std::to_string(1 + h % 8192) +
             ",\"n\":" + std::to_string(pick({4096, 6144, 14336, 28672})) +
             ",\"k\":4096,\"dtype\":\"bf16\"}";
    case 1:
      return "{" + id + "\"op\":\"attention\",\"batch\":" + std::to_string(pick({1, 8, 32})) +
             ",\"heads\":32,\"kv_heads\":8,\"head_dim\":128,\"q_len\":" +
             std::to_string(pick({1, 512, 2048})) + ",\"kv_len\":" + std::to_string(1 + h % 8192) +
             ",\"causal\":true,\"dtype\":\"bf16\"}";
    case 2:
      return "{" + id + "\"op\":\"elementwise\",\"kind\":\"silu_mul\",\"numel\":" +
             std::to_string(1 + h % (1 << 26)) + ",\"dtype\":\"bf16\"}";
    case 3:
      return "{" + id + "\"op\":\"rmsnorm\",\"rows\":" + std::to_string(1 + h % 8192) +
             ",\"cols\":4096,\"dtype\":\"bf16\"}";
    default:
      return "{" + id +
             "\"op\":\"reduce\",\"kind\":\"sum\",\"numel\":" + std::to_string(1 + h % (1 << 24)) +
             ",\"dtype\":\"bf16\"}";
  }
}

const std::string& batch_file() {
  static const std::string path = [] {
    std::string p = "bench_op_batch_200k.jsonl";
    std::ofstream out(p);
    for (int i = 0; i < kLines; ++i) out << op_line(i) << '\n';
    return p;
  }();
  return path;
}

// A stream buffer that drops what it is given (stdout of the benchmarked command).
class Sink : public std::streambuf {
 protected:
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
  int overflow(int c) override { return c; }
};

// `ridgeline op --input` with --jobs state.range(0) (1: the flag left out).
void BM_OpBatchCli(benchmark::State& state) {
  const std::string& path = batch_file();
  Sink sink;
  const auto jobs = state.range(0);
  for (auto _ : state) {
    CLI::App app{"ridgeline"};
    Command op = add_op_command(app);
    std::vector<std::string> args = {"ridgeline", "op", "--gpu", "h100-sxm", "--input", path};
    if (jobs > 1) args.insert(args.end(), {"--jobs", std::to_string(jobs)});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    app.parse(static_cast<int>(argv.size()), argv.data());
    std::streambuf* old = std::cout.rdbuf(&sink);
    int status = op();
    std::cout.rdbuf(old);
    if (status != 0) state.SkipWithError("ridgeline op failed");
  }
  state.SetItemsProcessed(state.iterations() * kLines);
}
BENCHMARK(BM_OpBatchCli)->Arg(1)->Unit(benchmark::kMillisecond);
// On threads the calling thread's CPU time says nothing: ops per wall-clock second.
BENCHMARK(BM_OpBatchCli)
    ->Name("BM_OpBatchCliJobs")
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_OpBatchLibrary(benchmark::State& state) {
  GpuSpec gpu = load_gpu("h100-sxm");
  std::vector<Op> ops;
  for (int i = 0; i < kLines; ++i)
    ops.push_back(parse_op(nlohmann::json::parse(op_line(i)), "", ""));
  for (auto _ : state) {
    for (const Op& o : ops) benchmark::DoNotOptimize(predict_op(o, gpu).time_us);
  }
  state.SetItemsProcessed(state.iterations() * kLines);
}
BENCHMARK(BM_OpBatchLibrary)->Unit(benchmark::kMillisecond);

std::string batch_text() {
  std::ifstream in(batch_file());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void BM_OpBatchRun(benchmark::State& state) {
  GpuSpec gpu = load_gpu("h100-sxm");
  const std::string text = batch_text();
  for (auto _ : state) {
    std::istringstream in(text);
    benchmark::DoNotOptimize(run_op_lines(in, "ops.jsonl", gpu).size());
  }
  state.SetItemsProcessed(state.iterations() * kLines);
}
BENCHMARK(BM_OpBatchRun)->Unit(benchmark::kMillisecond);

void BM_OpBatchPrint(benchmark::State& state) {
  GpuSpec gpu = load_gpu("h100-sxm");
  std::istringstream in(batch_text());
  const std::vector<OpResult> results = run_op_lines(in, "ops.jsonl", gpu);
  Sink sink;
  std::ostream out(&sink);
  for (auto _ : state) print_op_jsonl(out, results);
  state.SetItemsProcessed(state.iterations() * kLines);
}
BENCHMARK(BM_OpBatchPrint)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
