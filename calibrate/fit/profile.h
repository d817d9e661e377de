// Calibrated profiles (hardware/profiles/<gpu>.json): the parameters `ridgeline calibrate fit`
// found for one GPU, the hardware figures its microbenchmarks measured, with where and when.
// load_gpu() applies a GPU's own profile (fitted parameters and measured figures), or else the
// profile of another GPU of the same architecture (only its fitted efficiencies and latencies
// carry over; datasheet figures stay the GPU's own), and says which it used.
#pragma once

#include "calibrate/fit/fit.h"
#include "calibrate/fit/launch_fit.h"
#include "calibrate/fit/suite_figures.h"
#include "validate/scorecard.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ridgeline {

// One op family's held-out error before and after the fit.
struct FamilyFit {
  std::string family;
  int cases = 0;
  double before_mape = 0, after_mape = 0;
};

struct ProfileParts {
  FitResult fit;
  std::string source;                   // provenance of the fitted parameters
  std::optional<LaunchFit> eager;       // launch/python_eager_us, when workload runs were given
  std::vector<MeasuredFigure> figures;  // from the microbenchmark suite, when it was given
  std::vector<CrossCheck> checks;
  std::vector<FamilyFit> families;  // held-out, per op family (and memory-bound, all)
  std::vector<CaseResult> worst;    // the held-out cases furthest off after the fit
};

// The profile document: every fitted knob's path (tile scales expanded per tile) and value,
// the measured figures with their provenance, the fit's scores and the cross-checks.
nlohmann::ordered_json profile_json(const GpuSpec& gpu, const ProfileParts& parts);

}  // namespace ridgeline
