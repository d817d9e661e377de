// K-fold cross-fitted predictions of a profile's fit kernels; see cross_fit.h.
#include "calibrate/fit/cross_fit.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "hardware/gpu_load.h"
#include "hardware/profiles.h"
#include "model/op_cost.h"

#include <cstdint>

namespace ridgeline {

int fold_of(const std::string& id, int folds) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a, 64 bit
  for (unsigned char c : id) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return (int)(h % (std::uint64_t)folds);
}

CrossFitted cross_fit_kernels(const GpuSpec& profiled, const Dataset& data, int folds) {
  if (folds < 2)
    throw InputError("--folds: cross-fitting needs at least 2 folds, got " + std::to_string(folds));
  CrossFitted out;
  for (int k = 0; k < folds; ++k) {
    Dataset train{data.file, data.meta, {}, {}};
    std::vector<const Measurement*> left_out;
    for (const auto& m : data.records) {
      if (m.split != "fit") continue;
      if (fold_of(m.op.id, folds) == k)
        left_out.push_back(&m);
      else
        train.records.push_back(m);
    }
    FoldFit f{k, (int)train.records.size(), (int)left_out.size(), 0};
    if (!left_out.empty()) {
      FitResult r = fit_parameters(profiled, train, default_knobs(profiled));
      f.iterations = r.iterations;
      for (const Measurement* m : left_out)
        out.predicted_us[{m->op.id, m->measured_us}] = predict_op(m->op, r.fitted).time_us;
    }
    out.folds.push_back(f);
  }
  return out;
}

CrossFitKernels cross_fit_profiles(const std::vector<std::string>& items, int folds) {
  std::map<std::string, std::vector<std::string>> files;
  for (const auto& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw InputError("--cross-fit " + item + ": expected GPU=FILE");
    files[item.substr(0, eq)].push_back(item.substr(eq + 1));
  }
  CrossFitKernels out;
  for (const auto& [name, paths] : files) {
    GpuSpec gpu = load_gpu(name);
    if (gpu.calibration != ProfileKind::Own)
      throw InputError("--cross-fit " + name + ": has no calibrated profile of its own");
    ProfileUse use = find_profile(gpu.name, gpu.architecture, gpu.name);
    std::string source = string_or(use.doc, "source");
    for (const auto& p : paths)
      if (source.find(p) == std::string::npos)
        throw InputError("--cross-fit " + name + "=" + p + ": " + use.label +
                         " was not fitted on it (its source: " + source + ")");
    out[gpu.name] = cross_fit_kernels(gpu, load_datasets(paths), folds).predicted_us;
  }
  return out;
}

}  // namespace ridgeline
