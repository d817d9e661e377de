// The whole of `ridgeline calibrate fit` as one library call, so the CLI and the tests that
// reproduce the committed profiles run the same steps:
//   1. the microbenchmark suite's raw points become measured hardware figures (suite_figures.h)
//      and replace the description's datasheet/published values;
//   2. the model's parameters are fitted to the measured kernels' fit split (fit.h);
//   3. with workload runs given, the eager launch cost is fitted to their eager runs
//      (launch_fit.h);
//   4. the suite's other points are set beside the fitted values as cross-checks.
// Loud problems (broken-looking points, clocks that moved during a run, a poor fit, parameters at
// bounds) are collected; the caller decides whether a profile may still be written.
#pragma once

#include "calibrate/fit/profile.h"

#include <string>
#include <vector>

namespace ridgeline {

struct CalibrationInputs {
  std::vector<std::string> data;       // measured kernels: PyTorch data sets or suite files
  std::vector<std::string> hardware;   // suite files for figures; empty: the suite files in data
  std::vector<std::string> workloads;  // whole-model runs for the eager launch cost; optional
};

struct Calibration {
  ProfileParts parts;
  size_t kernels = 0;                 // measured kernels read (both splits)
  std::vector<std::string> problems;  // each a warning; non-empty: no profile without --force
  Scorecard before, after;            // every measured kernel, both splits, before and after
};

// `start`: the GPU description without any profile (the architecture's priors).
Calibration calibrate(const GpuSpec& start, const CalibrationInputs& in);

}  // namespace ridgeline
