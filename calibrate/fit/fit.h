// Calibration fit: the model's few efficiency and latency parameters fitted to measured kernels
// by Levenberg-Marquardt least squares on log error (relative error, so a 2 us and a 2 ms kernel
// weigh the same), with every parameter kept inside physical bounds. Only the "fit" split is
// used; the report scores both splits before and after, so the held-out error is never fitted.
//
//   FitResult r = fit_parameters(gpu, data, default_knobs(gpu));
//   r.after.holdout_mape, r.params[i].previous / value
#pragma once

#include "hardware/gpu_spec.h"
#include "validate/dataset.h"  // the measured-kernel format is shared with validate/

#include <functional>
#include <string>
#include <vector>

namespace ridgeline {

// One fitted quantity: its JSON path in the GPU description (what the profile writes), bounds,
// and how to read and set it on a spec.
struct FitKnob {
  std::string path;  // e.g. "model/memory/hbm_efficiency"; tile scale writes each tile's efficiency
  double lo = 0, hi = 1;
  std::function<double(const GpuSpec&)> get;
  std::function<void(GpuSpec&, double)> set;
  bool lower_bound_is_neutral = false;  // ending at lo means "no such effect", not a problem
};

std::vector<FitKnob> default_knobs(const GpuSpec& gpu);

struct FitScore {
  double fit_mape = 0, holdout_mape = 0;
  int fit_cases = 0, holdout_cases = 0;
};

struct FittedParam {
  std::string path;
  double previous = 0, value = 0;
  bool at_bound = false;
  bool unconstrained = false;  // no fitted case depends on it: it kept its previous value
};

struct FitResult {
  std::vector<FittedParam> params;
  FitScore before, after;
  int iterations = 0;
  GpuSpec fitted;                     // the spec with the fitted values
  std::vector<std::string> warnings;  // loud problems: broken data, poor fit, parameters at bounds
};

// MAPE per split from (split, |predicted / measured - 1|) pairs.
FitScore score_errors(const std::vector<std::pair<std::string, double>>& split_errors);
FitScore score_fit(const GpuSpec& gpu, const Dataset& data);
FitResult fit_parameters(const GpuSpec& gpu, const Dataset& data,
                         const std::vector<FitKnob>& knobs);

// Measurements that look broken: implausibly fast times (below a launch, or faster than the
// datasheet roofline allows), or a huge spread between samples (p90 over kMaxSpread x p10; the
// committed data sets stay under 1.34). Returned as "id: why".
constexpr double kMaxSpread = 1.5;
std::vector<std::string> suspicious_measurements(const GpuSpec& gpu, const Dataset& data);

}  // namespace ridgeline
