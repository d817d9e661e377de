// The work behind `ridgeline op`: turn input lines (JSONL or flags) into ops and predictions,
// keeping each line's own error so one bad line never stops the rest.
#pragma once

#include "hardware/gpu_spec.h"
#include "model/interval.h"
#include "model/op_cost.h"
#include "workloads/op.h"

#include <nlohmann/json.hpp>

#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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

// The lines of a JSONL batch predicted one at a time, as run_op_lines predicts them (which keeps
// them all; `ridgeline op --format jsonl` prints each and keeps only the errors, op_stream.h).
class OpLineRunner {
 public:
  // Reads `in` a chunk at a time as lines are asked for; `label` as run_op_lines's.
  OpLineRunner(std::istream& in, std::string label, const GpuSpec& gpu);
  // Reads only the texts given to feed() (one runner a thread of `ridgeline op --jobs N`).
  OpLineRunner(std::string label, const GpuSpec& gpu);
  ~OpLineRunner();
  OpLineRunner(const OpLineRunner&) = delete;
  OpLineRunner& operator=(const OpLineRunner&) = delete;

  // Predicts the next non-blank line; false when none is left. After true, either fast() (the
  // fast parser read it and the model predicted it) and op(), cost() and interval() (of
  // cost().time_us, null where the table has none; valid until the next call) describe it, op().id
  // its id; or result() is the line's result from the strict path: its error, or its prediction.
  bool next();
  // The lines to read next, in place of what is left: whole lines of the input (each ending in
  // '\n', but for the input's last), the first of them numbered lines_before + 1 in errors.
  void feed(std::string text, int lines_before);
  bool fast() const { return fast_; }
  const Op& op() const { return *op_; }
  const OpCost& cost() const { return cost_; }
  const PredictionInterval* interval() const { return interval_; }
  OpResult& result() { return result_; }

 private:
  bool next_line(std::string_view& line);
  struct State;
  std::unique_ptr<State> s_;
  bool fast_ = false;
  std::optional<Op> op_;
  OpCost cost_;
  const PredictionInterval* interval_ = nullptr;
  OpResult result_;
};
// Predicts one op given as a JSON object (built from flags).
// `fallback_id` is the result's id when the object has none.
OpResult run_op_object(const nlohmann::json& object, const std::string& label,
                       const std::string& fallback_id, const GpuSpec& gpu);

}  // namespace ridgeline
