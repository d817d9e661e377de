// Preset lookup among the embedded data files; see presets.h.
#include "common/presets.h"

#include <algorithm>

namespace ridgeline {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::vector<const EmbeddedFile*> presets_under(std::string_view dir) {
  std::vector<const EmbeddedFile*> out;
  for (const auto& f : embedded_files())
    if (starts_with(f.path, dir)) out.push_back(&f);
  return out;
}

std::vector<std::string> preset_names(std::string_view dir) {
  std::vector<std::string> out;
  for (const auto* f : presets_under(dir)) {
    std::string_view rest = f->path.substr(dir.size());
    out.emplace_back(rest.substr(0, rest.size() - 5));  // drop ".json"
  }
  std::sort(out.begin(), out.end());
  return out;
}

const EmbeddedFile* find_preset(std::string_view dir, const std::string& name) {
  std::string path = std::string(dir) + name + ".json";
  for (const auto& f : embedded_files())
    if (f.path == path) return &f;
  return nullptr;
}

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos ||
         (s.size() > 5 && s.compare(s.size() - 5, 5, ".json") == 0);
}

std::string joined_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace ridgeline
