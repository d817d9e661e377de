// Cluster steps against the published training runs (training_runs.h): every modelled row
// predicted on its cluster as the training scorecard predicts it. The FIT rows' measured /
// predicted iteration times give the table's output-level quantiles (kind cluster_step,
// interval_build.h); the HELD-OUT rows check the 80% interval predict --cluster prints
// (output_intervals.h cluster_interval) — the held-out split is the one reported.
#pragma once

#include "validate/interval_build.h"
#include "validate/training_runs.h"

#include <optional>
#include <vector>

namespace ridgeline {

struct ClusterRow {
  std::string id, split;  // split: "holdout" or "fit"
  double measured_us = 0, predicted_us = 0;
  std::optional<PredictionInterval> interval;  // with a table
};
// Every row the scorecard can model (rows without a preset or with a refused strategy are left
// out, as the scorecard does); with `t`, each row's interval from it.
std::vector<ClusterRow> cluster_rows(const TrainingRunSet& set, const IntervalTable* t);

// measured / predicted of the rows of `split`.
std::vector<double> cluster_ratios(const std::vector<ClusterRow>& rows, const std::string& split);

// Rows: kind "cluster steps", level "holdout" then "fit", category "training runs".
std::vector<CoverageRow> cluster_coverage(const IntervalTable& t, const TrainingRunSet& set);

}  // namespace ridgeline
