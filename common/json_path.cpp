// The one JSON-path walker; see json_path.h.
#include "common/json_path.h"

namespace ridgeline {

namespace {

// An array index: digits only, short enough that it converts without overflow.
bool is_index(const std::string& s) {
  return !s.empty() && s.size() < 9 && s.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

std::vector<std::string> split_json_path(const std::string& path, std::string_view separators) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : path) {
    if (separators.find(c) != std::string_view::npos) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

JsonWalk walk_json_path(nlohmann::json& doc, const std::vector<std::string>& keys) {
  JsonWalk w;
  nlohmann::json* node = &doc;
  for (const auto& key : keys) {
    w.walked += "/" + key;
    if (node->is_object() && node->contains(key)) {
      node = &(*node)[key];
    } else if (node->is_array() && is_index(key) && std::stoul(key) < node->size()) {
      node = &(*node)[std::stoul(key)];
    } else {
      return w;
    }
  }
  w.node = node;
  return w;
}

}  // namespace ridgeline
