// Fitting the host's eager launch cost (launch/python_eager_us): the CPU time a Python framework
// spends issuing one kernel in eager mode. It is not a property of the GPU but of the host CPU,
// the framework version and the model code, so it is fitted to whole-model eager runs on the
// machine in question (validate/data/*-models-*.json), over their fit split only, after the
// kernel parameters are fitted. One parameter, so a golden-section search on the summed squared
// log error is enough; the report scores eager runs of both splits before and after.
//
//   LaunchFit f = fit_python_eager(fitted_gpu, workloads);
//   f.previous_us 20.0 -> f.value_us 17.3; eager held-out MAPE 11.8% -> 7.9%
#pragma once

#include "calibrate/fit/fit.h"
#include "validate/workload_dataset.h"

namespace ridgeline {

struct LaunchFit {
  double previous_us = 0, value_us = 0;
  FitScore before, after;  // eager runs only
  bool at_bound = false;
};

constexpr double kMinEagerLaunchUs = 0.5, kMaxEagerLaunchUs = 200;

// Throws InputError when the data holds no eager run in its fit split.
LaunchFit fit_python_eager(const GpuSpec& gpu, const WorkloadDataset& data);

}  // namespace ridgeline
