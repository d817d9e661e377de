// The work behind `ridgeline op`: turn input lines (JSONL or flags) into ops and predictions,
// keeping each line's own error so one bad line never stops the rest.
#pragma once

#include "hardware/gpu_spec.h"
#include "model/interval.h"
#include "model/op_cost.h"
#include "workloads/op.h"

#include <nlohmann/json.hpp>

#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace ridgeline {

struct OpResult {
  std::string id;
  std::optional<Op> op;
  std::optional<OpCost> cost;
  std::string error;                           // non-empty when the line failed
  std::optional<PredictionInterval> interval;  // of cost->time_us, set by the runners below
};

// Predicts every non-blank line of `in`; `label` names the source in errors ("ops.jsonl").
std::vector<OpResult> run_op_lines(std::istream& in, const std::string& label, const GpuSpec& gpu);
// Predicts one op given as a JSON object (built from flags).
// `fallback_id` is the result's id when the object has none.
OpResult run_op_object(const nlohmann::json& object, const std::string& label,
                       const std::string& fallback_id, const GpuSpec& gpu);

}  // namespace ridgeline
