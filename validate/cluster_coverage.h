// Coverage of the cluster-step intervals (output_intervals.h cluster_interval) on the published
// training runs (training_runs.h): every modelled row predicted on its cluster as the training
// scorecard predicts it, its 80% interval computed from the interval table, and the measured
// iteration time counted below, inside or above it, for the held-out rows and the fit rows apart.
// The interval table was built from kernel and collective data only: no training run was used to
// build it, so both splits are out-of-sample for it; the held-out split is the one reported.
#pragma once

#include "validate/interval_build.h"
#include "validate/training_runs.h"

#include <vector>

namespace ridgeline {

// Rows: kind "cluster steps", level "holdout" then "fit", category "training runs".
std::vector<CoverageRow> cluster_coverage(const IntervalTable& t, const TrainingRunSet& set);

}  // namespace ridgeline
