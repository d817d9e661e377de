// Strategy-search speed (Google Benchmark): one whole search per iteration -- every valid
// TP/PP/DP/VP/micro-batch/ZeRO/recompute (and SP) strategy of GPT-3 175B training on 1024 H100s
// (dgx-h100, global batch 1536, seq 2048), memory first, then predict_parallel for each that
// fits, ranked. The target: under 2 s on one core. The counters say how many strategies
// were enumerated, valid and timed. Configs are parsed outside the loop.
#include "bench_fixtures.h"
#include "model/strategy_search.h"

#include <benchmark/benchmark.h>

namespace {

using namespace ridgeline;

void BM_SearchGpt3_175b1024(benchmark::State& state) {
  const auto& [cluster, gpu] = bench::dgx_h100();
  const ModelConfig& model = bench::gpt3_175b();
  RunConfig r = bench::gpt3_train_run();
  SearchSpace s;
  s.gpus = 1024;
  s.global_batch = 1536;
  SearchResult res;
  for (auto _ : state) {
    res = search_strategies(model, r, s, cluster, gpu);
    benchmark::DoNotOptimize(res.ranked.data());
  }
  state.counters["enumerated"] = (double)res.candidates;
  state.counters["valid"] = (double)res.valid;
  state.counters["timed"] = (double)res.ranked.size();
}

BENCHMARK(BM_SearchGpt3_175b1024)->Unit(benchmark::kMillisecond);

}  // namespace
