// What-if overrides and the strict merge of a GPU's "model" object over its architecture's
// defaults. Both refuse keys that do not already exist, so a typo is an error, not a new field.
// A what-if aimed at a Fact ({"value", "source"}) replaces the value and marks the source
// "what-if: --set ...", so reports show the figure was not the datasheet's.
#include "common/errors.h"
#include "common/json_reader.h"
#include "hardware/gpu_parse.h"

namespace ridgeline {

namespace {

std::vector<std::string> split_key_path(const std::string& path) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : path) {
    if (c == '.' || c == '/') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

bool is_index(const std::string& s) {
  return !s.empty() && s.size() < 9 && s.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

void apply_override(nlohmann::json& doc, const std::string& assignment) {
  std::string flag = "--set " + assignment;
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError(located(flag, "expected PATH=VALUE, e.g. memory.hbm.bandwidth_GBps=4800"));
  }
  std::string path = assignment.substr(0, eq);
  std::string text = assignment.substr(eq + 1);
  nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
  if (value.is_discarded()) value = text;  // a bare word is a string

  nlohmann::json* node = &doc;
  std::string walked;
  for (const auto& key : split_key_path(path)) {
    walked += "/" + key;
    if (node->is_object() && node->contains(key)) {
      node = &(*node)[key];
    } else if (node->is_array() && is_index(key) && std::stoul(key) < node->size()) {
      node = &(*node)[std::stoul(key)];
    } else {
      throw InputError(located(flag, walked + ": no such field"));
    }
  }
  if (node->is_object() && node->contains("value") && node->contains("source")) {
    (*node)["value"] = value;
    (*node)["source"] = "what-if: " + flag;
  } else if (node->is_object() || node->is_array()) {
    throw InputError(located(flag, walked + ": names a group of fields; name one field"));
  } else {
    *node = value;
  }
}

void merge_strict(nlohmann::json& base, const nlohmann::json& overlay, const std::string& label,
                  const std::string& path) {
  if (!overlay.is_object()) {
    throw InputError(located(label, path + ": expected an object, got " + describe_json(overlay)));
  }
  for (auto it = overlay.begin(); it != overlay.end(); ++it) {
    std::string here = path + "/" + it.key();
    if (!base.contains(it.key())) throw InputError(located(label, here + ": unknown key"));
    auto& target = base[it.key()];
    bool fact = it->is_object() && it->contains("value");
    if (it->is_object() && target.is_object() && !fact && it.key() != "tiles") {
      merge_strict(target, *it, label, here);
    } else {
      target = *it;
    }
  }
}

}  // namespace ridgeline
