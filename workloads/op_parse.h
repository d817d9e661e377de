// Reading an op from one JSON object in the `ridgeline op` contract, e.g.
//   {"id":"a","op":"gemm","m":4096,"n":4096,"k":4096,"dtype":"bf16"}
// Strict: unknown keys, wrong types, impossible shapes (heads not a multiple of kv_heads,
// a dtype the op cannot run in) are InputErrors naming `label` and the JSON path.
#pragma once

#include "workloads/op.h"

#include <nlohmann/json.hpp>

#include <string>

namespace ridgeline {

// `fallback_id` is used when the object has no "id" (the CLI passes the line number).
Op parse_op(const nlohmann::json& object, const std::string& label, const std::string& fallback_id);

// The largest size of one dimension we accept (keeps every product finite and exact enough).
constexpr long long kMaxDimension = 1LL << 40;

}  // namespace ridgeline
