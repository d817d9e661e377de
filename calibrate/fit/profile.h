// Calibrated profiles (hardware/profiles/<gpu>.json): the parameters `ridgeline calibrate fit`
// found for one GPU, with where and when they were measured. load_gpu() applies a GPU's own
// profile, or else the profile of another GPU of the same architecture (its efficiencies and
// latencies carry over; its datasheet figures stay the GPU's own), and says which it used.
#pragma once

#include "calibrate/fit/fit.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ridgeline {

// The profile document for a fit: every knob's path (tile scales expanded per tile) and value.
nlohmann::ordered_json profile_json(const GpuSpec& gpu, const FitResult& fit,
                                    const std::string& source);

}  // namespace ridgeline
