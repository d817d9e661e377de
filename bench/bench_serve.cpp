// Serving simulator speed (Google Benchmark), one core: 10,000 requests under load (Poisson at
// 20 req/s, 1024 prompt and 128 output tokens, Llama-3.1-8B on an H200 under vLLM), step model
// cold each iteration (its memo starts empty); and a capacity search over 8 configurations
// (H100 and H200, vLLM and TRT-LLM, bf16 and fp8; 1,000 requests a run, SLA ttft_p99 300 ms and
// tpot_p99 15 ms, tight enough that the search bisects rather than stopping at saturation); and
// 10,000 requests of DeepSeek-V3 in FP8 on 8 H200s as TensorRT-LLM's DEP8 (MLA, MoE, attention
// data parallel: every step model's part at once), Poisson at 20 req/s.
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "serve/capacity.h"
#include "serve/gpu_step_model.h"
#include "serve/parallel_step_model.h"
#include "serve/workload.h"

#include <benchmark/benchmark.h>

namespace {

using namespace ridgeline;

RunConfig run_for(const std::string& precision, const EngineConfig& e) {
  RunConfig r;
  DType d = *parse_dtype(precision);
  r.weights = d;
  r.activations = d == DType::Fp8 ? DType::Bf16 : d;
  r.kv_cache = e.kv_cache_dtype(r.weights, r.activations);
  r.runtime = load_runtime(e.runtime);
  return r;
}

Workload lengths(int64_t n) {
  return generate_workload({LengthSpec::Kind::Fixed, 1024, 0}, {LengthSpec::Kind::Fixed, 128, 0}, n,
                           0);
}

// 10,000 requests of lengths(), Poisson at 20 req/s, on a cold step model from `make_step` each
// iteration.
template <typename MakeStep>
void serve_10k(benchmark::State& state, const EngineConfig& engine, MakeStep make_step) {
  int64_t steps = 0;
  for (auto _ : state) {
    auto step = make_step();
    ServeSetup setup;
    setup.engine = &engine;
    setup.model = &step;
    setup.arrivals.kind = ArrivalSpec::Kind::Poisson;
    setup.arrivals.rate_per_s = 20;
    ServeRun r = run_serving(lengths(10000), setup, engine_kv(engine, step));
    steps = r.report.steps;
    benchmark::DoNotOptimize(r.report.ttft_ms.p99);
  }
  state.counters["steps"] = (double)steps;
  state.SetItemsProcessed(state.iterations() * 10000);
}

void BM_Serve10kRequests(benchmark::State& state) {
  static const GpuSpec gpu = load_gpu("h200-sxm");
  static const ModelConfig model = load_model("llama-3.1-8b");
  static const EngineConfig engine = load_engine("vllm");
  serve_10k(state, engine, [&] { return GpuStepModel(gpu, model, run_for("bf16", engine)); });
}

void BM_Serve10kRequestsDeepSeekDep8(benchmark::State& state) {
  static const GpuSpec gpu = load_gpu("h200-sxm");
  static const ClusterSpec cluster = load_cluster("hgx-h200");
  static const ModelConfig model = load_model("deepseek-v3");
  static const EngineConfig engine = load_engine("trtllm");
  ParallelConfig p;
  p.ep = 8;
  serve_10k(state, engine,
            [&] { return ParallelStepModel(gpu, cluster, model, run_for("fp8", engine), p); });
}

void BM_Capacity8Configurations(benchmark::State& state) {
  std::vector<GpuSpec> gpus = {load_gpu("h100-sxm"), load_gpu("h200-sxm")};
  static const ModelConfig model = load_model("llama-3.1-8b");
  std::vector<EngineConfig> engines = {load_engine("vllm"), load_engine("trtllm")};
  std::vector<SloTerm> slo = parse_slo("--slo", "ttft_p99=300ms,tpot_p99=15ms");
  int64_t evaluations = 0;
  for (auto _ : state) {
    evaluations = 0;
    for (const GpuSpec& g : gpus)
      for (const EngineConfig& e : engines)
        for (const char* p : {"bf16", "fp8"}) {
          GpuStepModel step(g, model, run_for(p, e));
          ServeSetup setup;
          setup.engine = &e;
          setup.model = &step;
          setup.slo = slo;
          CapacityResult c =
              search_capacity(lengths(1000), setup, engine_kv(e, step), 500, std::nullopt);
          evaluations += c.evaluations;
          benchmark::DoNotOptimize(c.max_requests_per_s);
        }
  }
  state.counters["simulations"] = (double)evaluations;
}

}  // namespace

BENCHMARK(BM_Serve10kRequests)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Serve10kRequestsDeepSeekDep8)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Capacity8Configurations)->Unit(benchmark::kMillisecond)->Iterations(1);
