// Fitting a cluster's collective-model parameters to measured collectives (nccl-tests-style
// tables, validate/collective_dataset.h), on the fit split only: the per-call overhead, the
// per-buffer-byte term, the bandwidth efficiency of each protocol and of NVLS, and the p2p
// (all-to-all) base, per-peer cost and efficiency. The objective is the mean |log(predicted /
// measured)| over the rows (every size weighs the same); a coordinate search moves one parameter
// at a time within its bounds, so the fitted model is still NCCL's shape with its choices.
#pragma once

#include "hardware/cluster_spec.h"
#include "validate/collective_dataset.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ridgeline {

struct FittedParameter {
  std::string path;  // below collective_model, e.g. "efficiency/simple"
  double before = 0, after = 0;
};

struct CollectiveFit {
  ClusterSpec cluster;  // with the fitted parameters
  std::vector<FittedParameter> parameters;
  int rows = 0;                                    // fit-split rows used
  double mape_before = 0, mape_after = 0;          // on those rows, all sizes
  double mape_1mb_before = 0, mape_1mb_after = 0;  // ... messages >= 1 MB
};

// Fits `cluster` to the rows of `data` measured on it (row cluster == cluster.name) in the fit
// split; an InputError when there are none.
CollectiveFit fit_collectives(const CollectiveDataset& data, const ClusterSpec& cluster);

// `cluster_doc` (the cluster file as read) with every fitted parameter written into its
// "collective_model" object, sourced "fitted: <data file> fit split (N rows), <date>: ...".
nlohmann::json fitted_cluster_document(nlohmann::json cluster_doc, const CollectiveFit& fit,
                                       const std::string& data_file, const std::string& date);

}  // namespace ridgeline
