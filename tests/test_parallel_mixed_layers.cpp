// Models whose layers differ on a cluster (DeepSeek's dense first layers beside its MoE layers,
// Gemma 3's sliding and global layers): each kind its own block section, each stage (and model
// chunk) repeating it as often as it holds layers of that kind, with their parameters, KV cache
// and activations. One GPU of a cluster is the single-GPU step and its memory, in inference and
// training; over pipeline stages the chunks partition the layers.
#include "families_fixture.h"
#include "hardware/cluster_spec.h"
#include "model/parallel_memory.h"
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

TEST_CASE("mixed layers: a layer range counts each kind it holds", "[parallel][families]") {
  ModelConfig d = load_model("deepseek-v2-lite");  // 1 dense layer, then 26 MoE layers
  REQUIRE(d.layers == 27);
  auto counts = [&](int64_t first, int64_t end) {
    std::vector<int64_t> out;
    for (const LayerGroup& g : layer_groups_in(d, d.layers, first, end)) out.push_back(g.count);
    return out;
  };
  CHECK(counts(0, 9) == std::vector<int64_t>{1, 8});
  CHECK(counts(9, 18) == std::vector<int64_t>{0, 9});  // a kind the range lacks counts 0
  CHECK(counts(0, 1) == std::vector<int64_t>{1, 0});
  CHECK(layer_groups_in(d, d.layers, 9, 18)[0].first == -1);
  CHECK(layer_groups_in(d, d.layers, 9, 18)[1].first == 9);
  ModelConfig g = load_model("gemma-3-27b");  // 5 sliding layers, then a global one, repeated
  std::vector<LayerGroup> six = layer_groups_in(g, g.layers, 0, 6);
  REQUIRE(six.size() == 2);
  CHECK(six[0].count == 5);
  CHECK(six[1].count == 1);
  CHECK(six[1].first == 5);
}

TEST_CASE("mixed layers over pipeline stages: the chunks partition the layers",
          "[parallel][families]") {
  ModelConfig m = load_model("deepseek-v2-lite");
  m.vocab = (m.vocab + 127) / 128 * 128;
  RunConfig r = train_run(256);
  ParallelPrediction one = on_cluster(m, r, strategy(1, 1, 1, 3));
  ParallelPrediction three = on_cluster(m, r, strategy(1, 3, 1, 3));
  REQUIRE(three.stages.size() == 3);
  double forward = 0, backward = 0;
  for (const StageTime& t : three.stages) forward += t.forward_us, backward += t.backward_us;
  // every layer on exactly one stage: the stages sum to the one-stage work
  CHECK(forward == Approx(one.stages[0].forward_us).epsilon(1e-9));
  CHECK(backward == Approx(one.stages[0].backward_us).epsilon(1e-9));
  // stage 0 holds the dense layer and 8 MoE layers, stage 1 nine MoE layers
  ParallelConfig p = strategy(1, 3, 1, 3);
  StageParams s0 = stage_parameters(m, r, p, 0), s1 = stage_parameters(m, r, p, 1);
  CHECK(s0.experts == Approx(s1.experts * 8.0 / 9.0).epsilon(1e-12));
  CHECK(three.stages[0].forward_us != Approx(three.stages[1].forward_us));
}
