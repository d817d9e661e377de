// Loading a GPU description: a preset name (the JSON files under hardware/gpus/, built into the
// binary) or a path to a file of the same schema. The GPU's file names its architecture, whose
// file under hardware/arch/ gives the model parameters' defaults; the GPU file's optional
// "model" object overrides some of them; what-if overrides (`--set path=value`) come last.
// Each stage is validated on its own, so every error names the file, or the flag, at fault.
#pragma once

#include "hardware/gpu_spec.h"

#include <string>
#include <vector>

namespace ridgeline {

// `name_or_path`: a preset name ("h100-sxm") or a path to a .json file.
// `overrides`: "memory.hbm.bandwidth_GBps=4800"-style what-ifs; dots or slashes separate keys,
// a numeric key indexes an array, and the value is JSON (a bare word is taken as a string), or
// relative to the figure after the profile: "+30%", "-10%", "1.3x". Stated peaks follow what-ifs
// of SMs, clocks and ops/clk unless a what-if sets them too.
// `profile`: "" applies the GPU's calibrated profile (or its architecture's), "none" none, a
// built-in profile's name ("h100-sxm") or printed path, or a path to a profile file.
GpuSpec load_gpu(const std::string& name_or_path, const std::vector<std::string>& overrides = {},
                 const std::string& profile = "");

// Parses GPU text as if it were the file `label` (for tests and for files already in memory).
GpuSpec load_gpu_text(const std::string& text, const std::string& label,
                      const std::vector<std::string>& overrides = {},
                      const std::string& profile = "");

std::vector<std::string> gpu_preset_names();
// The preset whose "device_names" holds `device_name` (what the driver calls the card, e.g.
// "NVIDIA H200"), or "" when none does.
std::string preset_for_device(const std::string& device_name);
std::vector<std::string> architecture_names();

}  // namespace ridgeline
