// The step sizes a serving run's intervals are taken at (validate/output_intervals.h): a prefill
// of the run's mean prompt, a decode of its mean batch (output tokens over steps) over the mean
// cache length (prompt + half the output). Shared by `serve` and `capacity`.
#pragma once

#include "serve/metrics.h"
#include "validate/output_intervals.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

inline ServingIntervals run_intervals(const GpuSpec& gpu, const ModelConfig& model,
                                      const RunConfig& run, const ServeReport& r) {
  const double requests = (double)std::max<int64_t>(1, r.requests);
  const double prompt = (double)r.input_tokens / requests;
  const double output = (double)r.output_tokens / requests;
  const auto batch =
      (int64_t)std::llround((double)r.output_tokens / (double)std::max<int64_t>(1, r.steps));
  return serving_intervals(builtin_interval_table(), gpu, model, run,
                           std::max<int64_t>(1, std::llround(prompt)), std::max<int64_t>(1, batch),
                           std::max<int64_t>(1, std::llround(prompt + output / 2)));
}

}  // namespace ridgeline
