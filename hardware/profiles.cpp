// Finding and applying calibrated profiles; see profiles.h.
#include "hardware/profiles.h"

#include "common/embedded_files.h"
#include "common/errors.h"
#include "common/json_reader.h"

#include <algorithm>
#include <filesystem>

namespace ridgeline {

namespace {

constexpr std::string_view kProfileDir = "hardware/profiles/";

// The node of a GPU document at `path`; `section` is the profile object naming it.
nlohmann::json* walk(nlohmann::json& doc, const std::string& path, const std::string& where,
                     const std::string& section = "parameters") {
  nlohmann::json* node = &doc;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string key = path.substr(start, end - start);
    if (node->is_object() && node->contains(key)) {
      node = &(*node)[key];
    } else if (node->is_array() && !key.empty() &&
               key.find_first_not_of("0123456789") == std::string::npos &&
               std::stoul(key) < node->size()) {
      node = &(*node)[std::stoul(key)];
    } else {
      throw InputError(where + ": /" + section + "/" + path +
                       ": no such field in the GPU description");
    }
    start = end + 1;
  }
  return node;
}

// The embedded profile a --profile value names: "h100-sxm" or "hardware/profiles/h100-sxm.json".
const EmbeddedFile* embedded_profile(const std::string& choice) {
  for (const auto& f : embedded_files()) {
    if (f.path.substr(0, kProfileDir.size()) != kProfileDir) continue;
    if (f.path == choice || f.path == std::string(kProfileDir) + choice + ".json") return &f;
  }
  return nullptr;
}

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos ||
         (s.size() > 5 && s.compare(s.size() - 5, 5, ".json") == 0);
}

}  // namespace

std::vector<std::string> profile_names() {
  std::vector<std::string> out;
  for (const auto& f : embedded_files()) {
    if (f.path.substr(0, kProfileDir.size()) != kProfileDir) continue;
    std::string_view rest = f.path.substr(kProfileDir.size());
    out.emplace_back(rest.substr(0, rest.size() - 5));  // drop ".json"
  }
  std::sort(out.begin(), out.end());
  return out;
}

ProfileUse find_profile(const std::string& gpu_name, const std::string& architecture,
                        const std::string& choice) {
  ProfileUse use;
  use.description = "none";
  if (choice == "none") return use;
  if (!choice.empty()) {
    // A file on disk first (a profile just fitted, before a rebuild embeds it), then a built-in
    // profile by name or by the path outputs print.
    const EmbeddedFile* builtin = embedded_profile(choice);
    if (builtin && !std::filesystem::exists(choice)) {
      use.label = std::string(builtin->path);
      use.doc = parse_json_text(std::string(builtin->text), use.label);
    } else if (looks_like_path(choice)) {
      use.doc = read_json_file(choice);
      use.label = choice;
    } else {
      std::string known;
      for (const auto& n : profile_names()) known += (known.empty() ? "" : ", ") + n;
      throw InputError("--profile " + choice + ": no such profile; built in: " + known +
                       " (or give a path to a profile file, or none)");
    }
    use.description = use.label + " (given)";
    use.own = use.doc.is_object() && use.doc.value("gpu", "") == gpu_name;
    return use;
  }
  const EmbeddedFile* inherited = nullptr;
  for (const auto& f : embedded_files()) {
    if (f.path.substr(0, kProfileDir.size()) != kProfileDir) continue;
    nlohmann::json doc = parse_json_text(std::string(f.text), std::string(f.path));
    if (doc.value("gpu", "") == gpu_name) {
      use.doc = doc;
      use.label = std::string(f.path);
      use.description = use.label + " (own)";
      use.own = true;
      return use;
    }
    if (!inherited && doc.value("architecture", "") == architecture) inherited = &f;
  }
  if (inherited) {
    use.doc = parse_json_text(std::string(inherited->text), std::string(inherited->path));
    use.label = std::string(inherited->path);
    use.description = use.label + " (from " + use.doc.value("gpu", "?") + ", same architecture)";
  }
  return use;
}

void apply_profile(nlohmann::json& gpu_doc, const ProfileUse& profile) {
  if (profile.doc.is_null()) return;
  JsonReader r(profile.doc, profile.label);
  r.string("gpu");
  std::string arch = r.string("architecture");
  if (gpu_doc.value("architecture", "") != arch) {
    r.fail("architecture", "a " + arch + " profile cannot calibrate a " +
                               gpu_doc.value("architecture", "?") + " GPU");
  }
  std::string source = r.string("source");
  if (!profile.own) source += " (profile of another GPU)";
  r.raw("fit");
  if (r.has("checks")) r.raw("checks");
  JsonReader& params = r.child("parameters");
  for (const auto& path : params.keys()) {
    double value = params.number(path);
    nlohmann::json* node = walk(gpu_doc, path, profile.label);
    if (node->is_object() && node->contains("value")) {
      (*node)["value"] = value;
      (*node)["source"] = source;
    } else if (node->is_number()) {
      *node = value;  // a tile's efficiency; the tile table's source says it was fitted
      walk(gpu_doc, "model/gemm/tiles", profile.label)->operator[]("source") = source;
    } else {
      params.fail(path, "names a group of fields; name one field");
    }
  }
  if (r.has("measured")) {
    JsonReader& measured = r.child("measured");
    for (const auto& path : measured.keys()) {
      JsonReader& figure = measured.child(path);
      double value = figure.number("value");
      std::string figure_source = figure.string("source");
      bool carries_over = figure.boolean("carries_over");
      figure.finish();
      nlohmann::json* node = walk(gpu_doc, path, profile.label, "measured");
      if (!node->is_object() || !node->contains("value"))
        measured.fail(path, "names a group of fields; name one field");
      if (!profile.own && !carries_over) continue;  // a figure of the other card's size
      (*node)["value"] = value;
      (*node)["source"] = figure_source + (profile.own ? "" : " (profile of another GPU)");
    }
  }
  r.finish();
}

}  // namespace ridgeline
