// Which GPU a measurement file records, and the checks around --gpu; see recorded_device.h.
#include "validate/recorded_device.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "hardware/gpu_load.h"

#include <algorithm>

namespace ridgeline {

namespace {

std::string described(const RecordedDevice& d) {
  return d.file + " (" + d.json_path.substr(1) + " \"" + d.name + "\")";
}

}  // namespace

RecordedDevice recorded_device(const nlohmann::json& doc, const std::string& file) {
  RecordedDevice d;
  d.file = file;
  auto take = [&](const nlohmann::json& v, const char* path) {
    if (!d.name.empty() || !v.is_string() || v.get<std::string>().empty()) return;
    d.name = v.get<std::string>();
    d.json_path = path;
  };
  if (doc.is_object() && doc.contains("meta") && doc["meta"].is_object()) {
    const auto& meta = doc["meta"];
    if (meta.contains("device_name")) take(meta["device_name"], "/meta/device_name");
    if (meta.contains("device") && meta["device"].is_object() && meta["device"].contains("name"))
      take(meta["device"]["name"], "/meta/device/name");
  }
  if (doc.is_object() && doc.contains("deviceProperties") && doc["deviceProperties"].is_array() &&
      !doc["deviceProperties"].empty() && doc["deviceProperties"][0].is_object() &&
      doc["deviceProperties"][0].contains("name"))
    take(doc["deviceProperties"][0]["name"], "/deviceProperties/0/name");
  if (!d.name.empty()) d.preset = preset_for_device(d.name);
  return d;
}

RecordedDevice recorded_device(const std::string& path) {
  return recorded_device(read_json_file(path), path);
}

std::string gpu_of_recorded(const std::vector<RecordedDevice>& devices) {
  for (const auto& d : devices) {
    if (d.name.empty()) {
      throw InputError(d.file +
                       ": records no device (meta/device_name, meta/device/name or "
                       "deviceProperties/0/name); say which GPU it was measured on with --gpu");
    }
    if (d.preset.empty()) {
      std::string known;
      for (const auto& n : gpu_preset_names()) known += (known.empty() ? "" : ", ") + n;
      throw InputError(d.file + ": " + d.json_path + ": no GPU preset is a \"" + d.name +
                       "\" (presets: " + known + "); say which GPU it was measured on with --gpu");
    }
  }
  for (const auto& d : devices) {
    if (d.preset != devices.front().preset) {
      throw InputError("--data: the files were measured on different GPUs: " +
                       described(devices.front()) + " is " + devices.front().preset + ", " +
                       described(d) + " is " + d.preset + "; score one GPU at a time");
    }
  }
  return devices.at(0).preset;
}

void check_recorded_gpu(const GpuSpec& gpu, const std::vector<RecordedDevice>& devices,
                        const std::string& flag, const std::string& advice) {
  for (const auto& d : devices) {
    if (d.name.empty()) continue;
    bool claims = std::find(gpu.device_names.begin(), gpu.device_names.end(), d.name) !=
                  gpu.device_names.end();
    if (claims || d.preset.empty() || d.preset == gpu.name) continue;
    // A GPU file of the user's own may be this card under another name: it says so by name.
    std::string own_file = gpu.file.rfind("hardware/gpus/", 0) == 0
                               ? ""
                               : " (a GPU file of your own that describes this card says so "
                                 "with \"device_names\": [\"" +
                                     d.name + "\"])";
    throw InputError(flag + ": " + described(d) + " was measured on " + d.preset + ", not " +
                     gpu.name + own_file + "; " +
                     (advice.empty() ? "leave --gpu out or give --gpu " + d.preset +
                                           " (to predict it with another GPU's calibration, "
                                           "give --profile)"
                                     : advice));
  }
}

}  // namespace ridgeline
