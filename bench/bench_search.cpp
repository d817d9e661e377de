// Strategy-search speed (Google Benchmark): one whole search per iteration -- every valid
// TP/PP/DP/VP/micro-batch/ZeRO/recompute (and SP) strategy of GPT-3 175B training on 1024 H100s
// (dgx-h100, global batch 1536, seq 2048), memory first, then predict_parallel for each that
// fits, ranked. The target: under 2 s on one core. The counters say how many strategies
// were enumerated, valid and timed. Configs are parsed outside the loop.
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "model/strategy_search.h"

#include <benchmark/benchmark.h>

namespace {

using namespace ridgeline;

void BM_SearchGpt3_175b1024(benchmark::State& state) {
  static const ClusterSpec cluster = load_cluster("dgx-h100");
  static const GpuSpec gpu = load_gpu(cluster.gpu);
  static const ModelConfig model = load_model("gpt3-175b");
  RunConfig r;
  r.phase = Phase::Train;
  r.seq = 2048;
  r.optimizer = Optimizer::AdamW;
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
