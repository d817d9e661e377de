// Cross-fitted predictions of a profile's own fit kernels, for prediction intervals
// (validate/interval_build.h). A calibrated profile's parameters were fitted (fit.h) on the fit
// split of its data, so measured / predicted over those same kernels is an in-sample residual:
// narrower than the error on a kernel the fit never saw, and an interval built from it covers
// less than it says. Cross-fitting (K-fold, as in CV+ / jackknife+) makes every fit residual
// out-of-sample:
//
//   each fit kernel is in fold hash(id) mod K (FNV-1a, so the same everywhere and every run);
//   for k in 0..K-1: refit the parameters (fit_parameters, starting from the committed profile)
//                    on the fit kernels outside fold k; predict fold k's kernels with that fit.
//
//   CrossFitted c = cross_fit_kernels(load_gpu("h100-sxm"), load_datasets(files), 5);
//   c.predicted_us.at({"gemm-4096", 812.3})  // a fit kernel, predicted without its own fold
//
// Only the parameters are refitted; the measured hardware figures stay the profile's (they come
// from microbenchmarks, not from the kernels).
#pragma once

#include "calibrate/fit/fit.h"
#include "validate/interval_build.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ridgeline {

// The fold of a measurement: FNV-1a of its id, mod `folds`.
int fold_of(const std::string& id, int folds);

struct FoldFit {
  int fold = 0, fit_cases = 0, predicted_cases = 0, iterations = 0;
};

struct CrossFitted {
  KernelPredictions predicted_us;  // by (id, measured_us), every fit kernel of the data
  std::vector<FoldFit> folds;
};

// `profiled`: the GPU with its own profile (the start of every refit). `data`: the kernels the
// profile was fitted on; only their fit split is read. Throws InputError for folds < 2.
CrossFitted cross_fit_kernels(const GpuSpec& profiled, const Dataset& data, int folds);

// `calibrate intervals --cross-fit GPU=FILE ...`: per GPU, cross_fit_kernels over its files with
// its own profile. Each FILE must be one its profile's "source" says it was fitted on (the
// cross-fit must repeat the fit that made the profile); a GPU without a profile of its own, or a
// malformed item, is an InputError naming the flag.
CrossFitKernels cross_fit_profiles(const std::vector<std::string>& items, int folds);

}  // namespace ridgeline
