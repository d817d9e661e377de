// Checking a trace's recorded shapes against the workload's flags; see trace_shapes.h.
#include "validate/trace_shapes.h"

#include "common/errors.h"

namespace ridgeline {

namespace {

bool is_forward_attention(const std::string& name) {
  bool sdpa = name.rfind("aten::scaled_dot_product_attention", 0) == 0 ||
              name.rfind("aten::_scaled_dot_product_", 0) == 0 ||
              name.rfind("aten::_flash_attention_forward", 0) == 0;
  return sdpa && name.find("backward") == std::string::npos;
}

// [batch, heads, length, head_dim] as integers, or false.
bool four_dims(const nlohmann::json& d, int64_t out[4]) {
  if (!d.is_array() || d.size() != 4) return false;
  for (int i = 0; i < 4; ++i) {
    if (!d[i].is_number_integer() || d[i].get<int64_t>() < 1) return false;
    out[i] = d[i].get<int64_t>();
  }
  return true;
}

std::string shape_text(const TraceShapes& s) {
  return s.op + " (batch " + std::to_string(s.batch) + ", " + std::to_string(s.queries) +
         (s.queries == 1 ? " query and " : " queries and ") + std::to_string(s.keys) +
         " keys per sequence)";
}

}  // namespace

TraceShapes read_trace_shapes(const nlohmann::json& trace) {
  TraceShapes s;
  const nlohmann::json* events = &trace;
  if (trace.is_object() && trace.contains("traceEvents")) events = &trace["traceEvents"];
  if (!events->is_array()) return s;
  for (const auto& e : *events) {
    if (!e.is_object() || !e.contains("args") || !e["args"].is_object()) continue;
    const auto& args = e["args"];
    if (!args.contains("Input Dims")) continue;
    s.recorded = true;
    std::string name =
        e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>() : "";
    const auto& dims = args["Input Dims"];
    int64_t q[4], k[4];
    if (!is_forward_attention(name) || !dims.is_array() || dims.size() < 2 ||
        !four_dims(dims[0], q) || !four_dims(dims[1], k))
      continue;
    s.attention = true;
    s.op = name;
    s.batch = q[0];
    s.queries = q[2];
    s.keys = k[2];
    break;
  }
  return s;
}

std::string check_trace_shapes(const TraceShapes& s, const RunConfig& run,
                               const std::string& trace_label) {
  if (!s.recorded) {
    return "shapes: the trace records none (profile with record_shapes=True); --batch, --seq "
           "and --kv-len not checked against it";
  }
  if (!s.attention) {
    return "shapes: the trace records shapes but no attention call; --batch, --seq and "
           "--kv-len not checked against it";
  }
  auto refuse = [&](const std::string& flag, const std::string& what) {
    throw InputError(flag + ": " + trace_label + " ran " + what + ": its " + shape_text(s));
  };
  if (s.batch != run.batch)
    refuse("--batch " + std::to_string(run.batch), "batch " + std::to_string(s.batch));
  if (run.phase == Phase::Decode) {
    if (s.queries != 1)
      refuse("--phase decode", std::to_string(s.queries) + " queries per sequence, not one");
    // The new token attends to the cache and itself.
    if (s.keys != run.kv_len + 1)
      refuse("--kv-len " + std::to_string(run.kv_len),
             "over " + std::to_string(s.keys - 1) + " cached tokens");
  } else {
    if (s.queries != run.seq)
      refuse("--seq " + std::to_string(run.seq), std::to_string(s.queries) + " tokens");
    if (s.keys != run.seq + run.kv_len)
      refuse("--kv-len " + std::to_string(run.kv_len),
             std::to_string(s.keys) + " keys for " + std::to_string(s.queries) + " queries");
  }
  return "shapes: " + shape_text(s) + " match --batch and the lengths";
}

}  // namespace ridgeline
