// See collective_runner.h.
#include "cli/collective_runner.h"

#include "common/errors.h"
#include "common/json_reader.h"

#include <cmath>
#include <cstdlib>

namespace ridgeline {

namespace {

CollectiveOp parse_collective(const nlohmann::json& object, const std::string& label) {
  if (!object.is_object()) throw InputError(located(label, "/: expected a JSON object"));
  JsonReader r(object, label);
  CollectiveOp op;
  if (r.has("id")) r.raw("id");
  op.kind = *collective_kinds().parse(r.one_of("op", collective_kinds().names()));
  op.ranks = (int)r.integer("gpus", 1);
  const nlohmann::json& bytes = r.raw("bytes");
  if (bytes.is_string()) {
    op.bytes = parse_bytes(bytes.get<std::string>(), r.where("bytes"));
  } else if (bytes.is_number() && bytes.get<double>() >= 0) {
    op.bytes = bytes.get<double>();
  } else {
    r.fail("bytes",
           "expected a number >= 0 or a size such as \"64MiB\", got " + describe_json(bytes));
  }
  if (auto per_node = r.optional_integer("gpus_per_node", 1)) op.ranks_per_node = (int)*per_node;
  if (r.has("dtype")) op.dtype = *dtype_names().parse(r.one_of("dtype", dtype_names().names()));
  r.finish();
  return op;
}

}  // namespace

double parse_bytes(const std::string& text, const std::string& where) {
  static const std::pair<const char*, double> kSuffixes[] = {
      {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
      {"KB", 1e3},     {"MB", 1e6},        {"GB", 1e9},
      {"B", 1}};
  const char* begin = text.c_str();
  char* end = nullptr;
  double value = std::strtod(begin, &end);
  std::string suffix = end ? std::string(end) : "";
  double scale = suffix.empty() ? 1 : 0;
  for (const auto& [name, factor] : kSuffixes)
    if (suffix == name) scale = factor;
  if (end == begin || scale == 0 || !std::isfinite(value) || value < 0) {
    throw InputError(located(where,
                             "expected a size in bytes such as 1048576, 64KiB, 1MiB, 1GiB or "
                             "1GB, got \"" +
                                 text + "\""));
  }
  return value * scale;
}

CollectiveResult run_collective_object(const nlohmann::json& object, const std::string& label,
                                       const std::string& fallback_id, const ClusterSpec& cluster) {
  CollectiveResult r;
  r.id = fallback_id;
  if (object.is_object() && object.contains("id")) {
    const auto& id = object["id"];
    r.id = id.is_string() ? id.get<std::string>() : id.dump();
  }
  try {
    r.op = parse_collective(object, label);
    r.cost = collective_cost(*r.op, cluster);
    r.gpus_per_node = r.op->ranks_per_node > 0
                          ? r.op->ranks_per_node
                          : std::min(r.op->ranks, (int)cluster.gpus_per_node.value);
    r.nodes = r.op->ranks / r.gpus_per_node;
  } catch (const InputError& e) {
    std::string msg = e.what();
    r.error = msg.rfind(label, 0) == 0 ? msg : label + ": " + msg;
    r.cost.reset();
  }
  return r;
}

std::vector<CollectiveResult> run_collective_lines(std::istream& in, const std::string& label,
                                                   const ClusterSpec& cluster) {
  std::vector<CollectiveResult> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string where = label + " line " + std::to_string(number);
    std::string id = "line " + std::to_string(number);
    nlohmann::json object;
    try {
      object = parse_json_text(line, where);
    } catch (const InputError& e) {
      CollectiveResult bad;
      bad.id = id;
      bad.error = e.what();
      out.push_back(bad);
      continue;
    }
    out.push_back(run_collective_object(object, where, id, cluster));
  }
  return out;
}

}  // namespace ridgeline
