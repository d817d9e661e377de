// Collective-model speed (Google Benchmark): collective_cost() on one core, cluster parsing
// excluded; items_per_second is predictions per second. "mix" cycles through the collectives a
// parallel training step issues (TP all-reduce and all-gather inside a node, DP reduce-scatter
// across nodes, EP all-to-all, PP send/recv), the figure quoted in docs/collectives.md.
//   build/bench/ridgeline_bench --benchmark_filter=Collective
#include "hardware/cluster_spec.h"
#include "model/collective_cost.h"

#include <benchmark/benchmark.h>

#include <vector>

namespace {

using namespace ridgeline;

const ClusterSpec& h100() {
  static const ClusterSpec c = load_cluster("dgx-h100");
  return c;
}

std::vector<CollectiveOp> step_mix() {
  return {{CollectiveKind::AllReduce, 16.0 * (1 << 20), 8, 8, DType::Bf16},
          {CollectiveKind::AllGather, 64.0 * (1 << 20), 8, 8, DType::Bf16},
          {CollectiveKind::ReduceScatter, 1.0 * (1 << 30), 64, 8, DType::Bf16},
          {CollectiveKind::AllReduce, 256.0 * (1 << 20), 128, 8, DType::Bf16},
          {CollectiveKind::AllToAll, 32.0 * (1 << 20), 16, 8, DType::Bf16},
          {CollectiveKind::SendRecv, 8.0 * (1 << 20), 2, 1, DType::Bf16}};
}

void BM_CollectiveMix(benchmark::State& state) {
  std::vector<CollectiveOp> ops = step_mix();
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(collective_cost(ops[i], h100()));
    i = (i + 1) % ops.size();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CollectiveMix);

void BM_CollectiveAllReduceMultiNode(benchmark::State& state) {
  CollectiveOp op{CollectiveKind::AllReduce, 1.0 * (1 << 30), 1024, 8, DType::Bf16};
  for (auto _ : state) benchmark::DoNotOptimize(collective_cost(op, h100()));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CollectiveAllReduceMultiNode);

}  // namespace
