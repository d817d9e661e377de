// Writing calibrated profiles; see profile.h (reading them is hardware/gpu_load.cpp's job).
#include "calibrate/fit/profile.h"

namespace ridgeline {

nlohmann::ordered_json profile_json(const GpuSpec& gpu, const FitResult& fit,
                                    const std::string& source) {
  nlohmann::ordered_json j;
  j["gpu"] = gpu.name;
  j["architecture"] = gpu.architecture;
  j["source"] = source;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const auto& p : fit.params) {
    if (p.path == "model/gemm/tiles") {
      for (size_t i = 0; i < fit.fitted.model.gemm.tiles.size(); ++i) {
        params["model/gemm/tiles/shapes/" + std::to_string(i) + "/efficiency"] =
            fit.fitted.model.gemm.tiles[i].efficiency;
      }
      continue;
    }
    params[p.path] = p.value;
    if (p.path == "model/gemm/align8_efficiency") params["model/gemm/align4_efficiency"] = p.value;
  }
  j["parameters"] = params;
  j["fit"] = {{"fit_mape_before", fit.before.fit_mape},
              {"fit_mape_after", fit.after.fit_mape},
              {"holdout_mape_before", fit.before.holdout_mape},
              {"holdout_mape_after", fit.after.holdout_mape},
              {"fit_cases", fit.after.fit_cases},
              {"holdout_cases", fit.after.holdout_cases}};
  return j;
}

}  // namespace ridgeline
