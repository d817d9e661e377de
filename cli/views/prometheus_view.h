// Prometheus exposition text of a workload: what ridgeline expects of one step (step time,
// tokens/s, MFU, time per layer and per bound) and, for a measured run (a profiler trace), the
// same figures as measured, under the same labels, so an alert can divide one by the other
// (kernel time is compared with predicted kernel time, a step's span with its predicted time):
//   ridgeline_expected_step_seconds{gpu="h100-sxm",model="Llama-3-8B",phase="decode",batch="32",...}
// The labels come from the prediction's JSON document (predict --format json): gpu, model,
// phase, batch, seq, kv_len, weights, runtime, launch, and job when --job names one.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace ridgeline {

struct PrometheusRun {
  nlohmann::json prediction;    // predict's --format json document (one GPU or a cluster)
  double peak_flops_per_s = 0;  // the dense peak MFU is measured against (0: no MFU)
  std::string job;              // --job ("" : no job label)
};

struct MeasuredLayer {
  std::string section;
  long long layer = -1;
  double kernel_us = 0, predicted_kernel_us = 0;  // the layer's matched kernels; their prediction
};
// A step as a profiler trace shows it: its span (first kernel start to last kernel end, launch
// gaps included, as a step's predicted time is), its kernel time beside the predicted kernel time
// (launch gaps left out on both sides), and the same per layer where kernels matched ops.
struct MeasuredStep {
  double span_us = 0;
  double kernel_us = 0, predicted_kernel_us = 0;
  std::vector<MeasuredLayer> layers;
};

void print_expected_prometheus(std::ostream& os, const PrometheusRun& run);
void print_measured_prometheus(std::ostream& os, const PrometheusRun& run, const MeasuredStep& m);

}  // namespace ridgeline
