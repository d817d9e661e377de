// See op_runner.h. A JSONL batch is read whole and split into lines (no per-line stream
// reads); each line goes first to FastOpParser (simdjson) and, when that declines (anything
// irregular) or the model rejects the op, through the strict nlohmann path, which gives the
// line its error. Both paths accept exactly the same lines with the same Op, so the output
// does not depend on which one read a line. Each predicted op gets its 80% interval
// (validate/intervals.h) here, so every caller (`ridgeline op`, the Python package) shows it.
#include "cli/op_runner.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "validate/intervals.h"
#include "workloads/op_parse.h"
#include "workloads/op_parse_fast.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace ridgeline {

namespace {

std::optional<PredictionInterval> interval_of(const Op& op, const OpCost& cost,
                                              const GpuSpec& gpu) {
  return kernel_interval(builtin_interval_table(), gpu, op, cost.time_us);
}

}  // namespace

OpResult run_op_object(const nlohmann::json& object, const std::string& label,
                       const std::string& fallback_id, const GpuSpec& gpu) {
  OpResult r;
  r.id = fallback_id;
  if (object.is_object() && object.contains("id")) {
    const auto& id = object["id"];
    r.id = id.is_string() ? id.get<std::string>() : id.dump();
  }
  try {
    r.op = parse_op(object, label, r.id);
    r.cost = predict_op(*r.op, gpu);
    r.interval = interval_of(*r.op, *r.cost, gpu);
  } catch (const InputError& e) {
    std::string msg = e.what();
    // Model errors start with the JSON path; name the line in front of them.
    r.error = msg.rfind(label, 0) == 0 ? msg : label + ": " + msg;
    r.cost.reset();
  }
  return r;
}

namespace {

// The strict path for one line: its JSON error, or run_op_object's result.
OpResult run_line_strictly(std::string_view line, const std::string& label, int number,
                           const GpuSpec& gpu) {
  std::string where = label + " line " + std::to_string(number);
  nlohmann::json object;
  try {
    object = parse_json_text(std::string(line), where);
  } catch (const InputError& e) {
    return {"line " + std::to_string(number), std::nullopt, std::nullopt, e.what(), std::nullopt};
  }
  return run_op_object(object, where, "line " + std::to_string(number), gpu);
}

}  // namespace

std::vector<OpResult> run_op_lines(std::istream& in, const std::string& label, const GpuSpec& gpu) {
  std::string text;
  std::array<char, 1 << 16> chunk;
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0)
    text.append(chunk.data(), static_cast<size_t>(in.gcount()));
  std::vector<OpResult> out;
  out.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  FastOpParser fast;
  std::string fallback_id;
  size_t start = 0;
  for (int number = 1; start < text.size(); ++number) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    fallback_id = "line " + std::to_string(number);
    if (std::optional<Op> op = fast.parse(line, fallback_id)) {
      try {
        OpCost cost = predict_op(*op, gpu);
        std::optional<PredictionInterval> interval = interval_of(*op, cost, gpu);
        std::string id = op->id;
        out.push_back({std::move(id), std::move(op), cost, {}, std::move(interval)});
        continue;
      } catch (const InputError&) {  // the strict path words the model's error
      }
    }
    out.push_back(run_line_strictly(line, label, number, gpu));
  }
  return out;
}

}  // namespace ridgeline
