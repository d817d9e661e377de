// Views of the multi-GPU commands: `ridgeline collective` results (table, json, jsonl),
// `ridgeline clusters` (one line a preset; table or json) and `ridgeline clusters show NAME`
// (every figure with its provenance, then the collective model's parameters).
#pragma once

#include "cli/collective_runner.h"
#include "cli/views/view_set.h"
#include "hardware/cluster_spec.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace ridgeline {

struct CollectiveReport {
  const ClusterSpec& cluster;
  const std::vector<CollectiveResult>& results;
};
const ViewSet<CollectiveReport>& collective_views();
nlohmann::ordered_json collective_result_json(const CollectiveResult& r);

const ViewSet<std::vector<ClusterSpec>>& cluster_list_views();
const ViewSet<ClusterSpec>& cluster_show_views();

}  // namespace ridgeline
