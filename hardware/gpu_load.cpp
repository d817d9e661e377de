// The staging of a GPU description; see gpu_load.h. Presets and architecture files are built
// into the binary (embedded_files.h); a path given by the user is read from disk.
#include "hardware/gpu_load.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "common/presets.h"
#include "hardware/gpu_parse.h"
#include "hardware/profiles.h"

namespace ridgeline {

namespace {

constexpr std::string_view kGpuDir = "hardware/gpus/";
constexpr std::string_view kArchDir = "hardware/arch/";

// The architecture's complete "model" object, validated on its own so that any later error
// is the GPU file's (or the flag's).
nlohmann::json architecture_model(const std::string& arch, const std::string& gpu_label) {
  const EmbeddedFile* f = find_preset(kArchDir, arch);
  if (!f) {
    throw InputError(located(gpu_label, "/architecture: unknown architecture \"" + arch +
                                            "\"; known: " + joined_names(architecture_names())));
  }
  std::string label(f->path);
  nlohmann::json doc = parse_json_text(std::string(f->text), label);
  JsonReader r(doc, label);
  r.string("architecture");
  r.string("about");
  ModelParams p;
  parse_model_params(r.child("model"), p);
  r.finish();
  return doc["model"];
}

}  // namespace

std::vector<std::string> gpu_preset_names() {
  return preset_names(kGpuDir);
}

std::string preset_for_device(const std::string& device_name) {
  for (const auto& name : gpu_preset_names()) {
    const EmbeddedFile* f = find_preset(kGpuDir, name);
    nlohmann::json doc = parse_json_text(std::string(f->text), std::string(f->path));
    for (const auto& d : doc.value("device_names", nlohmann::json::array()))
      if (d.is_string() && d.get<std::string>() == device_name) return name;
  }
  return "";
}

std::vector<std::string> architecture_names() {
  return preset_names(kArchDir);
}

GpuSpec load_gpu_text(const std::string& text, const std::string& label,
                      const std::vector<std::string>& overrides, const std::string& profile) {
  nlohmann::json doc = parse_json_text(text, label);
  if (!doc.is_object()) throw InputError(located(label, "/: expected an object"));
  if (!doc.contains("architecture") || !doc["architecture"].is_string()) {
    throw InputError(located(label, "/architecture: missing; expected a string"));
  }
  nlohmann::json model = architecture_model(doc["architecture"].get<std::string>(), label);
  if (doc.contains("model")) merge_strict(model, doc["model"], label, "/model");
  doc["model"] = model;
  GpuSpec spec = parse_gpu_document(doc, label);
  ProfileUse use = find_profile(spec.name, spec.architecture, profile);
  std::string checked_as = label;
  if (!use.doc.is_null()) {
    apply_profile(doc, use);
    checked_as = use.label;
    if (!overrides.empty()) parse_gpu_document(doc, checked_as);  // the profile's own fault
  }
  // Each what-if is applied to the figures as the profile left them and checked field by field
  // under its own flag; figures that tie together (stated peaks, caches, knees) are checked once
  // after all of them, with stated peaks following the derived peaks the what-ifs changed.
  nlohmann::json before = doc;
  std::vector<WhatIf> applied;
  for (const auto& o : overrides) {
    applied.push_back(apply_override(doc, o));
    parse_gpu_document(doc, "--set " + o, false);
  }
  if (!overrides.empty()) {
    follow_stated_peaks(before, doc, applied);
    checked_as.clear();
    for (const auto& o : overrides) checked_as += (checked_as.empty() ? "--set " : " --set ") + o;
  }
  if (!use.doc.is_null() || !overrides.empty()) spec = parse_gpu_document(doc, checked_as);
  spec.file = label;
  spec.profile = use.description;
  spec.calibration = use.doc.is_null() ? ProfileKind::None
                     : use.own         ? ProfileKind::Own
                                       : ProfileKind::Architecture;
  spec.what_ifs = applied;
  return spec;
}

GpuSpec load_gpu(const std::string& name_or_path, const std::vector<std::string>& overrides,
                 const std::string& profile) {
  if (!looks_like_path(name_or_path)) {
    const EmbeddedFile* f = find_preset(kGpuDir, name_or_path);
    if (!f) {
      throw InputError(located("--gpu", "unknown GPU \"" + name_or_path +
                                            "\"; presets: " + joined_names(gpu_preset_names()) +
                                            " (or give a path to a .json file)"));
    }
    return load_gpu_text(std::string(f->text), std::string(f->path), overrides, profile);
  }
  nlohmann::json probe = read_json_file(name_or_path);  // names the path if unreadable
  return load_gpu_text(probe.dump(), name_or_path, overrides, profile);
}

}  // namespace ridgeline
