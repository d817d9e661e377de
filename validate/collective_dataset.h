// Measured collectives (validate/data/published-collectives.json, imported by
// scripts/import_published_collectives.py): one row per nccl-tests point with the cluster preset
// it ran on, the op in CollectiveOp's convention, the measured time and a fixed split ("fit" or
// "holdout") chosen by a hash of the row before any fit. The loader recomputes each row's hash
// and refuses a row whose split disagrees, so the held-out part cannot drift into a fit.
// score_collectives() gives MAPE per GPU / collective / GPU count, for messages >= 1 MB and for
// all sizes, on each split.
#pragma once

#include "hardware/cluster_spec.h"
#include "workloads/op.h"

#include <map>
#include <string>
#include <vector>

namespace ridgeline {

struct CollectiveMeasurement {
  std::string id;       // the row's hash, hex
  std::string split;    // "fit" or "holdout"
  std::string cluster;  // the preset it ran on, e.g. "dgx-h100"
  std::string gpu;      // short name for reports: "H100"
  std::string nccl_version, source;
  CollectiveOp op;
  double measured_us = 0;
};

struct CollectiveDataset {
  std::string file;
  std::vector<CollectiveMeasurement> rows;
};

CollectiveDataset load_collective_dataset(const std::string& path);

// FNV-1a 64 of text; the split's hash.
uint64_t fnv1a64(const std::string& text);

// MAPE (fraction) and count of one category on one split and size class.
struct MapeCell {
  double mape = 0;
  int n = 0;
};
struct CollectiveScoreRow {
  std::string category;  // "H100/all_reduce/8", "H100/all_reduce", "H100" (per GPU) or "all"
  MapeCell fit_all, fit_1mb, holdout_all, holdout_1mb;
};
struct CollectiveScorecard {
  std::string file;
  // per GPU/collective/GPUs, per GPU/collective, per GPU, then "all"
  std::vector<CollectiveScoreRow> rows;
};

// Scores every row on its cluster: `clusters` by preset name (a fitted file may stand in for a
// preset); a row whose cluster is missing there is loaded as a preset.
CollectiveScorecard score_collectives(const CollectiveDataset& data,
                                      std::map<std::string, ClusterSpec> clusters);

// The relative error of one row's prediction on `cluster`.
double collective_error(const CollectiveMeasurement& m, const ClusterSpec& cluster);

}  // namespace ridgeline
