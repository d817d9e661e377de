// The view sets of the commands that are not predict or sweep: `op` (table, json, jsonl, csv),
// `gpus show` (table, json) and `validate --data` (table, json, markdown). Each command takes its
// --format choices from these sets and prints with pick(); see view_set.h.
#pragma once

#include "cli/op_runner.h"
#include "cli/views/view_set.h"
#include "hardware/gpu_spec.h"
#include "validate/scorecard.h"

#include <string>
#include <vector>

namespace ridgeline {

// `ridgeline op`'s results, on the GPU they were predicted for.
struct OpReport {
  const GpuSpec& gpu;
  const std::vector<OpResult>& results;
};
const ViewSet<OpReport>& op_views();

const ViewSet<GpuSpec>& gpu_show_views();

// `ridgeline validate --data`'s scorecard with what the views add to it: the records left out,
// how many worst cases the table lists, the plot written beside it (empty: none).
struct ScorecardReport {
  const Scorecard& scorecard;
  const std::vector<std::string>& skipped;
  int worst = 10;
  std::string plot;
};
const ViewSet<ScorecardReport>& scorecard_views();

}  // namespace ridgeline
