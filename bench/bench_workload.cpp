// Whole-model prediction speed (Google Benchmark): graph building plus prediction of one step
// of an 80-layer model (Llama-3-70B) per iteration, on one core; items_per_second is full-model
// predictions per second. The model config is parsed once, outside the loop.
#include "hardware/gpu_load.h"
#include "model/prediction.h"
#include "workloads/graph_builder.h"

#include <benchmark/benchmark.h>

namespace {

using namespace ridgeline;

void run(benchmark::State& state, Phase phase, int64_t batch, int64_t seq, int64_t kv) {
  static const GpuSpec gpu = load_gpu("h100-sxm");
  static const ModelConfig model = load_model("llama-3-70b");
  RunConfig r;
  r.phase = phase;
  r.batch = batch;
  r.seq = seq;
  r.kv_len = kv;
  for (auto _ : state) {
    OpGraph g = build_graph(model, r);
    Prediction p = predict_workload(g, model, r, gpu);
    benchmark::DoNotOptimize(p.total_us);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Llama70bDecode(benchmark::State& s) {
  run(s, Phase::Decode, 64, 0, 4096);
}
void BM_Llama70bPrefill(benchmark::State& s) {
  run(s, Phase::Prefill, 1, 8192, 0);
}
void BM_Llama70bTrain(benchmark::State& s) {
  run(s, Phase::Train, 1, 4096, 0);
}

BENCHMARK(BM_Llama70bDecode);
BENCHMARK(BM_Llama70bPrefill);
BENCHMARK(BM_Llama70bTrain);

}  // namespace
