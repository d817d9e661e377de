// Ranking of parallel strategies: memory first, then the prediction of those that fit, sorted,
// each with why it loses to the one above; the rules are in strategy_search.h.
#include "model/strategy_search.h"

#include "common/parallel_map.h"
#include "hardware/cluster_spec.h"

namespace ridgeline {

namespace {

ClusterLimits limits_of(const ClusterSpec& c) {
  auto per_node = (int64_t)c.gpus_per_node.value;
  return {c.name, per_node, per_node * (int64_t)c.max_nodes.value};
}

}  // namespace

SearchResult search_strategies(const ModelConfig& model, const RunConfig& run,
                               const SearchSpace& space, const ClusterSpec& cluster,
                               const GpuSpec& gpu, const SearchProgress& progress,
                               const StrategyPredictor& predictor, int jobs) {
  const ClusterLimits limits = limits_of(cluster);
  check_run_config(run, model);
  Enumeration e = enumerate_strategies(model, run, space, limits);
  SearchResult out;
  out.model = model.name;
  out.cluster = cluster.name;
  out.gpu = gpu.name;
  out.space = space;
  out.candidates = e.candidates;
  out.valid = (int64_t)e.valid.size();
  out.refused = e.refused;
  const double capacity = gpu.memory.hbm.capacity_bytes.value;
  auto price = [&](int64_t i) {
    const ParallelConfig& p = e.valid[(size_t)i];
    RunConfig r = strategy_run(run, p);
    StrategyRow row;
    row.parallel = p;
    row.memory = parallel_memory(model, r, p, capacity, r.runtime.reserved_bytes, limits);
    if (row.memory.fits()) {
      row.timed = true;
      row.prediction = predictor ? predictor(p) : predict_parallel(model, r, p, cluster, gpu);
    }
    return row;
  };
  auto gather = [&](int64_t i, StrategyRow&& row) {
    (row.timed ? out.ranked : out.not_fitting_rows).push_back(std::move(row));
    int64_t done = i + 1;
    if (progress.every > 0 && progress.report && done % progress.every == 0)
      progress.report(done, out.valid);
  };
  out.complete = ordered_parallel_for<StrategyRow>(out.valid, jobs, price, gather, progress.stop);
  out.not_fitting = (int64_t)out.not_fitting_rows.size();
  rank_strategies(out.ranked);
  return out;
}

}  // namespace ridgeline
