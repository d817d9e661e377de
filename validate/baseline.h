// An accuracy baseline CI guards (validate/accuracy_baseline*.json): for one GPU (and optionally
// a named calibrated profile, for the cross-GPU test), or for the published training runs, the
// data sets
// to score and, per category, the held-out MAPE recorded when it was last earned. A change that
// makes any category worse fails the check; a change that improves one should commit the new,
// lower number beside it, so accuracy only ever moves on purpose.
#pragma once

#include "validate/scorecard.h"

#include <map>
#include <string>
#include <vector>

namespace ridgeline {

struct AccuracyBaseline {
  std::string file;
  std::string gpu;
  std::string profile;  // calibrated profile to predict with: "" = the GPU's own (automatic)
  std::string runtime;  // runtime the workloads are predicted with: "" = pytorch-eager
  std::vector<std::string> op_datasets, workload_datasets;
  std::map<std::string, double> op_mape, workload_mape;  // category -> held-out MAPE (fraction)
  // A training-runs baseline (validate/accuracy_baseline_training_runs.json) names no GPU (its
  // rows ran on several) and no op or workload sets: the published-runs file and, per category of
  // validate/training_scorecard.h, the held-out MAPE of iteration time.
  std::string training_runs;
  std::map<std::string, double> training_mape;
};

AccuracyBaseline load_baseline(const std::string& path);

struct BaselineCheck {
  std::string category;
  double recorded = 0, now = 0;
  bool regressed() const { return now > recorded; }
};

// Compares a scorecard's categories with their recorded MAPEs; a recorded category missing from
// the scorecard is an InputError (the data set changed under the baseline).
std::vector<BaselineCheck> check_baseline(const Scorecard& sc,
                                          const std::map<std::string, double>& recorded,
                                          const std::string& where);
// The same against MAPEs by category (the training-runs scorecard's).
std::vector<BaselineCheck> check_baseline(const std::map<std::string, double>& now,
                                          const std::map<std::string, double>& recorded,
                                          const std::string& where);

}  // namespace ridgeline
