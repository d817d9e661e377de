// See op_runner.h.
#include "cli/op_runner.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "workloads/op_parse.h"

namespace ridgeline {

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
  } catch (const InputError& e) {
    std::string msg = e.what();
    // Model errors start with the JSON path; name the line in front of them.
    r.error = msg.rfind(label, 0) == 0 ? msg : label + ": " + msg;
    r.cost.reset();
  }
  return r;
}

std::vector<OpResult> run_op_lines(std::istream& in, const std::string& label, const GpuSpec& gpu) {
  std::vector<OpResult> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string where = label + " line " + std::to_string(number);
    nlohmann::json object;
    try {
      object = parse_json_text(line, where);
    } catch (const InputError& e) {
      out.push_back(
          {"line " + std::to_string(number), std::nullopt, std::nullopt, e.what(), std::nullopt});
      continue;
    }
    out.push_back(run_op_object(object, where, "line " + std::to_string(number), gpu));
  }
  return out;
}

}  // namespace ridgeline
