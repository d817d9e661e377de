// Writing calibrated profiles; see profile.h (reading them is hardware/profiles.cpp's job).
#include "calibrate/fit/profile.h"

namespace ridgeline {

namespace {

nlohmann::ordered_json scores(const FitScore& before, const FitScore& after) {
  return {{"fit_mape_before", before.fit_mape},
          {"fit_mape_after", after.fit_mape},
          {"holdout_mape_before", before.holdout_mape},
          {"holdout_mape_after", after.holdout_mape},
          {"fit_cases", after.fit_cases},
          {"holdout_cases", after.holdout_cases}};
}

}  // namespace

nlohmann::ordered_json profile_json(const GpuSpec& gpu, const ProfileParts& parts) {
  const FitResult& fit = parts.fit;
  nlohmann::ordered_json j;
  j["gpu"] = gpu.name;
  j["architecture"] = gpu.architecture;
  j["source"] = parts.source;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const auto& p : fit.params) {
    if (p.unconstrained) continue;  // not fitted: the GPU keeps its prior
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
  if (parts.eager) params["launch/python_eager_us"] = parts.eager->value_us;
  j["parameters"] = params;
  if (!parts.figures.empty()) {
    nlohmann::ordered_json measured = nlohmann::ordered_json::object();
    for (const auto& f : parts.figures)
      measured[f.path] = {
          {"value", f.value}, {"source", f.source}, {"carries_over", f.carries_over}};
    j["measured"] = measured;
  }
  j["fit"] = scores(fit.before, fit.after);
  if (parts.eager) j["fit"]["eager_launch"] = scores(parts.eager->before, parts.eager->after);
  nlohmann::ordered_json families = nlohmann::ordered_json::object();
  for (const auto& f : parts.families) {
    families[f.family] = {
        {"holdout_cases", f.cases}, {"mape_before", f.before_mape}, {"mape_after", f.after_mape}};
  }
  j["fit"]["holdout_by_family"] = families;
  if (!parts.checks.empty()) {
    nlohmann::ordered_json checks = nlohmann::ordered_json::array();
    for (const auto& c : parts.checks) {
      checks.push_back({{"what", c.what},
                        {"measured", c.measured},
                        {"model", c.model},
                        {"unit", c.unit},
                        {"model_is", c.model_is}});
    }
    j["checks"] = checks;
  }
  return j;
}

}  // namespace ridgeline
