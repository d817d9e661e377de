// Determinism (issue 16 part 3): the library keeps no hidden state between predictions. A set of
// jobs (single kernels, steps with their JSON and trace views, strategies on clusters, serving
// runs) is run once for reference, then again in reverse and in shuffled order, and in 4
// std::threads at once (each in its own order); every output must be byte-identical to the
// reference. The suite runs in the Release and the Debug ASan/UBSan builds of CI, so both float
// settings are checked against themselves; the goldens compare bytes across them.
#include "generators.h"

#include "cli/serve_options.h"
#include "cli/views/parallel_views.h"
#include "cli/views/predict_views.h"
#include "cli/views/serve_views.h"
#include "common/errors.h"
#include "hardware/gpu_load.h"
#include "model/op_cost.h"
#include "model/parallel_predict.h"
#include "serve/gpu_step_model.h"
#include "serve/serve_run.h"
#include "workloads/graph_builder.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

using namespace ridgeline;
using namespace ridgeline::prop;

namespace {

using Job = std::function<std::string()>;

Job op_job(Property& p) {
  std::string name = p.pick(gpu_names());
  std::vector<Op> ops;
  for (int i = 0; i < 50; ++i) ops.push_back(random_op(p, gpu(name)));
  return [name, ops] {
    nlohmann::json out = nlohmann::json::array();
    for (const Op& op : ops) {
      try {
        OpCost c = predict_op(op, gpu(name));
        out.push_back({c.time_us, (int)c.bottleneck, c.flops(), c.bytes.hbm, c.bytes.l2,
                       c.bytes.smem, c.detail.tile_m, c.detail.tile_n, c.detail.split,
                       c.detail.waves});
      } catch (const InputError& e) {
        out.push_back(e.what());
      }
    }
    return out.dump();
  };
}

Job step_job(Property& p) {
  ModelConfig m = random_model(p);
  RunConfig r = random_run(p, m, (Phase)p.uniform(0, 2));
  std::string name = r.kv_cache == DType::Fp8 ? "h100-sxm" : p.pick(gpu_names());
  return [m, r, name] {
    Prediction pr = predict_workload(build_graph(m, r), m, r, gpu(name));
    std::ostringstream os;
    print_prediction_json(os, pr);
    write_chrome_trace(os, pr);
    return os.str();
  };
}

Job strategy_job(Property& p) {
  ModelConfig m = small_model(p, p.coin(0.3));
  std::string cl = p.pick(cluster_names());
  RunConfig r;
  ParallelConfig par;
  if (!random_strategy(p, m, cluster(cl), (Phase)p.uniform(0, 2), r, par)) return {};
  return [m, r, par, cl] {
    ParallelOptions options;
    options.timeline = true;
    ParallelPrediction pr = predict_parallel(m, r, par, cluster(cl), cluster_gpu(cl), options);
    std::ostringstream os;
    const GpuSpec& g = cluster_gpu(cl);
    print_parallel_json(os, pr, RunSubject{m.name, m.source, g.name, g.file, g.profile, {}});
    write_parallel_trace(os, pr);
    return os.str();
  };
}

Job serve_job(Property& p) {
  std::string name = p.pick(gpu_names()), engine_name = p.pick(engine_preset_names());
  ModelConfig m = small_model(p, false);
  Workload w = small_workload(p, 12, 16, 1024);
  bool poisson = p.coin();
  return [name, engine_name, m, w, poisson] {
    EngineConfig engine = load_engine(engine_name);
    GpuStepModel step(gpu(name), m, serve_run_config("bf16", engine));
    ServeSetup setup;
    setup.engine = &engine;
    setup.model = &step;
    setup.arrivals = poisson ? ArrivalSpec{ArrivalSpec::Kind::Poisson, 4, 1, 0}
                             : ArrivalSpec{ArrivalSpec::Kind::AllAtOnce, 0, 1, 0};
    setup.seed = 7;
    ServeRun run = run_serving(w, setup, engine_kv(engine, step));
    std::ostringstream os;
    print_serve_json(os,
                     ServeSubject{name, m.name, engine.name, engine.file, "bf16",
                                  describe(setup.arrivals), "test", 7},
                     run);
    return os.str();
  };
}

std::vector<Job> jobs(Property& p) {
  std::vector<Job> js;
  for (int i = 0; i < p.cases(); ++i) {
    Job j;
    switch (i % 4) {
      case 0:
        j = op_job(p);
        break;
      case 1:
        j = step_job(p);
        break;
      case 2:
        j = strategy_job(p);
        break;
      default:
        j = serve_job(p);
        break;
    }
    if (j) js.push_back(std::move(j));
  }
  return js;
}

// Every job's output, run in `order`.
std::vector<std::string> run_in(const std::vector<Job>& js, const std::vector<size_t>& order) {
  std::vector<std::string> out(js.size());
  for (size_t i : order) out[i] = js[i]();
  return out;
}

}  // namespace

TEST_CASE("property: outputs are byte-identical across orders and 4 threads", "[property]") {
  Property p("same inputs -> same bytes (reverse, shuffled, 4 threads at once)", 24);
  preload_presets();
  std::vector<Job> js = jobs(p);
  std::vector<size_t> order(js.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const std::vector<std::string> reference = run_in(js, order);
  for (const auto& s : reference) REQUIRE(!s.empty());

  std::vector<size_t> reversed(order.rbegin(), order.rend());
  CHECK(run_in(js, reversed) == reference);
  std::vector<size_t> shuffled = order;
  std::shuffle(shuffled.begin(), shuffled.end(), p.rng());
  CHECK(run_in(js, shuffled) == reference);

  constexpr int kThreads = 4;
  std::vector<std::vector<std::string>> outs(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    std::vector<size_t> mine = order;
    std::rotate(mine.begin(), mine.begin() + (long)(t * mine.size() / kThreads), mine.end());
    threads.emplace_back([&, t, mine] { outs[t] = run_in(js, mine); });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    INFO("thread " << t);
    for (size_t i = 0; i < reference.size(); ++i) {
      INFO("job " << i);
      CHECK(outs[t][i] == reference[i]);
    }
  }
}
