// Multi-GPU prediction speed (Google Benchmark): one predict_parallel call per iteration, GPT-3
// 175B training on 1024 H100s (TP 8, PP 16, DP 8, interleaved 1F1B, ZeRO 1, global batch 1536),
// and Llama-3-70B decode on 8 GPUs (TP 8). The target: under 100 us per prediction, so a
// search over thousands of strategies stays within seconds. Configs are parsed outside the loop.
#include "bench_fixtures.h"
#include "model/parallel_predict.h"

#include <benchmark/benchmark.h>

namespace {

using namespace ridgeline;

void BM_Gpt3_175bTrain1024(benchmark::State& state) {
  const auto& [cluster, gpu] = bench::dgx_h100();
  const ModelConfig& model = bench::gpt3_175b();
  RunConfig r = bench::gpt3_train_run();
  ParallelConfig p;
  p.gpus = 1024, p.tp = 8, p.pp = 16, p.dp = 8, p.vp = 2, p.zero = 1;
  p.schedule = PipelineSchedule::Interleaved;
  p.microbatch = 1, p.global_batch = 1536;
  for (auto _ : state) {
    ParallelPrediction pr = predict_parallel(model, r, p, cluster, gpu);
    benchmark::DoNotOptimize(pr.total_us);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Llama70bDecodeTp8(benchmark::State& state) {
  const auto& [cluster, gpu] = bench::dgx_h100();
  static const ModelConfig model = load_model("llama-3-70b");
  RunConfig r;
  r.phase = Phase::Decode;
  r.batch = 64;
  r.kv_len = 4096;
  ParallelConfig p;
  p.gpus = 8, p.tp = 8, p.microbatch = 64, p.global_batch = 64;
  for (auto _ : state) {
    ParallelPrediction pr = predict_parallel(model, r, p, cluster, gpu);
    benchmark::DoNotOptimize(pr.total_us);
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_Gpt3_175bTrain1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Llama70bDecodeTp8)->Unit(benchmark::kMicrosecond);

}  // namespace
