// Single-kernel prediction speed (Google Benchmark). Each benchmark predicts one op shape over
// and over on one core, JSON parsing excluded; items_per_second is predictions per second.
//   build/bench/ridgeline_bench --benchmark_min_time=0.2
// "mix" cycles through the shapes of a transformer layer (prefill and decode), the figure quoted
// in the README.
#include "hardware/gpu_load.h"
#include "model/op_cost.h"
#include "workloads/builder_ops.h"
#include "workloads/runtime_profile.h"

#include <benchmark/benchmark.h>

#include <vector>

namespace {

using namespace ridgeline;

const GpuSpec& gpu() {
  static const GpuSpec g = load_gpu("h100-sxm");
  return g;
}

Op gemm(int64_t m, int64_t n, int64_t k) {
  return Op{"g", gemm_op(m, n, k, DType::Bf16, 1).shape, false};
}
Op attn(int64_t b, int64_t q, int64_t kv, bool causal) {
  return Op{"a", AttentionOp{b, 32, 8, 128, q, kv, causal, DType::Bf16, {}, false}, false};
}

std::vector<Op> layer_mix() {
  return {
      gemm(4096, 6144, 4096),
      gemm(4096, 4096, 4096),
      gemm(4096, 28672, 4096),
      gemm(4096, 4096, 14336),
      gemm(32, 6144, 4096),
      gemm(32, 28672, 4096),
      attn(1, 4096, 4096, true),
      attn(32, 1, 2048, false),
      Op{"n",
         RowOp{RowOpKind::RmsNorm, 4096, 4096, DType::Bf16, RowImpl::SinglePass,
               default_runtime().launch.rows},
         false},
      Op{"e", ElementwiseOp{ElementwiseKind::SiluMul, 4096 * 14336, DType::Bf16, false, {}}, false},
      Op{"e", ElementwiseOp{ElementwiseKind::Add, 4096 * 4096, DType::Bf16, false, {}}, false}};
}

void run(benchmark::State& state, const std::vector<Op>& ops) {
  const GpuSpec& g = gpu();
  size_t i = 0;
  for (auto _ : state) {
    OpCost c = predict_op(ops[i], g);
    benchmark::DoNotOptimize(c.time_us);
    if (++i == ops.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_GemmLarge(benchmark::State& s) {
  run(s, {gemm(8192, 8192, 8192)});
}
void BM_GemmSkinny(benchmark::State& s) {
  run(s, {gemm(1, 14336, 4096)});
}
void BM_AttentionPrefillCausal(benchmark::State& s) {
  run(s, {attn(1, 8192, 8192, true)});
}
void BM_AttentionDecode(benchmark::State& s) {
  run(s, {attn(64, 1, 4096, false)});
}
void BM_Elementwise(benchmark::State& s) {
  run(s, {Op{"e", ElementwiseOp{ElementwiseKind::Add, 1 << 24, DType::Bf16, false, {}}, false}});
}
void BM_RmsNorm(benchmark::State& s) {
  run(s, {Op{"n",
             RowOp{RowOpKind::RmsNorm, 4096, 4096, DType::Bf16, RowImpl::SinglePass,
                   default_runtime().launch.rows},
             false}});
}
void BM_LayerMix(benchmark::State& s) {
  run(s, layer_mix());
}

BENCHMARK(BM_GemmLarge);
BENCHMARK(BM_GemmSkinny);
BENCHMARK(BM_AttentionPrefillCausal);
BENCHMARK(BM_AttentionDecode);
BENCHMARK(BM_Elementwise);
BENCHMARK(BM_RmsNorm);
BENCHMARK(BM_LayerMix);

}  // namespace

BENCHMARK_MAIN();
