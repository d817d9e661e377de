// Cluster steps against the published training runs; see cluster_coverage.h. Rows the scorecard
// cannot model (no preset, a refused strategy) are left out, as the scorecard does.
#include "validate/cluster_coverage.h"

#include "common/errors.h"
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "model/strategy_search.h"
#include "validate/output_intervals.h"

#include <cmath>
#include <map>

namespace ridgeline {

std::vector<ClusterRow> cluster_rows(const TrainingRunSet& set, const IntervalTable* t) {
  std::vector<ClusterRow> out;
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
    ClusterRow row{c.id, c.split, c.measured_us, p.total_us, std::nullopt};
    if (t) row.interval = cluster_interval(*t, gpu, cluster, c.model, run, c.parallel, p);
    out.push_back(row);
  }
  return out;
}

std::vector<double> cluster_ratios(const std::vector<ClusterRow>& rows, const std::string& split) {
  std::vector<double> out;
  for (const ClusterRow& r : rows)
    if (r.split == split) out.push_back(r.measured_us / r.predicted_us);
  return out;
}

std::vector<CoverageRow> cluster_coverage(const IntervalTable& t, const TrainingRunSet& set) {
  std::vector<CoverageRow> rows{{"cluster steps", "holdout", "training runs", 0, 0, 0, 0},
                                {"cluster steps", "fit", "training runs", 0, 0, 0, 0}};
  for (const ClusterRow& r : cluster_rows(set, &t))
    count_coverage(rows[r.split == "holdout" ? 0 : 1], r.measured_us, r.interval->p10_us,
                   r.interval->p90_us);
  return rows;
}

}  // namespace ridgeline
