// Finding and applying calibrated profiles; see profiles.h.
#include "hardware/profiles.h"

#include "common/errors.h"
#include "common/json_path.h"
#include "common/json_reader.h"
#include "common/presets.h"

#include <filesystem>

namespace ridgeline {

namespace {

constexpr std::string_view kProfileDir = "hardware/profiles/";

// The node of a GPU document at `path`; `section` is the profile object naming it.
nlohmann::json* walk(nlohmann::json& doc, const std::string& path, const std::string& where,
                     const std::string& section = "parameters") {
  JsonWalk w = walk_json_path(doc, split_json_path(path, "/"));
  if (!w.node)
    throw InputError(where + ": /" + section + "/" + path +
                     ": no such field in the GPU description");
  return w.node;
}

// The embedded profile a --profile value names: "h100-sxm" or "hardware/profiles/h100-sxm.json".
const EmbeddedFile* embedded_profile(const std::string& choice) {
  for (const auto* f : presets_under(kProfileDir))
    if (f->path == choice) return f;
  return find_preset(kProfileDir, choice);
}

}  // namespace

std::vector<std::string> profile_names() {
  return preset_names(kProfileDir);
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
      throw InputError("--profile " + choice +
                       ": no such profile; built in: " + joined_names(profile_names()) +
                       " (or give a path to a profile file, or none)");
    }
    use.description = use.label + " (given)";
    use.own = string_or(use.doc, "gpu") == gpu_name;
    return use;
  }
  const EmbeddedFile* inherited = nullptr;
  for (const auto* f : presets_under(kProfileDir)) {
    nlohmann::json doc = parse_json_text(std::string(f->text), std::string(f->path));
    if (string_or(doc, "gpu") == gpu_name) {
      use.doc = doc;
      use.label = std::string(f->path);
      use.description = use.label + " (own)";
      use.own = true;
      return use;
    }
    if (!inherited && string_or(doc, "architecture") == architecture) inherited = f;
  }
  if (inherited) {
    use.doc = parse_json_text(std::string(inherited->text), std::string(inherited->path));
    use.label = std::string(inherited->path);
    use.description =
        use.label + " (from " + string_or(use.doc, "gpu", "?") + ", same architecture)";
  }
  return use;
}

void apply_profile(nlohmann::json& gpu_doc, const ProfileUse& profile) {
  if (profile.doc.is_null()) return;
  JsonReader r(profile.doc, profile.label);
  r.string("gpu");
  std::string arch = r.string("architecture");
  if (string_or(gpu_doc, "architecture") != arch) {
    r.fail("architecture", "a " + arch + " profile cannot calibrate a " +
                               string_or(gpu_doc, "architecture", "?") + " GPU");
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
