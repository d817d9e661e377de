// Calibrated profiles (hardware/profiles/<gpu>.json, written by `ridgeline calibrate fit`):
// fitted values of the model's parameters for one GPU, and hardware figures measured on it. A GPU
// uses its own profile; a GPU without one uses the profile of another GPU of its architecture
// (fitted efficiencies and latencies carry over; measured figures and datasheet figures stay the
// GPU's own); the spec records which (GpuSpec::profile).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ridgeline {

struct ProfileUse {
  nlohmann::json doc;       // null when no profile applies
  std::string label;        // where it was read from
  std::string description;  // "hardware/profiles/h100-sxm.json (own)", "none", ...
  bool own =
      false;  // taken on this GPU: all its measured figures apply, not only per-architecture ones
};

// `choice`: "" picks automatically, "none" uses no profile; else a profile file, or a built-in
// profile by name ("h100-sxm") or by the path outputs print ("hardware/profiles/h100-sxm.json";
// a file of that path on disk is read instead). An unknown name is an error listing the known.
ProfileUse find_profile(const std::string& gpu_name, const std::string& architecture,
                        const std::string& choice);

// Writes the profile's fitted values and its measured figures (for another GPU's profile, only
// those marked carries_over) into a GPU document (errors name the profile file and path).
// The built-in profiles' names ("h100-sxm", ...).
std::vector<std::string> profile_names();

void apply_profile(nlohmann::json& gpu_doc, const ProfileUse& profile);

}  // namespace ridgeline
