// Scoring the published training runs; see training_scorecard.h. Clusters and GPUs are loaded
// once each; a row that used more nodes than its cluster preset holds gets a copy of the preset
// with that many nodes (the same node and network, a larger fabric).
#include "validate/training_scorecard.h"

#include "common/errors.h"
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "model/parallel_predict.h"
#include "model/strategy_search.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace ridgeline {

namespace {

struct Target {
  ClusterSpec cluster;
  GpuSpec gpu;
};

// The row's cluster and GPU presets, loaded once; null when either has no file yet (`why` says
// which).
const Target* target_of(std::map<std::string, std::unique_ptr<Target>>& cache,
                        const TrainingRunCase& c, std::string& why) {
  std::string key = c.cluster + "/" + c.gpu;
  auto it = cache.find(key);
  if (it == cache.end()) {
    std::unique_ptr<Target> t;
    try {
      t = std::make_unique<Target>(Target{load_cluster(c.cluster), load_gpu(c.gpu)});
    } catch (const InputError&) {
      t = nullptr;
    }
    it = cache.emplace(key, std::move(t)).first;
  }
  if (!it->second) why = "GPU " + c.gpu + " or cluster " + c.cluster + " has no preset file";
  return it->second.get();
}

ErrorStats stats_of(const std::vector<const CaseResult*>& cases, const std::string& split) {
  std::vector<double> errors;
  for (const CaseResult* c : cases)
    if (c->split == split) errors.push_back(c->error());
  return error_stats(errors);
}

}  // namespace

TrainingScorecard score_training_runs(const TrainingRunSet& set) {
  TrainingScorecard sc;
  sc.dataset = set.file;
  sc.rows = set.rows;
  for (const auto& s : set.skipped) ++sc.skipped[s.reason];
  std::map<std::string, std::unique_ptr<Target>> targets;
  std::map<std::string, std::vector<const CaseResult*>> by;
  std::vector<std::string> order;
  std::vector<const TrainingRunCase*> scored;
  sc.cases.reserve(set.cases.size());
  for (const TrainingRunCase& c : set.cases) {
    std::string why;
    const Target* t = target_of(targets, c, why);
    if (!t) {
      ++sc.skipped[why];
      continue;
    }
    ClusterSpec cluster = t->cluster;
    double per_node = cluster.gpus_per_node.value;
    double nodes = std::ceil((double)c.parallel.gpus / per_node);
    if (nodes > cluster.max_nodes.value) cluster.max_nodes.value = nodes;
    ParallelPrediction p;
    try {
      ParallelOptions options;
      options.fp8 = c.fp8;
      p = predict_parallel(c.model, strategy_run(c.run, c.parallel), c.parallel, cluster, t->gpu,
                           options);
    } catch (const InputError& e) {
      std::string msg = e.what();
      ++sc.skipped["strategy refused: " + msg.substr(0, msg.find(':'))];
      continue;
    }
    if (!p.memory.fits()) sc.predicted_not_fitting.push_back(c.id);
    sc.cases.push_back({c.id, c.family, c.split, c.measured_us, p.total_us, 0, c.gpu});
    scored.push_back(&c);
  }
  for (size_t i = 0; i < sc.cases.size(); ++i) {
    const CaseResult& r = sc.cases[i];
    const TrainingRunCase* c = scored[i];
    std::vector<std::string> keys = {"all", "source/" + c->source, "gpu/" + c->gpu,
                                     "family/" + c->family, "precision/" + c->precision};
    if (c->fp8.on) keys.push_back(std::string("recipe/") + fp8_recipe_name(c->fp8.recipe));
    if (c->gpu == "h100-sxm" || c->gpu == "h200-sxm" || c->gpu == "b200")
      keys.push_back("scope/h100-h200-b200");
    for (const std::string& k : keys) {
      if (!by.count(k)) order.push_back(k);
      by[k].push_back(&r);
    }
  }
  std::stable_sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
    auto rank = [](const std::string& s) {
      if (s == "all") return 0;
      if (s.rfind("scope/", 0) == 0) return 1;
      return s.rfind("source/", 0) == 0 ? 2 : s.rfind("gpu/", 0) == 0 ? 3 : 4;
    };
    return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
  });
  for (const std::string& k : order)
    sc.categories.push_back({k, stats_of(by[k], "holdout"), stats_of(by[k], "fit")});
  return sc;
}

std::map<std::string, double> training_holdout_mape(const TrainingScorecard& sc) {
  std::map<std::string, double> out;
  for (const auto& c : sc.categories)
    if (c.holdout.count > 0) out[c.name] = c.holdout.mape;
  return out;
}

}  // namespace ridgeline
