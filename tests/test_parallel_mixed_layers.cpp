// Models whose layers differ on a cluster (DeepSeek's dense first layers beside its MoE layers,
// Gemma 3's sliding and global layers): one stage holds every kind, each its own block section
// with its own repeat, parameters, KV cache and activations. One GPU of a cluster is the
// single-GPU step and its memory, in inference and training; stages of different mixes (pp or vp
// above 1) are refused (test_families_errors.cpp).
#include "families_fixture.h"
#include "hardware/cluster_spec.h"
#include "model/parallel_predict.h"
#include "model/prediction.h"
#include "parallel_fixture.h"
#include "test_helpers.h"
#include "workloads/graph_builder.h"

#include <algorithm>

using namespace ridgeline;
using ridgeline::test::dgx;
using ridgeline::test::dgx_gpu;
using ridgeline::test::strategy;
using ridgeline::test::train_run;
using ridgeline::test::families::decode;

namespace {

ParallelPrediction on_cluster(const ModelConfig& m, const RunConfig& r, ParallelConfig p) {
  p.microbatch = r.batch;
  if (r.phase != Phase::Train) p.global_batch = r.batch * p.dp;
  return predict_parallel(m, r, p, dgx(), dgx_gpu());
}

}  // namespace

TEST_CASE("mixed layers on a cluster: one GPU is the single-GPU step", "[parallel][families]") {
  for (const char* name : {"deepseek-v2-lite", "gemma-3-27b"}) {
    ModelConfig m = load_model(name);
    m.vocab = (m.vocab + 127) / 128 * 128;  // Megatron's vocabulary padding changes nothing
    REQUIRE(layer_groups(m, m.layers).size() == 2);
    for (RunConfig r : {decode(8, 1024), train_run(256)}) {
      INFO(name << " " << phase_name(r.phase));
      ParallelPrediction c = on_cluster(m, r, strategy(1, 1, 1, 1));
      Prediction one = predict_workload(build_graph(m, r), m, r, dgx_gpu());
      CHECK(c.total_us == Approx(one.total_us).epsilon(1e-9));
      CHECK(c.memory.weights_bytes == Approx(one.memory.weights_bytes).epsilon(1e-9));
      if (r.phase == Phase::Decode)
        CHECK(c.memory.kv_cache_bytes == Approx(one.memory.kv_cache_bytes).epsilon(1e-9));
    }
  }
}

TEST_CASE("mixed layers on a cluster: sliding layers cap their KV cache, global ones grow",
          "[parallel][families]") {
  // Gemma 3 at tp 2: from 2 to 4 windows of keys only the global layers' cache grows, as much
  // as that share of a model whose every layer is global.
  ModelConfig g = load_model("gemma-3-27b");
  ModelConfig all_global = g;
  all_global.layer_kinds.clear();
  all_global.sliding_window = 0;
  int64_t global = 0, w = 0;
  for (const LayerGroup& k : layer_groups(g, g.layers)) {
    if (k.model.sliding_window == 0) global = k.count;
    w = std::max(w, k.model.sliding_window);
  }
  REQUIRE(global > 0);
  REQUIRE(global < g.layers);
  REQUIRE(w > 0);
  ParallelConfig p = strategy(2, 1, 1, 1);
  auto kv = [&](const ModelConfig& m, int64_t keys) {
    return on_cluster(m, decode(8, keys), p).memory.kv_cache_bytes;
  };
  double grows = kv(g, 4 * w) - kv(g, 2 * w);
  double grows_all = kv(all_global, 4 * w) - kv(all_global, 2 * w);
  CHECK(grows == Approx(grows_all * (double)global / (double)g.layers).epsilon(1e-9));
  // below the window every layer holds every key: the same as the all-global model
  CHECK(kv(g, w / 2) == Approx(kv(all_global, w / 2)).epsilon(1e-9));
}
