// Cluster-step interval coverage on the published training runs; see cluster_coverage.h. Rows the
// scorecard cannot model (no preset, a refused strategy) are left out, as the scorecard does.
#include "validate/cluster_coverage.h"

#include "common/errors.h"
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "model/strategy_search.h"
#include "validate/output_intervals.h"

#include <cmath>
#include <map>

namespace ridgeline {

std::vector<CoverageRow> cluster_coverage(const IntervalTable& t, const TrainingRunSet& set) {
  std::vector<CoverageRow> rows{{"cluster steps", "holdout", "training runs", 0, 0, 0, 0},
                                {"cluster steps", "fit", "training runs", 0, 0, 0, 0}};
  std::map<std::string, std::pair<ClusterSpec, GpuSpec>> presets;
  for (const TrainingRunCase& c : set.cases) {
    std::string key = c.cluster + "/" + c.gpu;
    if (!presets.count(key)) {
      try {
        presets.emplace(key, std::make_pair(load_cluster(c.cluster), load_gpu(c.gpu)));
      } catch (const InputError&) {
        continue;  // no preset file: the scorecard skips the row too
      }
    }
    ClusterSpec cluster = presets.at(key).first;
    const GpuSpec& gpu = presets.at(key).second;
    double nodes = std::ceil((double)c.parallel.gpus / cluster.gpus_per_node.value);
    if (nodes > cluster.max_nodes.value) cluster.max_nodes.value = nodes;
    RunConfig run = strategy_run(c.run, c.parallel);
    ParallelPrediction p;
    try {
      ParallelOptions options;
      options.fp8 = c.fp8;  // an FP8 row in its recipe, as the scorecard predicts it
      p = predict_parallel(c.model, run, c.parallel, cluster, gpu, options);
    } catch (const InputError&) {
      continue;  // a refused strategy: not scored
    }
    PredictionInterval i = cluster_interval(t, gpu, cluster, c.model, run, c.parallel, p);
    CoverageRow& r = rows[c.split == "holdout" ? 0 : 1];
    ++r.count;
    if (c.measured_us < i.p10_us)
      ++r.below;
    else if (c.measured_us > i.p90_us)
      ++r.above;
    else
      ++r.inside;
  }
  return rows;
}

}  // namespace ridgeline
