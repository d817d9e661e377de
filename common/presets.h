// Presets among the embedded data files (embedded_files.h): a folder such as "hardware/gpus/"
// holds one NAME.json a preset. GPUs, architectures, calibrated profiles and model configs are all
// looked up here, so that "which names exist" and "is this a name or a path" have one answer.
//
//   const EmbeddedFile* f = find_preset("hardware/gpus/", "h100-sxm");  // null if unknown
//   preset_names("workloads/models/");  // {"gpt2", "llama-3-8b", ...}, sorted
#pragma once

#include "common/embedded_files.h"

#include <string>
#include <string_view>
#include <vector>

namespace ridgeline {

// The embedded files directly named DIR + something, in build order.
std::vector<const EmbeddedFile*> presets_under(std::string_view dir);
// Their names (file names without ".json"), sorted.
std::vector<std::string> preset_names(std::string_view dir);
// The preset DIR + name + ".json"; null when there is none.
const EmbeddedFile* find_preset(std::string_view dir, const std::string& name);
// A user's value names a file rather than a preset: it holds a '/' or ends in ".json".
bool looks_like_path(const std::string& name_or_path);
// "a, b, c", for the list of known names in an error.
std::string joined_names(const std::vector<std::string>& names);

}  // namespace ridgeline
