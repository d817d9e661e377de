// The work behind `ridgeline collective`: turn input lines (JSONL or flags) into collective ops
// and their costs on one cluster, keeping each line's own error so one bad line never stops the
// rest (as op_runner does for kernels). A line:
//   {"id":"a","op":"all_reduce","gpus":16,"bytes":1048576,"gpus_per_node":8,"dtype":"bf16"}
// "bytes" is a number or a string with a binary or decimal suffix ("64MiB", "1GB");
// "gpus_per_node" and "dtype" are optional (default: fill nodes; bf16).
#pragma once

#include "hardware/cluster_spec.h"
#include "model/collective_cost.h"
#include "model/interval.h"
#include "workloads/op.h"

#include <nlohmann/json.hpp>

#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace ridgeline {

struct CollectiveResult {
  std::string id;
  std::optional<CollectiveOp> op;
  std::optional<CollectiveCost> cost;
  int nodes = 0;                               // nodes the group spans
  int gpus_per_node = 0;                       // group members per node
  std::string error;                           // non-empty when the line failed
  std::optional<PredictionInterval> interval;  // of cost->time_us (validate/intervals.h)
};

// "1048576", "1MiB", "64KiB", "1GiB", "1MB", "2.5GB" -> bytes; `where` names the input in errors.
double parse_bytes(const std::string& text, const std::string& where);

std::vector<CollectiveResult> run_collective_lines(std::istream& in, const std::string& label,
                                                   const ClusterSpec& cluster);
CollectiveResult run_collective_object(const nlohmann::json& object, const std::string& label,
                                       const std::string& fallback_id, const ClusterSpec& cluster);

}  // namespace ridgeline
