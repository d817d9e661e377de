// The GPU a measurement file was taken on. Data sets (validate/data/*.json) record the driver's
// device name in their meta ("meta/device_name", or "meta/device/name" in ridgeline-gpu-bench
// files), PyTorch profiler traces in "deviceProperties/0/name"; a preset claims the names it
// answers to ("device_names" in hardware/gpus/*.json). `validate` and `calibrate fit` take their
// GPU from there when --gpu is not given, and refuse a --gpu that contradicts the files, so an
// H200's data is never scored or fitted as an H100's by default. Predicting one GPU with another's
// calibration stays possible through --profile.
#pragma once

#include "hardware/gpu_spec.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ridgeline {

struct RecordedDevice {
  std::string file;
  std::string json_path;  // where the name was found ("/meta/device_name"); "" when none
  std::string name;       // "NVIDIA H200"; "" when the file records none
  std::string preset;     // the preset claiming it; "" when none does
};

// From a parsed data set or trace.
RecordedDevice recorded_device(const nlohmann::json& doc, const std::string& file);
// Reads the file (errors name it).
RecordedDevice recorded_device(const std::string& path);

// The GPU to load for files recorded on `devices`: their one preset. Errors (asking for --gpu)
// when a file records no device or one no preset claims, or when the files name different GPUs.
std::string gpu_of_recorded(const std::vector<RecordedDevice>& devices);

// Refuses a GPU (given as `flag`, e.g. "--gpu h100-sxm") that is not the one a file was measured
// on; `advice` ends the message (default: leave out --gpu, or use --profile). A device no preset
// claims is accepted on the user's word.
void check_recorded_gpu(const GpuSpec& gpu, const std::vector<RecordedDevice>& devices,
                        const std::string& flag, const std::string& advice = "");

}  // namespace ridgeline
