// The JSON data files built into the binary (hardware/gpus/*.json, hardware/arch/*.json,
// workloads/models/*.json, workloads/runtimes/*.json), so that `ridgeline` finds its presets wherever it runs. Generated
// at build time by common/embed_files.cmake.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace ridgeline {

struct EmbeddedFile {
  std::string_view path;  // relative to the source tree, e.g. "hardware/gpus/h100-sxm.json"
  std::string_view text;
};

const std::vector<EmbeddedFile>& embedded_files();

}  // namespace ridgeline
