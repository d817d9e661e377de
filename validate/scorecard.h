// The accuracy scorecard: ridgeline's predictions and the plain datasheet roofline against
// measured times, per op family. Errors are absolute percentage errors |pred - meas| / meas;
// the scorecard reports their mean (MAPE), median and 90th percentile, the signed bias
// (geometric mean of pred/meas), and the worst cases.
#pragma once

#include "hardware/gpu_spec.h"
#include "validate/dataset.h"
#include "validate/workload_dataset.h"

#include <string>
#include <vector>

namespace ridgeline {

struct CaseResult {
  std::string id, family, split;
  double measured_us = 0, predicted_us = 0, roofline_us = 0;
  std::string bottleneck;
  double error() const { return (predicted_us - measured_us) / measured_us; }
  double roofline_error() const { return (roofline_us - measured_us) / measured_us; }
};

struct ErrorStats {
  int count = 0;
  double mape = 0, median = 0, p90 = 0, worst = 0;
  double bias = 1;  // geometric mean of predicted / measured
};

struct FamilyScore {
  std::string family;
  ErrorStats model, roofline;
};

struct Scorecard {
  std::string gpu, dataset, split;
  std::string runtimes;  // whole steps: the runtimes that predicted them ("hf-transformers, ...")
  std::vector<FamilyScore> families;  // each family, then "memory-bound" and "all"
  std::vector<CaseResult> cases;      // every compared case, in data-set order
};

// `split`: "holdout", "fit" or "all".
Scorecard score(const Dataset& data, const GpuSpec& gpu, const std::string& split);
// Whole workloads, by category (phase and launch mode); the reference line is the sum of the
// plain rooflines of the step's kernels.
Scorecard score_workloads(const WorkloadDataset& data, const GpuSpec& gpu,
                          const std::string& split);
ErrorStats error_stats(const std::vector<double>& signed_errors);

}  // namespace ridgeline
