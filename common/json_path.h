// Walking a JSON document along a path of keys, the one walker that what-ifs (--set
// memory.hbm.bandwidth_GBps=...), calibrated profiles ("model/gemm/tiles/0/efficiency") and the
// strict reader (descend("memory/hbm")) share. A key steps into an object member or, when it is
// a small non-negative integer, into an array element; anything else is "no such field", and the
// caller words that error for its own input (a flag, a profile's section).
//
//   auto keys = split_json_path("memory.hbm/bandwidth_GBps", "./");  //
//   {"memory","hbm","bandwidth_GBps"} JsonWalk w = walk_json_path(doc, keys);   // w.node is null
//   when a key is missing
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace ridgeline {

// The path's keys, split at any of `separators`; "a..b" gives an empty key between them.
std::vector<std::string> split_json_path(const std::string& path, std::string_view separators);

struct JsonWalk {
  nlohmann::json* node = nullptr;  // the node at the whole path, or null where a key is missing
  std::string walked;              // "/a/b/c" up to and including the first missing key
};

// Follows `keys` from `doc`; never creates a member.
JsonWalk walk_json_path(nlohmann::json& doc, const std::vector<std::string>& keys);

}  // namespace ridgeline
